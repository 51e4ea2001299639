//! Every operation of the spec (`metal_api::operation::ALL`) runs through
//! `Client::call` with its operationId in the metrics and the spans, and
//! is retried after an unknown outcome exactly when its HTTP method is
//! idempotent. Each operation's first request is sent and gets no reply;
//! any later one succeeds. One test in a binary of its own, as it installs
//! a tracing subscriber (see tests/tracing.rs).

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::trace;
use metal_api::exchange::{fail, BoxFuture, Exchange, ExchangeError};
use metal_api::operation::{self, Method, Operation};
use metal_policy::{Client, Error};

/// Per operation: the first request has an unknown outcome (sent, no
/// reply), every later one succeeds with the operation's status.
/// Whether HTTP defines `method` as idempotent (RFC 9110, 9.2.2), written
/// out here rather than asked of `metal_api`, so the test states the rule.
fn idempotent(method: Method) -> bool {
    match method {
        Method::Get
        | Method::Head
        | Method::Options
        | Method::Trace
        | Method::Put
        | Method::Delete => true,
        Method::Post | Method::Patch => false,
    }
}

#[derive(Default)]
struct FirstUnknown(Mutex<HashMap<&'static str, usize>>);

impl FirstUnknown {
    fn requests(&self, op: &Operation) -> usize {
        self.0.lock().unwrap().get(op.id).copied().unwrap_or(0)
    }
}

impl Exchange for FirstUnknown {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        _request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        let n = {
            let mut seen = self.0.lock().unwrap();
            let n = seen.entry(operation.id).or_default();
            *n += 1;
            *n
        };
        if n == 1 {
            return Box::pin(fail(ExchangeError::NoReply("connection reset".into())));
        }
        let body = if operation.success == 204 { "" } else { "{}" };
        let reply = http::Response::builder()
            .status(operation.success)
            .header("content-type", "application/json")
            .body(reqwest::Body::from(body))
            .unwrap();
        Box::pin(async move { Ok(reqwest::Response::from(reply)) })
    }
}

#[tokio::test(start_paused = true)]
async fn every_operation_runs_under_the_policy_as_itself() {
    let (captured, _guard) = trace::capture(tracing::Level::INFO);

    let exchange = Arc::new(FirstUnknown::default());
    let registry = prometheus::Registry::new();
    let client = Client::builder()
        .api(
            metal_api::Client::over(
                "http://every-operation.invalid/metal/v1",
                Default::default(),
                exchange.clone(),
            )
            .unwrap(),
        )
        .api_rate(Duration::ZERO)
        .retry_budget(None)
        .registry(registry.clone())
        .build()
        .unwrap();

    let mut wrong = Vec::new();
    for op in operation::ALL {
        let result = client.call(|api| metal_api::samples::call(api, op)).await;
        let requests = exchange.requests(op);
        match (idempotent(op.method), &result) {
            (true, Ok(())) if requests == 2 => {}
            (
                false,
                Err(Error::OutcomeUnknown {
                    operation,
                    attempts: 1,
                    ..
                }),
            ) if *operation == op.id && requests == 1 => {}
            (idempotent, other) => wrong.push(format!(
                "{op} ({} {}, idempotent: {idempotent}): {requests} request(s), {other:?}",
                op.method, op.path
            )),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );

    let metrics = prometheus::TextEncoder::new()
        .encode_to_string(&registry.gather())
        .unwrap();
    let text = captured.take();
    // The fields of each closed call span: `metal_call{attempts=2 operation="x"}`.
    let closed_calls: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.contains(": close "))
        .filter_map(|l| l.split_once(" metal_call{")?.1.split_once('}'))
        // Not a span inside the call (`metal_call{..}:metal_attempt{..}`).
        .filter(|(_, rest)| !rest.starts_with(":metal_"))
        .map(|(fields, _)| fields.split(' ').collect())
        .collect();
    assert_eq!(
        closed_calls.len(),
        operation::ALL.len(),
        "one call span each:\n{text}"
    );
    for op in operation::ALL {
        let id = op.id;
        let mut lines = vec![format!(
            r#"equinix_api_attempts_total{{endpoint="{id}",outcome="unknown"}} 1"#
        )];
        if idempotent(op.method) {
            lines.push(format!(
                r#"equinix_api_attempts_total{{endpoint="{id}",outcome="ok"}} 1"#
            ));
            lines.push(format!(
                r#"equinix_api_requests_total{{endpoint="{id}",status_code="{}"}} 1"#,
                op.success
            ));
            lines.push(format!(r#"equinix_api_retries_total{{endpoint="{id}"}} 1"#));
        }
        for line in lines {
            if !metrics.contains(&line) {
                wrong.push(format!("metrics lack {line}"));
            }
        }
        let attempts = format!("attempts={}", if idempotent(op.method) { 2 } else { 1 });
        let operation = format!(r#"operation="{id}""#);
        let calls = closed_calls
            .iter()
            .filter(|fields| {
                fields.contains(&operation.as_str()) && fields.contains(&attempts.as_str())
            })
            .count();
        if calls != 1 {
            wrong.push(format!(
                "{calls} closed metal_call spans with {operation} {attempts}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
