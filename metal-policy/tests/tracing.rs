//! Tracing output, in a test binary of its own: tracing caches which
//! callsites are enabled, and tests registering the same spans on other
//! threads with no subscriber would switch them off here.

use std::sync::Arc;
use std::time::Duration;

use httpmock::prelude::*;
use metal_policy::{Client, Error, Fields, Metal};
use uuid::Uuid;

const TOKEN: &str = "tracing-test-secret-token";

fn client(server: &MockServer) -> Client {
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.base_url())
        .build()
        .unwrap();
    Client::builder()
        .config(config)
        .api_rate(Duration::ZERO)
        .build()
        .unwrap()
}

/// A `MakeWriter` that appends to a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn traces_name_operation_attempt_status_and_never_the_token() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(401)
                .json_body(serde_json::json!({"errors": ["Invalid authentication token"]}));
        })
        .await;
    let err = client(&server)
        .get_device(id, &Fields::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Rejected { status: 401, .. }));

    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("metal_call"), "{text}");
    assert!(text.contains("metal_attempt"), "{text}");
    assert!(text.contains("operation=\"findDeviceById\""), "{text}");
    assert!(text.contains("attempt=1"), "{text}");
    assert!(text.contains("status=401"), "{text}");
    assert!(!text.contains(TOKEN), "token leaked:\n{text}");
    assert!(!format!("{err} {err:?}").contains(TOKEN));
}
