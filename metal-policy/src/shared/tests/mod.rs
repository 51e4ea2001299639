//! The shared limits against real Redis servers: `$METAL_TEST_REDIS_URL`
//! or a `redis-server` each test starts (`redis_harness`). Each such test
//! is `#[ignore = "needs redis-server"]`, so cargo's summary counts it; run
//! with `-- --ignored` and no Redis it says it skips, and under `CI=true`
//! it fails instead. Redis's clock is real time, so these tests use real
//! time with generous margins.

use std::sync::Arc;
use std::time::Duration;

use prometheus::{IntCounter, IntGauge};
use redis_harness::Plain;
use tokio::time::sleep;
use uuid::Uuid;

use super::backend::{millis, Shared};
use super::config::SharedLimits;
use super::slots;
use crate::limit::pace::{Pace, Reading};

mod acl;
mod cluster;
mod eviction;
mod scripts;
mod sentinel;
mod tls;

/// The ACL user the tests make with [`SharedLimits::acl`]'s rules.
const USER: &str = "limits";
const PASSWORD: &str = "acl-test-password";

/// A backend and its metrics.
struct Probe {
    shared: Arc<Shared>,
    degraded: IntGauge,
    vanished: IntCounter,
}

impl Probe {
    fn new(config: SharedLimits, pace: Pace, burst: u32, parallelism: usize) -> Self {
        let degraded = IntGauge::new("degraded", "d").unwrap();
        let vanished = IntCounter::new("vanished", "v").unwrap();
        let shared = Shared::new(
            config,
            pace,
            burst,
            parallelism,
            degraded.clone(),
            vanished.clone(),
        )
        .unwrap();
        Self {
            shared: Arc::new(shared),
            degraded,
            vanished,
        }
    }
}

/// A prefix no other test uses.
fn prefix() -> String {
    format!("test-{}", Uuid::new_v4())
}

/// A backend on its own prefix at `url`, pacing by `spacing`.
fn backend(url: &str, spacing: Duration, burst: u32, parallelism: usize) -> Arc<Shared> {
    let config = SharedLimits::redis(url, prefix())
        .lease(Duration::from_millis(1000))
        .timeout(Duration::from_millis(500));
    Probe::new(config, Pace::fixed(spacing), burst, parallelism).shared
}

async fn reserve(s: &Shared) -> Duration {
    Duration::from_micros(s.reserve_turn().await.unwrap().wait)
}

async fn acquire(s: &Shared, id: &str, wttl: Duration) -> bool {
    acquire_reply(s, id, wttl).await == 1
}

/// The acquire script's reply: 1 (taken) or minus the place in line.
async fn acquire_reply(s: &Shared, id: &str, wttl: Duration) -> i64 {
    let mut inv = s.scripts.acquire.key(&s.keys.holders);
    inv.key(&s.keys.queue)
        .key(&s.keys.queue_expiry)
        .key(&s.keys.seq)
        .arg(id)
        .arg(s.parallelism)
        .arg(millis(s.config.lease))
        .arg(millis(wttl));
    s.run::<i64>(inv).await.unwrap()
}

async fn release(s: &Shared, id: &str) {
    let mut inv = s.scripts.release.key(&s.keys.holders);
    inv.key(&s.keys.queue).key(&s.keys.queue_expiry).arg(id);
    s.run::<u8>(inv).await.unwrap();
}

/// Whether `got` (a wait measured from some instant within the last
/// `elapsed`) could be `want` measured from the start of `elapsed`, give or
/// take a few ms of clock granularity: robust to slow Redis round trips.
fn near(got: Duration, want: Duration, elapsed: Duration) -> bool {
    let slack = Duration::from_millis(5);
    got + elapsed + slack >= want && got <= want + slack
}

