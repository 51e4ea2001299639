//! Prometheus metrics of the policy client. Names keep the reference
//! design's `equinix_api_*` prefix; the `endpoint` label is always the
//! operation's operationId (from `metal_api::operation`).
//!
//! | name | type | labels |
//! |------|------|--------|
//! | `equinix_api_request_duration_seconds` | histogram (s) | `endpoint`, `status_code` |
//! | `equinix_api_latency` | histogram (s), deprecated | `endpoint`, `status_code` |
//! | `equinix_api_in_flight` | gauge | |
//! | `equinix_api_waiting` | gauge | |
//! | `equinix_api_requests_total` | counter | `endpoint`, `status_code` |
//! | `equinix_api_attempts_total` | counter | `endpoint`, `outcome` |
//! | `equinix_api_retries_total` | counter | `endpoint` |
//! | `equinix_api_rate_limit_wait_seconds` | histogram (s) | |
//! | `equinix_api_throttled_total` | counter | `endpoint` |
//! | `equinix_api_shared_limits_degraded` | gauge (0/1; feature `redis`) | |
//! | `equinix_api_shared_limits_vanished_total` | counter (feature `redis`) | |
//! | `equinix_api_retry_budget_tokens` | gauge (registered only with the budget on) | |
//! | `equinix_api_retry_budget_refused_total` | counter | `endpoint` |
//!
//! Every name, type and label set above is stable: it changes only in a
//! major version. `equinix_api_latency` holds the same observations as
//! `equinix_api_request_duration_seconds`, under the name of the reference
//! design (without a unit, as Prometheus names should have); it stays for
//! existing dashboards and goes in the next major version.
//!
//! A request is one HTTP exchange, counted where every request passes (the
//! policy's calls and the raw client it hands out alike); an attempt is one
//! try of a call, which may make several requests (`create_device`, after
//! an unknown outcome, reads the reservation, then creates). `outcome` is one of `ok`, `not_sent`,
//! `throttled`, `unknown`, `rejected`, `no_reservation`, `decode`,
//! `invalid`, `too_large`, or `final` (the operation reached its own
//! answer: a race lost, a label conflict, no reservation available). `status_code` is the HTTP status, or `none` when no reply
//! arrived.

use std::time::Duration;

use prometheus::{
    Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts, Registry,
};

use crate::children::{label_key, Children, LabelKey};

/// The duration histogram, its deprecated twin and the request counter of
/// one (endpoint, status).
type RequestChildren = (Histogram, Histogram, IntCounter);

/// The collectors; always present (gauges are useful to tests even with no
/// registry), registered only when a registry is given.
#[derive(Clone, Debug)]
pub(crate) struct Metrics {
    duration: HistogramVec,
    /// The deprecated name of `duration`.
    latency: HistogramVec,
    requests: IntCounterVec,
    pub(crate) in_flight: IntGauge,
    pub(crate) waiting: IntGauge,
    attempts: IntCounterVec,
    retries: IntCounterVec,
    rate_wait: Histogram,
    throttled: IntCounterVec,
    /// The retry budget's level.
    pub(crate) retry_budget_tokens: IntGauge,
    retry_budget_refused: IntCounterVec,
    /// The duration, latency and request children of each (endpoint, status).
    request_children: Children<(LabelKey, Option<u16>), RequestChildren>,
    /// The attempt counter of each (endpoint, outcome).
    attempt_children: Children<(LabelKey, LabelKey), IntCounter>,
    /// 1 while shared limits fall back to local ones (feature `redis`).
    #[cfg(feature = "redis")]
    pub(crate) shared_degraded: IntGauge,
    /// Times the shared rate schedule was found gone from Redis (feature
    /// `redis`).
    #[cfg(feature = "redis")]
    pub(crate) shared_vanished: IntCounter,
}

