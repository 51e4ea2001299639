//! `metal-fake`: serves a fake Metal API over HTTP.
//!
//! ```text
//! METAL_AUTH_TOKEN=secret cargo run -p metal-fake --features cli -- --listen 127.0.0.1:0 --reservations 20
//! ```
//!
//! The first stdout line is exactly `metal-fake listening on
//! http://HOST:PORT/metal/v1`; `GET /_fake/state` returns the counters,
//! and the control API (`/_fake/reset`, `/_fake/world`, `/_fake/faults`,
//! `/_fake/calls`, `/_fake/clock`) arranges scenarios.
//! Without `--world`, the world is the real API's catalog (every metro,
//! facility, plan and operating system of `metal-fake/catalog/`, each plan
//! with machines where it is sold), an organisation, the project (with its
//! `--reservations`) and the token; a `--world` document inherits the same
//! catalog unless it says `"catalog": "none"`.
//! Logs (the server's warnings) go to stderr, filtered by `RUST_LOG`
//! (default `warn`); with `--log-calls`, one line a call too
//! (`metal-fake: call 3 GET /metal/v1/devices/ID findDeviceById 404: Not found`). A flag out of range (`--reservations` above
//! 100000, `--fault-rate` or `--fail-rate` outside [0, 1], `--time-scale` outside 1 to
//! 10000, a negative, non-finite or longer-than-a-week number of seconds)
//! is refused with exit code 2, and so is a `--world` or `--state-file`
//! that does not load. `--world-schema` prints the world document's JSON
//! Schema and exits, `--control-schema` the control API's.
//!
//! With `--state-file FILE`, the world is loaded from `FILE` at start when
//! it exists (in place of `--world` and the shortcuts), with the log
//! `FILE.log` replayed onto it; every change after that is appended to the
//! log before its reply is sent, and the log is synced to the disk every
//! `--sync-interval` seconds (default 1; 0: before every reply). A new
//! snapshot is written at start, when the log grows past it, and on SIGINT
//! or SIGTERM; both files are readable by their owner only (mode 0600: the
//! world holds its tokens). A `kill -9` loses nothing that was answered; a
//! power cut or a crash of the system loses at most the last interval's
//! changes (none with 0). A torn last record is dropped with a warning; a
//! damaged one before it refuses the start (exit code 2). A failed write
//! exits with code 1 (see `metal_fake::state`).
//!
//! `GET /_fake/world` answers the world with its tokens to anyone who can
//! reach the server, unless `--control-token` guards the control API: give
//! one whenever the port is reachable by others.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use metal_fake::document::WorldDoc;
use metal_fake::state::{StateFile, SyncPolicy};
use metal_fake::{FailProvisioning, Fake, RandomFailures, RandomFaults, ServerConfig, Timings};
use uuid::Uuid;

/// The most reservations the fake holds: each takes memory for its life,
/// and a list filters and orders all of them for every page it renders.
const MAX_RESERVATIONS: usize = 100_000;

