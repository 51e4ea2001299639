//! Limits shared through Redis by separate OS processes (feature `redis`).
//!
//! Each scenario is a test `#[ignore = "needs redis-server"]`, so cargo's
//! summary counts it (`-- --ignored` runs them); they run one at a time.
//! Run as `worker_process` with `METAL_SHARED_WORKER` set (the scenarios
//! re-execute this binary so), it is one worker process calling the fake
//! server through a `Client` with shared limits.
//!
//! Redis (`redis_harness`): `$METAL_TEST_REDIS_URL`, else a `redis-server`
//! started here on a free port; without either the scenarios print that
//! they skip (under `CI=true` they fail instead). The restart scenario
//! always starts its own `redis-server` (it stops it).

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use metal_api::exchange::{BoxFuture, Exchange};
use metal_fake::{Fake, ServerConfig, ServerHandle};
use metal_policy::{Client, ExponentialBackoff, Metal, SharedLimits};
use redis_harness::{Certs, ClientCerts, Cluster, Options, Plain, Server};
use uuid::Uuid;

const TOKEN: &str = "shared-test-token";
const WORKER: &str = "METAL_SHARED_WORKER";
/// The server's limit and the client's shared rate, requests per second.
const R: u32 = 30;
const PROCESSES: usize = 3;

/// Runs `scenario` on a runtime of its own, one scenario at a time: each
/// measures a rate over real time, which scenarios side by side on two
/// cores would blur.
fn run(scenario: impl std::future::Future<Output = ()>) {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A scenario that failed poisons the lock; the next one still runs.
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(scenario);
}

/// The scenarios as tests, each `#[ignore]`d with what it needs so that
/// cargo's summary counts it (`-- --ignored` runs them).
macro_rules! scenarios {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            #[ignore = "needs redis-server"]
            fn $name() {
                run(scenarios::$name());
            }
        )*
    };
}

scenarios!(
    three_processes_share_the_budget_without_429s,
    three_processes_share_the_budget_over_tls_without_429s,
    three_processes_on_a_cluster_ride_out_a_master_failover,
    a_killed_process_gives_its_slots_back_within_the_lease,
    restarting_redis_mid_run_neither_stops_nor_loses_calls,
    a_429_seen_by_one_client_pauses_the_others,
);

/// One worker process: the scenarios re-execute this test binary with
/// [`WORKER`] set, running only this test; run any other way it returns.
#[test]
#[ignore = "a worker process the Redis scenarios start"]
fn worker_process() {
    if std::env::var_os(WORKER).is_some() {
        run(worker());
    }
}

// ---------------------------------------------------------------- Redis

// ---------------------------------------------------------------- worker

/// An exchange that never answers: its calls hold their slots.
struct Stall;

