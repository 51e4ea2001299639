//! The provisioning run: a small controller on `metal-policy`
//! (`cargo run --release --bin provision`; `-- --help` lists the flags).
//!
//! By default it starts `metal-fake`'s HTTP server in-process on a loopback
//! port, with a seeded mix of faults (lost replies, 5xx, 429s, a competitor
//! taking reservations) and a server-side rate limit, then provisions one
//! device per free hardware reservation through the real policy client,
//! waits until each is active, audits the server's state, and prints a
//! table of its requests by operation and how they ended (`--metrics`: the
//! raw Prometheus text too). Some devices fail to provision (`--fail-rate`,
//! 0.1 by default, which the default run meets): the run deletes each and
//! tries the hostname on another reservation, up to `--failed-retries` (6)
//! more times, so a hostname falls short only when seven devices in a row
//! fail (one in ten million at the default rate). Its last line is
//! `provisioned A/B devices in T s: N adopted, D duplicates, L lost, R retries, X race-lost, F failed`:
//! of the devices of the run's tag on the server when it ends, N kept
//! though another run made them, D beyond one for a hostname, and L
//! hostnames this run made active that end with no device; R attempts
//! repeated, X reservations found taken, F devices that failed to
//! provision.
//!
//! Every device is waited for through one watch of the run's devices (one
//! paged list of the project's devices serving every wait, a list every
//! thirtieth of `--provision-time` while a device changes, at least 250 ms
//! and at most 2 s apart, up to 2 s apart while none does), and a waiting
//! device holds no worker; `--poll` polls each device instead, as before
//! the watch.
//!
//! The run's name (`--name`, default `provision`) is its identity: its
//! hostnames are `<name>-<n>` and its devices carry the tag
//! `provision-run=<name>`. The same command run again against the same
//! project (after a crash, say) adopts the devices it finds instead of
//! creating more, and reports them as adopted. Several runs of one name
//! at once end with one device per hostname (the controller's docs say
//! how, and what a race costs); a run that ends while another is still at
//! work deletes what that run made after this one settled a hostname,
//! behind its own active device, before its audit counts duplicates (a
//! `note:` line says so).
//!
//! `--endpoint URL` (or `METAL_API_URL`) targets another server instead (a
//! running `metal-fake`, or the real API), with the token from
//! `METAL_AUTH_TOKEN` (or `--token`) and the project from `--project` (or
//! `METAL_PROJECT_ID`); it refuses up front to ask for more devices than the
//! project has free hardware reservations. `--redis URL` (or
//! `--redis-cluster URL,URL,URL`, with `--redis-ca FILE` for a private CA)
//! shares the client's limits with other runs through Redis; they need the
//! binary built with metal-provision's feature `redis`
//! (`cargo run --release -p metal-provision --features redis -- --redis URL`),
//! and without it are a bad command line that names the feature.
//!
//! While it runs, a progress line goes to stderr every `--progress-interval`
//! (10 s), with a warning when every API attempt in that interval failed.
//!
//! Exit status: 0 when every device asked for became active and the audit
//! found no duplicate, no lost device and no device of the run's tag under
//! a hostname it was not asked for; 1 when the run failed (one `error:`
//! line says why: fewer devices active than asked for, none, the audit's
//! findings, or an unreachable endpoint, token or project); 2 for a bad
//! command line.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{CommandFactory, Parser};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use metal_fake::{Fake, FaultKind, RandomFailures, RandomFaults, ServerConfig, Timings};
use metal_policy::{Client, ExponentialBackoff, Metal, Waiter, WatchConfig};
use metal_provision::controller::is_free;
use metal_provision::report::Requests;
use metal_provision::{
    audit, cleanup, remove_duplicates, run, shortfall, Audit, Outcome, Progress, RunConfig,
    SshKeySpec,
};
use uuid::Uuid;

// Shared with the soak example.
#[path = "../../examples/shared/flags.rs"]
mod flags;
use flags::parse_probability;

/// How long the first request may take before the run gives up on the
/// endpoint.
const PROBE_DEADLINE: Duration = Duration::from_secs(10);