impl Metrics {
    /// Makes the collectors and registers them with `registry`, if any
    /// (the retry budget's gauge only when the budget is on).
    pub(crate) fn new(
        registry: Option<&Registry>,
        retry_budget: bool,
    ) -> Result<Self, prometheus::Error> {
        let buckets = vec![0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];
        let m = Self {
            duration: HistogramVec::new(
                HistogramOpts::new(
                    "equinix_api_request_duration_seconds",
                    "Duration of each Equinix Metal API request, in seconds.",
                )
                .buckets(buckets.clone()),
                &["endpoint", "status_code"],
            )?,
            latency: HistogramVec::new(
                HistogramOpts::new(
                    "equinix_api_latency",
                    "Deprecated: equinix_api_request_duration_seconds under its old name.",
                )
                .buckets(buckets),
                &["endpoint", "status_code"],
            )?,
            requests: IntCounterVec::new(
                Opts::new(
                    "equinix_api_requests_total",
                    "HTTP requests made, by status.",
                ),
                &["endpoint", "status_code"],
            )?,
            in_flight: IntGauge::new("equinix_api_in_flight", "Calls holding a concurrency slot.")?,
            waiting: IntGauge::new(
                "equinix_api_waiting",
                "Calls waiting for a concurrency slot.",
            )?,
            attempts: IntCounterVec::new(
                Opts::new(
                    "equinix_api_attempts_total",
                    "Attempts of calls, by outcome class.",
                ),
                &["endpoint", "outcome"],
            )?,
            retries: IntCounterVec::new(
                Opts::new(
                    "equinix_api_retries_total",
                    "Attempts repeated after a failure.",
                ),
                &["endpoint"],
            )?,
            rate_wait: Histogram::with_opts(
                HistogramOpts::new(
                    "equinix_api_rate_limit_wait_seconds",
                    "Time each request waited for the client-wide rate limiter.",
                )
                .buckets(vec![0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0]),
            )?,
            throttled: IntCounterVec::new(
                Opts::new(
                    "equinix_api_throttled_total",
                    "Throttling replies (429, 503 with Retry-After).",
                ),
                &["endpoint"],
            )?,
            retry_budget_tokens: IntGauge::new(
                "equinix_api_retry_budget_tokens",
                "Tokens left in the client's retry budget.",
            )?,
            retry_budget_refused: IntCounterVec::new(
                Opts::new(
                    "equinix_api_retry_budget_refused_total",
                    "Calls ended because the retry budget could not pay for a retry.",
                ),
                &["endpoint"],
            )?,
            request_children: Children::default(),
            attempt_children: Children::default(),
            #[cfg(feature = "redis")]
            shared_degraded: IntGauge::new(
                "equinix_api_shared_limits_degraded",
                "1 while the limits shared through Redis fall back to local limits.",
            )?,
            #[cfg(feature = "redis")]
            shared_vanished: IntCounter::new(
                "equinix_api_shared_limits_vanished_total",
                "Times the rate schedule shared through Redis was found gone (evicted, deleted, lost in a restart or failover).",
            )?,
        };
        if let Some(r) = registry {
            r.register(Box::new(m.duration.clone()))?;
            r.register(Box::new(m.latency.clone()))?;
            r.register(Box::new(m.requests.clone()))?;
            r.register(Box::new(m.in_flight.clone()))?;
            r.register(Box::new(m.waiting.clone()))?;
            r.register(Box::new(m.attempts.clone()))?;
            r.register(Box::new(m.retries.clone()))?;
            r.register(Box::new(m.rate_wait.clone()))?;
            r.register(Box::new(m.throttled.clone()))?;
            if retry_budget {
                r.register(Box::new(m.retry_budget_tokens.clone()))?;
            }
            r.register(Box::new(m.retry_budget_refused.clone()))?;
            #[cfg(feature = "redis")]
            r.register(Box::new(m.shared_degraded.clone()))?;
            #[cfg(feature = "redis")]
            r.register(Box::new(m.shared_vanished.clone()))?;
        }
        Ok(m)
    }