/// The longest duration a seconds flag takes (one week): the fake adds
/// these to its clock, and a run that waits longer is not a test.
const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// Serves a stateful fake Equinix Metal API at /metal/v1.
#[derive(Debug, Parser)]
#[command(name = "metal-fake", version)]
struct Args {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
    /// The project that exists, holding the reservations (random if absent).
    #[arg(long, conflicts_with = "world")]
    project: Option<Uuid>,
    /// How many provisionable hardware reservations the project holds (at
    /// most 100000).
    #[arg(long, default_value_t = 10, value_parser = parse_reservations, conflicts_with = "world")]
    reservations: usize,
    /// Seeds the world from this JSON document (organisations, projects,
    /// tokens, metros, facilities, plans, reservations, devices, SSH keys;
    /// see `--world-schema`; over the real catalog unless it says
    /// `"catalog": "none"`), in place of --project and --reservations.
    #[arg(long)]
    world: Option<PathBuf>,
    /// Prints the JSON Schema of the world document and exits.
    #[arg(long, conflicts_with = "control_schema")]
    world_schema: bool,
    /// Prints the JSON Schema of the control API's requests and replies
    /// (/_fake/...) and exits.
    #[arg(long)]
    control_schema: bool,
    /// Guards the control API (/_fake/...) with this token, sent as
    /// `X-Fake-Control-Token` (default: no guard, and `GET /_fake/world`
    /// then shows the world's tokens to anyone who can reach the server).
    #[arg(long)]
    control_token: Option<String>,
    /// Runs the fake's clock this many times faster than real time (1 to
    /// 10000): devices provision and reservations come free sooner.
    #[arg(long, default_value_t = 1.0, value_parser = parse_time_scale)]
    time_scale: f64,
    /// Keeps the world in this file through a crash: loaded at start when
    /// it exists (with FILE.log, the log of every change after it,
    /// replayed), every change appended to FILE.log before its reply is
    /// sent, a new snapshot written at start, when the log outgrows it, and
    /// on SIGINT or SIGTERM (mode 0600: it holds the world's tokens). A
    /// kill -9 loses nothing answered; a power cut at most the last
    /// --sync-interval.
    #[arg(long)]
    state_file: Option<PathBuf>,
    /// Seconds between syncs of the state file's log to the disk (0: each
    /// change is synced before its reply, as Redis's appendfsync always;
    /// the default 1 is its everysec); at most an hour.
    #[arg(long, default_value = "1", value_parser = parse_sync_interval, requires = "state_file")]
    sync_interval: Duration,
    /// The X-Auth-Token the server accepts (default: $METAL_AUTH_TOKEN).
    #[arg(long)]
    token: Option<String>,
    /// API requests allowed per second (0: no limit). Every reply carries
    /// `X-RateLimit-Limit`, `-Remaining` and `-Reset` (a Unix time) while
    /// there is a limit, so there is one by default.
    #[arg(long, default_value_t = 40)]
    rate_limit: u32,
    /// Probability in [0, 1] that a request gets a random recoverable fault.
    #[arg(long, default_value_t = 0.0, value_parser = parse_probability)]
    fault_rate: f64,
    /// Seed of the random faults.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds from create to active (a fifth queued, the rest
    /// provisioning); at most a week.
    #[arg(long, default_value = "60", value_parser = parse_seconds)]
    provision_seconds: Duration,
    /// Seconds a power transition takes; at most a week.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    power_seconds: Duration,
    /// Seconds after a delete before the reservation is provisionable again
    /// (the real API takes minutes); at most a week.
    #[arg(long, default_value = "240", value_parser = parse_seconds)]
    release_seconds: Duration,
    /// Seconds a deleted device reads as `deprovisioning` before it is gone
    /// (0: gone at once, as the real API's reads after a delete are); at
    /// most a week.
    #[arg(long, default_value = "0", value_parser = parse_seconds)]
    deprovision_seconds: Duration,
    /// Probability in [0, 1] that a new device fails to provision (ends
    /// `failed`), drawn from --seed.
    #[arg(long, default_value_t = 0.0, value_parser = parse_probability)]
    fail_rate: f64,
    /// A hostname whose next device fails to provision (repeatable).
    #[arg(long, value_name = "HOSTNAME")]
    fail_hostname: Vec<String>,
    /// Seconds after a device on a hardware reservation failed before it
    /// leaves the project and answers 403 (default: it stays until
    /// deleted); at most a week.
    #[arg(long, value_parser = parse_seconds)]
    failed_moved_seconds: Option<Duration>,
    /// Seconds after an on-demand device failed before it leaves the
    /// project and answers 403 (default 0: at once, as the real API took
    /// failed on-demand devices away); at most a week.
    #[arg(long, default_value = "0", value_parser = parse_seconds)]
    failed_on_demand_moved_seconds: Duration,
    /// A failed on-demand device stays in the project, `failed`, until it
    /// is deleted (as one on a hardware reservation does).
    #[arg(long)]
    failed_on_demand_stays: bool,
    /// Seconds a device that left the project answers 403 before 404; at
    /// most a week.
    #[arg(long, default_value = "600", value_parser = parse_seconds)]
    failed_forbidden_seconds: Duration,
    /// Seconds the reservation list shows a released reservation as not
    /// provisionable while reading it says it is (0: off); at most a week.
    #[arg(long, default_value = "0", value_parser = parse_seconds)]
    stale_reads_seconds: Duration,
    /// Prints one line a call to stderr: method, path and query,
    /// operation, status, fault and the error message answered (never a
    /// header or a body, so never a token).
    #[arg(long)]
    log_calls: bool,
}

