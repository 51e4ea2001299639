//! The record step: the one place the call log and counters are written,
//! for every request the pipeline served, whatever stopped it; and, when
//! the router was asked to ([`crate::ServerConfig::log_calls`]), the
//! call's line on stderr.

use std::io::Write;

use super::wire::{INJECTED_ERROR, INVALID_TOKEN_MESSAGE, RATE_LIMITED};
use super::{Context, Outcome, Pipeline, Route};
use crate::faults::FaultKind;
use crate::log::NewCall;

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
        });
        if self.config.log_calls {
            // One line a call; a closed stderr loses the line, nothing else.
            let _ = writeln!(std::io::stderr().lock(), "metal-fake: {logged}");
        }
    }
}
