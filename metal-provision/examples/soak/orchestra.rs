//! The soak itself: the fake server, Redis, the controller processes, the
//! chaos (Redis restarts, SIGKILLed controllers, a competitor), and the
//! invariants checked every second and at the end.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use metal_api::DeviceState;
use metal_fake::{Fake, Fault, FaultKind, RandomFailures, RandomFaults, ServerConfig, Timings};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use uuid::Uuid;

use crate::check::{self, OnServer, Seen, Violation, Window};
use crate::ledger::Ledger;
use crate::redis::{Redis, RedisError};

/// The token the fake accepts; handed to the controllers in their
/// environment, never on their command line.
const TOKEN: &str = "soak-token";

/// How long the controllers have to stop once told to.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// The chaos and checks tick.
const TICK: Duration = Duration::from_millis(100);

/// What the soak is asked to do.
#[derive(Debug, Clone)]
pub struct Plan {
    /// How long the controllers run.
    pub seconds: u64,
    /// How many controller processes.
    pub controllers: usize,
    /// The seed of the faults and of the chaos schedule.
    pub seed: u64,
    /// The server's rate limit, requests per second (the controllers are
    /// configured with the same, shared).
    pub rate: u32,
    /// The probability of a random fault per request.
    pub fault_rate: f64,
    /// The probability that a device's provisioning fails.
    pub fail_rate: f64,
}

/// What the soak saw.
#[derive(Debug, Default)]
pub struct Summary {
    /// Calls the server received.
    pub calls: u64,
    /// Devices created through the API.
    pub created: u64,
    /// Devices beyond one per witness.
    pub duplicates: usize,
    /// Devices no ledger knows, at the end.
    pub lost: usize,
    /// Devices rebooted more often than their logical reboots.
    pub double_reboots: usize,
    /// The most requests the server saw in one second.
    pub max_rate: usize,
    /// The same, away from Redis outages and from the controllers' falls
    /// back to local limits (see [`check::near_outage`]).
    pub steady_rate: usize,
    /// Periods a controller used local limits (Redis restarted, or slower
    /// than the client's timeout).
    pub fallbacks: u64,
    /// 429s sent by the server's own rate limit.
    pub throttled: u64,
    /// Reconcile steps cancelled.
    pub cancels: u64,
    /// Redis restarts.
    pub redis_restarts: u64,
    /// Controllers killed with SIGKILL (and replaced).
    pub kills: u64,
    /// Reservations the competitor took.
    pub competitor: u64,
    /// Devices created through `next-available` (a reply that named
    /// them; those recovered by their witness later are not counted).
    pub next_available: u64,
    /// Bursts of faults injected (each hits the next few calls).
    pub bursts: u64,
    /// Devices seen `failed` (their provisioning failed).
    pub failed: usize,
    /// Controller processes held to the memory invariant (each one at the
    /// end, and each killed one that had warmed up).
    pub rss_checked: u64,
    /// The first invariant violated, if any.
    pub violation: Option<Violation>,
}

