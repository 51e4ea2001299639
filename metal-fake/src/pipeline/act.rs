//! The prepare and act steps: the call read by its operation's handler
//! (the model's, a test's, or none: `501`), refused there when malformed
//! (before any fault); then, after the fault step, the change made on the
//! world (or the test's handler run), and the reply spoiled by a fault
//! that strikes after acting.

use axum::body::Bytes;
use metal_api::operation::Operation;

use super::{Context, Outcome, Pipeline, Step};
use crate::call::{ApiError, Call, Params, QueryPairs, Reply};
use crate::faults::FaultKind;
use crate::handlers::Action;

impl Pipeline {
    /// Reads the call with its operation's handler.
    pub(super) fn prepare(
        &self,
        cx: Context,
        operation: &'static Operation,
        params: Params,
        query: QueryPairs,
        body: Bytes,
    ) -> Step<(Context, Action)> {
        let call = Call::new(operation, params, query, body);
        match self.store.prepare(call) {
            Ok(action) => Ok((cx, action)),
            Err(refused) => Err(cx.stop(Outcome::Reply(Err(refused)))),
        }
    }

    /// Acts, and gives the outcome the fault leaves of the reply.
    pub(super) async fn act(&self, cx: Context, action: Action) -> (Context, Outcome) {
        let result: Result<Reply, ApiError> = match action {
            Action::Model(prepared) => {
                let mut store = self.store.lock();
                let now = self.store.now();
                // What fell due between the lock and `now`.
                store.world.drain(now);
                // Access again, under the lock the change is made under.
                if let Some(refused) = cx
                    .guard
                    .and_then(|g| g.check(&store.world, &cx.caller).err())
                {
                    return (cx, Outcome::Reply(Err(refused)));
                }
                if let (Some(FaultKind::Competitor), Some(race)) = (&cx.fault, prepared.race) {
                    race(&mut store.world, now);
                }
                let caller = &cx.caller;
                let user = caller.user(&store.world);
                store
                    .world
                    .acting(cx.operation_id(), user, |w| (prepared.act)(w, caller, now))
            }
            // A test's handler runs unlocked: it may inspect the fake.
            Action::Custom(handler, call) => handler(&call),
        };
        // The change is made but cannot be kept (the state file's write
        // failed): no call is answered as if it were.
        let result = match self.store.state_failure() {
            Some(why) => Err(ApiError::new(
                503,
                format!("metal-fake cannot keep its state: {why}"),
            )),
            None => result,
        };
        let outcome = match cx.fault {
            Some(FaultKind::FailAfter { status }) => Outcome::Failed { status },
            Some(FaultKind::DropAfter) => Outcome::Dropped,
            Some(FaultKind::Hang) => Outcome::Hang,
            Some(FaultKind::Truncated) => Outcome::Truncated(result),
            _ => Outcome::Reply(result),
        };
        (cx, outcome)
    }
}
