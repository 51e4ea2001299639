//! The state every clone of a [`crate::Fake`] shares (the world, the
//! faults, the call log, the handlers, the clock, the seed a reset returns
//! to), and [`Shared::exchange`]: the one place a call picks its fault,
//! acts on the model or not, and is recorded, whether it came in over HTTP
//! or in-process.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use metal_api::operation::Operation;
use tokio::time::Instant;
use uuid::Uuid;

use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::faults::{
    FailProvisioning, FailurePlan, Fault, FaultKind, FaultPlan, RandomFailures, RandomFaults,
};
use crate::handlers::{Action, Handlers};
use crate::model::{Access, World};
use crate::state::{Snapshot, Stats};

tokio::task_local! {
    /// What the request being served may see: set by the router's gate
    /// around the request, read by [`Shared::exchange`].
    pub(crate) static CALLER: Access;
}

/// The fastest [`Clock`] runs: 10000 times real time.
pub(crate) const MAX_TIME_SCALE: f64 = 10_000.0;

/// The most the clock can be advanced in all (ten years): the fake's
/// instants stay far from overflowing.
pub(crate) const MAX_ADVANCE: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// The fake's one clock: tokio's clock, run `scale` times faster from the
/// start, plus every advance. At scale 1 and no advance it is tokio's
/// clock itself, so paused-clock tests stay deterministic.
#[derive(Debug)]
pub(crate) struct Clock {
    start: Instant,
    start_wall: DateTime<Utc>,
    scale: f64,
    advanced: Mutex<Duration>,
}

/// Why the fake's clock refused an advance ([`crate::Fake::advance`],
/// `POST /_fake/clock`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClockError {
    /// The total advance would pass ten years.
    #[error("the clock is advanced by at most {} s in all", MAX_ADVANCE.as_secs())]
    TooFar,
}

impl Clock {
    /// A clock starting now at `scale` times real time (`scale` checked by
    /// the builder: finite, from 1 to [`MAX_TIME_SCALE`]).
    pub(crate) fn new(scale: f64) -> Self {
        Self {
            start: Instant::now(),
            start_wall: Utc::now(),
            scale,
            advanced: Mutex::new(Duration::ZERO),
        }
    }

    /// Now, on the fake's clock.
    pub(crate) fn now(&self) -> Instant {
        let real = Instant::now();
        let advanced = self.advanced();
        if self.scale == 1.0 && advanced.is_zero() {
            return real;
        }
        let elapsed = real.saturating_duration_since(self.start);
        let scaled = Duration::try_from_secs_f64(elapsed.as_secs_f64() * self.scale)
            .unwrap_or(Duration::MAX);
        // Bounded by the scale, the process's life and MAX_ADVANCE, the sum
        // stays far below an overflow; saturate rather than panic anyway.
        self.start
            .checked_add(scaled.saturating_add(advanced))
            .unwrap_or(real)
    }

    /// The wall-clock time of `at` on the fake's clock.
    pub(crate) fn wall(&self, at: Instant) -> DateTime<Utc> {
        let since = at.saturating_duration_since(self.start);
        self.start_wall + chrono::Duration::from_std(since).unwrap_or_default()
    }

    /// Moves the clock on by `by`; returns the total advance.
    pub(crate) fn advance(&self, by: Duration) -> Result<Duration, ClockError> {
        let mut advanced = self.advanced.lock().unwrap_or_else(|e| e.into_inner());
        let total = advanced.saturating_add(by);
        if total > MAX_ADVANCE {
            return Err(ClockError::TooFar);
        }
        *advanced = total;
        Ok(total)
    }

    /// The total advance so far.
    pub(crate) fn advanced(&self) -> Duration {
        *self.advanced.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How much faster than real time the clock runs.
    pub(crate) fn scale(&self) -> f64 {
        self.scale
    }
}

/// What a reset returns to: the world the fake was built with, and its
/// faults.
#[derive(Debug)]
pub(crate) struct Seed {
    pub(crate) world: WorldDoc,
    pub(crate) faults: Vec<Fault>,
    pub(crate) random: Option<RandomFaults>,
    /// Scripted provisioning failures.
    pub(crate) failures: Vec<FailProvisioning>,
    /// Random provisioning failures.
    pub(crate) random_failures: Option<RandomFailures>,
}

impl Seed {
    /// The fault plan the fake starts with.
    pub(crate) fn fault_plan(&self) -> FaultPlan {
        let mut plan = FaultPlan::new(self.random.clone());
        for f in &self.faults {
            plan.push(f.clone());
        }
        plan
    }

