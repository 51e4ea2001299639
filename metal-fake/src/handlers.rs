//! Which handler serves each operation of the spec: the model's, one a test
//! gave ([`crate::FakeBuilder::handler`]), or none (`501`).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use metal_api::operation::Operation;

use crate::call::{ApiError, Call, Reply};
use crate::model::{modelled, Modelled, Prepared};

/// A handler a test gives for one operation.
pub(crate) type Custom = Arc<dyn Fn(&Call) -> Result<Reply, ApiError> + Send + Sync>;

#[derive(Clone)]
enum Handler {
    Model(&'static Modelled),
    Custom(Custom),
    Unmodelled,
}

/// A call whose handler is known, ready to act.
pub(crate) enum Action {
    /// The model acts on the world.
    Model(Prepared),
    /// A test's handler answers.
    Custom(Custom, Call),
}

/// The handler of every operation: the model's unless changed.
#[derive(Clone)]
pub(crate) struct Handlers(BTreeMap<&'static str, Handler>);

impl Default for Handlers {
    fn default() -> Self {
        Self(
            modelled()
                .map(|m| (m.operation.id, Handler::Model(m)))
                .collect(),
        )
    }
}

impl fmt::Debug for Handlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<(&str, &str)> = self
            .0
            .iter()
            .map(|(id, h)| {
                let by = match h {
                    Handler::Model(_) => "model",
                    Handler::Custom(_) => "custom",
                    Handler::Unmodelled => "unmodelled",
                };
                (*id, by)
            })
            .collect();
        names.sort_unstable();
        f.debug_map().entries(names).finish()
    }
}

impl Handlers {
    /// `operation` is served by `handler`.
    pub(crate) fn custom(&mut self, operation: &'static Operation, handler: Custom) {
        self.0.insert(operation.id, Handler::Custom(handler));
    }

    /// `operation` answers `501`, as if the fake did not model it.
    pub(crate) fn unmodelled(&mut self, operation: &'static Operation) {
        self.0.insert(operation.id, Handler::Unmodelled);
    }

    /// Reads `call` with its operation's handler. A malformed call of a
    /// modelled operation, or a call of an operation nobody serves, is
    /// refused here, before any fault or change.
    pub(crate) fn prepare(&self, call: Call) -> Result<Action, ApiError> {
        let operation = call.operation();
        match self.0.get(operation.id) {
            Some(Handler::Model(m)) => crate::model::expand::prepare(m, &call).map(Action::Model),
            Some(Handler::Custom(handler)) => Ok(Action::Custom(handler.clone(), call)),
            Some(Handler::Unmodelled) | None => Err(ApiError::not_modelled(operation)),
        }
    }
}