/// The most devices a run asks the embedded fake for: the most records of
/// one kind the fake holds. The fake is sized from `--devices` (a quarter
/// more reservations, plus two, up to the same bound).
const MAX_EMBEDDED_DEVICES: usize = metal_fake::document::MAX_RECORDS;

/// Devices worked on at once per `--parallelism` slot. With the watch a
/// device waiting to become active is not worked on; with `--poll` it
/// spends most of its time waiting between polls, so a few per slot keep
/// the slots busy without a task per device.
const WORKERS_PER_SLOT: usize = 4;

/// The most requests in flight a run may ask for.
const MAX_PARALLELISM: usize = 1024;

/// The longest `--api-rate`, `--provision-time` and `--progress-interval`.
const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);

/// The counter of API attempts, by `outcome` (`ok` or why not).
const ATTEMPTS_METRIC: &str = "equinix_api_attempts_total";

/// The most reservations a hostname may try after its device failed.
const MAX_FAILED_RETRIES: usize = 100;

/// The longest time between two lists of the run's watch.
const WATCH_CEILING: Duration = Duration::from_secs(2);

/// How many times the run audits again after removing duplicates another
/// run of its name made.
const MAX_AUDITS: usize = 3;

#[derive(Parser, Debug)]
#[command(
    name = "provision",
    version,
    about = "Provision devices from hardware reservations through metal-policy",
    after_help = "Exit status: 0 when every device asked for became active and the audit found \
                  no duplicate, no lost device and no device of the run under a hostname it was \
                  not asked for; 1 when the run failed (one `error:` line says why); 2 for a bad \
                  command line."
)]
struct Args {
    /// Target this API instead of the embedded fake.
    #[arg(long, env = metal_api::config::ENV_BASE_URL)]
    endpoint: Option<String>,
    /// The API token for --endpoint (prefer the environment variable: a
    /// flag shows in the process list).
    #[arg(long, env = metal_api::config::ENV_AUTH_TOKEN, hide_env_values = true)]
    token: Option<String>,
    /// The project to provision in (required with --endpoint).
    #[arg(long, env = metal_api::config::ENV_PROJECT_ID)]
    project: Option<Uuid>,
    /// The run's name: hostnames are NAME-0, NAME-1, ..., and every device
    /// carries the tag provision-run=NAME, by which a run of the same name
    /// finds and adopts them (1 to 40 letters, digits and inner hyphens).
    #[arg(long, default_value = "provision", value_parser = parse_name)]
    name: String,
    /// How many devices to create (at least 1; at most 100000 against the
    /// embedded fake, at most the free reservations with --endpoint).
    #[arg(long, default_value_t = 8, value_parser = parse_devices)]
    devices: usize,
    /// Requests in flight at once (1 to 1024); the run works on at most
    /// four devices per slot at a time (waiting devices included with
    /// --poll).
    #[arg(long, default_value_t = 4, value_parser = parse_parallelism)]
    parallelism: usize,
    /// Minimum spacing between requests, e.g. 50ms or 2s (default: 50ms
    /// against the embedded fake, the policy's 2s elsewhere).
    #[arg(long, value_parser = parse_duration)]
    api_rate: Option<Duration>,
    /// Probability in [0, 1] that the embedded fake faults a call.
    #[arg(long, default_value_t = 0.2, value_parser = parse_probability)]
    fault_rate: f64,
    /// Probability in [0, 1] that the embedded fake fails a device's
    /// provisioning (the device ends `failed`; the run deletes it and tries
    /// another reservation). With the default seed, the default rate fails
    /// a device of the default run.
    #[arg(long, default_value_t = 0.1, value_parser = parse_probability)]
    fail_rate: f64,
    /// How many more reservations a hostname tries after its device failed
    /// to provision (0 to 100). With the default --fail-rate, a hostname
    /// falls short only when seven devices in a row fail.
    #[arg(long, default_value_t = 6, value_parser = parse_failed_retries)]
    failed_retries: usize,
    /// Seed of the embedded fake's faults and provisioning failures (the
    /// default's run meets a failed device).
    #[arg(long, default_value_t = 5)]
    seed: u64,
    /// The embedded fake's rate limit, requests per second (0: none).
    #[arg(long, default_value_t = 40)]
    rate_limit: u32,
    /// How long the embedded fake takes to provision a device, e.g. 2s.
    #[arg(long, value_parser = parse_duration, default_value = "2s")]
    provision_time: Duration,
    /// How often a progress line goes to stderr while the run goes on.
    #[arg(long, value_parser = parse_interval, default_value = "10s")]
    progress_interval: Duration,
    /// Poll each device until it is active, as before the watch, instead
    /// of waiting for every device through one watch of the run's devices.
    #[arg(long)]
    poll: bool,
    /// Delete the devices at the end.
    #[arg(long)]
    cleanup: bool,
    /// Print the policy client's metrics as Prometheus text before the
    /// table of requests.
    #[arg(long)]
    metrics: bool,
    /// Share the rate limit, the parallelism and throttling pauses with every
    /// run given the same Redis URL (e.g. redis://127.0.0.1:6379/, or
    /// rediss://user:password@host:6379/; key prefix `metal-provision`).
    /// Needs the binary built with feature `redis`, as do the two below.
    #[arg(long, conflicts_with = "redis_cluster")]
    redis: Option<String>,
    /// Share them through a Redis Cluster, found from these nodes
    /// (URL,URL,URL).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    redis_cluster: Vec<String>,
    /// Trust the CA certificates of this PEM file (instead of the system's)
    /// for rediss:// URLs.
    #[arg(long, value_name = "FILE")]
    redis_ca: Option<std::path::PathBuf>,
}

