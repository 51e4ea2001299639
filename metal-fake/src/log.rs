//! The call log: every call the fake received (written by the pipeline's
//! record step alone), counters by operation and status, faults injected,
//! and a snapshot of the world's contents; and the bodies of the newest
//! calls ([`BODY_CAPACITY`] of them, each cut to [`MAX_LOGGED_BODY`] bytes,
//! secrets redacted: [`kept_body`]), for the control API's
//! `GET /_fake/calls/{seq}` and the console.

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

/// The most bytes of a request's or reply's body a logged call keeps:
/// the first ones, secrets redacted, cut at a character boundary and
/// ending in `...` when cut (see [`kept_body`]).
pub(crate) const MAX_LOGGED_BODY: usize = 4096;

/// How many of the newest calls keep their bodies (older calls keep their
/// line, not their bodies): with [`MAX_LOGGED_BODY`], at most about 8 MiB.
pub(crate) const BODY_CAPACITY: usize = 1000;

/// What a logged body shows instead of a secret's value, as the fake's
/// `Debug` output shows a token.
pub(crate) const REDACTED: &str = "<redacted>";

/// The JSON fields whose string values a logged body redacts, wherever
/// they stand: the spec's secrets (API keys' and users' tokens,
/// passwords, the root password a new device shows, BGP MD5 passwords,
/// license keys, a shared connection's authorization code). Tokens sent in
/// headers are never logged at all.
pub(crate) const SECRET_FIELDS: [&str; 9] = [
    "token",
    "user_token",
    "password",
    "new_password",
    "root_password",
    "md5",
    "md5_password",
    "license_key",
    "authorization_code",
];

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
    /// The request's body as kept ([`kept_body`]).
    pub(crate) request_body: Option<String>,
    /// The reply's body as kept ([`kept_body`]).
    pub(crate) reply_body: Option<String>,
}

/// `text` cut to at most [`MAX_LOGGED_TEXT`] bytes at a character
/// boundary, ending in `...` when cut.
fn bounded(text: &str) -> String {
    bounded_to(text, MAX_LOGGED_TEXT)
}

/// `text` cut to at most `max` bytes (at least 3) at a character
/// boundary, ending in `...` when cut.
fn bounded_to(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max - 3;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// What the log keeps of a body: `None` for an empty one; else its first
/// [`MAX_LOGGED_BODY`] bytes as text (bytes that are not UTF-8 shown as
/// U+FFFD), the string value of every [`SECRET_FIELDS`] field replaced by
/// [`REDACTED`] (a value the cut leaves open is redacted to the end), cut
/// again to [`MAX_LOGGED_BODY`] bytes, ending in `...` when cut.
pub(crate) fn kept_body(body: &[u8]) -> Option<String> {
    if body.is_empty() {
        return None;
    }
    let head = &body[..body.len().min(MAX_LOGGED_BODY)];
    let text = redact(&String::from_utf8_lossy(head));
    if body.len() <= MAX_LOGGED_BODY {
        // A redaction may have lengthened it.
        return Some(bounded_to(&text, MAX_LOGGED_BODY));
    }
    let mut end = text.len().min(MAX_LOGGED_BODY - 3);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}...", &text[..end]))
}

/// The index of the quote that closes the JSON string whose content starts
/// at `from`, `None` when the text ends first.
fn string_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The first index from `i` that is not JSON whitespace.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Whether the JSON string `raw` (its content, without the quotes) is the
/// name of a secret field (an escaped name decoded first).
fn is_secret(raw: &str) -> bool {
    if !raw.contains('\\') {
        return SECRET_FIELDS.contains(&raw);
    }
    serde_json::from_str::<String>(&format!("\"{raw}\""))
        .is_ok_and(|name| SECRET_FIELDS.contains(&name.as_str()))
}

