//! What every record of the world carries, kept by the one write path
//! ([`super::Table`]) and by nothing else.

use tokio::time::Instant;

/// A record's bookkeeping: set when it is inserted, bumped by every
/// update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Meta {
    /// Creation order across all records of the world.
    pub(crate) seq: u64,
    /// 1 when made, one more with every change.
    pub(crate) version: u64,
    /// When it was made, on the fake's clock.
    pub(crate) created: Instant,
    /// When it last changed (never before `created`).
    pub(crate) updated: Instant,
}

impl Meta {
    /// A record made at `at`, `seq`th of the world.
    pub(crate) fn new(seq: u64, at: Instant) -> Self {
        Self {
            seq,
            version: 1,
            created: at,
            updated: at,
        }
    }

    /// One change more, at `at` (a change due in the past, applied late,
    /// never moves `updated` back).
    pub(crate) fn bump(&mut self, at: Instant) {
        self.version += 1;
        self.updated = self.updated.max(at);
    }
}
