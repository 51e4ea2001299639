//! The soak and chaos run: several controller processes, sharing one API
//! budget through Redis, against `metal-fake`'s server with faults, a
//! competitor, bursts of faults, devices whose provisioning fails,
//! cancelled reconcile steps, Redis restarts and SIGKILLed controllers; the invariants checked every second and at the end.
//!
//! ```text
//! cargo run --release -p metal-provision --example soak -- --seconds 60 --controllers 3 --seed 7
//! ```
//!
//! It ends with one line,
//! `soak: 60 s, 3 controllers, C calls, D devices created, 0 duplicates, 0 lost, 0 double reboots, max rate r/R, 429s: k, cancels: x, redis restarts: y, controller kills: z`,
//! and exits 0 only if every invariant held: one device per witness (per
//! logical create), no device on the server that no ledger knows, no
//! device rebooted more often than its logical reboots, at most R plus
//! the server's burst (R) requests in any second at the server, no 429 from the server's rate
//! limit, every controller's `in_flight` and `waiting` gauges 0 at the
//! end, and each controller's RSS at the end within 10% of its value after
//! warm-up. Otherwise it prints the first violated invariant and the seed
//! (`error: ... (seed S)`) and exits 1; a soak that could not run (no
//! `redis-server`) exits 1 with `error:` too, and a bad command line 2.
//!
//! The seed fixes the fake's faults and provisioning failures and the
//! chaos schedule (which Redis restarts, kills, fault bursts and
//! competitor moves happen at which tick); the
//! controllers' timing is real time across processes, so a seed reproduces
//! the run's mix, not its exact interleaving.
//!
//! `soak controller ...` is one controller process; the soak starts them
//! itself.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use flags::parse_probability;

#[path = "soak/check.rs"]
mod check;
#[path = "soak/controller.rs"]
mod controller;
#[path = "shared/flags.rs"]
mod flags;
#[path = "shared/gauge.rs"]
mod gauge;
#[path = "soak/ledger.rs"]
mod ledger;
#[path = "soak/orchestra.rs"]
mod orchestra;
#[path = "soak/redis.rs"]
mod redis;

/// The longest soak (a day).
const MAX_SECONDS: u64 = 24 * 3600;

#[derive(Parser, Debug)]
#[command(
    name = "soak",
    about = "A soak and chaos run of several controller processes against metal-fake",
    after_help = "Exit status: 0 when every invariant held; 1 when one did not (the first is \
                  printed with the seed) or the soak could not run; 2 for a bad command line."
)]
struct Args {
    #[command(subcommand)]
    command: Option<Sub>,
    /// How long the controllers run, in seconds (1 to 86400).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=MAX_SECONDS))]
    seconds: u64,
    /// Controller processes (1 to 16).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=16))]
    controllers: u64,
    /// Seed of the faults and of the chaos schedule.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// The server's rate limit in requests per second (1 to 1000); the
    /// controllers are configured with the same rate, shared.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rate: u32,
    /// Probability in [0, 1] of a random fault per request.
    #[arg(long, default_value_t = 0.05, value_parser = parse_probability)]
    fault_rate: f64,
    /// Probability in [0, 1] that a device's provisioning fails (it ends
    /// `failed`, holding its reservation until deleted).
    #[arg(long, default_value_t = 0.1, value_parser = parse_probability)]
    fail_rate: f64,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// One controller process (started by the soak).
    #[command(hide = true)]
    Controller(controller::ControllerArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Sub::Controller(c)) = args.command {
        let slot = c.slot;
        return match controller::run(c).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("soak controller {slot}: error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let plan = orchestra::Plan {
        seconds: args.seconds,
        controllers: args.controllers as usize,
        seed: args.seed,
        rate: args.rate,
        fault_rate: args.fault_rate,
        fail_rate: args.fail_rate,
    };
    let s = match orchestra::run(plan.clone()).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: the soak could not run: {e} (seed {})", plan.seed);
            return ExitCode::FAILURE;
        }
    };
    println!(
        "soak: {} s, {} controllers, {} calls, {} devices created, {} duplicates, {} lost, \
         {} double reboots, max rate {}/{} ({}/{} away from Redis restarts and {} fallbacks), 429s: {}, \
         cancels: {}, redis restarts: {}, controller kills: {}, fault bursts: {}, provisioning failures: {}, \
         next-available creates: {}",
        plan.seconds,
        plan.controllers,
        s.calls,
        s.created,
        s.duplicates,
        s.lost,
        s.double_reboots,
        s.max_rate,
        plan.rate,
        s.steady_rate,
        plan.rate,
        s.fallbacks,
        s.throttled,
        s.cancels,
        s.redis_restarts,
        s.kills,
        s.bursts,
        s.failed,
        s.next_available
    );
    eprintln!(
        "soak: memory held to 10% on {} controller processes (each at the end, and each killed after warm-up)",
        s.rss_checked
    );
    match s.violation {
        None => ExitCode::SUCCESS,
        Some(v) => {
            eprintln!("error: {v} (seed {})", plan.seed);
            ExitCode::FAILURE
        }
    }
}
