//! [`SyncPolicy`]: when the log's records reach the disk.

use std::time::Duration;

/// When the log's records are synced to the disk (see [`crate::state`],
/// "What a crash can lose").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncPolicy {
    /// Each record before the reply of the call that made it.
    EveryChange,
    /// Every this long (the fake syncs on its own when it is built inside
    /// a tokio runtime; else call [`crate::Fake::sync_state`]).
    Interval(Duration),
}
