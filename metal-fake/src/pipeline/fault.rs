//! The fault step: the call's fault, drawn once per call from the
//! scripted faults (by operation, target and count) and the random ones,
//! then any injected latency waited. A fault that strikes before the
//! server acts stops the call here: nothing changes. What each kind does
//! is said once, by [`FaultKind::stage`].

use super::{Context, Outcome, Pipeline, Step};
use crate::faults::{FaultKind, Stage};

impl Pipeline {
    /// Draws the call's fault; stops when it strikes before acting.
    pub(super) async fn fault(&self, mut cx: Context) -> Step {
        let fault = self.store.lock().faults.next(cx.operation_id(), cx.target);
        if let Some(FaultKind::Latency(d)) = &fault {
            tokio::time::sleep(*d).await;
        }
        let before = match &fault {
            Some(kind) if kind.stage() == Stage::Before => Some(match kind {
                FaultKind::NotSent => Outcome::NotSent,
                FaultKind::FailBefore { status } => Outcome::Failed { status: *status },
                FaultKind::Throttle { retry_after } => Outcome::Throttled {
                    retry_after: *retry_after,
                },
                _ => Outcome::BadGateway,
            }),
            _ => None,
        };
        cx.fault = fault;
        match before {
            Some(outcome) => Err(cx.stop(outcome)),
            None => Ok(cx),
        }
    }
}
