//! The record step: the one place the call log and counters are written,
//! for every request the pipeline served, whatever stopped it (with the
//! request's and reply's bodies, bounded and redacted); and, when
//! the router was asked to ([`crate::ServerConfig::log_calls`]), the
//! call's line on stderr.

use std::io::Write;

use super::reply;
use super::wire::{INJECTED_ERROR, INVALID_TOKEN, INVALID_TOKEN_MESSAGE, RATE_LIMITED};
use super::{Context, Outcome, Pipeline, Route};
use crate::call::{ApiError, Reply};
use crate::faults::FaultKind;
use crate::log::{kept_body, NewCall};

/// What the log keeps of the body the fake answers with `outcome` (the
/// whole one it built, for a reply then cut short; `None` for no reply or
/// no body).
fn reply_body(outcome: &Outcome) -> Option<String> {
    let refusal = |e: &ApiError| kept_body(&reply::error(e.status, e.messages.clone()).1);
    let injected =
        |status: u16, message: &str| kept_body(&reply::error(status, vec![message.to_string()]).1);
    match outcome {
        Outcome::Reply(result) | Outcome::Truncated(result) => match result {
            Ok(Reply::Json(body)) => kept_body(body),
            Ok(Reply::Empty) => None,
            Ok(Reply::Bytes { content_type, body })
                if content_type.starts_with("text/") || content_type.contains("json") =>
            {
                kept_body(body)
            }
            Ok(Reply::Bytes { content_type, body }) => {
                Some(format!("({} bytes of {content_type})", body.len()))
            }
            Err(e) => refusal(e),
        },
        Outcome::Unauthorized => kept_body(INVALID_TOKEN.as_bytes()),
        Outcome::Closing(e) => refusal(e),
        Outcome::Failed { status } => injected(*status, INJECTED_ERROR),
        Outcome::Throttled { .. } => injected(429, RATE_LIMITED),
        Outcome::BadGateway => kept_body(&reply::bad_gateway().1),
        Outcome::NotSent | Outcome::Dropped | Outcome::Hang => None,
    }
}

impl Pipeline {
    /// Records the call with the status its outcome sends (`None`: no
    /// reply), the error message it answers, and its fault.
    pub(super) fn record(&self, cx: &Context, outcome: &Outcome) {
        let success = match cx.route {
            Route::Operation(op) => op.success,
            Route::NotAllowed | Route::NotFound => 200,
        };
        let of = |result: &Result<_, crate::call::ApiError>| match result {
            Ok(_) => (success, None),
            Err(e) => (e.status, Some(e.messages.join("; "))),
        };
        let (status, error) = match outcome {
            Outcome::Reply(result) | Outcome::Truncated(result) => {
                let (status, error) = of(result);
                (Some(status), error)
            }
            Outcome::Unauthorized => (Some(401), Some(INVALID_TOKEN_MESSAGE.to_string())),
            Outcome::Closing(e) => (Some(e.status), Some(e.messages.join("; "))),
            Outcome::Failed { status } => (Some(*status), Some(INJECTED_ERROR.to_string())),
            Outcome::Throttled { .. } => (Some(429), Some(RATE_LIMITED.to_string())),
            // An HTML page, no error message of the API's.
            Outcome::BadGateway => (Some(502), None),
            Outcome::NotSent | Outcome::Dropped | Outcome::Hang => (None, None),
        };
        let fault = cx.fault.as_ref().map(FaultKind::label);
        // Bounded and redacted before the lock is taken.
        let reply_body = reply_body(outcome);
        let mut store = self.store.lock();
        let logged = store.log.record(NewCall {
            method: cx.request.method.as_str(),
            path: &cx.request.path,
            query: cx.request.query.as_deref(),
            operation: cx.operation_id(),
            status,
            error,
            fault,
            at: cx.arrived,
            request_body: cx.request.body.clone(),
            reply_body,
        });
        if self.config.log_calls {
            // One line a call; a closed stderr loses the line, nothing else.
            let _ = writeln!(std::io::stderr().lock(), "metal-fake: {logged}");
        }
    }
}