fn parse_reservations(text: &str) -> Result<usize, String> {
    let n: usize = text
        .parse()
        .map_err(|e| format!("{text:?} is not a count: {e}"))?;
    if n > MAX_RESERVATIONS {
        return Err(format!(
            "{n} is more than the fake holds (at most {MAX_RESERVATIONS})"
        ));
    }
    Ok(n)
}

fn parse_probability(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .parse()
        .map_err(|e| format!("{text:?} is not a number: {e}"))?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("{text} is not a probability in [0, 1]"));
    }
    Ok(p)
}

fn parse_time_scale(text: &str) -> Result<f64, String> {
    let s: f64 = text
        .parse()
        .map_err(|e| format!("{text:?} is not a number: {e}"))?;
    if !(1.0..=10_000.0).contains(&s) {
        return Err(format!("{text} is not a time scale from 1 to 10000"));
    }
    Ok(s)
}

/// Reads a world document; the error names the file.
fn read_world(path: &Path) -> Result<WorldDoc, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    WorldDoc::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The longest sync interval: an hour.
const MAX_SYNC_INTERVAL: f64 = 3600.0;

fn parse_sync_interval(text: &str) -> Result<Duration, String> {
    let s: f64 = text
        .parse()
        .map_err(|e| format!("{text:?} is not a number of seconds: {e}"))?;
    if !(0.0..=MAX_SYNC_INTERVAL).contains(&s) {
        return Err(format!(
            "{text} is not a number of seconds from 0 to {MAX_SYNC_INTERVAL} (an hour)"
        ));
    }
    Duration::try_from_secs_f64(s).map_err(|e| format!("{text}: {e}"))
}

