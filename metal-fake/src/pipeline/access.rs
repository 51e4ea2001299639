//! The access step: a token reaching for a project, device, reservation,
//! SSH key or organisation it does not see gets `403`. What a path names
//! is declared with each modelled operation ([`crate::model::Modelled`]'s
//! target): which path parameter, and the resource whose owner it is. An
//! operation with a path parameter and no declared target is refused to
//! every token of the world (deny by default). A thing that does not
//! exist passes (its handler answers `404`). The check runs here, before
//! the body is read, and again under the lock the action takes
//! ([`super::guard::Guard`]), so nothing changes hands in between.
//!
//! A test's own handler of an operation the fake does not model
//! ([`crate::FakeBuilder::handler`]) names its target by the path's first
//! segment, as its test wrote it.

use metal_api::operation::{Method, Operation};
use uuid::Uuid;

use super::guard::Guard;
use super::{Context, Outcome, Pipeline, Step};
use crate::call::{ApiError, Params};
use crate::model::{modelled, resource_of, Access, Target, ACCESS_DENIED};

/// What `operation`'s path names: its modelled operation's declared
/// target; for an operation the fake does not model, the path's first
/// segment's resource (a test's handler).
fn target_of(operation: &'static Operation) -> Option<Target> {
    TARGETS.get(operation.id).copied().flatten()
}

/// Every operation's target by its operationId, found once (a request
/// looks its own up, never walking the operations).
static TARGETS: std::sync::LazyLock<std::collections::HashMap<&'static str, Option<Target>>> =
    std::sync::LazyLock::new(|| {
        let mut targets = std::collections::HashMap::new();
        for m in modelled() {
            targets.entry(m.operation.id).or_insert(Some(m.target));
        }
        for op in metal_api::operation::ALL {
            targets.entry(op.id).or_insert_with(|| {
                resource_of(op.path).map(|of| Target::Param { param: "id", of })
            });
        }
        targets
    });

impl Pipeline {
    /// Sets the ID the path names, and stops with `403` when the caller
    /// may not see it.
    pub(super) fn access(
        &self,
        mut cx: Context,
        operation: &'static Operation,
        params: &Params,
    ) -> Step {
        let param_id = |name: &str| {
            params
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, id)| Uuid::try_parse(id).ok())
        };
        let refuse = |cx: Context, refused: ApiError| cx.stop(Outcome::Reply(Err(refused)));
        // A read-only API key reads, and nothing else.
        if cx.caller.read_only() && operation.method != Method::Get {
            return Err(refuse(cx, ApiError::new(403, ACCESS_DENIED)));
        }
        let target = target_of(operation);
        match target {
            Some(Target::Param { param, of }) => {
                cx.target = param_id(param);
                cx.guard = cx.target.map(|id| Guard::new(id, of));
            }
            // A path with a parameter but no declared target: denied to
            // every token but the server's (a test fails such an
            // operation before it ships).
            Some(Target::Caller) | None if !params.is_empty() && cx.caller != Access::All => {
                return Err(refuse(cx, ApiError::new(403, ACCESS_DENIED)));
            }
            Some(Target::Caller) | None => {
                cx.target = param_id("id");
            }
        }
        let Some(guard) = cx.guard else {
            return Ok(cx);
        };
        let checked = guard.check(&self.store.lock().world, &cx.caller);
        match checked {
            Ok(()) => Ok(cx),
            Err(refused) => Err(refuse(cx, refused)),
        }
    }
}
