//! The call log: every call the fake received (written by the pipeline's
//! record step alone), counters by operation and status, faults injected,
//! and a snapshot of the world's contents.

use std::collections::{BTreeMap, VecDeque};

use tokio::time::Instant;

use crate::model::WorldCounts;

/// The most calls the log keeps; older ones are dropped (counters keep
/// counting).
pub const LOG_CAPACITY: usize = 100_000;

/// The longest path, query or error message a logged call keeps, in
/// bytes; a longer one is cut at a character boundary and ends in `...`
/// (so the log holds at most about [`LOG_CAPACITY`] times three of these).
pub const MAX_LOGGED_TEXT: usize = 512;

/// One call the fake received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRecord {
    /// 1-based, in the order the calls were logged (as each reply was
    /// decided, so a slow call may follow a later arrival; `at` is the
    /// arrival).
    pub seq: u64,
    /// The request's method (`"GET"`).
    pub method: String,
    /// The request's path (`/metal/v1/devices/...`), at most
    /// [`MAX_LOGGED_TEXT`] bytes.
    pub path: String,
    /// The request's query as sent (no `?`), at most [`MAX_LOGGED_TEXT`]
    /// bytes; `None` without one. The spec marks no query parameter as a
    /// secret, and tokens travel in headers, which are never logged.
    pub query: Option<String>,
    /// The operationId (`"createDevice"`), or `"unknown"` for a path the
    /// fake does not serve.
    pub operation: &'static str,
    /// The status sent, `None` when no reply was sent (dropped, hung, never
    /// sent).
    pub status: Option<u16>,
    /// The error message the fake answered (the `errors` of its reply,
    /// joined with `"; "`, or the `error` of a `401`), at most
    /// [`MAX_LOGGED_TEXT`] bytes; `None` for a success or no reply.
    pub error: Option<String>,
    /// The injected fault's label, if any.
    pub fault: Option<&'static str>,
    /// When it arrived, on the fake's clock.
    pub at: Instant,
}

impl std::fmt::Display for CallRecord {
    /// One line: `seq method path?query operation status [fault] [: error]`
    /// (what `metal-fake --log-calls` prints).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "call {} {} {}", self.seq, self.method, self.path)?;
        if let Some(q) = &self.query {
            write!(f, "?{q}")?;
        }
        write!(f, " {} ", self.operation)?;
        match self.status {
            Some(s) => write!(f, "{s}")?,
            None => write!(f, "no-reply")?,
        }
        if let Some(fault) = self.fault {
            write!(f, " fault={fault}")?;
        }
        if let Some(e) = &self.error {
            // One line, whatever the message holds.
            write!(f, ": {}", e.replace(['\n', '\r'], " "))?;
        }
        Ok(())
    }
}

/// What the record step knows of one call, before the log numbers it.
#[derive(Debug)]
pub(crate) struct NewCall<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) operation: &'static str,
    pub(crate) status: Option<u16>,
    pub(crate) error: Option<String>,
    pub(crate) fault: Option<&'static str>,
    pub(crate) at: Instant,
}

/// `text` cut to at most [`MAX_LOGGED_TEXT`] bytes at a character
/// boundary, ending in `...` when cut.
fn bounded(text: &str) -> String {
    if text.len() <= MAX_LOGGED_TEXT {
        return text.to_string();
    }
    let mut end = MAX_LOGGED_TEXT - 3;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
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
    /// Logs one call and counts it; returns what was logged.
    pub(crate) fn record(&mut self, call: NewCall<'_>) -> &CallRecord {
        let NewCall {
            method,
            path,
            query,
            operation,
            status,
            error,
            fault,
            at,
        } = call;
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
            method: bounded(method),
            path: bounded(path),
            query: query.map(bounded),
            operation,
            status,
            error: error.as_deref().map(bounded),
            fault,
            at,
        });
        // Just pushed: the log is not empty.
        self.log.back().expect("a call was just logged")
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
            stats.record(NewCall {
                method: "GET",
                path: "/metal/v1/devices/x",
                query: None,
                operation: "findDeviceById",
                status: Some(200),
                error: None,
                fault: None,
                at,
            });
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

    #[test]
    fn a_call_keeps_its_request_and_error_within_bounds_and_prints_one_line() {
        let mut log = CallLog::default();
        let at = Instant::now();
        let long = "é".repeat(MAX_LOGGED_TEXT);
        let c = log
            .record(NewCall {
                method: "POST",
                path: "/metal/v1/projects/p/devices",
                query: Some(&long),
                operation: "createDevice",
                status: Some(422),
                error: Some("Hostname is too long; Plan is unknown".to_string()),
                fault: Some("latency"),
                at,
            })
            .clone();
        assert_eq!(c.method, "POST");
        assert_eq!(c.path, "/metal/v1/projects/p/devices");
        let q = c.query.as_deref().unwrap();
        assert!(
            q.len() <= MAX_LOGGED_TEXT && q.ends_with("..."),
            "{}",
            q.len()
        );
        assert_eq!(
            c.error.as_deref(),
            Some("Hostname is too long; Plan is unknown")
        );
        let line = c.to_string();
        assert!(!line.contains('\n'));
        assert!(
            line.starts_with("call 1 POST /metal/v1/projects/p/devices?é"),
            "{line}"
        );
        assert!(
            line.ends_with(
                " createDevice 422 fault=latency: Hostname is too long; Plan is unknown"
            ),
            "{line}"
        );
        let none = log
            .record(NewCall {
                method: "GET",
                path: "/metal/v1/user",
                query: None,
                operation: "findCurrentUser",
                status: None,
                error: None,
                fault: Some("drop_after"),
                at,
            })
            .to_string();
        assert_eq!(
            none,
            "call 2 GET /metal/v1/user findCurrentUser no-reply fault=drop_after"
        );
    }
}