/// The log lines written while it lives (this thread's: a
/// `#[tokio::test]` runs its tasks on the test's thread).
#[derive(Clone, Default)]
struct Logs(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    /// Captures this thread's logs (`DEBUG` and up) until the guard drops.
    fn capture() -> (Self, tracing::subscriber::DefaultGuard) {
        let logs = Self::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        (logs, tracing::subscriber::set_default(subscriber))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// The `WARN` lines that contain `needle`.
    fn warnings(&self, needle: &str) -> usize {
        self.text()
            .lines()
            .filter(|l| l.contains(" WARN ") && l.contains(needle))
            .count()
    }
}

/// Makes the ACL user [`USER`] with [`PASSWORD`] and exactly
/// [`SharedLimits::acl`]'s rules for `prefix` on each of `nodes` (as the
/// default user, on its plain port).
async fn acl_users(nodes: &[&redis_harness::Server], prefix: &str) {
    let rules = SharedLimits::redis("redis://unused", prefix).acl();
    for node in nodes {
        let mut cmd = redis::cmd("ACL");
        cmd.arg("SETUSER")
            .arg(USER)
            .arg("reset")
            .arg("on")
            .arg(format!(">{PASSWORD}"));
        for rule in rules.split(' ') {
            cmd.arg(rule);
        }
        let _: () = node.query(&cmd).await.unwrap();
    }
}

/// Asserts that none of `nodes` denied anything since it started.
async fn no_denials(nodes: &[&redis_harness::Server]) {
    for node in nodes {
        assert_eq!(
            acl_denials(node).await,
            Vec::<String>::new(),
            "{}",
            node.url()
        );
    }
}

/// What `server` denied since it started (`ACL LOG`), one line each;
/// not `CLIENT SETINFO`, which the redis crate sends on connect and which
/// the documented rules leave out (see the module docs).
async fn acl_denials(server: &redis_harness::Server) -> Vec<String> {
    let log: Vec<std::collections::HashMap<String, redis::Value>> =
        server.query(redis::cmd("ACL").arg("LOG")).await.unwrap();
    log.iter()
        .map(|entry| {
            let field = |k: &str| match entry.get(k) {
                Some(redis::Value::BulkString(b)) => String::from_utf8_lossy(b).into_owned(),
                Some(v) => format!("{v:?}"),
                None => String::new(),
            };
            format!(
                "{} {} {}",
                field("reason"),
                field("object"),
                field("context")
            )
        })
        .filter(|line| !line.contains("client|setinfo"))
        .collect()
}

/// Runs every operation of two learning processes through `config`'s
/// Redis, on one prefix.
async fn every_operation(config: SharedLimits) {
    let pace = Pace {
        base: Duration::from_millis(400),
        floor: Duration::ZERO,
        learn: true,
        share: 1,
    };
    // Every Redis call here must go through Redis (the end checks that none
    // degraded and no lease vanished), on machines whose scheduler can
    // stall a process for a few hundred milliseconds under load: a lease
    // and a call timeout of seconds, not of the defaults' tens of
    // milliseconds (a renewal every second, a stall of two seconds to
    // lose it).
    let config = config
        .lease(Duration::from_secs(3))
        .timeout(Duration::from_secs(2));
    let a = Probe::new(config.clone(), pace, 1, 2);
    let b = Probe::new(config, pace, 1, 2);
    // Turns, and the subscription each learning process starts.
    a.shared.acquire_turn().await;
    b.shared.acquire_turn().await;
    // A wait dropped before its turn gives it back.
    assert!(
        tokio::time::timeout(Duration::from_millis(50), a.shared.acquire_turn())
            .await
            .is_err()
    );
    sleep(Duration::from_millis(50)).await;
    // B's next turn is ~400 ms away; A learns a much faster pace, which
    // pulls the schedule back and announces it.
    let waiting = tokio::spawn({
        let b = Arc::clone(&b.shared);
        async move { b.acquire_turn().await }
    });
    sleep(Duration::from_millis(100)).await;
    a.shared
        .learn(Reading {
            remaining: 100,
            until: Duration::from_secs(10),
        })
        .await;
    waiting.await.unwrap();
    // A pause, waited out (the turn asks for the pause left after it).
    a.shared.pause(Some(Duration::from_millis(100))).await;
    b.shared.acquire_turn().await;
    // A slot held past a renewal (a third of the lease), then released.
    let slot = a.shared.acquire_slot().await;
    assert!(matches!(slot, slots::SharedSlot::Lease(_)));
    sleep(Duration::from_millis(1_200)).await;
    drop(slot);
    sleep(Duration::from_millis(50)).await;
    for p in [&a, &b] {
        assert!(!p.shared.degraded(), "every operation went through Redis");
        assert_eq!(p.vanished.get(), 0);
    }
}
