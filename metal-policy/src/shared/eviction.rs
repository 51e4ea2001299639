//! Eviction, seen: the server's `maxmemory-policy`, read on every new
//! connection ([`policy`]), and a schedule that vanished under a running
//! client, detected from the reservations' replies ([`Watch`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use prometheus::IntCounter;
use tracing::{debug, warn};

use super::error::SharedError;

/// What `INFO memory` says about eviction: `Err` when the policy can evict
/// the limits' keys (an `allkeys-*` policy), `Ok(Some(policy))` when it
/// cannot (`noeviction`, or a `volatile-*` one: the keys carry no TTL),
/// `Ok(None)` when the reply does not say.
pub(crate) fn policy(info: &str) -> Result<Option<String>, SharedError> {
    let Some(policy) = info
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| *k == "maxmemory_policy")
        .map(|(_, v)| v.trim().to_string())
    else {
        return Ok(None);
    };
    if policy.starts_with("allkeys-") {
        return Err(SharedError::Evicting(policy));
    }
    Ok(Some(policy))
}

/// What this process knows of the shared schedule, to tell a vanished one.
#[derive(Default)]
struct Seen {
    /// The schedule's `born` (Redis time it was made, µs); 0 before the
    /// first reservation.
    born: u64,
    /// The latest `tat` this process has seen in the current epoch: a
    /// vanished `tat` is rebuilt from it.
    hint: u64,
}

/// Detects a vanished schedule: counts it in
/// `equinix_api_shared_limits_vanished_total`, and logs the first one.
pub(crate) struct Watch {
    seen: Mutex<Seen>,
    vanished: IntCounter,
    logged: AtomicBool,
    /// Whether the unreadable-policy warning was logged.
    policy_unknown_logged: AtomicBool,
}

impl Watch {
    pub(crate) fn new(vanished: IntCounter) -> Self {
        Self {
            seen: Mutex::new(Seen::default()),
            vanished,
            logged: AtomicBool::new(false),
            policy_unknown_logged: AtomicBool::new(false),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        // Two plain numbers, valid after any panic mid-update.
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The hint the next reservation sends.
    pub(crate) fn hint(&self) -> u64 {
        self.seen().hint
    }

    /// A newer epoch pulled the schedule back: the old hint is too far.
    pub(crate) fn new_epoch(&self) {
        self.seen().hint = 0;
    }

    /// Notes a reservation's reply; true when it shows the schedule
    /// vanished: half of it was gone (the script says so), or it was made
    /// again since this process last saw it (another `born`).
    pub(crate) fn saw(&self, born: u64, half_gone: bool, tat_after: u64, prefix: &str) -> bool {
        let vanished = {
            let mut seen = self.seen();
            let remade = seen.born != 0 && seen.born != born;
            seen.born = born;
            seen.hint = seen.hint.max(tat_after);
            half_gone || remade
        };
        if vanished {
            self.vanished.inc();
            if !self.logged.swap(true, Ordering::Relaxed) {
                warn!(
                    prefix,
                    "the shared rate schedule vanished from Redis (evicted, deleted, or a restart \
                     or failover lost it): rebuilt from this process's last turn; turns other \
                     processes held may be handed out again once (counted in \
                     equinix_api_shared_limits_vanished_total, logged once)"
                );
            } else {
                debug!(prefix, "the shared rate schedule vanished again");
            }
        }
        vanished
    }

    /// Logs, once, that the eviction policy could not be read.
    pub(crate) fn policy_unknown(&self, why: &dyn std::fmt::Display, prefix: &str) {
        if !self.policy_unknown_logged.swap(true, Ordering::Relaxed) {
            warn!(
                prefix,
                error = %why,
                "cannot read the Redis maxmemory-policy (INFO memory): an evicted schedule \
                 will be seen only once it happens"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allkeys_policies_are_refused_and_the_others_kept() {
        let info = |p: &str| format!("# Memory\r\nused_memory:1\r\nmaxmemory_policy:{p}\r\n");
        for p in ["allkeys-lru", "allkeys-lfu", "allkeys-random"] {
            assert!(
                matches!(policy(&info(p)), Err(SharedError::Evicting(q)) if q == p),
                "{p}"
            );
        }
        for p in ["noeviction", "volatile-lru", "volatile-ttl"] {
            assert_eq!(policy(&info(p)).unwrap().as_deref(), Some(p));
        }
        assert_eq!(policy("# Memory\r\nused_memory:1\r\n").unwrap(), None);
    }

    #[test]
    fn a_remade_or_half_gone_schedule_is_counted_each_time() {
        let counter = IntCounter::new("v", "v").unwrap();
        let w = Watch::new(counter.clone());
        assert!(!w.saw(100, false, 5_000, "p"), "the first schedule seen");
        assert!(!w.saw(100, false, 6_000, "p"));
        assert_eq!(w.hint(), 6_000);
        assert!(w.saw(200, false, 7_000, "p"), "made again: vanished");
        assert!(w.saw(200, true, 8_000, "p"), "half gone");
        assert!(!w.saw(200, false, 9_000, "p"));
        assert_eq!(counter.get(), 2);
        w.new_epoch();
        assert_eq!(w.hint(), 0);
    }
}
