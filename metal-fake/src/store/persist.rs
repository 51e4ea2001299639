//! The store's lock guard: when it is let go, what the world changed
//! while it was held (the journal's feed) is written to the state file's
//! log, so before the reply of the call that changed it is sent; and the
//! state file's other writes (a new snapshot, a sync).

use std::ops::{Deref, DerefMut};
use std::sync::MutexGuard;

use tokio::time::Instant;

use super::{Inner, Store};
use crate::model::World;
use crate::state::{StateError, Writer};

/// The store's lock, held.
pub(crate) struct Locked<'a> {
    store: &'a Store,
    inner: MutexGuard<'a, Inner>,
}

impl<'a> Locked<'a> {
    pub(super) fn new(store: &'a Store, inner: MutexGuard<'a, Inner>) -> Self {
        Self { store, inner }
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
        let Some(state) = &self.store.state else {
            return;
        };
        let touched = self.inner.world.journal.take_feed();
        if touched.is_empty() {
            return;
        }
        let now = self.store.now();
        let world = &self.inner.world;
        let changes = world.saved(&touched, now);
        let at = self.store.at_ms(now);
        // A failed write is kept by the writer (and logged): every later
        // call sees it (Store::state_failure).
        let _ = writer(state).append(changes, at, || world.to_doc(now));
    }
}

/// The writer, locked (a panic while it was held left it between two
/// whole writes at worst).
fn writer(state: &std::sync::Mutex<Writer>) -> MutexGuard<'_, Writer> {
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
    fn compact(&mut self) -> Result<(), StateError> {
        let Some(state) = &self.store.state else {
            return Ok(());
        };
        self.inner.world.journal.take_feed();
        let now = self.store.now();
        let doc = self.inner.world.to_doc(now);
        let at = self.store.at_ms(now);
        writer(state).compact(&doc, at)
    }
}

impl Store {
    /// `now` on the fake's clock as its timestamps show it, in
    /// milliseconds since the Unix epoch.
    pub(super) fn at_ms(&self, now: Instant) -> i64 {
        self.clock.wall().wall(now).timestamp_millis()
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
