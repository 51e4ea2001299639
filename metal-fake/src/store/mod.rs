//! The state every clone of a [`crate::Fake`] shares, behind one lock: the
//! world, the faults, the call log; beside it the handlers, the clock and
//! the seed a reset returns to. Every look at the world first makes the
//! lifecycle changes due by now on the fake's clock.
//!
//! - `persist`: what the lock guards, and the lock's guard, which writes
//!   what the world changed to the state file's log (`crate::state`)
//!   before it lets go.

mod persist;

use std::sync::Mutex;

use tokio::time::Instant;
use uuid::Uuid;

use crate::call::{ApiError, Call};
use crate::clock::Clock;
use crate::document::{WorldDoc, WorldError};
use crate::faults::{
    FailProvisioning, Fault, FaultPlan, RandomFailures, RandomFaults, TooManyFaults,
};
use crate::handlers::{Action, Handlers};
use crate::log::{CallLog, Snapshot};
use crate::model::FailurePlan;
use crate::model::World;
use crate::state::{StateError, Writer};
use persist::{writer, Inner, Locked};

/// What a reset returns to: the world the fake was built with, and its
/// faults.
#[derive(Debug)]
pub(crate) struct Seed {
    pub(crate) world: WorldDoc,
    /// The fault plan the fake starts with: checked once, when the seed is
    /// made ([`Seed::new`]), so a reset never meets faults it cannot hold.
    faults: FaultPlan,
    /// Scripted provisioning failures.
    pub(crate) failures: Vec<FailProvisioning>,
    /// Random provisioning failures.
    pub(crate) random_failures: Option<RandomFailures>,
}

impl Seed {
    /// The seed of `world` with these faults and failures, or why the
    /// faults are too many.
    pub(crate) fn new(
        world: WorldDoc,
        faults: Vec<Fault>,
        random: Option<RandomFaults>,
        failures: Vec<FailProvisioning>,
        random_failures: Option<RandomFailures>,
    ) -> Result<Self, TooManyFaults> {
        let mut plan = FaultPlan::new(random);
        plan.extend(faults)?;
        Ok(Self {
            world,
            faults: plan,
            failures,
            random_failures,
        })
    }

    /// The fault plan the fake starts with, as it was seeded (the random
    /// faults' generator at its start).
    pub(crate) fn fault_plan(&self) -> FaultPlan {
        self.faults.clone()
    }

    /// Which devices of the seeded world fail to provision.
    pub(crate) fn failure_plan(&self) -> FailurePlan {
        FailurePlan::new(self.failures.clone(), self.random_failures)
    }
}

/// The state all clones share.
#[derive(Debug)]
pub(crate) struct Store {
    inner: Mutex<Inner>,
    handlers: Handlers,
    clock: Clock,
    seed: Seed,
    /// The state file being written, if any (locked after `inner`, never
    /// before).
    state: Option<Mutex<Writer>>,
}

impl Store {
    /// The store of `world`, writing what it changes to `state` if given.
    pub(crate) fn new(
        mut world: World,
        seed: Seed,
        handlers: Handlers,
        clock: Clock,
        state: Option<Writer>,
    ) -> Self {
        world.journal.set_feeding(state.is_some());
        Self {
            inner: Mutex::new(Inner {
                world,
                faults: seed.fault_plan(),
                log: CallLog::default(),
            }),
            handlers,
            clock,
            seed,
            state: state.map(Mutex::new),
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
        let timings = inner.world.timings();
        let mut world = World::from_doc(&self.seed.world, timings, self.clock.wall(), self.now())?;
        world.devices.set_failures(self.seed.failure_plan());
        inner.replace_world(world);
        inner.faults = self.seed.fault_plan();
        inner.log.clear_calls();
        Ok(())
    }

    /// Replaces the world with `doc`'s (faults and the call log stay).
    pub(crate) fn load(&self, doc: &WorldDoc) -> Result<(), WorldError> {
        let mut inner = self.lock();
        let timings = inner.world.timings();
        let mut world = World::from_doc(doc, timings, self.clock.wall(), self.now())?;
        world
            .devices
            .set_failures(inner.world.devices.take_failures());
        inner.replace_world(world);
        Ok(())
    }

    /// The world now, as a document.
    pub(crate) fn world_doc(&self) -> WorldDoc {
        let now = self.now();
        self.lock().world.to_doc(now)
    }

    /// The lock, with the lifecycle changes due by now made; what changes
    /// while it is held is written to the state file when it is let go.
    pub(crate) fn lock(&self) -> Locked<'_> {
        // A panic while the lock is held leaves the model as it was between
        // two whole operations at worst; keep serving rather than poison.
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut locked = Locked::new(self.state.as_ref(), &self.clock, inner);
        // The timed transitions due by now on the fake's clock (a device
        // provisioned, a deleted device leaving), before anyone looks.
        locked.world.drain(self.clock.now());
        locked
    }

