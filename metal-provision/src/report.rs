//! The run's output for people: what its requests did, by operation, read
//! from the policy client's Prometheus registry.
//!
//! ```
//! let registry = prometheus::Registry::new();
//! let requests = prometheus::IntCounterVec::new(
//!     prometheus::Opts::new("equinix_api_requests_total", "HTTP requests made, by status."),
//!     &["endpoint", "status_code"],
//! ).unwrap();
//! registry.register(Box::new(requests.clone())).unwrap();
//! requests.with_label_values(&["createDevice", "201"]).inc_by(3);
//! requests.with_label_values(&["createDevice", "503"]).inc();
//! let report = metal_provision::report::Requests::from_families(&registry.gather());
//! assert_eq!(report.total().requests, 4);
//! let text = report.to_string();
//! // requests, 2xx, 4xx, 429, 5xx, no reply, retries
//! let row: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
//! assert_eq!(row, ["createDevice", "4", "3", "0", "0", "1", "0", "0"]);
//! ```

use std::collections::BTreeMap;
use std::fmt;

use prometheus::proto::MetricFamily;

/// One operation's requests, by how they ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// HTTP requests made.
    pub requests: u64,
    /// Answered 2xx.
    pub ok: u64,
    /// Answered 4xx other than 429: refused.
    pub refused: u64,
    /// Answered 429: throttled.
    pub throttled: u64,
    /// Answered 5xx.
    pub server_error: u64,
    /// No reply (connection dropped, timed out, reply cut short).
    pub no_reply: u64,
    /// Attempts repeated after a failure.
    pub retries: u64,
}

impl Row {
    fn add(&mut self, other: &Row) {
        self.requests += other.requests;
        self.ok += other.ok;
        self.refused += other.refused;
        self.throttled += other.throttled;
        self.server_error += other.server_error;
        self.no_reply += other.no_reply;
        self.retries += other.retries;
    }
}

/// Every operation's [`Row`], and the pauses the client took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Requests {
    /// By operationId, in name order.
    pub operations: BTreeMap<String, Row>,
    /// Throttling replies (429, or 503 with `Retry-After`), each of which
    /// paused the whole client.
    pub pauses: u64,
    /// Time requests spent waiting for the client-wide rate limiter.
    pub rate_wait_seconds: f64,
    /// Calls ended at once because the retry budget could not pay for a
    /// retry.
    pub budget_refused: u64,
}

/// The label's value on a sample, or "".
fn label<'a>(m: &'a prometheus::proto::Metric, name: &str) -> &'a str {
    m.get_label()
        .iter()
        .find(|l| l.name() == name)
        .map_or("", |l| l.value())
}

impl Requests {
    /// Reads the policy client's collectors (`equinix_api_requests_total`,
    /// `_retries_total`, `_throttled_total`, `_rate_limit_wait_seconds`,
    /// `_retry_budget_refused_total`); absent ones count as zero.
    pub fn from_families(families: &[MetricFamily]) -> Self {
        let mut out = Self::default();
        for family in families {
            for m in family.get_metric() {
                // Counters hold whole numbers; as u64 they print without
                // the -0 an empty float sum would.
                let n = m.get_counter().get_value() as u64;
                let endpoint = label(m, "endpoint");
                match family.name() {
                    "equinix_api_requests_total" => {
                        let row = out.operations.entry(endpoint.into()).or_default();
                        row.requests += n;
                        match label(m, "status_code").parse::<u16>() {
                            Ok(200..=299) => row.ok += n,
                            Ok(429) => row.throttled += n,
                            Ok(400..=499) => row.refused += n,
                            Ok(500..=599) => row.server_error += n,
                            // "none", or a status outside those classes.
                            _ => row.no_reply += n,
                        }
                    }
                    "equinix_api_retries_total" => {
                        out.operations.entry(endpoint.into()).or_default().retries += n;
                    }
                    "equinix_api_throttled_total" => out.pauses += n,
                    "equinix_api_retry_budget_refused_total" => out.budget_refused += n,
                    "equinix_api_rate_limit_wait_seconds" => {
                        out.rate_wait_seconds += m.get_histogram().get_sample_sum();
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Every operation's row added up.
    pub fn total(&self) -> Row {
        let mut total = Row::default();
        for row in self.operations.values() {
            total.add(row);
        }
        total
    }
}

/// The table: one line per operation, a total, then one line of pauses.
impl fmt::Display for Requests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .operations
            .keys()
            .map(String::len)
            .chain([9])
            .max()
            .unwrap_or(9);
        let header = [
            "requests", "2xx", "4xx", "429", "5xx", "no reply", "retries",
        ];
        write!(f, "{:<width$}", "operation")?;
        for h in header {
            write!(f, " {h:>8}")?;
        }
        writeln!(f)?;
        let line = |f: &mut fmt::Formatter<'_>, name: &str, r: &Row| {
            write!(f, "{name:<width$}")?;
            for n in [
                r.requests,
                r.ok,
                r.refused,
                r.throttled,
                r.server_error,
                r.no_reply,
                r.retries,
            ] {
                write!(f, " {n:>8}")?;
            }
            writeln!(f)
        };
        for (name, row) in &self.operations {
            line(f, name, row)?;
        }
        line(f, "all", &self.total())?;
        write!(
            f,
            "pauses: {} throttling replies paused the client; requests waited {:.1} s in all for \
             the rate limiter; {} calls ended by the retry budget",
            self.pauses, self.rate_wait_seconds, self.budget_refused
        )
    }
}
