//! The comparison benchmarks, side by side in one process run, against the
//! fake server on loopback. Run with
//!
//! ```sh
//! cargo bench -p metal-provision --bench compare
//! ```
//!
//! and read the table it prints. `BENCH_SKIP_BUILD=1` leaves out the build
//! cost (the slowest section: clean release builds of the workspace at a
//! base revision and at the working tree, see `compare/build.rs`); `BENCH_QUICK=1` shrinks every
//! section for a smoke run; `BENCH_ONLY=throttling,faults` runs only the
//! sections named (`overhead`, `throttling`, `shared`, `faults`, `scale`,
//! `outage`, `requests`, `build`). `BENCH_README=1` also writes `benches/README.md`:
//! the command, the machine, its load, the date and the commit, then every
//! table.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt, TryStreamExt};
use metal_fake::{Fake, FaultKind, RandomFaults, ServerConfig, ServerHandle, Timings};
use metal_policy::{Client, ExponentialBackoff, Metal};
use metal_provision::{audit, run, NoProgress, RunConfig};
use peak_alloc::PeakAlloc;
use uuid::Uuid;

#[path = "compare/report.rs"]
mod report;

/// `println!` that also keeps the line for `benches/README.md`.
macro_rules! out {
    ($($arg:tt)*) => {
        crate::report::line(&format!($($arg)*))
    };
}

#[path = "compare/build.rs"]
mod build;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

const TOKEN: &str = "bench-token";

fn quick() -> bool {
    std::env::var_os("BENCH_QUICK").is_some()
}

/// Whether `BENCH_ONLY` (a comma-separated list of sections) lets `section`
/// run; every section runs without it.
fn runs(section: &str) -> bool {
    std::env::var("BENCH_ONLY").map_or(true, |only| only.split(',').any(|s| s.trim() == section))
}

/// Latencies and wall time of one batch of calls.
struct Batch {
    latencies: Vec<Duration>,
    wall: Duration,
}

impl Batch {
    fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.wall.as_secs_f64()
    }

    fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
        sorted.get(index).copied().unwrap_or_default()
    }
}