    /// Counts a connection task of a server that panicked.
    pub(crate) fn connection_panicked(&self) {
        self.lock().log.connection_panicked();
    }

    /// Counters and the world's contents now.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let inner = self.lock();
        inner.log.snapshot(inner.world.counts())
    }

    /// Why the state file is no longer written, if it is not.
    pub(crate) fn state_failure(&self) -> Option<String> {
        let state = self.state.as_ref()?;
        writer(state).failed().map(str::to_string)
    }

    /// Syncs the log's records written since the last sync to the disk
    /// (without the world's lock); the error of an earlier write if one
    /// failed. Nothing without a state file.
    pub(crate) fn sync_state(&self) -> Result<(), StateError> {
        let Some(state) = &self.state else {
            return Ok(());
        };
        let Some((file, path)) = writer(state).take_sync()? else {
            return Ok(());
        };
        file.sync_data()
            .map_err(|source| writer(state).sync_failed(StateError::Io { path, source }))
    }

    /// Writes the world now as the state file's snapshot, with an empty
    /// log after it (a clean stop). Nothing without a state file.
    pub(crate) fn save_state(&self) -> Result<(), StateError> {
        self.lock().compact()
    }

    /// Reads `call` with its operation's handler (see [`Handlers::prepare`]).
    pub(crate) fn prepare(&self, call: Call) -> Result<Action, ApiError> {
        self.handlers.prepare(call)
    }
}

/// Syncs `store`'s state file every `every` on tokio's clock, from a task
/// of the runtime it is called in (none outside one); the task ends with
/// the store.
pub(crate) fn sync_every(store: &std::sync::Arc<Store>, every: std::time::Duration) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let store = std::sync::Arc::downgrade(store);
    let every = every.max(std::time::Duration::from_millis(1));
    runtime.spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let Some(store) = store.upgrade() else {
                return;
            };
            // A failure is kept by the writer (and logged).
            let _ = store.sync_state();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::{FaultKind, MAX_PENDING_FAULTS};

    fn seed(faults: Vec<Fault>, random: Option<RandomFaults>) -> Result<Seed, TooManyFaults> {
        Seed::new(WorldDoc::default(), faults, random, Vec::new(), None)
    }

    #[test]
    fn faults_past_the_bound_are_a_typed_error_when_the_seed_is_made() {
        let many = vec![Fault::any(FaultKind::BadGateway); MAX_PENDING_FAULTS + 1];
        let err = seed(many, None).unwrap_err();
        assert_eq!(
            err,
            TooManyFaults {
                added: MAX_PENDING_FAULTS + 1,
                room: MAX_PENDING_FAULTS
            }
        );
    }

    #[test]
    fn every_reset_starts_from_the_seeded_faults_and_the_random_draws_again() {
        let random = RandomFaults {
            rate: 0.5,
            seed: 3,
            kinds: Vec::new(),
        };
        let s = seed(
            vec![Fault::on("createDevice", FaultKind::DropAfter)],
            Some(random),
        )
        .unwrap();
        let draws = |mut plan: FaultPlan| {
            let first = plan.next("createDevice", None);
            let rest: Vec<_> = (0..50).map(|_| plan.next("op", None)).collect();
            (first, rest)
        };
        let (first, rest) = draws(s.fault_plan());
        assert_eq!(first, Some(FaultKind::DropAfter), "the scripted fault");
        assert!(rest.iter().any(Option::is_some), "random faults too");
        assert_eq!(
            draws(s.fault_plan()),
            (first, rest),
            "a second plan is the seeded one again, not what the first used up"
        );
    }
}
