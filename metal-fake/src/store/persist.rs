//! What the store's lock guards ([`Inner`]), and the lock's guard: when
//! it is let go, what the world changed while it was held (the journal's
//! feed) is written to the state file's log, so before the reply of the
//! call that changed it is sent; and the state file's other writes (a new
//! snapshot).

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard};

use tokio::time::Instant;

use crate::clock::Clock;
use crate::faults::FaultPlan;
use crate::log::CallLog;
use crate::model::World;
use crate::state::{StateError, Writer};

/// What the lock guards.
#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) world: World,
    pub(crate) faults: FaultPlan,
    pub(crate) log: CallLog,
}

/// The store's lock, held.
pub(crate) struct Locked<'a> {
    /// The state file being written, if any.
    state: Option<&'a Mutex<Writer>>,
    clock: &'a Clock,
    inner: MutexGuard<'a, Inner>,
}

impl<'a> Locked<'a> {
    /// `inner`, held, writing what changes to `state` (stamped on
    /// `clock`).
    pub(super) fn new(
        state: Option<&'a Mutex<Writer>>,
        clock: &'a Clock,
        inner: MutexGuard<'a, Inner>,
    ) -> Self {
        Self {
            state,
            clock,
            inner,
        }
    }
}

impl Deref for Locked<'_> {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.inner
    }
}

impl DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Inner {
        &mut self.inner
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let Some(state) = self.state else {
            return;
        };
        let touched = self.inner.world.journal.take_feed();
        if touched.is_empty() {
            return;
        }
        let now = self.clock.now();
        let world = &self.inner.world;
        let changes = world.saved(&touched, now);
        let at = at_ms(self.clock, now);
        // A failed write is kept by the writer (and logged): every later
        // call sees it (Store::state_failure).
        let _ = writer(state).append(changes, at, || world.to_doc(now));
    }
}

/// The writer, locked (a panic while it was held left it between two
/// whole writes at worst).
pub(super) fn writer(state: &std::sync::Mutex<Writer>) -> MutexGuard<'_, Writer> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Locked<'_> {
    /// Replaces the world (a reset, a loaded document), and writes the new
    /// one as the state file's snapshot.
    pub(super) fn replace_world(&mut self, mut world: World) {
        world
            .journal
            .set_feeding(self.inner.world.journal.is_feeding());
        self.inner.world = world;
        // A failure is kept by the writer (and logged).
        let _ = self.compact();
    }

    /// Writes the world now as the state file's snapshot, with an empty
    /// log after it: what the feed holds is in it.
    pub(super) fn compact(&mut self) -> Result<(), StateError> {
        let Some(state) = self.state else {
            return Ok(());
        };
        self.inner.world.journal.take_feed();
        let now = self.clock.now();
        let doc = self.inner.world.to_doc(now);
        let at = at_ms(self.clock, now);
        writer(state).compact(&doc, at)
    }
}

/// `now` on the fake's clock as its timestamps show it, in milliseconds
/// since the Unix epoch.
fn at_ms(clock: &Clock, now: Instant) -> i64 {
    clock.wall().wall(now).timestamp_millis()
}