/// Runs `n` calls of `call`, `concurrency` at a time; panics on a failed call
/// (a benchmark whose calls fail measures nothing).
async fn batch<F, Fut, E>(n: usize, concurrency: usize, call: F) -> Batch
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let started = Instant::now();
    let latencies: Vec<Duration> = stream::iter(0..n)
        .map(|_| {
            let fut = call();
            async move {
                let t = Instant::now();
                match fut.await {
                    Ok(()) => t.elapsed(),
                    Err(e) => panic!("a benchmark call failed: {e}"),
                }
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    Batch {
        latencies,
        wall: started.elapsed(),
    }
}

async fn server(fake: Fake, rate_limit: Option<u32>) -> ServerHandle {
    metal_fake::bind(
        fake,
        "127.0.0.1:0",
        ServerConfig::new(TOKEN).rate_limit(rate_limit),
    )
    .await
    .expect("the fake server binds a loopback port")
}

fn config(server: &ServerHandle) -> metal_api::Config {
    metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.base_url())
        .build()
        .expect("a loopback config is valid")
}

fn policy(server: &ServerHandle, parallelism: usize, api_rate: Duration) -> Client {
    Client::builder()
        .config(config(server))
        .parallelism(parallelism)
        .api_rate(api_rate)
        .build()
        .expect("the policy client builds")
}

/// reqwest with reqwest-middleware and reqwest-retry's transient-error
/// retries (its default exponential backoff, 20 retries).
fn reqwest_retry_client() -> reqwest_middleware::ClientWithMiddleware {
    use reqwest_retry::policies::ExponentialBackoff as RetryPolicy;
    use reqwest_retry::RetryTransientMiddleware;
    let retry = RetryPolicy::builder().build_with_max_retries(20);
    reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(RetryTransientMiddleware::new_with_policy(retry))
        .build()
}

fn requests_with_status(fake: &Fake, operation: &str, status: &str) -> u64 {
    fake.snapshot()
        .requests
        .get(operation)
        .and_then(|by_status| by_status.get(status))
        .copied()
        .unwrap_or(0)
}

fn total_requests(fake: &Fake) -> u64 {
    fake.snapshot().calls
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// Section 1, overhead: the policy client (limits off) against the raw client and
/// plain reqwest, on the same GET.
async fn overhead() {
    let n = if quick() { 500 } else { 5000 };
    let concurrency = 8;
    let fake = Fake::builder().reservations(1).build();
    let project = fake.project();
    let server = server(fake.clone(), None).await;
    let raw = config(&server).client().expect("raw client");
    let pol = policy(&server, concurrency, Duration::ZERO);
    let plain = reqwest::Client::new();
    let url = format!("{}/projects/{project}", server.base_url());

    let raw_call = || async {
        raw.find_project_by_id()
            .id(project)
            .send()
            .await
            .map(|_| ())
    };
    let policy_call = || async { pol.get_project(project).await.map(|_| ()) };
    let plain_call = || async {
        let reply = plain
            .get(&url)
            .header("x-auth-token", TOKEN)
            .send()
            .await?
            .error_for_status()?;
        let _: metal_api::types::Project = reply.json().await?;
        Ok::<(), reqwest::Error>(())
    };

    // Warm up every path (connections, allocator, caches).
    batch(200, concurrency, raw_call).await;
    batch(200, concurrency, policy_call).await;
    batch(200, concurrency, plain_call).await;

    // Interleave rounds (the server shares the machine, so single rounds
    // are noisy) and keep each client's median round by rate.
    let rounds = if quick() { 3 } else { 7 };
    let mut all: [Vec<Batch>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut served = (0u64, Duration::ZERO);
    for _ in 0..rounds {
        for (i, batches) in all.iter_mut().enumerate() {
            let before = total_requests(&fake);
            let b = match i {
                0 => batch(n, concurrency, raw_call).await,
                1 => batch(n, concurrency, policy_call).await,
                _ => batch(n, concurrency, plain_call).await,
            };
            served.0 += total_requests(&fake) - before;
            served.1 += b.wall;
            batches.push(b);
        }
    }
    let [raw_b, pol_b, plain_b] = all.map(|mut batches| {
        batches.sort_by(|a, b| a.rate().total_cmp(&b.rate()));
        batches.swap_remove(batches.len() / 2)
    });
    // The server's own capacity: plain reqwest at a concurrency that
    // saturates it.
    let before = total_requests(&fake);
    let saturating = batch(n, 64, plain_call).await;
    let capacity = (total_requests(&fake) - before) as f64 / saturating.wall.as_secs_f64();

    out!("\n## 1. Overhead: {n} x findProjectById at concurrency {concurrency}, no limits, no faults (median of {rounds} interleaved rounds)");
    out!("| client | calls/s | p50 | p99 | calls/s vs raw | p50 vs raw | p99 vs raw |");
    out!("|---|---|---|---|---|---|---|");
    for (name, b) in [
        ("metal-api (raw, generated)", &raw_b),
        ("metal-policy (limits off)", &pol_b),
        ("plain reqwest", &plain_b),
    ] {
        out!(
            "| {name} | {:.0} | {} | {} | {:.3} | {:.3} | {:.3} |",
            b.rate(),
            ms(b.percentile(0.5)),
            ms(b.percentile(0.99)),
            b.rate() / raw_b.rate(),
            b.percentile(0.5).as_secs_f64() / raw_b.percentile(0.5).as_secs_f64(),
            b.percentile(0.99).as_secs_f64() / raw_b.percentile(0.99).as_secs_f64(),
        );
    }
    out!(
        "fake server: {:.0} requests/s served during these rounds; {capacity:.0} requests/s at concurrency 64 (its capacity)",
        served.0 as f64 / served.1.as_secs_f64()
    );
}

/// Section 2, throttling: the server allows R requests per second.
async fn throttling() {
    let rate: u32 = if quick() { 50 } else { 100 };
    let n = if quick() { 200 } else { 1000 };
    let concurrency = 8;
    out!("\n## 2. Throttling: server limit R = {rate}/s, {n} x findProjectById at parallelism {concurrency}");
    out!("| client | achieved rate / R | 429s received | wall time |");
    out!("|---|---|---|---|");

    for variant in 0..4 {
        let fake = Fake::builder().reservations(1).build();
        let project = fake.project();
        let server = server(fake.clone(), Some(rate)).await;
        // Let the first rate window start afresh.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let (name, b) = match variant {
            0 => {
                let pol = policy(&server, concurrency, Duration::from_secs(1) / rate);
                let b = batch(n, concurrency, || async {
                    pol.get_project(project).await.map(|_| ())
                })
                .await;
                ("metal-policy, api_rate = 1/R", b)
            }
            1 => {
                let pol = Client::builder()
                    .config(config(&server))
                    .parallelism(concurrency)
                    .learn_rate(true)
                    .build()
                    .expect("the policy client builds");
                let b = batch(n, concurrency, || async {
                    pol.get_project(project).await.map(|_| ())
                })
                .await;
                ("metal-policy, learning from X-RateLimit-* headers", b)
            }
            2 => {
                let pol = policy(&server, concurrency, Duration::ZERO);
                let b = batch(n, concurrency, || async {
                    pol.get_project(project).await.map(|_| ())
                })
                .await;
                ("metal-policy, not configured (learns from 429s)", b)
            }
            _ => {
                let client = reqwest_retry_client();
                let url = format!("{}/projects/{project}", server.base_url());
                let b = batch(n, concurrency, || async {
                    let reply = client
                        .get(&url)
                        .header("x-auth-token", TOKEN)
                        .send()
                        .await
                        .map_err(|e| e.to_string())?
                        .error_for_status()
                        .map_err(|e| e.to_string())?;
                    reply
                        .json::<metal_api::types::Project>()
                        .await
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
                .await;
                ("reqwest-middleware + reqwest-retry", b)
            }
        };
        out!(
            "| {name} | {:.3} | {} | {:.1} s |",
            b.rate() / f64::from(rate),
            requests_with_status(&fake, "findProjectById", "429"),
            b.wall.as_secs_f64()
        );
    }
}

/// Where the rows of section 2b keep their shared limits.
enum SharedRedis {
    /// One node: `$METAL_TEST_REDIS_URL`, else a `redis-server` started
    /// here.
    Plain(redis_harness::Plain),
    /// One node over TLS, its certificates made here (a private CA).
    Tls(redis_harness::Certs, redis_harness::Server),
    /// A three-master cluster, one replica each.
    Cluster(redis_harness::Cluster),
}

impl SharedRedis {
    /// The worker settings that point at it (`W_REDIS`, `W_CA`,
    /// `W_CLUSTER`).
    fn env(&self) -> Vec<(&'static str, String)> {
        match self {
            Self::Plain(p) => vec![("W_REDIS", p.url.clone())],
            Self::Tls(certs, server) => vec![
                ("W_REDIS", server.tls_url().unwrap_or_default()),
                ("W_CA", certs.ca().to_string_lossy().into_owned()),
            ],
            Self::Cluster(c) => vec![("W_REDIS", c.urls().join(",")), ("W_CLUSTER", "1".into())],
        }
    }

    /// Round trips clients have made to it so far: the calls of every
    /// command a client sends (the scripts by SHA and their loading, the
    /// connection's own), summed over its nodes.
    async fn round_trips(&self) -> u64 {
        let info = redis::cmd("INFO").arg("commandstats").clone();
        let sent = [
            "evalsha",
            "script|load",
            "info",
            "ping",
            "cluster|slots",
            "client|setinfo",
            "subscribe",
        ];
        let mut total = 0;
        let nodes: Vec<String> = match self {
            Self::Plain(p) => vec![p.url.clone()],
            Self::Tls(_, server) => vec![server.url()],
            Self::Cluster(c) => c.urls(),
        };
        for url in nodes {
            let Ok(client) = redis::Client::open(url) else {
                continue;
            };
            if let Ok(mut c) = client.get_multiplexed_async_connection().await {
                let text: String = info.query_async(&mut c).await.unwrap_or_default();
                total += redis_harness::command_calls(&text, &sent);
            }
        }
        total
    }
}

/// Section 2b, throttling across processes: three processes with limits
/// shared through Redis (one node, plain and over TLS; a three-master
/// cluster) against three with in-process limits each set to R. Workers
/// are this binary re-executed with `BENCH_SHARED_WORKER` set.
async fn shared_throttling() {
    let rate: u32 = 30;
    let secs: u64 = if quick() { 3 } else { 6 };
    let processes = 3;
    out!("\n## 2b. Throttling across {processes} processes: server limit R = {rate}/s, findProjectById for {secs} s, parallelism 4 each, api_rate = 1/R (unless learning)");
    let Some(plain) = redis_harness::Plain::get("bench shared").await else {
        return;
    };
    let tls = match redis_harness::Certs::new() {
        Ok(certs) => {
            let options = redis_harness::Options::new().tls(&certs, redis_harness::ClientCerts::No);
            redis_harness::Server::start(options)
                .await
                .ok()
                .map(|s| SharedRedis::Tls(certs, s))
        }
        Err(_) => None,
    };
    let cluster = redis_harness::Cluster::start(3, 1)
        .await
        .ok()
        .map(SharedRedis::Cluster);
    let plain = SharedRedis::Plain(plain);
    out!("| limits | achieved rate / R | 429s received | Redis round trips per request | calls per process |");
    out!("|---|---|---|---|---|");
    // Each row: its label, where it shares (None: in-process; Some(None):
    // a server that could not be started), and whether it learns.
    let rows: [(&str, Option<Option<&SharedRedis>>, bool); 5] = [
        (
            "shared through Redis (R in total)",
            Some(Some(&plain)),
            false,
        ),
        (
            "shared through Redis over TLS (rediss://, private CA)",
            Some(tls.as_ref()),
            false,
        ),
        (
            "shared through a Redis Cluster (3 masters)",
            Some(cluster.as_ref()),
            false,
        ),
        (
            "shared through Redis, learning from X-RateLimit-* (no api_rate)",
            Some(Some(&plain)),
            true,
        ),
        ("in-process, R each", None, false),
    ];
    for (label, shared, learn) in rows {
        let redis = match shared {
            Some(Some(r)) => Some(r),
            Some(None) => {
                out!("| {label} | skipped: its server could not be started | | | |");
                continue;
            }
            None => None,
        };
        let fake = Fake::builder().reservations(1).build();
        let server = server(fake.clone(), Some(rate)).await;
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let prefix = format!("bench-{}", Uuid::new_v4());
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
            + 500;
        let trips_before = match redis {
            Some(r) => r.round_trips().await,
            None => 0,
        };
        let children: Vec<_> = (0..processes)
            .map(|_| {
                let mut cmd = std::process::Command::new(
                    std::env::current_exe().expect("the bench binary's path"),
                );
                cmd.env("BENCH_SHARED_WORKER", "1")
                    .env("W_BASE", server.base_url())
                    .env("W_PROJECT", fake.project().to_string())
                    .env("W_RATE", rate.to_string())
                    .env("W_START_MS", start.to_string())
                    .env("W_END_MS", (start + secs * 1000).to_string())
                    .stdout(std::process::Stdio::piped());
                if let Some(r) = redis {
                    cmd.envs(r.env()).env("W_PREFIX", &prefix);
                }
                if learn {
                    cmd.env("W_LEARN", "1");
                }
                cmd.spawn().expect("a worker process starts")
            })
            .collect();
        let oks: Vec<u64> = tokio::task::spawn_blocking(move || {
            children
                .into_iter()
                .map(|c| {
                    let out = c.wait_with_output().expect("the worker ends");
                    String::from_utf8_lossy(&out.stdout)
                        .lines()
                        .find_map(|l| l.strip_prefix("RESULT ok="))
                        .and_then(|n| n.trim().parse().ok())
                        .unwrap_or(0)
                })
                .collect()
        })
        .await
        .expect("the workers' results");
        let total: u64 = oks.iter().sum();
        let requests: u64 = fake
            .snapshot()
            .requests
            .get("findProjectById")
            .map_or(0, |by_status| by_status.values().sum());
        let trips = match redis {
            Some(r) => {
                let made = r.round_trips().await.saturating_sub(trips_before);
                format!("{:.2}", made as f64 / requests.max(1) as f64)
            }
            None => "-".into(),
        };
        out!(
            "| {label} | {:.3} | {} | {trips} | {:?} |",
            total as f64 / secs as f64 / f64::from(rate),
            requests_with_status(&fake, "findProjectById", "429"),
            oks
        );
    }
}

/// One worker process of section 2b: calls `get_project` with 4 loops from
/// `W_START_MS` to `W_END_MS` and prints `RESULT ok=N` (calls that
/// succeeded within the window). With `W_LEARN` it sets no `api_rate` and
/// learns the pace from the headers; `W_REDIS` shares its limits there
/// (`W_CLUSTER`: the cluster's nodes, comma-separated; `W_CA`: a CA file).
async fn shared_worker() {
    let var = |n: &str| std::env::var(n).unwrap_or_default();
    let now_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    };
    let rate: u32 = var("W_RATE").parse().unwrap_or(30);
    let project: Uuid = var("W_PROJECT").parse().unwrap_or_default();
    let start: u64 = var("W_START_MS").parse().unwrap_or(0);
    let end: u64 = var("W_END_MS").parse().unwrap_or(0);
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(var("W_BASE"))
        .build()
        .expect("a loopback config is valid");
    let mut builder = Client::builder().config(config).parallelism(4);
    builder = if std::env::var_os("W_LEARN").is_some() {
        builder.learn_rate(true)
    } else {
        builder.api_rate(Duration::from_secs(1) / rate)
    };
    if let Ok(url) = std::env::var("W_REDIS") {
        let shared = match std::env::var_os("W_CLUSTER") {
            Some(_) => metal_policy::SharedLimits::redis_cluster(url.split(','), var("W_PREFIX")),
            None => metal_policy::SharedLimits::redis(url, var("W_PREFIX")),
        };
        let shared = match std::env::var_os("W_CA") {
            Some(ca) => shared.ca_file(ca),
            None => shared,
        };
        builder = builder.shared_limits(shared.processes(3));
    }
    let client = builder.build().expect("the policy client builds");
    tokio::time::sleep(Duration::from_millis(start.saturating_sub(now_ms()))).await;
    let ok = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let loops: Vec<_> = (0..4)
        .map(|_| {
            let (client, ok) = (client.clone(), ok.clone());
            tokio::spawn(async move {
                while now_ms() < end {
                    if client.get_project(project).await.is_ok() && now_ms() <= end {
                        ok.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for l in loops {
        let _ = l.await;
    }
    println!(
        "RESULT ok={}",
        ok.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// Section 3, faults: provisioning with 20% of calls faulted (half of them after
/// the server acted) against the same run with no faults.
async fn faults() {
    let devices = if quick() { 40 } else { 200 };
    out!("\n## 3. Faults: {devices} devices provisioned through metal-policy over HTTP");
    out!("| run | wall time | active | duplicates | lost | faults injected | time vs fault-free |");
    out!("|---|---|---|---|---|---|---|");
    let mut fault_free = None;
    for rate in [0.0, 0.2] {
        let before_acting = vec![
            FaultKind::FailBefore { status: 500 },
            FaultKind::FailBefore { status: 503 },
            FaultKind::NotSent,
            FaultKind::BadGateway,
        ];
        let after_acting = vec![
            FaultKind::FailAfter { status: 502 },
            FaultKind::DropAfter,
            FaultKind::Truncated,
            FaultKind::FailAfter { status: 500 },
        ];
        let mut builder = Fake::builder().reservations(devices).timings(Timings {
            queued: Duration::from_millis(100),
            provisioning: Duration::from_millis(400),
            ..Timings::uniform(Duration::from_millis(100))
        });
        if rate > 0.0 {
            builder = builder.random_faults(RandomFaults {
                rate,
                seed: 42,
                kinds: before_acting.into_iter().chain(after_acting).collect(),
            });
        }
        let fake = builder.build();
        let server = server(fake.clone(), None).await;
        let client = Client::builder()
            .config(config(&server))
            .parallelism(16)
            .api_rate(Duration::ZERO)
            .backoff(Arc::new(ExponentialBackoff {
                initial_interval: Duration::from_millis(50),
                ..ExponentialBackoff::default()
            }))
            .build()
            .expect("the policy client builds");
        let metal: Arc<dyn Metal> = Arc::new(client);
        let mut cfg = RunConfig::new(fake.project(), devices);
        cfg.poll_interval = Duration::from_millis(100);
        cfg.workers = 32;
        let started = Instant::now();
        let outcome = run(Arc::clone(&metal), &cfg, Arc::new(NoProgress))
            .await
            .expect("the run starts");
        let wall = started.elapsed();
        let injected: u64 = fake.snapshot().faults_injected.values().sum();
        fake.set_random_faults(None);
        let report = audit(
            metal.as_ref(),
            fake.project(),
            &cfg.run_tag,
            &outcome.known(),
        )
        .await
        .expect("the audit lists the devices");
        let base = *fault_free.get_or_insert(wall);
        out!(
            "| fault rate {:.0}% | {:.2} s | {}/{} | {} | {} | {} | {:.2}x |",
            rate * 100.0,
            wall.as_secs_f64(),
            outcome.active,
            outcome.requested,
            report.duplicates,
            report.lost,
            injected,
            wall.as_secs_f64() / base.as_secs_f64()
        );
    }
}

/// One provisioning run of section 7 on the paused clock, in process:
/// what it cost in requests, and its time on the fake's clock.
struct Spent {
    active: usize,
    requests: u64,
    polls: usize,
    lists: usize,
    creates: usize,
    fleet: Duration,
}

/// Provisions `devices` devices that take `provisioning` each, polling each
/// device (`watch` false: the default schedule without its jitter, so the
/// counts are exact) or through the run's watch (its defaults), against a
/// server limited to `limit` requests a second (the client then paced to
/// it, and 64 workers, as the example's `--parallelism 16` has) or not (a
/// worker per device).
async fn spend(devices: usize, provisioning: Duration, watch: bool, limit: Option<u32>) -> Spent {
    let fake = Fake::builder()
        .reservations(devices)
        .timings(Timings {
            queued: provisioning / 4,
            provisioning: provisioning - provisioning / 4,
            ..Timings::default()
        })
        .rate_limit(limit)
        .build();
    let pace = limit.map_or(Duration::ZERO, |r| Duration::from_secs(1) / r);
    let client = fake
        .client_with(|c| c.parallelism(16).api_rate(pace))
        .expect("the in-process client builds");
    let metal: Arc<dyn Metal> = Arc::new(client);
    let mut cfg = RunConfig::new(fake.project(), devices);
    cfg.waiter = metal_policy::Waiter::new().poll(ExponentialBackoff {
        initial_interval: Duration::from_secs(1),
        multiplier: 1.5,
        randomization_factor: 0.0,
        max_interval: Duration::from_secs(30),
        max_elapsed_time: None,
    });
    if !watch {
        cfg.watch = None;
    }
    if limit.is_some() {
        // Not every create at once: queued behind the limiter for longer
        // than a call's 15 minutes, they would give up.
        cfg.workers = 64;
    }
    let started = tokio::time::Instant::now();
    let outcome = run(metal, &cfg, Arc::new(NoProgress))
        .await
        .expect("the run starts");
    Spent {
        active: outcome.active,
        requests: total_requests(&fake),
        polls: fake.call_count("findDeviceById"),
        lists: fake.call_count("findProjectDevices"),
        creates: fake.call_count("createDevice"),
        fleet: started.elapsed(),
    }
}

/// Section 7, requests: what provisioning a fleet spends, in requests
/// (exact: the paused clock, no faults), polling each device against one
/// watch of the run's devices.
fn requests_section() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a paused tokio runtime");
    let sizes: &[usize] = if quick() { &[100] } else { &[100, 1000] };
    out!("\n## 7. Requests: provisioning a fleet, polling each device vs one watch (in process, tokio's paused clock, no faults, no server limit)");
    out!("Each run is `metal_provision::run` with `RunConfig::new`'s defaults (a worker per device) through `Fake::client` (16 in flight): *poll* waits on each device with the default schedule (1 s, x1.5, at most 30 s; jitter off, so the counts are exact) holding its worker; *watch* with `WatchConfig::new` (one list of the run's tagged devices, 1,000 a page, 2 s apart while a watched device changes, doubling to 60 s). A create is one request (`create_device` reads its reservation only after an unknown outcome or a refusal), so the floor here is 1 request a device.");
    out!("| devices | provisioning | wait | active | requests | per device | findDeviceById | findProjectDevices | createDevice | fleet time |");
    out!("|---|---|---|---|---|---|---|---|---|---|");
    for &n in sizes {
        for secs in [2u64, 60, 600] {
            for watch in [false, true] {
                let spent = runtime.block_on(spend(n, Duration::from_secs(secs), watch, None));
                out!(
                    "| {n} | {secs} s | {} | {}/{n} | {} | {:.2} | {} | {} | {} | {:.0} s |",
                    if watch { "watch" } else { "poll" },
                    spent.active,
                    spent.requests,
                    spent.requests as f64 / n as f64,
                    spent.polls,
                    spent.lists,
                    spent.creates,
                    spent.fleet.as_secs_f64()
                );
            }
        }
    }
    let (n, secs) = if quick() { (100, 60) } else { (1000, 600) };
    out!("\nUnder a server limit R (the client paced to 1/R, 64 workers): {n} devices of {secs} s, fleet time on the fake's clock against max(provisioning time T, N / R), and against N/R + T: the last device is created no sooner than its create and those of every device before it allow, and provisions for T after that. A device still waiting after `RunConfig::new`'s 30 minutes is not active.");
    out!("| R | wait | active | requests | fleet time | max(T, N/R) | ratio | N/R + T | ratio |");
    out!("|---|---|---|---|---|---|---|---|---|");
    for r in [5u32, 1] {
        for watch in [false, true] {
            let spent = runtime.block_on(spend(n, Duration::from_secs(secs), watch, Some(r)));
            let fleet = spent.fleet.as_secs_f64();
            let floor = (secs as f64).max(n as f64 / f64::from(r));
            let serial = n as f64 / f64::from(r) + secs as f64;
            out!(
                "| {r}/s | {} | {}/{n} | {} | {fleet:.0} s | {floor:.0} s | {:.2} | {serial:.0} s | {:.2} |",
                if watch { "watch" } else { "poll" },
                spent.active,
                spent.requests,
                fleet / floor,
                fleet / serial
            );
        }
    }
}

/// Section 4, scale: listing 10,000 devices, collected and streamed.
async fn scale() {
    let n = if quick() { 1000 } else { 10_000 };
    let fake = Fake::builder().reservations(n).build();
    // Fill the fake in-process (no HTTP, no limits).
    let filler = fake.client().clone();
    let project = fake.project();
    let reservations: Vec<Uuid> = fake.provisionable_reservations();
    let mut cfg = RunConfig::new(project, 0);
    cfg.workers = 1;
    let bodies: Vec<_> = fake
        .reservations()
        .into_iter()
        .filter(|r| r.id.is_some_and(|id| reservations.contains(&id)))
        .enumerate()
        .map(|(i, r)| {
            metal_provision::controller::create_request(&cfg, &format!("scale-{i}"), &r)
                .expect("a valid create body")
        })
        .collect();
    stream::iter(bodies)
        .map(|body| {
            let filler = filler.clone();
            async move { filler.create_device(project, &body).await.map(|_| ()) }
        })
        .buffer_unordered(64)
        .try_collect::<Vec<()>>()
        .await
        .expect("filling the fake");

    let server = server(fake.clone(), None).await;
    let client = Client::builder()
        .config(config(&server))
        .api_rate(Duration::ZERO)
        .per_page(1000)
        .build()
        .expect("the policy client builds");

    out!("\n## 4. Scale: listing {n} devices over HTTP (per_page 1000)");
    out!("| mode | wall time | devices | peak heap during the listing |");
    out!("|---|---|---|---|");
    let base = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let started = Instant::now();
    let all = client.list_devices(project).await.expect("listing");
    let wall = started.elapsed();
    let peak = ALLOC.peak_usage().saturating_sub(base);
    let count = all.len();
    drop(all);
    out!(
        "| collect (list_devices) | {:.2} s | {count} | {:.1} MiB |",
        wall.as_secs_f64(),
        peak as f64 / (1 << 20) as f64
    );

    let base = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let started = Instant::now();
    let mut pages = client.device_pages(project);
    let mut count = 0;
    while let Some(page) = pages.next().await {
        count += page.expect("a page").len();
    }
    let wall = started.elapsed();
    let peak = ALLOC.peak_usage().saturating_sub(base);
    out!(
        "| stream (device_pages) | {:.2} s | {count} | {:.1} MiB |",
        wall.as_secs_f64(),
        peak as f64 / (1 << 20) as f64
    );
}

/// What the callers of section 6 saw: for each call, when it started and
/// ended (from the start of the run) and whether it succeeded.
type Calls = Arc<std::sync::Mutex<Vec<(Duration, Duration, bool)>>>;

/// How the callers of section 6 call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Callers {
    /// Each caller starts a call every second, whether its last one ended
    /// or not: the same offered load (50 calls/s) for every client, as
    /// from events or incoming requests. What differs between the clients
    /// is then only how many requests each call makes.
    Arrivals,
    /// Each caller calls again 1 s after its last call ended, failed or
    /// not (a controller requeueing after a fixed delay).
    Requeue,
    /// Each caller is a controller-runtime work item under its default
    /// rate limiter: a failed reconcile is requeued after the longer of 5
    /// ms x 2^failures (at most 1000 s) and a turn of a 10/s bucket of 100
    /// shared by all items; a successful one after 1 s.
    ControllerRuntime,
}

impl Callers {
    fn describe(self) -> &'static str {
        match self {
            Self::Arrivals => "a call every 1 s per caller",
            Self::Requeue => "again 1 s after the call ended",
            Self::ControllerRuntime => "controller-runtime's default requeue",
        }
    }
}

/// controller-runtime's `DefaultTypedControllerRateLimiter`: per item,
/// 5 ms x 2^failures up to 1000 s; overall, a token bucket of 10/s with a
/// burst of 100 (GCRA); a requeue waits for the longer of the two.
struct Requeues {
    /// The overall bucket's theoretical arrival time.
    tat: std::sync::Mutex<Instant>,
}

impl Requeues {
    const PER_ITEM_BASE: Duration = Duration::from_millis(5);
    const PER_ITEM_MAX: Duration = Duration::from_secs(1000);
    const SPACING: Duration = Duration::from_millis(100);
    const BURST: u32 = 100;

    fn new() -> Self {
        Self {
            tat: std::sync::Mutex::new(Instant::now()),
        }
    }

    /// The delay before an item that failed `failures` times (this one
    /// included) is reconciled again.
    fn after_failure(&self, failures: u32) -> Duration {
        let item = Self::PER_ITEM_BASE
            .checked_mul(
                1u32.checked_shl(failures.saturating_sub(1))
                    .unwrap_or(u32::MAX),
            )
            .unwrap_or(Self::PER_ITEM_MAX)
            .min(Self::PER_ITEM_MAX);
        let now = Instant::now();
        let mut tat = self.tat.lock().unwrap_or_else(|p| p.into_inner());
        let t = (*tat).max(now);
        let tolerance = Self::SPACING * (Self::BURST - 1);
        let at = t.checked_sub(tolerance).map_or(now, |a| a.max(now));
        *tat = t + Self::SPACING;
        item.max(at - now)
    }
}

/// Section 6, outage: the fake answers every request with a 503 without
/// `Retry-After` for a while, then recovers; 50 callers keep calling
/// throughout, in each of the [`Callers`] ways. The policy client has no
/// rate limit, so what bounds its requests is the backoff and the retry
/// budget.
async fn outage() {
    let (outage, after) = if quick() {
        (Duration::from_secs(5), Duration::from_secs(5))
    } else {
        (Duration::from_secs(30), Duration::from_secs(15))
    };
    let callers = 50;
    out!(
        "\n## 6. Outage: 503 without Retry-After to everything for {} s, then recovery; {callers} callers calling findProjectById until {} s after recovery",
        outage.as_secs(),
        after.as_secs()
    );
    out!("Callers call in three ways: a call every second each, whether the last ended or not (the same offered load for every client, so the requests measure how many attempts each call makes); again 1 s after the last call ended; and as controller-runtime work items under its default rate limiter (a failed reconcile requeued after the longer of 5 ms x 2^failures and a turn of a 10/s bucket of 100, a successful one after 1 s). The policy client runs at parallelism {callers}, no rate limit, the default backoff; the budget bounds retries, never first attempts.");
    out!("| callers | client | requests during the outage | calls ended during the outage | their time to end: median / max | recovery to first success | calls succeeded after recovery |");
    out!("|---|---|---|---|---|---|---|");
    for way in [
        Callers::Arrivals,
        Callers::Requeue,
        Callers::ControllerRuntime,
    ] {
        let mut sent = Vec::new();
        for variant in 0..3 {
            sent.push(outage_run(way, variant, callers, outage, after).await);
        }
        out!(
            "| {} | requests without the budget / with it | {:.2} | | | | |",
            way.describe(),
            sent[1] as f64 / sent[0].max(1) as f64
        );
    }
}

/// One row of section 6: `variant` 0 is the policy with its default retry
/// budget, 1 without a budget, 2 reqwest-retry. Returns the requests sent
/// during the outage.
async fn outage_run(
    way: Callers,
    variant: usize,
    callers: usize,
    outage: Duration,
    after: Duration,
) -> u64 {
    let fake = Fake::builder().reservations(1).build();
    let project = fake.project();
    let server = server(fake.clone(), None).await;
    let calls: Calls = Arc::default();
    let (name, call): (
        &str,
        Arc<dyn Fn() -> futures::future::BoxFuture<'static, bool> + Send + Sync>,
    ) = match variant {
        0 | 1 => {
            let mut builder = Client::builder()
                .config(config(&server))
                .parallelism(callers)
                .api_rate(Duration::ZERO);
            if variant == 1 {
                builder = builder.retry_budget(None);
            }
            let pol = builder.build().expect("the policy client builds");
            let call = Arc::new(move || {
                let pol = pol.clone();
                Box::pin(async move { pol.get_project(project).await.is_ok() })
                    as futures::future::BoxFuture<'static, bool>
            });
            let name = if variant == 0 {
                "metal-policy, retry budget (default)"
            } else {
                "metal-policy, no retry budget"
            };
            (name, call)
        }
        _ => {
            let client = reqwest_retry_client();
            let url = format!("{}/projects/{project}", server.base_url());
            let call = Arc::new(move || {
                let (client, url) = (client.clone(), url.clone());
                Box::pin(async move {
                    match client.get(&url).header("x-auth-token", TOKEN).send().await {
                        Ok(r) => r.status().is_success(),
                        Err(_) => false,
                    }
                }) as futures::future::BoxFuture<'static, bool>
            });
            ("reqwest-middleware + reqwest-retry (20 retries)", call)
        }
    };
    fake.set_random_faults(Some(RandomFaults {
        rate: 1.0,
        seed: 1,
        kinds: vec![FaultKind::FailBefore { status: 503 }],
    }));
    let before = total_requests(&fake);
    let t0 = Instant::now();
    let recovery = tokio::spawn({
        let fake = fake.clone();
        async move {
            tokio::time::sleep(outage).await;
            let sent = total_requests(&fake);
            fake.set_random_faults(None);
            sent
        }
    });
    let end = outage + after;
    let requeues = Arc::new(Requeues::new());
    // One call, recorded.
    let record = {
        let (call, calls) = (Arc::clone(&call), Arc::clone(&calls));
        move || {
            let (call, calls) = (Arc::clone(&call), Arc::clone(&calls));
            async move {
                let started = t0.elapsed();
                let ok = call().await;
                let ended = t0.elapsed();
                calls
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((started, ended, ok));
                ok
            }
        }
    };
    let loops: Vec<_> = (0..callers)
        .map(|_| {
            let (record, requeues) = (record.clone(), Arc::clone(&requeues));
            tokio::spawn(async move {
                let mut failures = 0;
                // The calls of an arrivals caller still running at the end
                // are aborted with it.
                let mut running = tokio::task::JoinSet::new();
                while t0.elapsed() < end {
                    match way {
                        Callers::Arrivals => {
                            running.spawn(record());
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                        Callers::Requeue => {
                            record().await;
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                        Callers::ControllerRuntime => {
                            let delay = if record().await {
                                failures = 0;
                                Duration::from_secs(1)
                            } else {
                                failures += 1;
                                requeues.after_failure(failures)
                            };
                            tokio::time::sleep(delay).await;
                        }
                    }
                }
                running.abort_all();
            })
        })
        .collect();
    let during = recovery.await.expect("the recovery task") - before;
    for mut l in loops {
        // A closed-loop caller's call still running at the end is waited
        // for until a second after the end of the run, then aborted.
        let left = (end + Duration::from_secs(1)).saturating_sub(t0.elapsed());
        if tokio::time::timeout(left, &mut l).await.is_err() {
            l.abort();
        }
    }
    let calls = calls.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut ended: Vec<Duration> = calls
        .iter()
        .filter(|(_, e, _)| *e < outage)
        .map(|(s, e, _)| *e - *s)
        .collect();
    ended.sort();
    let first = calls
        .iter()
        .filter(|(_, e, ok)| *ok && *e >= outage)
        .map(|(_, e, _)| *e - outage)
        .min();
    let succeeded = calls
        .iter()
        .filter(|(_, e, ok)| *ok && *e >= outage && *e <= end)
        .count();
    let times = match (ended.get(ended.len() / 2), ended.last()) {
        (Some(m), Some(x)) => format!("{} / {}", ms(*m), ms(*x)),
        _ => "none ended".to_string(),
    };
    out!(
        "| {} | {name} | {during} | {} | {times} | {} | {succeeded} |",
        way.describe(),
        ended.len(),
        first.map_or("none".to_string(), ms),
    );
    during
}

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no arguments.
    // The plain reqwest rows build their clients with `reqwest::Client::new`,
    // which panics without a process-wide rustls provider under metal-api's
    // default `rustls-ring` backend (see `metal_api::tls`): install ring's,
    // the one metal-api uses.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if std::env::var_os("BENCH_SHARED_WORKER").is_some() {
        runtime.block_on(shared_worker());
        return;
    }
    let started = std::time::SystemTime::now();
    let load_before = report::load();
    println!(
        "# metal-provision comparison benchmarks\n{}\n{}\nload average {load_before}",
        report::command(),
        report::machine()
    );
    runtime.block_on(async {
        if runs("overhead") {
            overhead().await;
        }
        if runs("throttling") {
            throttling().await;
        }
        if runs("shared") {
            shared_throttling().await;
        }
        if runs("faults") {
            faults().await;
        }
        if runs("scale") {
            scale().await;
        }
        if runs("outage") {
            outage().await;
        }
    });
    if runs("requests") {
        requests_section();
    }
    if runs("build") {
        build::section();
    }
    if std::env::var_os("BENCH_README").is_some() {
        match report::write_readme(started, &load_before) {
            Ok(()) => println!("\nwrote benches/README.md"),
            Err(e) => {
                eprintln!("error: cannot write benches/README.md: {e}");
                std::process::exit(1);
            }
        }
    }
}
