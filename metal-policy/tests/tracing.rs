//! Tracing output, in a test binary of its own: tracing caches which
//! callsites are enabled, and tests registering the same spans on other
//! threads with no subscriber would switch them off here. One test, so
//! nothing else runs meanwhile.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{trace, Fixed, Reply, Script};
use httpmock::prelude::*;
use metal_policy::{Client, Error, Fields, Metal};
use uuid::Uuid;

const TOKEN: &str = "tracing-test-secret-token";

fn config(base_url: &str) -> metal_api::Config {
    metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(base_url)
        .allow_insecure_http(true)
        .build()
        .unwrap()
}

/// The lines that close a span named `name`.
fn closing<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!("{name}{{");
    text.lines()
        .filter(|l| l.ends_with("close") || l.contains(": close"))
        .filter(|l| {
            // The innermost span of the line is the one closing.
            l.rfind(&needle)
                .is_some_and(|i| !l[i..].contains("}:metal_"))
        })
        .collect()
}

#[tokio::test]
async fn traces_carry_otel_fields_and_never_the_token() {
    let (captured, _guard) = trace::capture(tracing::Level::TRACE);

    // Over HTTP: a refusal, one attempt.
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(401)
                .json_body(serde_json::json!({"errors": ["Invalid authentication token"]}));
        })
        .await;
    let client = Client::builder()
        .config(config(&server.base_url()))
        .api_rate(Duration::ZERO)
        .build()
        .unwrap();
    let err = client.get_device(id, &Fields::default()).await.unwrap_err();
    assert!(matches!(err, Error::Rejected { status: 401, .. }));
    let text = captured.take();
    let call = closing(&text, "metal_call");
    let attempt = closing(&text, "metal_attempt");
    let request = closing(&text, "metal_request");
    assert_eq!(
        (call.len(), attempt.len(), request.len()),
        (1, 1, 1),
        "{text}"
    );
    for field in [r#"operation="findDeviceById""#, "attempts=1"] {
        assert!(call[0].contains(field), "{field} in {}", call[0]);
    }
    for field in [
        r#"operation="findDeviceById""#,
        "attempt=1",
        r#"otel.kind="client""#,
        "http.request.resend_count=0",
        r#"error.type="rejected""#,
    ] {
        assert!(attempt[0].contains(field), "{field} in {}", attempt[0]);
    }
    for field in [
        r#"operation="findDeviceById""#,
        r#"otel.kind="client""#,
        r#"http.request.method="GET""#,
        "http.response.status_code=401",
        "wait_ms=0",
    ] {
        assert!(request[0].contains(field), "{field} in {}", request[0]);
    }
    assert!(!text.contains(TOKEN), "token leaked:\n{text}");
    assert!(!format!("{err} {err:?}").contains(TOKEN));

    // In process, with the token among the headers: never sent, then no
    // usable reply (whose message echoes the token, logged as the retry's
    // reason), then a success.
    let script = Script::new(Duration::ZERO, |op, _, n| match n {
        0 => Reply::NotSent,
        1 => Reply::errors(502, &[&format!("bad gateway for {TOKEN}")]),
        _ => Reply::ok(op, metal_api::types::SshKeyList::default()),
    });
    let config = config(common::BASE_URL);
    let api = metal_api::Client::over(
        common::BASE_URL,
        config.default_headers().clone(),
        script.clone(),
    )
    .unwrap();
    let client = Client::builder()
        .api(api)
        .api_rate(Duration::ZERO)
        .backoff(Arc::new(Fixed(Duration::ZERO, None)))
        .build()
        .unwrap();
    client.call(|api| api.find_ssh_keys().send()).await.unwrap();
    assert_eq!(script.requests().len(), 3);
    let text = captured.take();
    let call = closing(&text, "metal_call");
    let attempts = closing(&text, "metal_attempt");
    let requests = closing(&text, "metal_request");
    assert_eq!(
        (call.len(), attempts.len(), requests.len()),
        (1, 3, 3),
        "{text}"
    );
    for field in [r#"operation="findSSHKeys""#, "attempts=3"] {
        assert!(call[0].contains(field), "{field} in {}", call[0]);
    }
    for (i, (attempt, error)) in attempts
        .iter()
        .zip([Some("not_sent"), Some("unknown"), None])
        .enumerate()
    {
        assert!(attempt.contains(&format!("attempt={}", i + 1)), "{attempt}");
        assert!(
            attempt.contains(&format!("http.request.resend_count={i}")),
            "{attempt}"
        );
        match error {
            Some(e) => assert!(
                attempt.contains(&format!(r#"error.type="{e}""#)),
                "{attempt}"
            ),
            None => assert!(!attempt.contains("error.type"), "{attempt}"),
        }
    }
    // No reply, no status: the field is left empty, never 0.
    assert!(
        !requests[0].contains("http.response.status_code"),
        "{}",
        requests[0]
    );
    assert!(
        requests[1].contains("http.response.status_code=502"),
        "{}",
        requests[1]
    );
    assert!(
        requests[2].contains("http.response.status_code=200"),
        "{}",
        requests[2]
    );
    assert!(!text.contains(TOKEN), "token leaked:\n{text}");
    assert!(text.contains("bad gateway for <redacted>"), "{text}");
}