fn parse_devices(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("a run needs at least one device".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{text:?} is not a device count: {e}")),
    }
}

fn parse_name(text: &str) -> Result<String, String> {
    RunConfig::named(Uuid::nil(), 1, text)
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

fn parse_failed_retries(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n <= MAX_FAILED_RETRIES => Ok(n),
        Ok(n) => Err(format!("{n} is more than {MAX_FAILED_RETRIES}")),
        Err(e) => Err(format!("{text:?} is not a count: {e}")),
    }
}

fn parse_parallelism(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_PARALLELISM).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} is not from 1 to {MAX_PARALLELISM}")),
        Err(e) => Err(format!("{text:?} is not a count: {e}")),
    }
}

/// A duration in `humantime`'s syntax (`250ms`, `1.5s`, `2m`, `1h 30m`), at
/// most a day.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(text)
        .map_err(|e| format!("{text:?} is not a duration like 250ms, 1.5s or 2m ({e})"))?;
    if d > MAX_DURATION {
        return Err(format!("{text} is longer than a day"));
    }
    Ok(d)
}

fn parse_interval(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d < Duration::from_millis(100) {
        return Err(format!("{text} is shorter than 100ms"));
    }
    Ok(d)
}

/// The flag of the Redis ones given, if any: they need feature `redis`.
fn redis_flag(args: &Args) -> Option<&'static str> {
    if args.redis.is_some() {
        Some("--redis")
    } else if !args.redis_cluster.is_empty() {
        Some("--redis-cluster")
    } else if args.redis_ca.is_some() {
        Some("--redis-ca")
    } else {
        None
    }
}

/// Checks what the parser cannot see flag by flag.
fn validate(args: &Args) -> Result<(), String> {
    if let (false, Some(flag)) = (cfg!(feature = "redis"), redis_flag(args)) {
        return Err(format!(
            "{flag} needs metal-provision's feature `redis`, which this binary was built \
             without: cargo run --release -p metal-provision --features redis -- {flag} ..."
        ));
    }
    if args.endpoint.is_none() {
        if args.devices > MAX_EMBEDDED_DEVICES {
            return Err(format!(
                "--devices {} is more than the embedded fake serves (at most \
                 {MAX_EMBEDDED_DEVICES}); use --endpoint for a larger run",
                args.devices
            ));
        }
        embedded_reservations(args.devices, args.fail_rate)?;
    } else {
        if args.project.is_none() {
            return Err("--project UUID (or METAL_PROJECT_ID) is required with --endpoint".into());
        }
        if args.token.is_none() {
            return Err(format!(
                "{} (or --token) is required with --endpoint",
                metal_api::config::ENV_AUTH_TOKEN
            ));
        }
    }
    Ok(())
}

