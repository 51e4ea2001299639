//! The Redis keys of one prefix ([`Keys`]) and the Lua scripts that change
//! them ([`Scripts`]). Every key is `{prefix}:name`: the braces make the
//! prefix the keys' hash tag, so in a Redis Cluster they share one slot and
//! each script (which names several) runs on one node.

use redis::Script;

/// GCRA reservation. KEYS: tat, pause, learned, freed, epoch, born. ARGV:
/// base spacing µs, floor µs, burst - 1, learn (1/0), hint µs. Returns the
/// turn (`Turn::from_reply`).
const RESERVE: &str = include_str!("scripts/reserve.lua");

/// Gives back an unused turn. KEYS: tat, freed, epoch, pause. ARGV: the
/// turn's instant, tat after it, step, epoch, reused (1/0).
const GIVE_BACK: &str = include_str!("scripts/give_back.lua");

/// Keeps a learned spacing until the reset. KEYS: learned, tat, epoch,
/// freed. ARGV: spacing µs, µs until the reset, base spacing µs, none left
/// (1/0), the channel to publish a pulled-back schedule's epoch on.
/// Returns the epoch in force.
const LEARN: &str = include_str!("scripts/learn.lua");

/// The µs left of the shared pause. KEYS: pause.
const PAUSE_LEFT: &str = include_str!("scripts/pause_left.lua");

/// Pauses every process. KEYS: pause, tat. ARGV: pause µs. Returns the µs
/// the pause lasts from now (it never shortens an existing one).
const PAUSE: &str = include_str!("scripts/pause.lua");

/// Takes a slot or queues for one. KEYS: holders, queue, queue expiry,
/// seq. ARGV: id, limit, lease ms, waiter ttl ms. Returns 1 when the slot
/// is taken, else minus the waiter's place in line (the caller stays
/// queued and polls again).
const ACQUIRE: &str = include_str!("scripts/acquire.lua");

/// Renews (or re-registers) a held lease. KEYS: holders. ARGV: id, lease ms.
const RENEW: &str = include_str!("scripts/renew.lua");

/// Releases a slot or a queue place. KEYS: holders, queue, queue expiry.
/// ARGV: id.
const RELEASE: &str = include_str!("scripts/release.lua");

/// The Redis keys of one prefix.
pub(crate) struct Keys {
    pub(crate) tat: String,
    /// When the schedule was made (Redis time, µs): with `tat`, the marker
    /// that tells a vanished schedule from a new one.
    pub(crate) born: String,
    pub(crate) pause: String,
    pub(crate) learned: String,
    /// Turns given back, not yet handed out again (a sorted set).
    pub(crate) freed: String,
    /// The schedule's epoch: the Redis time it was last pulled back.
    pub(crate) epoch: String,
    /// The pub/sub channel a pulled-back schedule's epoch is published on.
    pub(crate) rebuilt: String,
    pub(crate) holders: String,
    pub(crate) queue: String,
    pub(crate) queue_expiry: String,
    pub(crate) seq: String,
}

impl Keys {
    pub(crate) fn new(prefix: &str) -> Self {
        let k = |name: &str| format!("{{{prefix}}}:{name}");
        Self {
            tat: k("tat"),
            born: k("born"),
            pause: k("pause"),
            learned: k("learned"),
            freed: k("freed"),
            epoch: k("epoch"),
            rebuilt: k("rebuilt"),
            holders: k("holders"),
            queue: k("queue"),
            queue_expiry: k("queue_expiry"),
            seq: k("seq"),
        }
    }
}

/// The scripts, each sent by its SHA (`EVALSHA`) and loaded on `NOSCRIPT`.
pub(crate) struct Scripts {
    pub(crate) reserve: Script,
    pub(crate) give_back: Script,
    pub(crate) learn: Script,
    pub(crate) pause_left: Script,
    pub(crate) pause: Script,
    pub(crate) acquire: Script,
    pub(crate) renew: Script,
    pub(crate) release: Script,
}

impl Scripts {
    pub(crate) fn new() -> Self {
        Self {
            reserve: Script::new(RESERVE),
            give_back: Script::new(GIVE_BACK),
            learn: Script::new(LEARN),
            pause_left: Script::new(PAUSE_LEFT),
            pause: Script::new(PAUSE),
            acquire: Script::new(ACQUIRE),
            renew: Script::new(RENEW),
            release: Script::new(RELEASE),
        }
    }
}