/// Why the soak could not run (as opposed to an invariant failing).
#[derive(Debug, thiserror::Error)]
pub enum SoakError {
    /// Redis.
    #[error(transparent)]
    Redis(#[from] RedisError),
    /// The fake's server.
    #[error("cannot start the fake server: {0}")]
    Server(#[source] std::io::Error),
    /// A controller process.
    #[error("cannot start controller {slot}: {source}")]
    Spawn {
        /// Its slot.
        slot: usize,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The scratch directory for the ledgers.
    #[error("cannot make the ledger directory {path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// One controller process and what it reported.
struct Controller {
    child: Child,
    stdin: Option<ChildStdin>,
    pid: Option<u32>,
    started: Instant,
    warm_rss: Option<u64>,
    report: JoinHandle<Option<(f64, f64)>>,
}

/// Everything a controller needs to be (re)started.
struct Launcher {
    exe: PathBuf,
    endpoint: String,
    project: Uuid,
    redis: String,
    prefix: String,
    dir: PathBuf,
    run_tag: String,
    plan: Plan,
    target: usize,
    cancels: Arc<AtomicU64>,
    /// Devices created through `next-available`, as the controllers report.
    next_available: Arc<AtomicU64>,
    /// Periods a controller used local limits, `(from, to)`, each
    /// recorded once it is over (or its controller's output ends).
    fallbacks: Arc<std::sync::Mutex<Vec<Period>>>,
}

/// A period `(from, to)`; `to` is `None` while it lasts.
type Period = (Instant, Option<Instant>);

impl Launcher {
    fn ledger(&self, slot: usize) -> PathBuf {
        self.dir.join(format!("controller-{slot}.json"))
    }

    fn spawn(&self, slot: usize) -> Result<Controller, SoakError> {
        let mut child = Command::new(&self.exe)
            .arg("controller")
            .args(["--slot", &slot.to_string()])
            .args(["--endpoint", &self.endpoint])
            .args(["--project", &self.project.to_string()])
            .args(["--redis", &self.redis, "--prefix", &self.prefix])
            .arg("--ledger")
            .arg(self.ledger(slot))
            .args(["--run-tag", &self.run_tag])
            .args(["--seed", &self.plan.seed.to_string()])
            .args(["--rate", &self.plan.rate.to_string()])
            .args(["--controllers", &self.plan.controllers.to_string()])
            .args(["--target", &self.target.to_string()])
            .env(metal_api::config::ENV_AUTH_TOKEN, TOKEN)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| SoakError::Spawn { slot, source })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let cancels = self.cancels.clone();
        let next_available = self.next_available.clone();
        let fallbacks = self.fallbacks.clone();
        let report = tokio::spawn(async move {
            let mut last = None;
            let stdout = stdout?;
            let mut open: Option<Instant> = None;
            let mut lines = BufReader::new(stdout).lines();
            let record = |from: Instant| {
                let mut f = fallbacks.lock().unwrap_or_else(|p| p.into_inner());
                f.retain(|(_, to)| to.is_none_or(|to| to.elapsed() < Duration::from_secs(10)));
                f.push((from, Some(Instant::now())));
            };
            while let Ok(Some(line)) = lines.next_line().await {
                match line.as_str() {
                    "cancel" => {
                        cancels.fetch_add(1, Ordering::Relaxed);
                    }
                    "next_available" => {
                        next_available.fetch_add(1, Ordering::Relaxed);
                    }
                    "degraded" => open = Some(Instant::now()),
                    "restored" => {
                        if let Some(from) = open.take() {
                            record(from);
                        }
                    }
                    _ => {
                        if let Some(rest) = line.strip_prefix("final ") {
                            last = parse_final(rest);
                        }
                    }
                }
            }
            if let Some(from) = open {
                record(from);
            }
            last
        });
        Ok(Controller {
            pid: child.id(),
            child,
            stdin,
            started: Instant::now(),
            warm_rss: None,
            report,
        })
    }
}

/// `in_flight=A waiting=B` into `(A, B)`.
fn parse_final(rest: &str) -> Option<(f64, f64)> {
    let mut it = rest.split(' ');
    let a = it.next()?.strip_prefix("in_flight=")?.parse().ok()?;
    let b = it.next()?.strip_prefix("waiting=")?.parse().ok()?;
    Some((a, b))
}

/// Fake timings short enough for many lifecycles per minute.
fn timings() -> Timings {
    Timings {
        queued: Duration::from_millis(200),
        provisioning: Duration::from_millis(800),
        power: Duration::from_millis(300),
        reinstall: Duration::from_secs(1),
        reservation_release: Duration::from_secs(1),
        deprovisioning: Duration::from_millis(300),
        ..Timings::default()
    }
}

/// The faults drawn at random: every recoverable kind but the injected
/// 429 (so that every 429 counted is the server's rate limit), plus a
/// competitor taking the reservation a create names.
fn fault_kinds() -> Vec<FaultKind> {
    let mut kinds: Vec<FaultKind> = FaultKind::recoverable()
        .into_iter()
        .filter(|k| !matches!(k, FaultKind::Throttle { .. }))
        .collect();
    kinds.push(FaultKind::Competitor);
    kinds
}

/// Mean time between two chaos events of one kind, for a run this long.
fn every(seconds: u64, fraction: u64, min: u64, max: u64) -> Duration {
    Duration::from_secs((seconds / fraction).clamp(min, max))
}

/// Whether an event with this mean interval happens in one tick.
fn happens(rng: &mut StdRng, mean: Duration) -> bool {
    rng.random_bool((TICK.as_secs_f64() / mean.as_secs_f64()).min(1.0))
}

/// Our devices on the server now (the run's tag, not a competitor's):
/// each with its witness and whether the server is deleting it.
fn ours(fake: &Fake, run_tag: &str) -> Vec<OnServer> {
    fake.devices()
        .into_iter()
        .filter(|d| d.tags.iter().any(|t| t == run_tag))
        .filter_map(|d| {
            Some(OnServer {
                id: d.id?,
                witness: Ledger::witness_of(&d.tags).map(str::to_string),
                deleting: d.state_kind() == Some(DeviceState::Deprovisioning),
                failed: d.state_kind() == Some(DeviceState::Failed),
            })
        })
        .collect()
}

/// How often the server rebooted each of our devices.
fn reboots_performed(fake: &Fake, on_server: &[OnServer]) -> BTreeMap<Uuid, u32> {
    on_server
        .iter()
        .filter_map(|d| fake.reboots(d.id).map(|n| (d.id, n)))
        .collect()
}

/// A lost device, named with its state and hostname (its hostname names
/// the controller and the witness).
fn lost_violation(fake: &Fake, id: Uuid) -> Violation {
    let found = fake.devices().into_iter().find(|d| d.id == Some(id));
    let what = found.map_or("gone".into(), |d| {
        format!(
            "state {}, hostname {}",
            d.state.as_deref().unwrap_or("?"),
            d.hostname.as_deref().unwrap_or("?")
        )
    });
    format!("lost: device {id} ({what}) is on the server and in no ledger")
}

fn double_reboot_violation((device, performed, sent): &(Uuid, u32, u32)) -> Violation {
    format!("double reboot: device {device} rebooted {performed} times for {sent} logical reboots")
}

fn duplicate_violation(witness: &str, ids: &std::collections::BTreeSet<Uuid>) -> Violation {
    format!("duplicate: witness {witness} has devices {ids:?}")
}

fn read_ledgers(launcher: &Launcher) -> Vec<Ledger> {
    // A ledger being renamed into place is read whole or not at all; an
    // unreadable one counts as empty, which can only make a check fail.
    (0..launcher.plan.controllers)
        .map(|s| Ledger::load(&launcher.ledger(s)).unwrap_or_default())
        .collect()
}

/// Runs the soak.
pub async fn run(plan: Plan) -> Result<Summary, SoakError> {
    let run_id = Uuid::new_v4().simple().to_string();
    let dir = std::env::temp_dir().join(format!("metal-soak-{}", &run_id[..12]));
    std::fs::create_dir_all(&dir).map_err(|source| SoakError::Dir {
        path: dir.clone(),
        source,
    })?;
    let result = run_in(plan, &dir, &run_id).await;
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn run_in(plan: Plan, dir: &std::path::Path, run_id: &str) -> Result<Summary, SoakError> {
    let mut rng = StdRng::seed_from_u64(plan.seed);
    let mut redis = Redis::start().await?;
    // A pool the controllers compete for: twice their total target, so
    // creates keep finding free reservations despite the competitor.
    let per_controller = 4;
    let reservations = plan.controllers * per_controller * 2 + 2;
    let fake = Fake::builder()
        .reservations(reservations)
        .timings(timings())
        .random_faults(RandomFaults {
            rate: plan.fault_rate,
            seed: plan.seed,
            kinds: fault_kinds(),
        })
        .random_provisioning_failures(RandomFailures {
            rate: plan.fail_rate,
            seed: plan.seed,
        })
        .build();
    let config = ServerConfig::new(TOKEN).rate_limit(Some(plan.rate));
    let server = metal_fake::bind(fake.clone(), "127.0.0.1:0", config)
        .await
        .map_err(SoakError::Server)?;
    let launcher = Launcher {
        exe: std::env::current_exe().map_err(|source| SoakError::Spawn { slot: 0, source })?,
        endpoint: server.base_url().to_string(),
        project: fake.project(),
        redis: redis.url(),
        prefix: format!("soak-{run_id}"),
        dir: dir.to_owned(),
        run_tag: format!("soak-{}", &run_id[..12]),
        plan: plan.clone(),
        target: per_controller,
        cancels: Arc::new(AtomicU64::new(0)),
        next_available: Arc::new(AtomicU64::new(0)),
        fallbacks: Arc::default(),
    };
    let mut controllers = Vec::new();
    for slot in 0..plan.controllers {
        controllers.push(launcher.spawn(slot)?);
    }

    let mut summary = Summary::default();
    let mut first: Option<Violation> = None;
    // The first violation is the verdict; each later kind is printed
    // once too, so one run shows everything that broke.
    let mut kinds = std::collections::BTreeSet::new();
    let mut fail = |v: Violation| {
        let kind = v.split(':').next().unwrap_or_default().to_string();
        if kinds.insert(kind) {
            eprintln!("soak: violated: {v}");
        }
        if first.is_none() {
            first = Some(v);
        }
    };
    let mut seen = Seen::default();
    let mut calls = Calls::default();
    // The last few kills, for the messages.
    let mut kills = std::collections::VecDeque::new();
    let mut suspects: Vec<Uuid> = Vec::new();
    let mut competitor: Vec<(Uuid, Instant)> = Vec::new();
    // When Redis went down, and when it is due back.
    let mut redis_back: Option<(Instant, Instant)> = None;
    // When Redis went down and came back, for the messages.
    let mut outages: Vec<(Instant, Instant)> = Vec::new();

    let start = Instant::now();
    let end = start + Duration::from_secs(plan.seconds);
    // A quarter of the run, 3 s to 60 s, and never more than half of it.
    let warm_up = Duration::from_secs((plan.seconds / 4).clamp(3, 60))
        .min(Duration::from_millis(plan.seconds * 500));
    let redis_every = every(plan.seconds, 4, 4, 120);
    let kill_every = every(plan.seconds, 2, 8, 180);
    let compete_every = Duration::from_secs(3);
    let burst_every = every(plan.seconds, 6, 10, 120);
    let burst_kinds = fault_kinds();
    let mut failed = std::collections::BTreeSet::new();
    let mut ticks = 0u64;
    let mut ticker = tokio::time::interval(TICK);
    while Instant::now() < end {
        ticker.tick().await;
        ticks += 1;
        let now = Instant::now();
        let quiet = now + Duration::from_secs(3) >= end;

        // Chaos: Redis.
        match redis_back {
            Some((down, at)) if now >= at => {
                redis.up().await?;
                redis_back = None;
                outages.push((down, Instant::now()));
                summary.redis_restarts += 1;
            }
            None if !quiet && happens(&mut rng, redis_every) => {
                redis.down().await;
                let back = now + Duration::from_millis(rng.random_range(100..1500));
                redis_back = Some((now, back));
            }
            _ => {}
        }
        // Chaos: a controller killed with SIGKILL, replaced at once on
        // the same ledger. Not in the last warm-up before the end, so that
        // every process at the end has an RSS after warm-up to compare
        // with; a killed process that was warm is held to the memory
        // invariant just before it dies.
        if now + warm_up + Duration::from_secs(1) < end && happens(&mut rng, kill_every) {
            let slot = rng.random_range(0..controllers.len());
            let mut old = controllers.remove(slot);
            if old.warm_rss.is_some() {
                if let Some(v) = check::memory(slot, old.warm_rss, old.pid.and_then(check::rss_kib))
                {
                    fail(v);
                }
                summary.rss_checked += 1;
            }
            let _ = old.child.kill().await;
            old.report.abort();
            controllers.insert(slot, launcher.spawn(slot)?);
            summary.kills += 1;
            kills.push_back(now);
            if kills.len() > 8 {
                kills.pop_front();
            }
        }
        // Chaos: a burst of faults, hitting the next 3 to 10 calls
        // whoever sends them.
        if !quiet && happens(&mut rng, burst_every) {
            for _ in 0..rng.random_range(3..=10) {
                let kind = burst_kinds[rng.random_range(0..burst_kinds.len())].clone();
                fake.inject(Fault::any(kind)).unwrap();
            }
            summary.bursts += 1;
        }
        // Chaos: the competitor takes a free reservation, and gives its
        // devices back after a while.
        if !quiet && happens(&mut rng, compete_every) {
            let free = fake.provisionable_reservations();
            if !free.is_empty() {
                let r = free[rng.random_range(0..free.len())];
                if let Some(d) = fake.take_reservation(r) {
                    competitor.push((d, now));
                    summary.competitor += 1;
                }
            }
        }
        competitor.retain(|(d, at)| {
            now.duration_since(*at) < Duration::from_secs(5) || !fake.release_competitor(*d)
        });

        // Every device, as often as the tick, for the duplicate history
        // (a controller deletes a device only once it is active, which
        // takes longer than a tick).
        let on_server = ours(&fake, &launcher.run_tag);
        for d in &on_server {
            seen.device(d.id, d.witness.as_deref());
            if d.failed {
                failed.insert(d.id);
            }
        }
        if let Some((w, ids)) = seen.first_duplicate() {
            fail(duplicate_violation(w, ids));
        }

        // RSS after warm-up, per process.
        for c in &mut controllers {
            if c.warm_rss.is_none() && now.duration_since(c.started) >= warm_up {
                c.warm_rss = c.pid.and_then(check::rss_kib);
            }
        }

        if ticks.is_multiple_of(10) {
            // The server first (this tick's read), then the ledgers.
            let reboots = reboots_performed(&fake, &on_server);
            let ledgers = read_ledgers(&launcher);
            if let Some(double) = check::double_reboots(&reboots, &ledgers).first() {
                fail(double_reboot_violation(double));
            }
            // A device is lost if it is unknown in two checks in a row
            // (a device deleted between the two reads is not lost).
            let lost = check::lost(&on_server, &ledgers);
            if let Some(d) = lost.iter().find(|d| suspects.contains(d)) {
                fail(lost_violation(&fake, *d));
            }
            suspects = lost;
            calls.observe(&fake, &outages, redis_back.map(|(d, _)| d), false);
            calls.fallbacks(&launcher.fallbacks);
            // Older outages can no longer be near an arrival not yet
            // classified.
            outages.retain(|(_, up)| now.duration_since(*up) < Duration::from_secs(10));
        }
    }

    // Stop: close every controller's input, wait for its last line.
    let rss_end: Vec<Option<u64>> = controllers
        .iter()
        .map(|c| c.pid.and_then(check::rss_kib))
        .collect();
    for c in &mut controllers {
        c.stdin = None;
    }
    if let Some((down, _)) = redis_back {
        redis.up().await?;
        outages.push((down, Instant::now()));
        summary.redis_restarts += 1;
    }
    for (slot, mut c) in controllers.into_iter().enumerate() {
        match tokio::time::timeout(STOP_TIMEOUT, c.child.wait()).await {
            Ok(Ok(status)) if status.success() => {}
            Ok(Ok(status)) => fail(format!("controller {slot} exited with {status}")),
            Ok(Err(e)) => fail(format!("controller {slot}: {e}")),
            Err(_) => {
                let _ = c.child.kill().await;
                fail(format!(
                    "controller {slot} did not stop within {STOP_TIMEOUT:?}"
                ));
            }
        }
        match c.report.await.ok().flatten() {
            Some((in_flight, waiting)) if in_flight == 0.0 && waiting == 0.0 => {}
            Some((in_flight, waiting)) => fail(format!(
                "gauges: controller {slot} ended with in_flight={in_flight} waiting={waiting}"
            )),
            None => fail(format!("controller {slot} reported no final gauges")),
        }
        eprintln!(
            "soak: controller {slot} RSS {} KiB after warm-up, {} KiB at the end",
            c.warm_rss.map_or("unknown".into(), |k| k.to_string()),
            rss_end[slot].map_or("unknown".into(), |k| k.to_string())
        );
        if let Some(v) = check::memory(slot, c.warm_rss, rss_end[slot]) {
            fail(v);
        }
        summary.rss_checked += 1;
    }

    // The end: every controller has stopped, so the reads are exact.
    let on_server = ours(&fake, &launcher.run_tag);
    for d in &on_server {
        seen.device(d.id, d.witness.as_deref());
    }
    let ledgers = read_ledgers(&launcher);
    let reboots = reboots_performed(&fake, &on_server);
    let double = check::double_reboots(&reboots, &ledgers);
    summary.double_reboots = double.len();
    if let Some(double) = double.first() {
        fail(double_reboot_violation(double));
    }
    let lost = check::lost(&on_server, &ledgers);
    summary.lost = lost.len();
    if let Some(d) = lost.first() {
        fail(lost_violation(&fake, *d));
    }
    summary.duplicates = seen.duplicates();
    if let Some((w, ids)) = seen.first_duplicate() {
        fail(duplicate_violation(w, ids));
    }
    calls.fallbacks(&launcher.fallbacks);
    calls.observe(&fake, &outages, None, true);
    let snapshot = fake.snapshot();
    summary.calls = snapshot.calls;
    summary.created = snapshot.world.devices_created;
    // Every device created was seen, so the duplicate history is whole.
    if (seen.count() as u64) < summary.created {
        fail(format!(
            "harness: {} devices were created but only {} seen",
            summary.created,
            seen.count()
        ));
    }
    summary.max_rate = calls.all.max();
    summary.steady_rate = calls.steady.max();
    summary.fallbacks = calls.fallbacks;
    summary.throttled = calls.throttled;
    let secs =
        |t: Option<Instant>| t.map_or(0.0, |t| t.saturating_duration_since(start).as_secs_f64());
    let rate = plan.rate as usize;
    // The invariant: the server saw at most R plus its burst in every
    // one-second window. The fake's bucket holds one second's worth (R), so
    // the bound is 2R, around Redis outages too (where the policy documents
    // up to one local budget per process beside the shared one). The
    // windows away from outages are reported, not held to R + 1: arrival
    // jitter on a loaded machine packs a few requests sent in one second
    // into the next at the server (22/20 seen in a 10-minute run), and
    // the 429 check below is the one that says whether clients overspent.
    let bound = 2 * rate;
    if summary.max_rate > bound {
        let kills: Vec<String> = kills
            .iter()
            .map(|k| format!("{:.1}", secs(Some(*k))))
            .collect();
        fail(format!(
            "rate: the server saw {} requests in one second (from {:.1} s), over R + burst = {} (controllers killed at {} s)",
            summary.max_rate,
            secs(calls.all.max_from()),
            bound,
            kills.join(", ")
        ));
    }
    if summary.throttled > 0 {
        fail(format!(
            "429: the server's rate limit refused {} requests",
            summary.throttled
        ));
    }
    summary.cancels = launcher.cancels.load(Ordering::Relaxed);
    summary.next_available = launcher.next_available.load(Ordering::Relaxed);
    summary.failed = failed.len();
    redis.down().await;
    server.shutdown().await;
    summary.violation = first;
    Ok(summary)
}

/// The server's call log, read as it grows: every arrival counted in the
/// one-second windows, and, with a delay long enough to know whether a
/// Redis outage was near it, in the windows away from outages; and the
/// 429s of the server's own rate limit (no injected fault).
#[derive(Default)]
struct Calls {
    last_seq: u64,
    pending: std::collections::VecDeque<Instant>,
    all: Window,
    steady: Window,
    throttled: u64,
    /// Recent periods some controller used local limits.
    local: Vec<Period>,
    /// How many such periods were seen (Redis restarts and any other).
    pub fallbacks: u64,
}

impl Calls {
    /// Takes the controllers' recent fallback periods.
    fn fallbacks(&mut self, from: &std::sync::Mutex<Vec<Period>>) {
        let f = from.lock().unwrap_or_else(|p| p.into_inner());
        for period in f.iter() {
            if !self.local.contains(period) {
                self.local.push(*period);
                self.fallbacks += 1;
            }
        }
        self.local.retain(|p| f.contains(p));
    }

    /// Reads the calls logged since the last look; `ongoing` is the start
    /// of an outage not over yet; `end` classifies everything pending.
    fn observe(
        &mut self,
        fake: &Fake,
        outages: &[(Instant, Instant)],
        ongoing: Option<Instant>,
        end: bool,
    ) {
        let mut batch = Vec::new();
        let since = self.last_seq;
        for c in fake.calls_since(since) {
            self.last_seq = c.seq;
            batch.push(c.at);
            if c.status == Some(429) && c.fault.is_none() {
                self.throttled += 1;
            }
        }
        // Logged in the order they were answered; counted in arrival order.
        batch.sort();
        self.all.extend(batch.iter().copied());
        self.pending.extend(batch);
        let mut known: Vec<(Instant, Option<Instant>)> =
            outages.iter().map(|(d, u)| (*d, Some(*u))).collect();
        known.extend(ongoing.map(|d| (d, None)));
        known.extend(self.local.iter().copied());
        // An outage starting up to 1 s after an arrival, or ending up to
        // 2 s before it, is known 3 s after it.
        let settled = Instant::now().checked_sub(Duration::from_secs(3));
        while let Some(at) = self.pending.front().copied() {
            if !end && settled.is_none_or(|s| at > s) {
                break;
            }
            self.pending.pop_front();
            if !check::near_outage(at, &known) {
                self.steady.extend([at]);
            }
        }
    }
}