/// The embedded fake's reservations for `devices`: a quarter more, plus
/// two, so runs that lose races can move on, plus twice the failures
/// `fail_rate` makes likely (a failed device's reservation is not reused);
/// at most [`MAX_EMBEDDED_DEVICES`], the most the fake holds, so the
/// largest runs have fewer to spare.
fn embedded_reservations(devices: usize, fail_rate: f64) -> Result<usize, String> {
    // In [0, 2 * devices]: the parser bounds the rate to [0, 1].
    let for_failures = (devices as f64 * fail_rate * 2.0).ceil() as usize;
    devices
        .checked_add(devices / 4)
        .and_then(|n| n.checked_add(2))
        .and_then(|n| n.checked_add(for_failures))
        .map(|n| n.min(MAX_EMBEDDED_DEVICES.max(devices)))
        .ok_or_else(|| format!("--devices {devices} is too many to size the embedded fake"))
}

struct Bars {
    multi: MultiProgress,
    requested: ProgressBar,
    created: ProgressBar,
    active: ProgressBar,
    adopted: ProgressBar,
    race_lost: ProgressBar,
    failed: ProgressBar,
}

impl Bars {
    fn new(total: usize) -> Self {
        let multi = MultiProgress::new();
        let style = ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = |name: &str| {
            let b = multi.add(ProgressBar::new(total as u64));
            b.set_style(style.clone());
            b.set_prefix(name.to_string());
            b
        };
        Self {
            requested: bar("requested"),
            created: bar("created"),
            active: bar("active"),
            // Counted, not drawn.
            adopted: ProgressBar::hidden(),
            race_lost: ProgressBar::hidden(),
            failed: ProgressBar::hidden(),
            multi,
        }
    }

    fn finish(&self) {
        for b in [&self.requested, &self.created, &self.active] {
            b.finish();
        }
    }

    /// Where the run is: requested, created, adopted, active, race-lost,
    /// failed.
    fn counts(&self) -> [u64; 6] {
        [
            self.requested.position(),
            self.created.position(),
            self.adopted.position(),
            self.active.position(),
            self.race_lost.position(),
            self.failed.position(),
        ]
    }

    /// Prints a line to stderr without tearing the bars.
    fn eprintln(&self, line: &str) {
        self.multi.suspend(|| eprintln!("{line}"));
    }
}

impl Progress for Bars {
    fn requested(&self) {
        self.requested.inc(1);
    }
    fn created(&self) {
        self.created.inc(1);
    }
    fn adopted(&self) {
        self.adopted.inc(1);
    }
    fn active(&self) {
        self.active.inc(1);
    }
    fn race_lost(&self) {
        self.race_lost.inc(1);
    }
    fn failed(&self) {
        self.failed.inc(1);
    }
}

/// The embedded fake and what the client needs to reach it.
struct Target {
    base_url: String,
    token: String,
    project: Uuid,
    api_rate: Option<Duration>,
    embedded: bool,
    _server: Option<metal_fake::ServerHandle>,
}

async fn start_fake(args: &Args) -> Result<Target, String> {
    let project = args.project.unwrap_or_else(Uuid::new_v4);
    let mut kinds = FaultKind::recoverable();
    kinds.push(FaultKind::Competitor);
    let mut builder = Fake::builder()
        .project(project)
        .reservations(embedded_reservations(args.devices, args.fail_rate)?)
        .timings(Timings {
            queued: args.provision_time / 4,
            provisioning: args.provision_time - args.provision_time / 4,
            ..Timings::uniform(Duration::from_millis(500))
        });
    if args.fault_rate > 0.0 {
        builder = builder.random_faults(RandomFaults {
            rate: args.fault_rate,
            seed: args.seed,
            kinds,
        });
    }
    if args.fail_rate > 0.0 {
        builder = builder.random_provisioning_failures(RandomFailures {
            rate: args.fail_rate,
            seed: args.seed,
        });
    }
    let token = format!("fake-{}", Uuid::new_v4());
    let server = metal_fake::bind(
        builder.build(),
        "127.0.0.1:0",
        ServerConfig::new(token.clone()).rate_limit(Some(args.rate_limit)),
    )
    .await
    .map_err(|e| format!("cannot start the embedded fake: {e}"))?;
    Ok(Target {
        base_url: server.base_url().to_string(),
        token,
        project,
        api_rate: Some(args.api_rate.unwrap_or(Duration::from_millis(50))),
        embedded: true,
        _server: Some(server),
    })
}