/// Waits for SIGINT, or SIGTERM on Unix.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let s: f64 = text
        .parse()
        .map_err(|e| format!("{text:?} is not a number of seconds: {e}"))?;
    if !(0.0..=MAX_SECONDS).contains(&s) {
        return Err(format!(
            "{text} is not a number of seconds from 0 to {MAX_SECONDS} (a week)"
        ));
    }
    Duration::try_from_secs_f64(s).map_err(|e| format!("{text}: {e}"))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if args.world_schema {
        print!("{}", metal_fake::document::schema());
        return std::process::ExitCode::SUCCESS;
    }
    if args.control_schema {
        print!("{}", metal_fake::control_schema());
        return std::process::ExitCode::SUCCESS;
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let Some(token) = args
        .token
        .clone()
        .or_else(|| std::env::var(metal_api::config::ENV_AUTH_TOKEN).ok())
        .filter(|t| !t.trim().is_empty())
    else {
        eprintln!("metal-fake: give --token or set METAL_AUTH_TOKEN");
        return std::process::ExitCode::FAILURE;
    };
    let provision = args.provision_seconds;
    let timings = Timings {
        queued: provision / 5,
        provisioning: provision - provision / 5,
        power: args.power_seconds,
        reinstall: provision,
        deprovisioning: args.deprovision_seconds,
        reservation_release: args.release_seconds,
        stale_reservation_list: args.stale_reads_seconds,
        failed_moved_after: args.failed_moved_seconds,
        failed_on_demand_moved_after: (!args.failed_on_demand_stays)
            .then_some(args.failed_on_demand_moved_seconds),
        failed_forbidden_for: args.failed_forbidden_seconds,
        gateway_deleting: Duration::ZERO,
    };
    let mut builder = Fake::builder()
        .project(args.project.unwrap_or_else(Uuid::new_v4))
        .reservations(args.reservations)
        .timings(timings)
        .time_scale(args.time_scale);
    let mut seed = None;
    if let Some(path) = &args.state_file {
        let sync = if args.sync_interval.is_zero() {
            SyncPolicy::EveryChange
        } else {
            SyncPolicy::Interval(args.sync_interval)
        };
        match StateFile::open(path, sync) {
            Ok((state, saved)) => {
                builder = builder.state_file(state);
                if let Some(doc) = saved {
                    builder = builder.world(doc);
                    seed = Some(path.as_path());
                }
            }
            Err(e) => {
                eprintln!("metal-fake: cannot load the world from {e}");
                return std::process::ExitCode::from(2);
            }
        }
    }
    if let (None, Some(path)) = (seed, &args.world) {
        match read_world(path) {
            Ok(doc) => builder = builder.world(doc),
            Err(e) => {
                eprintln!("metal-fake: cannot load the world from {e}");
                return std::process::ExitCode::from(2);
            }
        }
        seed = Some(path.as_path());
    }
    if args.fault_rate > 0.0 {
        builder = builder.random_faults(RandomFaults {
            rate: args.fault_rate,
            seed: args.seed,
            kinds: Vec::new(),
        });
    }
    if args.fail_rate > 0.0 {
        builder = builder.random_provisioning_failures(RandomFailures {
            rate: args.fail_rate,
            seed: args.seed,
        });
    }
    for hostname in &args.fail_hostname {
        builder = builder.fail_provisioning(FailProvisioning::Hostname(hostname.clone()));
    }
    let fake = match builder.try_build() {
        Ok(fake) => fake,
        Err(e) => {
            let from = seed.map(|p| p.display().to_string()).unwrap_or_default();
            eprintln!("metal-fake: cannot build the world {from}: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let config = ServerConfig::new(token)
        .rate_limit(Some(args.rate_limit))
        .control_token(args.control_token.clone())
        .log_calls(args.log_calls);
    let server = match metal_fake::bind(fake.clone(), args.listen.as_str(), config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("metal-fake: cannot listen on {}: {e}", args.listen);
            return std::process::ExitCode::FAILURE;
        }
    };
    // The startup event before the URL line: the log writes to stderr as
    // it is called, so whoever has read the URL line knows the event is
    // already written (a test reads it without waiting on a clock).
    tracing::info!(
        url = server.base_url(),
        project = %fake.project(),
        reservations = args.reservations,
        rate_limit = args.rate_limit,
        fault_rate = args.fault_rate,
        "metal-fake serving"
    );
    let mut out = std::io::stdout();
    let _ = writeln!(out, "metal-fake listening on {}", server.base_url());
    let _ = writeln!(out, "project {}", fake.project());
    let _ = out.flush();
    if args.state_file.is_some() {
        // The fake syncs its log every interval on its own; a write that
        // failed stops the binary (every call is answered 503 meanwhile).
        let watched = fake.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                if let Err(e) = watched.sync_state() {
                    eprintln!("metal-fake: cannot keep the world: {e}");
                    std::process::exit(1);
                }
            }
        });
    }
    stop_signal().await;
    let served = server.try_shutdown().await;
    if let Err(e) = fake.save_state() {
        eprintln!("metal-fake: cannot save the world: {e}");
        return std::process::ExitCode::FAILURE;
    }
    if let Err(e) = served {
        eprintln!("metal-fake: the server failed: {e}");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