/// `text` (JSON, perhaps cut short) with the string value of every
/// [`SECRET_FIELDS`] member replaced by `"<redacted>"`. It walks string
/// by string, so a name is only taken for one where a member's name
/// stands (a string followed by `:`); any other text is copied as it is.
fn redact(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    // Copied to `out` up to here.
    let mut copied = 0;
    let mut at = 0;
    while let Some(offset) = b[at..].iter().position(|&c| c == b'"') {
        let open = at + offset;
        let Some(close) = string_end(b, open + 1) else {
            break;
        };
        at = close + 1;
        let colon = skip_space(b, at);
        if b.get(colon) != Some(&b':') || !is_secret(&text[open + 1..close]) {
            continue;
        }
        let value = skip_space(b, colon + 1);
        if b.get(value) != Some(&b'"') {
            continue;
        }
        out.push_str(&text[copied..value]);
        out.push('"');
        out.push_str(REDACTED);
        out.push('"');
        match string_end(b, value + 1) {
            Some(end) => {
                copied = end + 1;
                at = end + 1;
            }
            None => {
                copied = b.len();
                break;
            }
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The bodies the log keeps of one of the newest calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CallBodies {
    /// The call's `seq`.
    seq: u64,
    /// The request's body ([`kept_body`]).
    pub(crate) request: Option<String>,
    /// The reply's body ([`kept_body`]).
    pub(crate) reply: Option<String>,
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
    /// The bodies of the newest [`BODY_CAPACITY`] calls, in `seq` order.
    bodies: VecDeque<CallBodies>,
    /// How many times the calls were forgotten ([`CallLog::clear_calls`]).
    resets: u64,
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
            request_body,
            reply_body,
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
        if self.bodies.len() == BODY_CAPACITY {
            self.bodies.pop_front();
        }
        self.bodies.push_back(CallBodies {
            seq: self.calls,
            request: request_body,
            reply: reply_body,
        });
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
            resets: self.resets + 1,
            ..Self::default()
        };
    }

    /// How many times the calls were forgotten (a reset): a reader
    /// following the log by `seq` starts over when this changes.
    pub(crate) fn resets(&self) -> u64 {
        self.resets
    }

    /// The `seq` of the newest call logged (0: none since the last reset).
    pub(crate) fn last_seq(&self) -> u64 {
        self.calls
    }

    /// The logged calls numbered after `since` that `keep` keeps, oldest
    /// first: how many, and the last `limit` of them (copying only
    /// those).
    pub(crate) fn select(
        &self,
        since: u64,
        keep: impl Fn(&CallRecord) -> bool,
        limit: usize,
    ) -> (usize, Vec<CallRecord>) {
        let start = self.log.partition_point(|c| c.seq <= since);
        let total = self.log.range(start..).filter(|c| keep(c)).count();
        let mut listed: Vec<CallRecord> = self
            .log
            .range(start..)
            .rev()
            .filter(|c| keep(c))
            .take(limit)
            .cloned()
            .collect();
        listed.reverse();
        (total, listed)
    }

    /// The logged call numbered `seq`, and its bodies while it is among
    /// the newest [`BODY_CAPACITY`] (else `None`).
    pub(crate) fn call(&self, seq: u64) -> Option<(CallRecord, Option<CallBodies>)> {
        let i = self.log.partition_point(|c| c.seq < seq);
        let call = self.log.get(i).filter(|c| c.seq == seq)?.clone();
        let j = self.bodies.partition_point(|b| b.seq < seq);
        let bodies = self.bodies.get(j).filter(|b| b.seq == seq).cloned();
        Some((call, bodies))
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
                request_body: None,
                reply_body: None,
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
                request_body: None,
                reply_body: None,
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
                request_body: None,
                reply_body: None,
            })
            .to_string();
        assert_eq!(
            none,
            "call 2 GET /metal/v1/user findCurrentUser no-reply fault=drop_after"
        );
    }

    #[test]
    fn a_kept_body_redacts_every_secret_field_and_nothing_else() {
        let body = br#"{"token":"abc","description":"token","nested":{"root_password" : "p4ss"},
            "list":[{"md5":"s3cret"},{"password":"x\"y"}],"hostname":"password","key":"ssh-ed25519 AAAA",
            "md5_password":null,"pass\u0077ord":"hidden"}"#;
        let kept = kept_body(body).unwrap();
        for secret in ["abc", "p4ss", "s3cret", "x\\\"y", "hidden"] {
            assert!(!kept.contains(secret), "{secret} in {kept}");
        }
        assert_eq!(kept.matches(REDACTED).count(), 5, "{kept}");
        // Values that merely read like names, and other fields, stay.
        assert!(kept.contains(r#""description":"token""#), "{kept}");
        assert!(kept.contains(r#""hostname":"password""#), "{kept}");
        assert!(kept.contains(r#""key":"ssh-ed25519 AAAA""#), "{kept}");
        assert!(kept.contains(r#""md5_password":null"#), "{kept}");
        // Still JSON.
        let v: serde_json::Value = serde_json::from_str(&kept).unwrap();
        assert_eq!(v["token"], REDACTED);
        assert_eq!(v["nested"]["root_password"], REDACTED);
        assert_eq!(kept_body(b""), None);
    }

    #[test]
    fn a_kept_body_is_bounded_and_a_secret_the_cut_leaves_open_is_redacted() {
        let filler = "x".repeat(MAX_LOGGED_BODY - 20);
        let body = format!(r#"{{"a":"{filler}","token":"{}"}}"#, "s".repeat(100));
        let kept = kept_body(body.as_bytes()).unwrap();
        assert!(kept.len() <= MAX_LOGGED_BODY, "{}", kept.len());
        assert!(kept.ends_with("..."), "{kept}");
        assert!(!kept.contains("sss"), "the open secret is redacted");
        // A long body of many short secrets: the redaction lengthens it,
        // the bound holds.
        let many = format!("[{}]", vec![r#"{"token":"a"}"#; 1000].join(","));
        let kept = kept_body(many.as_bytes()).unwrap();
        assert!(kept.len() <= MAX_LOGGED_BODY && kept.ends_with("..."));
        assert!(!kept.contains(r#""a""#));
        // Not UTF-8: shown, bounded.
        let kept = kept_body(&[0xff; 10]).unwrap();
        assert_eq!(kept.chars().count(), 10);
        // Under the bound: whole.
        assert_eq!(kept_body(b"{}").as_deref(), Some("{}"));
    }

    fn call(log: &mut CallLog, operation: &'static str, status: u16, body: Option<&str>) -> u64 {
        log.record(NewCall {
            method: "POST",
            path: "/metal/v1/x",
            query: None,
            operation,
            status: Some(status),
            error: None,
            fault: None,
            at: Instant::now(),
            request_body: body.map(str::to_string),
            reply_body: Some(format!("reply {status}")),
        })
        .seq
    }

    #[test]
    fn the_newest_calls_keep_their_bodies_and_select_copies_what_it_lists() {
        let mut log = CallLog::default();
        for i in 0..BODY_CAPACITY + 2 {
            let body = format!("body {i}");
            call(&mut log, "createDevice", 201, Some(&body));
        }
        let (first, bodies) = log.call(1).unwrap();
        assert_eq!(first.seq, 1);
        assert_eq!(bodies, None, "too old to keep its bodies");
        let last = (BODY_CAPACITY + 2) as u64;
        let (_, bodies) = log.call(last).unwrap();
        let bodies = bodies.unwrap();
        assert_eq!(
            bodies.request.as_deref(),
            Some(format!("body {}", BODY_CAPACITY + 1).as_str())
        );
        assert_eq!(bodies.reply.as_deref(), Some("reply 201"));
        assert!(log.call(last + 1).is_none());
        assert!(log.call(0).is_none());
        call(&mut log, "findDeviceById", 404, None);
        let (total, listed) = log.select(last - 3, |c| c.operation == "createDevice", 2);
        assert_eq!(total, 3);
        assert_eq!(
            listed.iter().map(|c| c.seq).collect::<Vec<_>>(),
            [last - 1, last]
        );
        let (total, listed) = log.select(0, |c| c.status == Some(404), 10);
        assert_eq!((total, listed.len()), (1, 1));
        assert_eq!(log.last_seq(), last + 1);
        assert_eq!(log.resets(), 0);
        log.clear_calls();
        assert_eq!((log.last_seq(), log.resets()), (0, 1));
        assert!(log.call(1).is_none());
    }
}