fn remote(args: &Args, endpoint: &str) -> Result<Target, String> {
    // `validate` has checked both.
    let project = args
        .project
        .ok_or("--project UUID (or METAL_PROJECT_ID) is required with --endpoint")?;
    let token = args.token.clone().ok_or_else(|| {
        format!(
            "{} (or --token) is required with --endpoint",
            metal_api::config::ENV_AUTH_TOKEN
        )
    })?;
    Ok(Target {
        base_url: endpoint.to_string(),
        token,
        project,
        api_rate: args.api_rate,
        embedded: false,
        _server: None,
    })
}

/// API attempts so far, and how many of them did not succeed.
fn attempt_totals(families: &[prometheus::proto::MetricFamily]) -> (u64, u64) {
    let mut all = 0;
    let mut failed = 0;
    for m in families
        .iter()
        .filter(|f| f.name() == ATTEMPTS_METRIC)
        .flat_map(|f| f.get_metric())
    {
        let n = m.get_counter().get_value() as u64;
        all += n;
        if m.get_label()
            .iter()
            .any(|l| l.name() == "outcome" && l.value() != "ok")
        {
            failed += n;
        }
    }
    (all, failed)
}

/// The registry's whole text exposition.
fn metrics_text(families: &[prometheus::proto::MetricFamily]) -> Result<String, String> {
    let mut text = String::new();
    prometheus::TextEncoder::new()
        .encode_utf8(families, &mut text)
        .map_err(|e| format!("encoding the metrics: {e}"))?;
    Ok(text)
}

/// Prints a progress line every `interval` until dropped, and a warning
/// when every API attempt in an interval failed, or none was made and
/// nothing moved.
struct Reporter {
    task: tokio::task::JoinHandle<()>,
    phase: Arc<Mutex<&'static str>>,
}

impl Reporter {
    fn start(
        interval: Duration,
        total: usize,
        bars: Arc<Bars>,
        registry: prometheus::Registry,
    ) -> Self {
        let phase = Arc::new(Mutex::new("provisioning"));
        let task = tokio::spawn(report(interval, total, bars, registry, Arc::clone(&phase)));
        Self { task, phase }
    }

