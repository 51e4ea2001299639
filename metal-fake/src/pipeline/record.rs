//! The record step: the one place the call log and counters are written,
//! for every request the pipeline served, whatever stopped it.

use super::{Context, Outcome, Pipeline, Route};
use crate::faults::FaultKind;

impl Pipeline {
    /// Records the call with the status its outcome sends (`None`: no
    /// reply) and its fault.
    pub(super) fn record(&self, cx: &Context, outcome: &Outcome) {
        let success = match cx.route {
            Route::Operation(op) => op.success,
            Route::NotAllowed | Route::NotFound => 200,
        };
        let of = |result: &Result<_, crate::call::ApiError>| match result {
            Ok(_) => success,
            Err(e) => e.status,
        };
        let status = match outcome {
            Outcome::Reply(result) | Outcome::Truncated(result) => Some(of(result)),
            Outcome::Unauthorized => Some(401),
            Outcome::Closing(e) => Some(e.status),
            Outcome::Failed { status } => Some(*status),
            Outcome::Throttled { .. } => Some(429),
            Outcome::BadGateway => Some(502),
            Outcome::NotSent | Outcome::Dropped | Outcome::Hang => None,
        };
        let label = cx.fault.as_ref().map(FaultKind::label);
        self.store
            .lock()
            .log
            .record(cx.operation_id(), status, label, cx.arrived);
    }
}