    /// Which devices of the seeded world fail to provision.
    pub(crate) fn failure_plan(&self) -> FailurePlan {
        FailurePlan::new(self.failures.clone(), self.random_failures)
    }
}

/// The state all clones share.
#[derive(Debug)]
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    handlers: Handlers,
    clock: Clock,
    seed: Seed,
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
    pub(crate) fn new(world: World, seed: Seed, handlers: Handlers, clock: Clock) -> Self {
        Self {
            inner: Mutex::new(Inner {
                world,
                faults: seed.fault_plan(),
                stats: Stats::default(),
            }),
            handlers,
            clock,
            seed,
        }
    }

    /// The main project's ID (nil when the world has no project).
    pub(crate) fn project(&self) -> Uuid {
        self.lock().world.main_project().unwrap_or_default()
    }

    /// The fake's clock.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Now, on the fake's clock.
    pub(crate) fn now(&self) -> Instant {
        self.clock.now()
    }

    /// Back to the seeded world and faults, with an empty call log.
    pub(crate) fn reset(&self) -> Result<(), WorldError> {
        let mut inner = self.lock();
        let mut world = World::from_doc(&self.seed.world, inner.world.timings(), self.now())?;
        world.set_failures(self.seed.failure_plan());
        inner.world = world;
        inner.faults = self.seed.fault_plan();
        inner.stats.clear_calls();
        Ok(())
    }

    /// Replaces the world with `doc`'s (faults and the call log stay).
    pub(crate) fn load(&self, doc: &WorldDoc) -> Result<(), WorldError> {
        let mut inner = self.lock();
        let mut world = World::from_doc(doc, inner.world.timings(), self.now())?;
        world.set_failures(inner.world.take_failures());
        inner.world = world;
        Ok(())
    }

    /// The world now, as a document.
    pub(crate) fn world_doc(&self) -> WorldDoc {
        let now = self.now();
        self.lock().world.to_doc(now)
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock is held leaves the model as it was between
        // two whole operations at worst; keep serving rather than poison.
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // Lifecycle changes due by now on the fake's clock (deleted devices
        // leaving), before anyone looks.
        inner.world.settle(self.clock.now());
        inner
    }

    /// Records a call that never reached the model (auth, rate limit, bad
    /// request, unknown route, unmodelled operation).
    pub(crate) fn record(&self, operation: &str, status: Option<u16>) {
        self.lock()
            .stats
            .record(operation, status, None, self.now());
    }

    /// Counts a connection task of a server that panicked.
    pub(crate) fn connection_panicked(&self) {
        self.lock().stats.connection_panicked();
    }

    /// Counters and the world's contents now.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let inner = self.lock();
        inner.stats.snapshot(inner.world.counts(self.now()))
    }

    /// Reads `call` with its operation's handler (see [`Handlers::prepare`]).
    pub(crate) fn prepare(&self, call: Call) -> Result<Action, ApiError> {
        self.handlers.prepare(call)
    }

    /// Runs one exchange of `operation` (whose path names `target`, if
    /// it names an ID): picks its fault, waits any added latency, acts (or
    /// not), and records the call.
    pub(crate) async fn exchange(
        &self,
        operation: &'static Operation,
        target: Option<Uuid>,
        action: Action,
    ) -> Outcome {
        let op = operation.id;
        let arrived = self.now();
        let fault = self.lock().faults.next(op, target);
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
                let caller = CALLER.try_with(Access::clone).unwrap_or_default();
                let mut inner = self.lock();
                let now = self.now();
                if let (Some(FaultKind::Competitor), Some(r)) = (&fault, prepared.contested) {
                    inner.world.take_reservation(r, now);
                }
                inner.world.caller = caller;
                let result = (prepared.act)(&mut inner.world, now);
                inner.world.caller = Access::All;
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