impl Exchange for Stall {
    fn exchange<'a>(
        &'a self,
        _: &'static metal_api::Operation,
        _: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        Box::pin(std::future::pending())
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is set by the test"))
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A client with shared limits, configured by `var` (the `W_*` settings).
fn shared_client(stall: bool, var: &dyn Fn(&str) -> String) -> (Client, prometheus::Registry) {
    let registry = prometheus::Registry::new();
    // W_CLUSTER: W_REDIS lists the cluster's nodes; W_CA: the CA file of
    // a rediss:// URL (both only in worker processes' environments).
    let shared = match std::env::var_os("W_CLUSTER") {
        Some(_) => SharedLimits::redis_cluster(var("W_REDIS").split(','), var("W_PREFIX")),
        None => SharedLimits::redis(var("W_REDIS"), var("W_PREFIX")),
    };
    let shared = match std::env::var_os("W_CA") {
        Some(ca) => shared.ca_file(ca),
        None => shared,
    };
    let shared = shared
        .processes(PROCESSES as u32)
        .lease(Duration::from_millis(var("W_LEASE_MS").parse().unwrap()))
        .timeout(Duration::from_millis(200))
        .retry_interval(Duration::from_millis(200));
    let builder = Client::builder()
        .parallelism(var("W_PARALLELISM").parse().unwrap())
        .api_rate(Duration::from_secs(1) / R)
        .backoff(Arc::new(ExponentialBackoff {
            initial_interval: Duration::from_millis(50),
            max_interval: Duration::from_millis(500),
            max_elapsed_time: Some(Duration::from_secs(30)),
            ..ExponentialBackoff::default()
        }))
        .registry(registry.clone())
        .shared_limits(shared);
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(var("W_BASE"))
        .build()
        .unwrap();
    let builder = if stall {
        builder.api(config.client_over(Arc::new(Stall)).unwrap())
    } else {
        builder.config(config)
    };
    (builder.build().unwrap(), registry)
}

fn degraded(registry: &prometheus::Registry) -> i64 {
    registry
        .gather()
        .iter()
        .filter(|f| f.name() == "equinix_api_shared_limits_degraded")
        .flat_map(|f| f.get_metric())
        .map(|m| m.get_gauge().get_value() as i64)
        .sum()
}

/// One worker process: `stall` holds every slot until killed; `run` makes
/// one call (connecting), then calls `get_project` from `W_START_MS` to
/// `W_END_MS` (unix ms) and prints
/// `RESULT ok=.. err=.. degraded_seen=.. degraded_end=..`.
async fn worker() {
    let stall = env("W_MODE") == "stall";
    let (client, registry) = shared_client(stall, &env);
    let parallelism: usize = env("W_PARALLELISM").parse().unwrap();
    let project: Uuid = env("W_PROJECT").parse().unwrap();
    if stall {
        for _ in 0..parallelism {
            let c = client.clone();
            tokio::spawn(async move { c.get_project(project).await });
        }
        std::future::pending::<()>().await;
    }
    let start: u64 = env("W_START_MS").parse().unwrap();
    let end: u64 = env("W_END_MS").parse().unwrap();
    // One call before the window connects to Redis (a debug build's TLS
    // handshake takes tens of ms), so the window measures the sharing.
    if let Err(e) = client.get_project(project).await {
        eprintln!("worker warm-up call failed: {e}");
    }
    tokio::time::sleep(Duration::from_millis(start.saturating_sub(unix_ms()))).await;
    let ok = Arc::new(AtomicU64::new(0));
    let err = Arc::new(AtomicU64::new(0));
    let seen = Arc::new(AtomicI64::new(0));
    let sampler = {
        let (seen, registry) = (seen.clone(), registry.clone());
        tokio::spawn(async move {
            loop {
                seen.fetch_max(degraded(&registry), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let loops: Vec<_> = (0..parallelism)
        .map(|_| {
            let (c, ok, err) = (client.clone(), ok.clone(), err.clone());
            tokio::spawn(async move {
                while unix_ms() < end {
                    match c.get_project(project).await {
                        // Calls that end after the window do not count.
                        Ok(_) if unix_ms() > end => 0,
                        Ok(_) => ok.fetch_add(1, Ordering::Relaxed),
                        Err(e) => {
                            eprintln!("worker call failed: {e}");
                            err.fetch_add(1, Ordering::Relaxed)
                        }
                    };
                }
            })
        })
        .collect();
    for l in loops {
        l.await.unwrap();
    }
    sampler.abort();
    println!(
        "RESULT ok={} err={} degraded_seen={} degraded_end={}",
        ok.load(Ordering::Relaxed),
        err.load(Ordering::Relaxed),
        seen.load(Ordering::Relaxed),
        degraded(&registry)
    );
}

// ---------------------------------------------------------------- scenarios

/// The scenarios, each run by its test above.
mod scenarios {
    use super::*;

    struct Fixture {
        fake: Fake,
        server: ServerHandle,
        prefix: String,
    }

    async fn fixture() -> Fixture {
        let fake = Fake::builder().reservations(1).build();
        let server = metal_fake::bind(
            fake.clone(),
            "127.0.0.1:0",
            ServerConfig::new(TOKEN).rate_limit(Some(R)),
        )
        .await
        .unwrap();
        Fixture {
            fake,
            server,
            prefix: format!("metal-test-{}", Uuid::new_v4()),
        }
    }

    fn spawn_worker(f: &Fixture, redis: &str, vars: &[(&str, String)]) -> Child {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["worker_process", "--exact", "--ignored", "--nocapture"])
            .env(WORKER, "1")
            .env("W_BASE", f.server.base_url())
            .env("W_PROJECT", f.fake.project().to_string())
            .env("W_REDIS", redis)
            .env("W_PREFIX", &f.prefix)
            .env("W_PARALLELISM", "4")
            .env("W_LEASE_MS", "1000")
            .stdout(Stdio::piped());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.spawn().unwrap()
    }

    fn results(children: Vec<Child>) -> Vec<HashMap<String, i64>> {
        children
            .into_iter()
            .map(|c| {
                let out = c.wait_with_output().unwrap();
                assert!(out.status.success(), "a worker failed: {:?}", out.status);
                let text = String::from_utf8_lossy(&out.stdout);
                let line = text
                    .lines()
                    .find(|l| l.starts_with("RESULT "))
                    .unwrap_or_else(|| panic!("no RESULT line in {text:?}"));
                line.split_whitespace()
                    .skip(1)
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
                    .collect()
            })
            .collect()
    }

    fn throttled(fake: &Fake) -> u64 {
        fake.snapshot()
            .requests
            .get("findProjectById")
            .and_then(|s| s.get("429"))
            .copied()
            .unwrap_or(0)
    }

    /// Runs `PROCESSES` workers for `secs` seconds, with `extra` settings
    /// (`W_CLUSTER`, `W_CA`); `during` runs meanwhile.
    async fn run_workers<F: std::future::Future<Output = ()>>(
        f: &Fixture,
        redis: &str,
        extra: &[(&str, String)],
        secs: u64,
        during: F,
    ) -> Vec<HashMap<String, i64>> {
        let start = unix_ms() + 700; // time for the processes to start
        let end = start + secs * 1000;
        let children: Vec<Child> = (0..PROCESSES)
            .map(|_| {
                let mut vars = vec![
                    ("W_MODE", "run".to_string()),
                    ("W_START_MS", start.to_string()),
                    ("W_END_MS", end.to_string()),
                ];
                vars.extend(extra.iter().cloned());
                spawn_worker(f, redis, &vars)
            })
            .collect();
        during.await;
        tokio::task::spawn_blocking(move || results(children))
            .await
            .unwrap()
    }

    /// Checks a run of `secs` seconds that should have shared the budget:
    /// no errors, no degraded moments, no 429s, at least 0.95 R and at most R
    /// per second (plus one).
    fn shared_the_budget(name: &str, f: &Fixture, rs: &[HashMap<String, i64>], secs: u64) {
        let ok: i64 = rs.iter().map(|r| r["ok"]).sum();
        let achieved = ok as f64 / secs as f64;
        println!(
        "{name}: {ok} calls by {PROCESSES} processes in {secs} s = {achieved:.1}/s (R = {R}/s), per process {:?}, 429s {}",
        rs.iter().map(|r| r["ok"]).collect::<Vec<_>>(),
        throttled(&f.fake)
    );
        assert!(rs.iter().all(|r| r["err"] == 0 && r["degraded_seen"] == 0));
        assert_eq!(throttled(&f.fake), 0, "no 429s");
        assert!(achieved >= 0.95 * f64::from(R), "{achieved}/s");
        // The shared schedule really bounds them (R per second, plus one).
        assert!(ok <= i64::from(R) * secs as i64 + 2, "{ok}");
        println!("test {name} ... ok");
    }

    pub(super) async fn three_processes_share_the_budget_without_429s() {
        let name = "three_processes_share_the_budget_without_429s";
        let Some(redis) = Plain::get(name).await else {
            return;
        };
        let f = fixture().await;
        let secs = 3;
        let rs = run_workers(&f, &redis.url, &[], secs, async {}).await;
        shared_the_budget(name, &f, &rs, secs);
    }

    pub(super) async fn three_processes_share_the_budget_over_tls_without_429s() {
        let name = "three_processes_share_the_budget_over_tls_without_429s";
        let Some(certs) = redis_harness::or_skip(name, Certs::new()) else {
            return;
        };
        let Some(server) = redis_harness::or_skip(
            name,
            Server::start(Options::new().tls(&certs, ClientCerts::No)).await,
        ) else {
            return;
        };
        let url = server.tls_url().expect("started with TLS");
        let ca = certs.ca().to_string_lossy().into_owned();
        let f = fixture().await;
        let secs = 3;
        let rs = run_workers(&f, &url, &[("W_CA", ca)], secs, async {}).await;
        shared_the_budget(name, &f, &rs, secs);
    }

    /// The successful `findProjectById` calls the fake has answered so far.
    fn answered(fake: &Fake) -> u64 {
        fake.snapshot()
            .requests
            .get("findProjectById")
            .and_then(|s| s.get("200"))
            .copied()
            .unwrap_or(0)
    }

    /// Three processes on a three-master cluster; the master holding the
    /// limits is killed 1.5 s into a 6 s run. Meanwhile the processes run
    /// degraded (R/3 each); once the replica has taken over they share the
    /// schedule again, which it holds: no call lost, no 429, and from a second
    /// after the takeover no one-second window above R.
    pub(super) async fn three_processes_on_a_cluster_ride_out_a_master_failover() {
        let name = "three_processes_on_a_cluster_ride_out_a_master_failover";
        let Some(mut cluster) = redis_harness::or_skip(name, Cluster::start(3, 1).await) else {
            return;
        };
        let f = fixture().await;
        let tat = format!("{{{}}}:tat", f.prefix);
        let home = cluster
            .master_of(&tat)
            .await
            .expect("a master serves the slot");
        let urls = cluster.urls().join(",");
        let secs = 6;
        // The fake's answers, sampled every 50 ms from the start.
        let samples = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sampler = tokio::spawn({
            let (fake, samples) = (f.fake.clone(), samples.clone());
            async move {
                let t0 = std::time::Instant::now();
                loop {
                    samples
                        .lock()
                        .unwrap()
                        .push((t0.elapsed(), answered(&fake)));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        });
        let t0 = std::time::Instant::now();
        let mut took_over = Duration::ZERO;
        let rs = run_workers(&f, &urls, &[("W_CLUSTER", "1".into())], secs, async {
            tokio::time::sleep(Duration::from_millis(700 + 1500)).await;
            cluster.kill(home).await;
            let killed = t0.elapsed();
            cluster
                .wait_for_master_of(&tat, Duration::from_secs(15))
                .await
                .expect("the replica takes over");
            took_over = t0.elapsed();
            println!(
                "{name}: the replica took over {:?} after the kill",
                took_over - killed
            );
        })
        .await;
        sampler.abort();
        let ok: i64 = rs.iter().map(|r| r["ok"]).sum();
        let samples = samples.lock().unwrap().clone();
        // The busiest one-second window from a second after the takeover.
        let settled = took_over + Duration::from_secs(1);
        let end = Duration::from_millis(700 + secs * 1000);
        let busiest = samples
            .iter()
            .filter(|(t, _)| *t >= settled && *t + Duration::from_secs(1) <= end)
            .filter_map(|(t, n)| {
                let later = samples
                    .iter()
                    .find(|(u, _)| *u >= *t + Duration::from_secs(1))?;
                Some(later.1 - n)
            })
            .max()
            .unwrap_or(0);
        println!(
        "{name}: {ok} calls in {secs} s = {:.1}/s (R = {R}/s), 429s {}, busiest settled second {busiest}, {rs:?}",
        ok as f64 / secs as f64,
        throttled(&f.fake)
    );
        for r in &rs {
            assert_eq!(r["err"], 0, "no call lost");
            assert_eq!(r["degraded_seen"], 1, "each process ran degraded meanwhile");
            assert_eq!(r["degraded_end"], 0, "and shares again");
        }
        assert_eq!(throttled(&f.fake), 0, "no 429s");
        assert!(busiest > 0, "calls went on after the takeover");
        // One second's turns, plus one for a window's edges (50 ms samples).
        assert!(busiest <= u64::from(R) + 2, "{busiest} in a second");
        println!("test {name} ... ok");
    }

    async fn holders(url: &str, prefix: &str) -> i64 {
        let client = redis::Client::open(url).unwrap();
        let mut c = client.get_multiplexed_async_connection().await.unwrap();
        redis::cmd("ZCARD")
            .arg(format!("{{{prefix}}}:holders"))
            .query_async(&mut c)
            .await
            .unwrap()
    }

    pub(super) async fn a_killed_process_gives_its_slots_back_within_the_lease() {
        let name = "a_killed_process_gives_its_slots_back_within_the_lease";
        let Some(redis) = Plain::get(name).await else {
            return;
        };
        let f = fixture().await;
        let mut staller = spawn_worker(&f, &redis.url, &[("W_MODE", "stall".into())]);
        let mut held = 0;
        for _ in 0..250 {
            held = holders(&redis.url, &f.prefix).await;
            if held == 4 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(held, 4, "the stalling process holds all 4 shared slots");
        // This process shares the limit: it gets no slot while they are held.
        let vars: HashMap<&str, String> = [
            ("W_REDIS", redis.url.clone()),
            ("W_PREFIX", f.prefix.clone()),
            ("W_PARALLELISM", "4".into()),
            ("W_LEASE_MS", "1000".into()),
            ("W_BASE", f.server.base_url().to_string()),
        ]
        .into();
        let (client, _) = shared_client(false, &|k| vars[k].clone());
        let blocked = tokio::time::timeout(
            Duration::from_millis(500),
            client.get_project(f.fake.project()),
        )
        .await;
        assert!(blocked.is_err(), "all slots are held by the other process");
        staller.kill().unwrap();
        let _ = staller.wait();
        let killed = std::time::Instant::now();
        let calls = (0..4).map(|_| client.get_project(f.fake.project()));
        let done = tokio::time::timeout(Duration::from_secs(5), futures::future::join_all(calls))
            .await
            .expect("the slots come back");
        assert!(done.iter().all(|r| r.is_ok()));
        let took = killed.elapsed();
        println!("{name}: slots back {took:?} after the kill (lease 1 s)");
        assert!(took <= Duration::from_millis(1500), "{took:?}");
        println!("test {name} ... ok");
    }

    pub(super) async fn restarting_redis_mid_run_neither_stops_nor_loses_calls() {
        let name = "restarting_redis_mid_run_neither_stops_nor_loses_calls";
        // Its own server: it stops it.
        let Some(mut server) = redis_harness::or_skip(name, Server::start(Options::new()).await)
        else {
            return;
        };
        let url = server.url();
        let f = fixture().await;
        let secs = 4;
        let rs = run_workers(&f, &url, &[], secs, async {
            tokio::time::sleep(Duration::from_millis(700 + 1000)).await;
            server.stop().await;
            tokio::time::sleep(Duration::from_millis(1000)).await;
            server.restart().await.expect("redis-server restarts");
        })
        .await;
        let ok: i64 = rs.iter().map(|r| r["ok"]).sum();
        let achieved = ok as f64 / secs as f64;
        println!(
            "{name}: {ok} calls in {secs} s = {achieved:.1}/s (R = {R}/s), 429s {}, {rs:?}",
            throttled(&f.fake)
        );
        for r in &rs {
            assert_eq!(r["err"], 0, "no call lost");
            assert_eq!(r["degraded_seen"], 1, "each process noticed the outage");
            assert_eq!(r["degraded_end"], 0, "and returned to shared limits");
        }
        // A 1 s outage of 4 s that stopped the processes would leave <= 75%.
        assert!(achieved >= 0.85 * f64::from(R), "{achieved}/s");
        println!("test {name} ... ok");
    }

    /// Two clients that share nothing but Redis (as two processes would): the
    /// first meets a 429, the second then waits out its `Retry-After` instead
    /// of meeting one too.
    pub(super) async fn a_429_seen_by_one_client_pauses_the_others() {
        let name = "a_429_seen_by_one_client_pauses_the_others";
        let Some(redis) = Plain::get(name).await else {
            return;
        };
        // Three requests per second (a bucket of three): the fourth quick
        // request is a 429 with `Retry-After: 1`, after which the bucket holds
        // three again, more than the first client's retry and the other
        // client's call need.
        let fake = Fake::builder().reservations(1).build();
        let server = metal_fake::bind(
            fake.clone(),
            "127.0.0.1:0",
            ServerConfig::new(TOKEN).rate_limit(Some(3)),
        )
        .await
        .unwrap();
        let prefix = format!("metal-test-{}", Uuid::new_v4());
        let client = || {
            let config = metal_api::Config::builder()
                .auth_token(TOKEN)
                .base_url(server.base_url())
                .build()
                .unwrap();
            Client::builder()
                .config(config)
                .parallelism(4)
                .api_rate(Duration::ZERO) // no client-side spacing: only pauses
                .shared_limits(SharedLimits::redis(redis.url.clone(), prefix.clone()))
                .build()
                .unwrap()
        };
        let (a, b) = (client(), client());
        let project = fake.project();
        let first = tokio::spawn(async move {
            for _ in 0..4 {
                // The fourth meets the 429, then retries.
                a.get_project(project).await.unwrap();
            }
        });
        for _ in 0..200 {
            if throttled(&fake) == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(throttled(&fake), 1, "the first client was throttled");
        // The fake counts the 429 before the first client has read it and
        // set the shared pause: wait for the pause to be in Redis.
        let pause = format!("{{{prefix}}}:pause");
        let mut admin = redis::Client::open(redis.url.as_str())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap();
        for _ in 0..200 {
            let set: bool = redis::cmd("EXISTS")
                .arg(&pause)
                .query_async(&mut admin)
                .await
                .unwrap();
            if set {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let t = std::time::Instant::now();
        b.get_project(project).await.unwrap();
        let waited = t.elapsed();
        first.await.unwrap();
        println!(
            "{name}: the other client waited {waited:?}; 429s {}",
            throttled(&fake)
        );
        assert!(waited >= Duration::from_millis(700), "{waited:?}");
        assert_eq!(throttled(&fake), 1, "the other client met no 429");
        println!("test {name} ... ok");
    }
}
