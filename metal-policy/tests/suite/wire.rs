//! The policy client over real HTTP (reqwest through `metal-api`'s default
//! exchange) against httpmock: classification of real replies, the
//! requests on the wire, redirects and body bounds. No backoff sleeps: a
//! client here gives up at the first retry unless a test says otherwise.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::Fixed;
use httpmock::prelude::*;
use metal_api::types;
use metal_policy::{AttemptError, Client, ClientBuilder, Error, Fields, KeyOwner, Metal};
use uuid::Uuid;

const TOKEN: &str = "wire-test-secret-token";

fn config(base_url: String) -> metal_api::ConfigBuilder {
    metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(base_url)
}

/// A client that never retries (the backoff gives up at once) and has no
/// client-side rate limit.
fn builder(config: metal_api::ConfigBuilder) -> ClientBuilder {
    Client::builder()
        .config(config.build().unwrap())
        .api_rate(Duration::ZERO)
        .backoff(Arc::new(Fixed(Duration::ZERO, Some(0))))
}

fn client(server: &MockServer) -> Client {
    builder(config(server.base_url())).build().unwrap()
}

/// The error of a GET of a device that gets the scripted reply.
async fn get_device_error(server: &MockServer, id: Uuid) -> Error {
    client(server)
        .get_device(id, &Fields::default())
        .await
        .unwrap_err()
}

#[tokio::test]
async fn status_429_with_retry_after_is_throttled() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(429).header("Retry-After", "17");
        })
        .await;
    let err = get_device_error(&server, id).await;
    assert!(
        matches!(err, Error::GaveUp { attempts: 1, source: AttemptError::Throttled { status: 429, retry_after: Some(d) }, .. } if d == Duration::from_secs(17)),
        "{err:?}"
    );
}

#[tokio::test]
async fn status_429_with_rate_limit_reset_is_throttled() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(429).header("X-RateLimit-Reset", "9");
        })
        .await;
    let err = get_device_error(&server, id).await;
    assert!(
        matches!(err, Error::GaveUp { source: AttemptError::Throttled { retry_after: Some(d), .. }, .. } if d == Duration::from_secs(9)),
        "{err:?}"
    );
}

#[tokio::test]
async fn status_503_is_throttled_only_with_retry_after() {
    let server = MockServer::start_async().await;
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{a}"));
            then.status(503).header("Retry-After", "3");
        })
        .await;
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{b}"));
            then.status(503).body("overloaded");
        })
        .await;
    // A client each: the first one's pause would hold the second request.
    let err = get_device_error(&server, a).await;
    assert!(
        matches!(
            err,
            Error::GaveUp {
                source: AttemptError::Throttled { status: 503, .. },
                ..
            }
        ),
        "{err:?}"
    );
    let err = get_device_error(&server, b).await;
    assert!(
        matches!(
            &err,
            Error::GaveUp {
                source: AttemptError::Unknown {
                    status: Some(503),
                    detail,
                    ..
                },
                ..
            } if detail.contains("overloaded")
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn html_502_from_a_proxy_is_an_unknown_outcome() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let m = server
        .mock_async(|when, then| {
            when.method(POST).path(format!("/devices/{id}/actions"));
            then.status(502)
                .header("content-type", "text/html")
                .body("<html><body>Bad Gateway</body></html>");
        })
        .await;
    // Through the client: a reboot is not repeated, whatever the backoff.
    let c = builder(config(server.base_url()))
        .backoff(Arc::new(Fixed(Duration::ZERO, Some(5))))
        .build()
        .unwrap();
    let err = c.reboot_device(id).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                operation: "performAction",
                attempts: 1,
                source: AttemptError::Unknown {
                    status: Some(502),
                    ..
                }
            }
        ),
        "{err:?}"
    );
    assert_eq!(m.calls_async().await, 1);
}

#[tokio::test]
async fn documented_404_is_rejected_with_the_server_messages() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let m = server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(404)
                .json_body(serde_json::json!({"errors": ["Not found"], "error": "nope"}));
        })
        .await;
    match get_device_error(&server, id).await {
        Error::Rejected {
            status: 404,
            messages,
            ..
        } => assert_eq!(messages, ["Not found", "nope"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls_async().await, 1, "not retried");
}

#[tokio::test]
async fn undocumented_400_and_409_are_rejected_not_retried() {
    let server = MockServer::start_async().await;
    for status in [400u16, 409] {
        let id = Uuid::new_v4();
        let m = server
            .mock_async(|when, then| {
                when.method(GET).path(format!("/devices/{id}"));
                then.status(status)
                    .json_body(serde_json::json!({"errors": ["bad input"]}));
            })
            .await;
        let err = get_device_error(&server, id).await;
        assert!(
            matches!(&err, Error::Rejected { status: s, messages, .. } if *s == status && messages == &["bad input"]),
            "{err:?}"
        );
        assert_eq!(m.calls_async().await, 1);
    }
}

#[tokio::test]
async fn success_with_a_body_that_does_not_decode_is_permanent_with_its_status() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let m = server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(200).body("not json");
        })
        .await;
    let err = get_device_error(&server, id).await;
    assert!(
        matches!(
            &err,
            Error::Decode {
                operation: "findDeviceById",
                status: 200,
                detail,
            } if detail.contains("not json")
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("HTTP 200"), "{err}");
    assert_eq!(m.calls_async().await, 1);
}