    /// Records one HTTP request: its status (`None`: no reply) and latency.
    pub(crate) fn request(&self, endpoint: &'static str, status: Option<u16>, latency: Duration) {
        let (duration_child, latency_child, requests_child) =
            self.request_children
                .get((label_key(endpoint), status), || {
                    let status = status.map_or_else(|| "none".to_string(), |s| s.to_string());
                    let labels = [endpoint, status.as_str()];
                    (
                        self.duration.with_label_values(&labels),
                        self.latency.with_label_values(&labels),
                        self.requests.with_label_values(&labels),
                    )
                });
        let seconds = latency.as_secs_f64();
        duration_child.observe(seconds);
        latency_child.observe(seconds);
        requests_child.inc();
    }

    /// Counts a throttling reply to `endpoint`.
    pub(crate) fn throttled(&self, endpoint: &'static str) {
        self.throttled.with_label_values(&[endpoint]).inc();
    }

    /// Counts one attempt of a call of `endpoint`, by outcome.
    pub(crate) fn attempt(&self, endpoint: &'static str, outcome: &'static str) {
        self.attempt_children
            .get((label_key(endpoint), label_key(outcome)), || {
                self.attempts.with_label_values(&[endpoint, outcome])
            })
            .inc();
    }

    /// Counts a retry of `endpoint`.
    pub(crate) fn retry(&self, endpoint: &'static str) {
        self.retries.with_label_values(&[endpoint]).inc();
    }

    /// Counts a call of `endpoint` the retry budget ended.
    pub(crate) fn retry_budget_refused(&self, endpoint: &'static str) {
        self.retry_budget_refused
            .with_label_values(&[endpoint])
            .inc();
    }

    /// Records a wait for the rate limiter.
    pub(crate) fn rate_wait(&self, waited: Duration) {
        self.rate_wait.observe(waited.as_secs_f64());
    }
}

/// Holds a gauge up for as long as it lives; dropping it (on any path,
/// including a dropped future) brings the gauge back down.
#[derive(Debug)]
pub(crate) struct GaugeGuard(IntGauge);

impl GaugeGuard {
    /// Increments `gauge` until the guard drops.
    pub(crate) fn hold(gauge: &IntGauge) -> Self {
        gauge.inc();
        Self(gauge.clone())
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_duration_histogram_and_its_deprecated_name_observe_the_same() {
        let registry = Registry::new();
        let m = Metrics::new(Some(&registry), false).unwrap();
        m.request("findProjectById", Some(200), Duration::from_millis(300));
        m.request("findProjectById", None, Duration::from_millis(100));
        let families = registry.gather();
        let histogram = |name: &str| {
            let family = families
                .iter()
                .find(|f| f.name() == name)
                .unwrap_or_else(|| panic!("{name} is not registered"));
            let mut samples: Vec<(String, u64, f64)> = family
                .get_metric()
                .iter()
                .map(|s| {
                    let labels: Vec<String> = s
                        .get_label()
                        .iter()
                        .map(|l| format!("{}={}", l.name(), l.value()))
                        .collect();
                    let h = s.get_histogram();
                    (labels.join(","), h.get_sample_count(), h.get_sample_sum())
                })
                .collect();
            samples.sort_by(|a, b| a.0.cmp(&b.0));
            (family.help().to_string(), samples)
        };
        let (help, duration) = histogram("equinix_api_request_duration_seconds");
        assert!(help.contains("seconds"), "{help}");
        assert_eq!(
            duration,
            vec![
                ("endpoint=findProjectById,status_code=200".into(), 1, 0.3),
                ("endpoint=findProjectById,status_code=none".into(), 1, 0.1),
            ]
        );
        let (help, latency) = histogram("equinix_api_latency");
        assert!(help.starts_with("Deprecated"), "{help}");
        assert_eq!(latency, duration);
    }
}
