//! The invariants, as pure functions over what the soak observed: the
//! fake's records (devices, reboots, the call log) and the controllers'
//! ledgers.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;
use uuid::Uuid;

use crate::ledger::{Ledger, Stage};

/// The first invariant that did not hold, in words.
pub type Violation = String;

/// Every device the soak has seen on the server, by witness tag (kept
/// across deletes, so a duplicate is caught even after one copy is gone).
#[derive(Debug, Default)]
pub struct Seen {
    by_witness: HashMap<String, BTreeSet<Uuid>>,
    devices: BTreeSet<Uuid>,
}

impl Seen {
    /// Records a device and its witness (if it has one).
    pub fn device(&mut self, id: Uuid, witness: Option<&str>) {
        self.devices.insert(id);
        if let Some(w) = witness {
            self.by_witness.entry(w.to_string()).or_default().insert(id);
        }
    }

    /// How many distinct devices were seen.
    pub fn count(&self) -> usize {
        self.devices.len()
    }

    /// Devices beyond one per witness: a logical create that made two.
    pub fn duplicates(&self) -> usize {
        self.by_witness.values().map(|s| s.len() - 1).sum()
    }

    /// The first witness with more than one device, for the message.
    pub fn first_duplicate(&self) -> Option<(&str, &BTreeSet<Uuid>)> {
        self.by_witness
            .iter()
            .find(|(_, s)| s.len() > 1)
            .map(|(w, s)| (w.as_str(), s))
    }
}

/// One of the run's devices on the server (its tag, not a competitor's),
/// as the checks read it.
#[derive(Debug, Clone)]
pub struct OnServer {
    /// Its ID.
    pub id: Uuid,
    /// Its witness tag, if it has one.
    pub witness: Option<String>,
    /// The server is deleting it (`deprovisioning`): the delete was
    /// accepted, so its controller may already have forgotten it.
    pub deleting: bool,
    /// Its provisioning failed (`failed`).
    pub failed: bool,
}

/// Devices on the server that no ledger knows and that the server is not
/// deleting: not pending under their witness, nor live or being deleted
/// under that witness with that ID. Read the server *before* the ledgers:
/// an intent is written before its request.
pub fn lost(on_server: &[OnServer], ledgers: &[Ledger]) -> Vec<Uuid> {
    on_server
        .iter()
        .filter(|d| !d.deleting)
        .filter(|d| {
            !d.witness.as_deref().is_some_and(|w| {
                ledgers.iter().any(|l| {
                    l.creates.get(w).is_some_and(|c| match c.stage {
                        Stage::Pending => true,
                        Stage::Live | Stage::Deleting => c.device.is_none_or(|id| id == d.id),
                    })
                })
            })
        })
        .map(|d| d.id)
        .collect()
}

/// Devices rebooted more often than the ledgers sent logical reboots for
/// them: `(device, performed, sent)`. `performed` is read from the
/// server *before* the ledgers; a device the ledgers no longer know (it
/// was deleted in between) is skipped.
pub fn double_reboots(
    performed: &BTreeMap<Uuid, u32>,
    ledgers: &[Ledger],
) -> Vec<(Uuid, u32, u32)> {
    performed
        .iter()
        .filter_map(|(id, n)| {
            let known = ledgers
                .iter()
                .any(|l| l.devices().any(|(_, d, _)| d == *id));
            let sent: u32 = ledgers.iter().filter_map(|l| l.reboots.get(id)).sum();
            (known && *n > sent).then_some((*id, *n, sent))
        })
        .collect()
}

/// The most arrivals the server saw in any one-second window (half-open),
/// kept incrementally: only the last second's arrivals are held.
#[derive(Debug, Default)]
pub struct Window {
    recent: VecDeque<Instant>,
    max: usize,
    max_from: Option<Instant>,
}

impl Window {
    /// The window's length.
    pub const LENGTH: Duration = Duration::from_secs(1);

    /// Adds arrivals, in order.
    pub fn extend(&mut self, arrivals: impl IntoIterator<Item = Instant>) {
        for at in arrivals {
            while self.recent.front().is_some_and(|f| at >= *f + Self::LENGTH) {
                self.recent.pop_front();
            }
            self.recent.push_back(at);
            if self.recent.len() > self.max {
                self.max = self.recent.len();
                self.max_from = self.recent.front().copied();
            }
        }
    }

    /// The most arrivals in one window so far.
    pub fn max(&self) -> usize {
        self.max
    }

    /// When the first window with the most arrivals began.
    pub fn max_from(&self) -> Option<Instant> {
        self.max_from
    }
}

/// Whether an arrival at `at` is near a Redis outage: from 1 s before it
/// went down (a window holding this arrival may reach into the outage)
/// to 2 s after it came back (each process returns to the shared limits
/// at its next retry, within 1 s). `outages` are `(down, up)`, `up` `None`
/// while it lasts.
pub fn near_outage(at: Instant, outages: &[(Instant, Option<Instant>)]) -> bool {
    outages.iter().any(|(down, up)| {
        at + Duration::from_secs(1) >= *down
            && up.is_none_or(|up| at <= up + Duration::from_secs(2))
    })
}