#[tokio::test]
async fn documented_404_with_a_non_json_body_stays_a_permanent_404() {
    // The generated client cannot decode the documented error body; the
    // status the exchange saw still classifies it: a refusal, not retried
    // as if the server might have acted.
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let m = server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(404).body("<html>not here</html>");
        })
        .await;
    let err = get_device_error(&server, id).await;
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(m.calls_async().await, 1);
}

#[tokio::test]
async fn connection_refused_is_not_sent() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let base = format!("http://127.0.0.1:{port}");
    let err = builder(config(base.clone()))
        .build()
        .unwrap()
        .get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::GaveUp {
                source: AttemptError::NotSent { .. },
                ..
            }
        ),
        "{err:?}"
    );
    // Even a reboot is retried when nothing was sent; the backoff then
    // gives up, and nothing shows the token.
    let c = builder(config(base))
        .backoff(Arc::new(Fixed(Duration::ZERO, Some(5))))
        .build()
        .unwrap();
    let err = c.reboot_device(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::GaveUp {
                attempts: 6,
                source: AttemptError::NotSent { .. },
                ..
            }
        ),
        "{err:?}"
    );
    let shown = format!("{err} {err:?} {c:?}");
    assert!(!shown.contains(TOKEN), "{shown}");
}

#[tokio::test]
async fn create_device_on_the_wire_creates_once_then_reads_the_reservation_with_its_device_after_a_refusal(
) {
    let server = MockServer::start_async().await;
    let (project, free, taken, device, theirs) = (
        Uuid::new_v4(),
        Uuid::new_v4(),
        Uuid::new_v4(),
        Uuid::new_v4(),
        Uuid::new_v4(),
    );
    let lookup = |reservation: Uuid, body: serde_json::Value| {
        let server = &server;
        async move {
            server
                .mock_async(|when, then| {
                    when.method(GET)
                        .path(format!("/hardware-reservations/{reservation}"))
                        .query_param("include", "device")
                        .header("x-auth-token", TOKEN);
                    then.status(200).json_body(body);
                })
                .await
        }
    };
    let free_lookup = lookup(free, serde_json::json!({"id": free.to_string()})).await;
    let taken_lookup = lookup(
        taken,
        serde_json::json!({
            "id": taken.to_string(),
            "device": {"id": theirs.to_string(), "tags": ["someone-else"]},
        }),
    )
    .await;
    let create = server
        .mock_async(|when, then| {
            when.method(POST)
                .path(format!("/projects/{project}/devices"))
                .header("x-auth-token", TOKEN)
                .body_includes("wrapngo-idempotency-")
                .body_includes("caller-tag")
                .body_includes(free.to_string());
            then.status(201)
                .json_body(serde_json::json!({"id": device.to_string(), "state": "queued"}));
        })
        .await;
    let refused = server
        .mock_async(|when, then| {
            when.method(POST)
                .path(format!("/projects/{project}/devices"))
                .body_includes(taken.to_string());
            then.status(422).json_body(serde_json::json!({
                "errors": ["Hardware reservation already has a device provisioned on it"]
            }));
        })
        .await;
    let request = |reservation: Uuid| {
        types::CreateDeviceRequest::MetroInput(
            serde_json::from_value(serde_json::json!({
                "metro": "am",
                "plan": "m3.small.x86",
                "operating_system": "custom_ipxe",
                "hardware_reservation_id": reservation.to_string(),
                "tags": ["caller-tag"],
            }))
            .unwrap(),
        )
    };
    let c = client(&server);
    let d = c.create_device(project, &request(free)).await.unwrap();
    assert_eq!(d.id, Some(device));
    assert_eq!(create.calls_async().await, 1);
    assert_eq!(
        free_lookup.calls_async().await,
        0,
        "a first attempt only creates"
    );

    let err = c.create_device(project, &request(taken)).await.unwrap_err();
    assert!(
        matches!(err, Error::RaceLost { reservation, device: Some(d) } if reservation == taken && d == theirs),
        "{err:?}"
    );
    assert_eq!(refused.calls_async().await, 1);
    assert_eq!(
        taken_lookup.calls_async().await,
        1,
        "one read tells the race lost"
    );
}