    fn phase(&self, phase: &'static str) {
        *self.phase.lock().unwrap_or_else(|p| p.into_inner()) = phase;
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn report(
    interval: Duration,
    total: usize,
    bars: Arc<Bars>,
    registry: prometheus::Registry,
    phase: Arc<Mutex<&'static str>>,
) {
    let started = tokio::time::Instant::now();
    let every = humantime::format_duration(interval).to_string();
    let mut ticks = tokio::time::interval_at(started + interval, interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_attempts = attempt_totals(&registry.gather());
    let mut last_counts = bars.counts();
    loop {
        ticks.tick().await;
        let attempts = attempt_totals(&registry.gather());
        let counts = bars.counts();
        let (made, failed) = (
            attempts.0.saturating_sub(last_attempts.0),
            attempts.1.saturating_sub(last_attempts.1),
        );
        let moved = counts != last_counts;
        let [requested, created, adopted, active, race_lost, failed_devices] = counts;
        let phase = *phase.lock().unwrap_or_else(|p| p.into_inner());
        bars.eprintln(&format!(
            "progress at {:.0} s ({phase}): {requested}/{total} requested, {created} created, \
             {adopted} adopted, {active} active, {race_lost} race-lost, \
             {failed_devices} failed to provision; \
             {made} API attempts in the last {every}, {failed} failed",
            started.elapsed().as_secs_f64()
        ));
        if made > 0 && failed == made {
            bars.eprintln(&format!(
                "warning: every API attempt in the last {every} failed ({failed} of {made}){}",
                if moved {
                    ""
                } else {
                    "; the run is making no progress"
                }
            ));
        } else if made == 0 && !moved {
            bars.eprintln(&format!(
                "warning: no API attempt completed in the last {every} and no device moved on; \
                 the run is making no progress"
            ));
        }
        last_attempts = attempts;
        last_counts = counts;
    }
}

/// The audit of what `outcome`'s run left on the server.
async fn audited(
    metal: &dyn Metal,
    config: &RunConfig,
    outcome: &Outcome,
) -> Result<Audit, String> {
    audit(metal, config.project, &config.run_tag, &outcome.known())
        .await
        .map_err(|e| format!("auditing the server's devices: {e}"))
}

async fn main_run(args: Args) -> Result<(), String> {
    let target = match &args.endpoint {
        Some(endpoint) => remote(&args, endpoint)?,
        None => start_fake(&args).await?,
    };
    let config = metal_api::Config::builder()
        .auth_token(target.token.clone())
        .base_url(target.base_url.clone())
        .build()
        .map_err(|e| e.to_string())?;
    // Fail fast on a bad endpoint, token or project: one probe with a short
    // deadline, before the run's client (which retries outages for minutes,
    // as a long-running controller should).
    let probe = Client::builder()
        .config(config.clone())
        .api_rate(Duration::ZERO)
        .deadline(Some(PROBE_DEADLINE))
        .build()
        .map_err(|e| e.to_string())?;
    probe.get_project(target.project).await.map_err(|e| {
        format!(
            "cannot reach project {} at {}: {e}",
            target.project, target.base_url
        )
    })?;

    let registry = prometheus::Registry::new();
    // Lists in the API's largest pages: a fleet's reservations and
    // devices in a tenth of the requests (and of the server's filtering)
    // that the default 100 a page takes.
    let mut builder = Client::builder()
        .config(config)
        .parallelism(args.parallelism)
        .per_page(1000)
        .registry(registry.clone());
    if let Some(rate) = target.api_rate {
        builder = builder.api_rate(rate);
    }
    // Without feature `redis`, `validate` has refused the Redis flags.
    #[cfg(feature = "redis")]
    {
        let shared = match (&args.redis, args.redis_cluster.is_empty()) {
            (Some(url), _) => Some(metal_policy::SharedLimits::redis(url, "metal-provision")),
            (None, false) => Some(metal_policy::SharedLimits::redis_cluster(
                &args.redis_cluster,
                "metal-provision",
            )),
            (None, true) => None,
        };
        if let Some(shared) = shared {
            builder = builder.shared_limits(match &args.redis_ca {
                Some(ca) => shared.ca_file(ca),
                None => shared,
            });
        }
    }
    let metal: Arc<dyn Metal> = Arc::new(builder.build().map_err(|e| e.to_string())?);

    let bars = Arc::new(Bars::new(args.devices));
    let reporter = Reporter::start(
        args.progress_interval,
        args.devices,
        Arc::clone(&bars),
        registry.clone(),
    );

    if !target.embedded {
        // Refuse a run that cannot be whole, before creating anything (the
        // embedded fake is sized from --devices).
        reporter.phase("counting reservations");
        let free = metal
            .list_reservations(target.project)
            .await
            .map_err(|e| {
                format!(
                    "cannot list the hardware reservations of project {}: {e}",
                    target.project
                )
            })?
            .iter()
            .filter(|r| is_free(r))
            .count();
        if free < args.devices {
            return Err(format!(
                "--devices {} is more than the {free} free hardware reservations of project {}; \
                 nothing was created",
                args.devices, target.project
            ));
        }
    }

    let mut run_config =
        RunConfig::named(target.project, args.devices, &args.name).map_err(|e| e.to_string())?;
    run_config.failed_retries = args.failed_retries;
    run_config.ssh_key = Some(SshKeySpec {
        label: "provision-example".into(),
        // A well-formed Ed25519 key (its 32 bytes spell
        // "FakeKeyForTheProvisioningExample"): the API and the fake refuse a
        // key whose body is not base64.
        key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEZha2VLZXlGb3JUaGVQcm92aXNpb25pbmdFeGFtcGxl provision"
            .into(),
    });
    run_config.poll_interval = Duration::from_millis(250);
    // Reads from a quarter of a second apart, growing to 2 s: the embedded
    // fake's devices take about 2 s, the real API's minutes.
    run_config.waiter = Waiter::new().poll(ExponentialBackoff {
        initial_interval: run_config.poll_interval,
        multiplier: 1.5,
        randomization_factor: 0.2,
        max_interval: Duration::from_secs(2),
        max_elapsed_time: None,
    });
    // The watch lists every thirtieth of the provisioning time while a
    // device changes (no sooner than the polls, 250 ms, and no later than
    // 2 s), doubling to 2 s while none does: a device is seen active at
    // most a thirtieth of its provisioning late, and a longer provisioning
    // costs no more lists per device.
    let floor = (args.provision_time / 30).clamp(run_config.poll_interval, WATCH_CEILING);
    run_config.watch = (!args.poll).then(|| WatchConfig::new().interval(floor, WATCH_CEILING));
    // Not one worker per device: a bounded number, each taking the next
    // device when it is done with one.
    run_config.workers = args
        .parallelism
        .saturating_mul(WORKERS_PER_SLOT)
        .min(args.devices)
        .max(1);
    reporter.phase("provisioning");
    let started = tokio::time::Instant::now();
    let outcome = run(Arc::clone(&metal), &run_config, bars.clone())
        .await
        .map_err(|e| e.to_string())?;
    bars.finish();
    let elapsed = started.elapsed();
    for f in &outcome.failed {
        let on = f
            .reservation
            .map_or_else(String::new, |r| format!(" on reservation {r}"));
        let now = match &f.left_behind {
            None => "deleted".to_string(),
            Some(why) => format!("left behind: {why}"),
        };
        bars.eprintln(&format!(
            "warning: device {} ({}) failed to provision{on}; {now}",
            f.id, f.hostname
        ));
    }
    for failure in &outcome.failures {
        bars.eprintln(&format!("warning: {failure}"));
    }

    reporter.phase("auditing");
    let mut outcome = outcome;
    let mut report = audited(metal.as_ref(), &run_config, &outcome).await?;
    // Another run of this name may still be at work, and have made a
    // device for a hostname after this run settled it: removed behind
    // this run's active device, as that run would, then audited again.
    for _ in 0..MAX_AUDITS {
        if report.duplicates == 0 {
            break;
        }
        let removed = remove_duplicates(metal.as_ref(), &run_config, &mut outcome)
            .await
            .map_err(|e| format!("removing duplicates: {e}"))?;
        if removed == 0 {
            break;
        }
        bars.eprintln(&format!(
            "note: the audit found {} duplicates; removed {removed} behind this run's active devices",
            report.duplicates
        ));
        report = audited(metal.as_ref(), &run_config, &outcome).await?;
    }
    if args.cleanup {
        reporter.phase("cleaning up");
        let deleted = cleanup(metal.as_ref(), &outcome.device_ids(), &run_config)
            .await
            .map_err(|e| format!("cleaning up: {e}"))?;
        println!("deleted {deleted} devices");
    }
    drop(reporter);

    let families = registry.gather();
    if args.metrics {
        print!("{}", metrics_text(&families)?);
    }
    let requests = Requests::from_families(&families);
    println!("{requests}");
    println!(
        "provisioned {}/{} devices in {:.1} s: {} adopted, {} duplicates, {} lost, {} retries, \
         {} race-lost, {} failed",
        outcome.active,
        outcome.requested,
        elapsed.as_secs_f64(),
        report.adopted,
        report.duplicates,
        report.lost,
        requests.total().retries,
        outcome.race_lost,
        outcome.failed.len()
    );
    match shortfall(outcome.requested, outcome.active, &report) {
        None => Ok(()),
        Some(reason) => Err(reason),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = Args::parse();
    // An empty variable counts as unset, as in metal_api::Config::from_env.
    args.endpoint = args.endpoint.filter(|e| !e.trim().is_empty());
    args.token = args.token.filter(|t| !t.trim().is_empty());
    if let Err(e) = validate(&args) {
        Args::command()
            .error(clap::error::ErrorKind::ValueValidation, e)
            .exit();
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    match main_run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