/// RSS of a process, in KiB, from `/proc/PID/status`.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The memory invariant for one process: its RSS when last read (`end`,
/// KiB) within 10% of its RSS after warm-up (`warm`). Both must be known:
/// a process the soak could not read is a failure of the harness, not a
/// pass.
pub fn memory(slot: usize, warm: Option<u64>, end: Option<u64>) -> Option<Violation> {
    match (warm, end) {
        (Some(warm), Some(end)) if end * 10 > warm * 11 => Some(format!(
            "memory: controller {slot} RSS {end} KiB at the end, {warm} KiB after warm-up (over 10% more)"
        )),
        (Some(_), Some(_)) => None,
        (None, _) => Some(format!(
            "memory: controller {slot} RSS after warm-up unknown (the process never reached it, or /proc was unreadable)"
        )),
        (Some(_), None) => Some(format!(
            "memory: controller {slot} RSS at the end unknown (/proc was unreadable)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Create;

    fn ledger(entries: &[(&str, Option<Uuid>, Stage)]) -> Ledger {
        let mut l = Ledger::default();
        for (w, d, stage) in entries {
            l.creates.insert(
                w.to_string(),
                Create {
                    reservation: None,
                    hostname: String::new(),
                    device: *d,
                    stage: *stage,
                    refusals: 0,
                },
            );
        }
        l
    }

    #[test]
    fn a_second_device_for_one_witness_is_a_duplicate_even_once_deleted() {
        let mut seen = Seen::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        seen.device(a, Some("w1"));
        seen.device(a, Some("w1"));
        assert_eq!(seen.duplicates(), 0);
        seen.device(b, Some("w1"));
        assert_eq!(seen.duplicates(), 1);
        assert_eq!(seen.first_duplicate().map(|(w, _)| w), Some("w1"));
        assert_eq!(seen.count(), 2);
    }

    #[test]
    fn a_device_no_ledger_knows_is_lost() {
        let (a, b, c, d) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        let ledgers = [
            ledger(&[("w1", Some(a), Stage::Live), ("w2", None, Stage::Pending)]),
            ledger(&[("w3", Some(c), Stage::Deleting)]),
        ];
        let on = |id, witness: Option<&str>, deleting| OnServer {
            id,
            witness: witness.map(str::to_string),
            deleting,
            failed: false,
        };
        let server = vec![
            on(a, Some("w1"), false),
            on(b, Some("w2"), false), // pending: the reply is not in yet
            on(c, Some("w3"), false),
            on(d, Some("w1"), false),        // a second device for w1
            on(Uuid::new_v4(), None, false), // no witness at all
            on(Uuid::new_v4(), Some("w9"), false),
            // Deleted and forgotten by its controller, still deprovisioning.
            on(Uuid::new_v4(), Some("w8"), true),
        ];
        let lost = lost(&server, &ledgers);
        assert_eq!(lost.len(), 3);
        assert_eq!(lost[0], d);
    }

    #[test]
    fn more_reboots_than_sent_is_a_double_reboot() {
        let (a, b, gone) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let mut l = ledger(&[("w1", Some(a), Stage::Live), ("w2", Some(b), Stage::Live)]);
        l.reboots.insert(a, 2);
        let performed: BTreeMap<Uuid, u32> = [(a, 2), (b, 1), (gone, 5)].into();
        assert_eq!(double_reboots(&performed, &[l]), vec![(b, 1, 0)]);
    }

    #[test]
    fn the_busiest_window_is_found() {
        let t = Instant::now();
        let ms = |n: u64| t + Duration::from_millis(n);
        let arrivals = [
            ms(0),
            ms(100),
            ms(999),
            ms(1000),
            ms(1500),
            ms(1600),
            ms(1700),
        ];
        let mut w = Window::default();
        assert_eq!(w.max(), 0);
        w.extend(arrivals[..3].iter().copied());
        assert_eq!(w.max(), 3);
        // [999, 1999) holds 999, 1000, 1500, 1600, 1700.
        w.extend(arrivals[3..].iter().copied());
        assert_eq!(w.max(), 5);
        assert_eq!(w.max_from(), Some(ms(999)));
    }

    #[test]
    fn arrivals_around_an_outage_are_near_it() {
        let t = Instant::now();
        let s = |n: u64| t + Duration::from_millis(n);
        let outages = [(s(10_000), Some(s(11_000))), (s(20_000), None)];
        assert!(!near_outage(s(8_900), &outages));
        assert!(near_outage(s(9_000), &outages));
        assert!(near_outage(s(13_000), &outages));
        assert!(!near_outage(s(13_001), &outages));
        assert!(near_outage(s(30_000), &outages));
    }

    #[test]
    fn memory_holds_within_ten_percent_and_fails_when_unknown() {
        assert_eq!(memory(0, Some(1000), Some(1100)), None);
        assert_eq!(memory(0, Some(1000), Some(900)), None);
        assert!(memory(1, Some(1000), Some(1101))
            .is_some_and(|v| v.starts_with("memory: controller 1")));
        assert!(memory(0, None, Some(1000)).is_some());
        assert!(memory(0, Some(1000), None).is_some());
    }

    #[test]
    fn reads_this_process_rss() {
        assert!(rss_kib(std::process::id()).is_some_and(|k| k > 0));
    }
}