#[tokio::test]
async fn lists_on_the_wire_follow_pages_with_per_page() {
    let server = MockServer::start_async().await;
    let project = Uuid::new_v4();
    let ids: Vec<Uuid> = (0..3).map(|_| Uuid::new_v4()).collect();
    for page in 1..=3u32 {
        let id = ids[page as usize - 1];
        server
            .mock_async(|when, then| {
                when.method(GET)
                    .path(format!("/projects/{project}/hardware-reservations"))
                    .query_param("page", page.to_string())
                    .query_param("per_page", "1")
                    .query_param("include", "facility,device");
                then.status(200).json_body(serde_json::json!({
                    "hardware_reservations": [{"id": id.to_string()}],
                    "meta": {"current_page": page, "last_page": 3, "total": 3},
                }));
            })
            .await;
    }
    let c = builder(config(server.base_url()))
        .per_page(1)
        .build()
        .unwrap();
    let got: Vec<Uuid> = c
        .list_reservations(project)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id.unwrap())
        .collect();
    assert_eq!(got, ids);
}

#[tokio::test]
async fn ssh_key_create_on_the_wire_lists_first() {
    let server = MockServer::start_async().await;
    let existing = Uuid::new_v4();
    let list = server
        .mock_async(|when, then| {
            when.method(GET).path("/ssh-keys");
            then.status(200).json_body(serde_json::json!({"ssh_keys": [
                {"id": existing.to_string(), "label": "deploy", "key": "ssh-ed25519 AAAA"}
            ]}));
        })
        .await;
    let create = server
        .mock_async(|when, then| {
            when.method(POST).path("/ssh-keys");
            then.status(201).json_body(serde_json::json!({}));
        })
        .await;
    let input = types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some("ssh-ed25519 AAAA".into()),
        label: Some("deploy".into()),
        tags: vec![],
    };
    let k = client(&server)
        .create_ssh_key(KeyOwner::User, &input)
        .await
        .unwrap();
    assert_eq!(k.id, Some(existing));
    assert_eq!(list.calls_async().await, 1);
    assert_eq!(create.calls_async().await, 0);
}

#[tokio::test]
async fn ssh_key_create_refused_with_fingerprint_taken_reads_again_on_the_wire() {
    // Another process created the same key between our list and our
    // create: the API's 422, then the key on the second read.
    let server = MockServer::start_async().await;
    let existing = Uuid::new_v4();
    let empty = server
        .mock_async(|when, then| {
            when.method(GET)
                .path(format!("/projects/{existing}/ssh-keys"));
            then.status(200)
                .json_body(serde_json::json!({"ssh_keys": []}));
        })
        .await;
    let create = server
        .mock_async(|when, then| {
            when.method(POST)
                .path(format!("/projects/{existing}/ssh-keys"));
            then.status(422)
                .json_body(serde_json::json!({"errors": ["Fingerprint has already been taken"]}));
        })
        .await;
    let c = client(&server);
    let input = types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some("ssh-ed25519 AAAA".into()),
        label: Some("deploy".into()),
        tags: vec![],
    };
    // With the list still empty, the 422 stands.
    let err = c
        .create_ssh_key(KeyOwner::Project(existing), &input)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Rejected { operation: "createProjectSSHKey", status: 422, messages } if messages == &["Fingerprint has already been taken"]),
        "{err:?}"
    );
    assert_eq!(empty.calls_async().await, 2, "listed again after the 422");
    empty.delete_async().await;
    let listed = server
        .mock_async(|when, then| {
            when.method(GET)
                .path(format!("/projects/{existing}/ssh-keys"));
            then.status(200).json_body(serde_json::json!({"ssh_keys": [
                {"id": existing.to_string(), "label": "deploy", "key": "ssh-ed25519 AAAA"}
            ]}));
        })
        .await;
    let k = c
        .create_ssh_key(KeyOwner::Project(existing), &input)
        .await
        .unwrap();
    assert_eq!(k.id, Some(existing));
    assert_eq!(listed.calls_async().await, 1);
    assert_eq!(create.calls_async().await, 1);
}

