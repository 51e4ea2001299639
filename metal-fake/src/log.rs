//! The call log: every call the fake received (written by the pipeline's
//! record step alone), counters by operation and status, faults injected,
//! and a snapshot of the world's contents.

use std::collections::{BTreeMap, VecDeque};

use tokio::time::Instant;

use crate::model::WorldCounts;

/// The most calls the log keeps; older ones are dropped (counters keep
/// counting).
pub const LOG_CAPACITY: usize = 100_000;

/// One call the fake received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRecord {
    /// 1-based, in the order the calls were logged (as each reply was
    /// decided, so a slow call may follow a later arrival; `at` is the
    /// arrival).
    pub seq: u64,
    /// The operationId (`"createDevice"`), or `"unknown"` for a path the
    /// fake does not serve.
    pub operation: &'static str,
    /// The status sent, `None` when no reply was sent (dropped, hung, never
    /// sent).
    pub status: Option<u16>,
    /// The injected fault's label, if any.
    pub fault: Option<&'static str>,
    /// When it arrived, on the fake's clock.
    pub at: Instant,
}

/// Counters over every call, serialised as `GET /_fake/state`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Snapshot {
    /// The world's contents now.
    #[serde(flatten)]
    pub world: WorldCounts,
    /// Calls by operation, then by status (`"none"` when no reply was sent).
    pub requests: BTreeMap<String, BTreeMap<String, u64>>,
    /// Faults injected, by label.
    pub faults_injected: BTreeMap<String, u64>,
    /// Calls received in all.
    pub calls: u64,
    /// Connection tasks of the fake's servers that panicked (each also
    /// logged with `tracing::error!`).
    pub connection_panics: u64,
}

/// The log and counters.
#[derive(Debug, Default)]
pub(crate) struct CallLog {
    log: VecDeque<CallRecord>,
    /// By operation, then by status (`None`: no reply).
    requests: BTreeMap<&'static str, BTreeMap<Option<u16>, u64>>,
    faults: BTreeMap<&'static str, u64>,
    calls: u64,
    connection_panics: u64,
}

impl CallLog {
    pub(crate) fn record(
        &mut self,
        operation: &'static str,
        status: Option<u16>,
        fault: Option<&'static str>,
        at: Instant,
    ) {
        self.calls += 1;
        *self
            .requests
            .entry(operation)
            .or_default()
            .entry(status)
            .or_default() += 1;
        if let Some(f) = fault {
            *self.faults.entry(f).or_default() += 1;
        }
        if self.log.len() == LOG_CAPACITY {
            self.log.pop_front();
        }
        self.log.push_back(CallRecord {
            seq: self.calls,
            operation,
            status,
            fault,
            at,
        });
    }

    /// Forgets every call (the log, the counters, the faults injected);
    /// connection panics stay counted.
    pub(crate) fn clear_calls(&mut self) {
        *self = Self {
            connection_panics: self.connection_panics,
            ..Self::default()
        };
    }

    pub(crate) fn connection_panicked(&mut self) {
        self.connection_panics += 1;
    }

    /// The logged calls numbered after `seq`, oldest first (the log is
    /// in `seq` order, so this copies only those).
    pub(crate) fn log_since(&self, seq: u64) -> Vec<CallRecord> {
        let start = self.log.partition_point(|c| c.seq <= seq);
        self.log.range(start..).cloned().collect()
    }

    pub(crate) fn snapshot(&self, world: WorldCounts) -> Snapshot {
        Snapshot {
            world,
            requests: self
                .requests
                .iter()
                .map(|(op, by_status)| {
                    let by_status = by_status
                        .iter()
                        .map(|(status, n)| {
                            let key = status.map_or_else(|| "none".to_string(), |s| s.to_string());
                            (key, *n)
                        })
                        .collect();
                    (op.to_string(), by_status)
                })
                .collect(),
            faults_injected: self
                .faults
                .iter()
                .map(|(f, n)| (f.to_string(), *n))
                .collect(),
            calls: self.calls,
            connection_panics: self.connection_panics,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_since_copies_only_the_newer_calls_and_survives_the_cap() {
        let mut stats = CallLog::default();
        let at = Instant::now();
        for _ in 0..LOG_CAPACITY + 5 {
            stats.record("getDevice", Some(200), None, at);
        }
        let all = stats.log_since(0);
        assert_eq!(all.len(), LOG_CAPACITY);
        assert_eq!(all.first().map(|c| c.seq), Some(6), "the 5 oldest dropped");
        let newer = stats.log_since(LOG_CAPACITY as u64 + 3);
        assert_eq!(
            newer.iter().map(|c| c.seq).collect::<Vec<_>>(),
            [LOG_CAPACITY as u64 + 4, LOG_CAPACITY as u64 + 5]
        );
        assert!(stats.log_since(LOG_CAPACITY as u64 + 5).is_empty());
    }
}
