//! The provisioning run: a small controller on `metal-policy`.
//!
//! By default it starts `metal-fake`'s HTTP server in-process on a loopback
//! port, with a seeded mix of faults (lost replies, 5xx, 429s, a competitor
//! taking reservations) and a server-side rate limit, then provisions one
//! device per free hardware reservation through the real policy client,
//! waits until each is active, audits the server's state, and prints the
//! metrics that changed. Its last line is
//! `provisioned A/B devices in T s: D duplicates, L lost, R retries, X race-lost`.
//!
//! `--endpoint URL` targets another server instead (a running `metal-fake`,
//! or the real API with the token from `METAL_AUTH_TOKEN` and `--project`).
//! `--redis URL` shares the client's limits with other runs through Redis.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use metal_fake::{Fake, FaultKind, RandomFaults, ServerConfig, Timings};
use metal_policy::{Client, Metal};
use metal_provision::{audit, cleanup, run, Progress, RunConfig, SshKeySpec};
use uuid::Uuid;

/// How long the first request may take before the run gives up on the
/// endpoint.
const PROBE_DEADLINE: Duration = Duration::from_secs(10);

#[derive(Parser, Debug)]
#[command(
    name = "provision",
    about = "Provision devices from hardware reservations through metal-policy"
)]
struct Args {
    /// Target this API instead of the embedded fake (token from METAL_AUTH_TOKEN).
    #[arg(long)]
    endpoint: Option<String>,
    /// The project to provision in (required with --endpoint).
    #[arg(long)]
    project: Option<Uuid>,
    /// How many devices to create.
    #[arg(long, default_value_t = 8)]
    devices: usize,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 4)]
    parallelism: usize,
    /// Minimum spacing between requests, e.g. 50ms or 2s (default: 50ms
    /// against the embedded fake, the policy's 2s elsewhere).
    #[arg(long, value_parser = parse_duration)]
    api_rate: Option<Duration>,
    /// Probability that the embedded fake faults a call.
    #[arg(long, default_value_t = 0.2)]
    fault_rate: f64,
    /// Seed of the embedded fake's faults.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The embedded fake's rate limit, requests per second.
    #[arg(long, default_value_t = 40)]
    rate_limit: u32,
    /// How long the embedded fake takes to provision a device, e.g. 2s.
    #[arg(long, value_parser = parse_duration, default_value = "2s")]
    provision_time: Duration,
    /// Delete the devices at the end.
    #[arg(long)]
    cleanup: bool,
    /// Share the rate limit, the parallelism and throttling pauses with every
    /// run given the same Redis URL (e.g. redis://127.0.0.1:6379/; key
    /// prefix `metal-provision`).
    #[arg(long)]
    redis: Option<String>,
}

/// Parses `250ms`, `2s`, `1.5s`, `3m`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 250ms, 2s or 1m"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "" => value,
        "m" => value * 60.0,
        _ => {
            return Err(format!(
                "unknown unit {unit:?} in {text:?} (use ms, s or m)"
            ))
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?}: {e}"))
}

struct Bars {
    requested: ProgressBar,
    created: ProgressBar,
    active: ProgressBar,
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
        }
    }

    fn finish(&self) {
        for b in [&self.requested, &self.created, &self.active] {
            b.finish();
        }
    }
}

impl Progress for Bars {
    fn requested(&self) {
        self.requested.inc(1);
    }
    fn created(&self) {
        self.created.inc(1);
    }
    fn active(&self) {
        self.active.inc(1);
    }
}

/// The embedded fake and what the client needs to reach it.
struct Target {
    base_url: String,
    token: String,
    project: Uuid,
    api_rate: Option<Duration>,
    _server: Option<metal_fake::ServerHandle>,
}

async fn start_fake(args: &Args) -> Result<Target, String> {
    let project = args.project.unwrap_or_else(Uuid::new_v4);
    let mut kinds = FaultKind::recoverable();
    kinds.push(FaultKind::Competitor);
    let mut builder = Fake::builder()
        .project(project)
        // A few spare reservations, so runs that lose races can move on.
        .reservations(args.devices + args.devices / 4 + 2)
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
        _server: Some(server),
    })
}

fn remote(args: &Args, endpoint: &str) -> Result<Target, String> {
    let project = args
        .project
        .ok_or("--project UUID is required with --endpoint")?;
    let token = std::env::var(metal_api::config::ENV_AUTH_TOKEN)
        .map_err(|_| format!("{} is not set", metal_api::config::ENV_AUTH_TOKEN))?;
    Ok(Target {
        base_url: endpoint.to_string(),
        token,
        project,
        api_rate: args.api_rate,
        _server: None,
    })
}

/// Sums every sample of a counter family.
fn counter_total(families: &[prometheus::proto::MetricFamily], name: &str) -> f64 {
    families
        .iter()
        .filter(|f| f.name() == name)
        .flat_map(|f| f.get_metric())
        .map(|m| m.get_counter().get_value())
        .sum()
}

/// The text exposition of every sample that is not zero (histogram buckets
/// left out; their `_sum` and `_count` stay).
fn changed_metrics(families: &[prometheus::proto::MetricFamily]) -> String {
    let mut text = String::new();
    let encoder = prometheus::TextEncoder::new();
    if encoder.encode_utf8(families, &mut text).is_err() {
        return String::new();
    }
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.contains("_bucket{"))
        .filter(|l| l.rsplit(' ').next().is_some_and(|v| v != "0"))
        .collect::<Vec<_>>()
        .join("\n")
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
    let mut builder = Client::builder()
        .config(config)
        .parallelism(args.parallelism)
        .registry(registry.clone());
    if let Some(rate) = target.api_rate {
        builder = builder.api_rate(rate);
    }
    if let Some(url) = &args.redis {
        builder = builder.shared_limits(metal_policy::SharedLimits::redis(
            url.clone(),
            "metal-provision",
        ));
    }
    let metal: Arc<dyn Metal> = Arc::new(builder.build().map_err(|e| e.to_string())?);

    let mut run_config = RunConfig::new(target.project, args.devices);
    run_config.ssh_key = Some(SshKeySpec {
        label: "provision-example".into(),
        key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTheProvisioningExample provision"
            .into(),
    });
    run_config.poll_interval = Duration::from_millis(250);
    let bars = Arc::new(Bars::new(args.devices));
    let started = tokio::time::Instant::now();
    let outcome = run(Arc::clone(&metal), &run_config, bars.clone())
        .await
        .map_err(|e| e.to_string())?;
    bars.finish();
    let elapsed = started.elapsed();
    for failure in &outcome.failures {
        eprintln!("warning: {failure}");
    }

    let known: HashSet<Uuid> = outcome.device_ids().into_iter().collect();
    let report = audit(metal.as_ref(), target.project, &run_config.run_tag, &known)
        .await
        .map_err(|e| format!("auditing the server's devices: {e}"))?;
    if args.cleanup {
        let deleted = cleanup(metal.as_ref(), &outcome.device_ids())
            .await
            .map_err(|e| format!("cleaning up: {e}"))?;
        println!("deleted {deleted} devices");
    }

    let families = registry.gather();
    let changed = changed_metrics(&families);
    if !changed.is_empty() {
        println!("{changed}");
    }
    let retries = counter_total(&families, "equinix_api_retries_total");
    println!(
        "provisioned {}/{} devices in {:.1} s: {} duplicates, {} lost, {} retries, {} race-lost",
        outcome.active,
        outcome.requested,
        elapsed.as_secs_f64(),
        report.duplicates,
        report.lost,
        retries,
        outcome.race_lost
    );
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
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