#[tokio::test]
async fn generic_and_raw_calls_carry_the_token_and_the_spec_path() {
    let server = MockServer::start_async().await;
    let keys = server
        .mock_async(|when, then| {
            when.method(GET)
                .path("/ssh-keys")
                .header("x-auth-token", TOKEN);
            then.status(200).json_body(serde_json::json!({"ssh_keys": [
                {"label": "deploy"}
            ]}));
        })
        .await;
    let registry = prometheus::Registry::new();
    let c = builder(config(server.base_url()))
        .registry(registry.clone())
        .build()
        .unwrap();
    let list = c.call(|api| api.find_ssh_keys().send()).await.unwrap();
    assert_eq!(list.ssh_keys[0].label.as_deref(), Some("deploy"));
    let raw = c.api().find_ssh_keys().send().await.unwrap();
    assert_eq!(raw.status().as_u16(), 200);
    assert_eq!(keys.calls_async().await, 2);
    let text = common::metrics_text(&registry);
    common::assert_lines(
        &text,
        &[r#"equinix_api_requests_total{endpoint="findSSHKeys",status_code="200"} 2"#],
    );
}

#[tokio::test]
async fn redirects_are_not_followed_and_the_token_stays_home() {
    // Cross-port (another server on the same host) and cross-host
    // (`localhost` for `127.0.0.1`) redirects: each is a permanent refusal
    // naming where it pointed, and the other server sees nothing.
    let server = MockServer::start_async().await;
    let elsewhere = MockServer::start_async().await;
    let catch_all = elsewhere
        .mock_async(|_, then| {
            then.status(200).json_body(serde_json::json!({}));
        })
        .await;
    let cross_port = elsewhere.url("/steal");
    let cross_host = format!("http://localhost:{}/steal", elsewhere.port());
    for (status, location) in [
        (302u16, &cross_port),
        (307, &cross_host),
        (301, &cross_host),
    ] {
        let id = Uuid::new_v4();
        let m = server
            .mock_async(|when, then| {
                when.method(GET).path(format!("/devices/{id}"));
                then.status(status).header("Location", location.as_str());
            })
            .await;
        let err = get_device_error(&server, id).await;
        match &err {
            Error::Rejected {
                status: s,
                messages,
                ..
            } => {
                assert_eq!(*s, status);
                assert!(
                    messages.iter().any(|m| m.contains(location.as_str())),
                    "{messages:?}"
                );
            }
            other => panic!("HTTP {status}: {other:?}"),
        }
        assert_eq!(m.calls_async().await, 1, "not retried");
    }
    assert_eq!(catch_all.calls_async().await, 0, "never followed");
}

#[tokio::test]
async fn a_reply_over_the_configured_bound_is_too_large() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let big = serde_json::json!({
        "id": id.to_string(),
        "description": "x".repeat(10_000),
    });
    let m = server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(200).json_body(big);
        })
        .await;
    let c = builder(config(server.base_url()).max_body(1024))
        .backoff(Arc::new(Fixed(Duration::ZERO, Some(5))))
        .build()
        .unwrap();
    let err = c.get_device(id, &Fields::default()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::TooLarge {
                operation: "findDeviceById",
                status: 200,
                limit: 1024
            }
        ),
        "{err:?}"
    );
    assert_eq!(m.calls_async().await, 1, "permanent: not retried");
    // The same reply within the default bound is read.
    let d = client(&server)
        .get_device(id, &Fields::default())
        .await
        .unwrap();
    assert_eq!(d.id, Some(id));
}

#[tokio::test]
async fn a_reply_refused_by_the_exchange_is_counted_with_its_status() {
    // A redirect and a body over the bound are replies: the server
    // answered 302 and 200. `equinix_api_requests_total` and
    // `equinix_api_latency` label a request with the reply's status, and
    // `none` only "when no reply arrived" (metrics.rs).
    let server = MockServer::start_async().await;
    let (moved, big) = (Uuid::new_v4(), Uuid::new_v4());
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{moved}"));
            then.status(302)
                .header("Location", "http://elsewhere.invalid/");
        })
        .await;
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{big}"));
            then.status(200).body("x".repeat(2048));
        })
        .await;
    let registry = prometheus::Registry::new();
    let c = builder(config(server.base_url()).max_body(1024))
        .registry(registry.clone())
        .build()
        .unwrap();
    let err = c.get_device(moved, &Fields::default()).await.unwrap_err();
    assert_eq!(err.status(), Some(302), "{err:?}");
    let err = c.get_device(big, &Fields::default()).await.unwrap_err();
    assert_eq!(err.status(), Some(200), "{err:?}");
    let text = common::metrics_text(&registry);
    common::assert_lines(
        &text,
        &[
            r#"equinix_api_requests_total{endpoint="findDeviceById",status_code="302"} 1"#,
            r#"equinix_api_requests_total{endpoint="findDeviceById",status_code="200"} 1"#,
        ],
    );
    assert!(!text.contains(r#"status_code="none""#), "{text}");
}
