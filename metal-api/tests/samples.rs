//! Every operation's sample call (`metal_api::samples`) is sent, as that
//! operation: its placeholders decode, the request carries the operation's
//! method and a path of its template, the exchange is told the right
//! operation (the generated method's name maps back to its operationId),
//! and the success reply is read.

use std::sync::{Arc, Mutex};

use metal_api::exchange::{BoxFuture, Exchange};
use metal_api::operation::{self, Operation};

/// Records what each request was sent as, and answers with the
/// operation's success status and an empty JSON object (every response
/// schema requires nothing) or no body for a 204.
#[derive(Default)]
struct Recorder(Mutex<Vec<(&'static str, String, String)>>);

impl Exchange for Recorder {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        self.0.lock().unwrap().push((
            operation.id,
            request.method().to_string(),
            request.url().path().to_string(),
        ));
        let body = if operation.success == 204 { "" } else { "{}" };
        let reply = http::Response::builder()
            .status(operation.success)
            .header("content-type", "application/json")
            .body(reqwest::Body::from(body))
            .unwrap();
        Box::pin(async move { Ok(reqwest::Response::from(reply)) })
    }
}

/// Whether `path` is an instance of the operation's `template`.
fn matches(template: &str, path: &str) -> bool {
    let want: Vec<&str> = template.split('/').collect();
    let got: Vec<&str> = path.split('/').collect();
    want.len() == got.len()
        && want
            .iter()
            .zip(&got)
            .all(|(w, g)| (w.starts_with('{') && !g.is_empty()) || w == g)
}

#[tokio::test]
async fn every_sample_call_is_sent_as_its_operation_and_its_reply_read() {
    let recorder = Arc::new(Recorder::default());
    let client = metal_api::Client::over(
        "http://samples.invalid",
        Default::default(),
        recorder.clone(),
    )
    .unwrap();
    let mut wrong = Vec::new();
    for op in operation::ALL {
        let before = recorder.0.lock().unwrap().len();
        let reply = metal_api::samples::call(&client, op).await;
        let sent: Vec<_> = recorder.0.lock().unwrap()[before..].to_vec();
        match sent.as_slice() {
            [(id, method, path)]
                if *id == op.id && method == op.method.as_str() && matches(op.path, path) => {}
            other => wrong.push(format!("{op}: sent {other:?}")),
        }
        match reply {
            Ok(r) if r.status().as_u16() == op.success => {}
            other => wrong.push(format!("{op}: {other:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(recorder.0.lock().unwrap().len(), operation::ALL.len());
}

#[test]
fn the_path_matcher_tells_templates_apart() {
    assert!(matches("/devices/{id}", "/devices/abc"));
    assert!(!matches("/devices/{id}", "/devices/abc/events"));
    assert!(!matches("/devices/{id}/events", "/projects/abc/events"));
    assert!(!matches("/devices/{id}", "/devices/"));
}
