//! The state every clone of a [`crate::Fake`] shares (the world, the
//! faults, the call log, the handlers), and [`Shared::exchange`]: the one
//! place a call picks its fault, acts on the model or not, and is recorded,
//! whether it came in over HTTP or in-process.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use metal_api::operation::Operation;
use tokio::time::Instant;
use uuid::Uuid;

use crate::call::{ApiError, Call, Reply};
use crate::faults::{FaultKind, FaultPlan};
use crate::handlers::{Action, Handlers};
use crate::model::World;
use crate::state::{Snapshot, Stats};

/// The state all clones share.
#[derive(Debug)]
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    handlers: Handlers,
    project: Uuid,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) world: World,
    pub(crate) faults: FaultPlan,
    pub(crate) stats: Stats,
}

/// What one exchange came to, before it is put on the wire. Already
/// recorded in the stats.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A normal reply (an API refusal is a normal reply too).
    Reply(Result<Reply, ApiError>),
    /// Never reached the server; nothing changed.
    NotSent,
    /// An injected error status (before or after acting).
    Failed { status: u16 },
    /// 429 with `Retry-After`; nothing changed.
    Throttled { retry_after: Duration },
    /// A proxy's HTML 502; nothing changed.
    BadGateway,
    /// Applied; the connection dropped before the reply.
    Dropped,
    /// Applied; the reply never comes.
    Hang,
    /// Applied; the reply is cut short.
    Truncated(Result<Reply, ApiError>),
}

/// The status of a reply to `operation`: its success status from the spec,
/// or the refusal's.
pub(crate) fn status_of(operation: &Operation, result: &Result<Reply, ApiError>) -> u16 {
    match result {
        Ok(_) => operation.success,
        Err(e) => e.status,
    }
}

impl Shared {
    pub(crate) fn new(world: World, faults: FaultPlan, handlers: Handlers, project: Uuid) -> Self {
        Self {
            inner: Mutex::new(Inner {
                world,
                faults,
                stats: Stats::default(),
            }),
            handlers,
            project,
        }
    }

    /// The main project's ID.
    pub(crate) fn project(&self) -> Uuid {
        self.project
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock is held leaves the model as it was between
        // two whole operations at worst; keep serving rather than poison.
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // Lifecycle changes due by now (deleted devices leaving), before
        // anyone looks.
        inner.world.settle(Instant::now());
        inner
    }

    /// Records a call that never reached the model (auth, rate limit, bad
    /// request, unknown route, unmodelled operation).
    pub(crate) fn record(&self, operation: &str, status: Option<u16>) {
        self.lock()
            .stats
            .record(operation, status, None, Instant::now());
    }

    /// Counts a connection task of a server that panicked.
    pub(crate) fn connection_panicked(&self) {
        self.lock().stats.connection_panicked();
    }

    /// Counters and the world's contents now.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let inner = self.lock();
        inner.stats.snapshot(inner.world.counts(Instant::now()))
    }

    /// Reads `call` with its operation's handler (see [`Handlers::prepare`]).
    pub(crate) fn prepare(&self, call: Call) -> Result<Action, ApiError> {
        self.handlers.prepare(call)
    }

    /// Runs one exchange of `operation`: picks its fault, waits any added
    /// latency, acts (or not), and records the call.
    pub(crate) async fn exchange(&self, operation: &'static Operation, action: Action) -> Outcome {
        let op = operation.id;
        let arrived = Instant::now();
        let fault = self.lock().faults.next(op);
        if let Some(FaultKind::Latency(d)) = &fault {
            tokio::time::sleep(*d).await;
        }
        let label = fault.as_ref().map(FaultKind::label);
        let before = match &fault {
            Some(FaultKind::NotSent) => Some((None, Outcome::NotSent)),
            Some(FaultKind::FailBefore { status }) => {
                Some((Some(*status), Outcome::Failed { status: *status }))
            }
            Some(FaultKind::Throttle { retry_after }) => Some((
                Some(429),
                Outcome::Throttled {
                    retry_after: *retry_after,
                },
            )),
            Some(FaultKind::BadGateway) => Some((Some(502), Outcome::BadGateway)),
            _ => None,
        };
        if let Some((status, outcome)) = before {
            self.lock().stats.record(op, status, label, arrived);
            return outcome;
        }
        let (result, mut inner) = match action {
            Action::Model(prepared) => {
                let mut inner = self.lock();
                let now = Instant::now();
                if let (Some(FaultKind::Competitor), Some(r)) = (&fault, prepared.contested) {
                    inner.world.take_reservation(r, now);
                }
                let result = (prepared.act)(&mut inner.world, now);
                (result, inner)
            }
            // A test's handler runs unlocked: it may inspect the fake.
            Action::Custom(handler, call) => (handler(&call), self.lock()),
        };
        let (status, outcome) = match fault {
            Some(FaultKind::FailAfter { status }) => (Some(status), Outcome::Failed { status }),
            Some(FaultKind::DropAfter) => (None, Outcome::Dropped),
            Some(FaultKind::Hang) => (None, Outcome::Hang),
            Some(FaultKind::Truncated) => (
                Some(status_of(operation, &result)),
                Outcome::Truncated(result),
            ),
            _ => (Some(status_of(operation, &result)), Outcome::Reply(result)),
        };
        inner.stats.record(op, status, label, arrived);
        outcome
    }
}
