//! `metal-fake`: serves a fake Metal API over HTTP.
//!
//! ```text
//! METAL_AUTH_TOKEN=secret cargo run -p metal-fake -- --listen 127.0.0.1:0 --reservations 20
//! ```
//!
//! The first stdout line is exactly `metal-fake listening on
//! http://HOST:PORT/metal/v1`; `GET /_fake/state` returns the counters.
#![forbid(unsafe_code)]

use std::io::Write;
use std::time::Duration;

use clap::Parser;
use metal_fake::{Fake, RandomFaults, ServerConfig, Timings};
use uuid::Uuid;

/// Serves a stateful fake Equinix Metal API at /metal/v1.
#[derive(Debug, Parser)]
#[command(name = "metal-fake", version)]
struct Args {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
    /// The project that exists, holding the reservations (random if absent).
    #[arg(long)]
    project: Option<Uuid>,
    /// How many provisionable hardware reservations the project holds.
    #[arg(long, default_value_t = 10)]
    reservations: usize,
    /// The X-Auth-Token the server accepts (default: $METAL_AUTH_TOKEN).
    #[arg(long)]
    token: Option<String>,
    /// API requests allowed per second (0: no limit).
    #[arg(long, default_value_t = 0)]
    rate_limit: u32,
    /// Probability that a request gets a random recoverable fault.
    #[arg(long, default_value_t = 0.0)]
    fault_rate: f64,
    /// Seed of the random faults.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds from create to active (a fifth queued, the rest provisioning).
    #[arg(long, default_value_t = 60.0)]
    provision_seconds: f64,
    /// Seconds a power transition takes.
    #[arg(long, default_value_t = 5.0)]
    power_seconds: f64,
    /// Seconds before a freed reservation is provisionable again.
    #[arg(long, default_value_t = 30.0)]
    release_seconds: f64,
}

fn seconds(s: f64) -> Duration {
    Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::ZERO)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let Some(token) = args
        .token
        .clone()
        .or_else(|| std::env::var(metal_api::config::ENV_AUTH_TOKEN).ok())
        .filter(|t| !t.trim().is_empty())
    else {
        eprintln!("metal-fake: give --token or set METAL_AUTH_TOKEN");
        return std::process::ExitCode::FAILURE;
    };
    let provision = seconds(args.provision_seconds);
    let timings = Timings {
        queued: provision / 5,
        provisioning: provision - provision / 5,
        power: seconds(args.power_seconds),
        reinstall: provision,
        reservation_release: seconds(args.release_seconds),
    };
    let mut builder = Fake::builder()
        .project(args.project.unwrap_or_else(Uuid::new_v4))
        .reservations(args.reservations)
        .timings(timings);
    if args.fault_rate > 0.0 {
        builder = builder.random_faults(RandomFaults {
            rate: args.fault_rate,
            seed: args.seed,
            kinds: Vec::new(),
        });
    }
    let fake = builder.build();
    let config = ServerConfig::new(token).rate_limit(Some(args.rate_limit));
    let server = match metal_fake::bind(fake.clone(), args.listen.as_str(), config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("metal-fake: cannot listen on {}: {e}", args.listen);
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "metal-fake listening on {}", server.base_url());
    let _ = writeln!(out, "project {}", fake.project());
    let _ = out.flush();
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    std::process::ExitCode::SUCCESS
}
