//! Real `redis-server` processes on loopback for the shared-limits tests and
//! benchmarks, each on free ports, in its own temporary directory, killed
//! when dropped:
//!
//! - [`Server`]: one node, plain or with TLS ([`Certs`], made here: a CA,
//!   a server and a client certificate), with any other setting (an
//!   eviction policy, say) as [`Options::arg`];
//! - [`Cluster`]: a Redis Cluster of masters and replicas joined by
//!   `redis-cli --cluster create`, with a short node timeout so a killed
//!   master's replica takes over within a couple of seconds;
//! - [`Sentinel`]: a master, its replica and one sentinel watching them.
//!
//! A test that cannot start one (no `redis-server` on `PATH`) calls
//! [`or_skip`]: locally it skips, saying so; under CI (`CI=true`) it fails,
//! so CI never passes a Redis test it did not run.
//!
//! ```no_run
//! # async fn demo() {
//! use redis_harness::{or_skip, Options, Server};
//! let Some(server) = or_skip("demo", Server::start(Options::new()).await) else {
//!     return;
//! };
//! let pong: String = server.query(&redis::cmd("PING")).await.unwrap();
//! assert_eq!(pong, "PONG");
//! # }
//! ```

mod certs;
mod cluster;
mod dir;
mod sentinel;
mod server;

use std::fmt;
use std::time::Duration;

pub use certs::Certs;
pub use cluster::Cluster;
pub use sentinel::{Sentinel, MASTER_NAME as SENTINEL_MASTER};
pub use server::{ClientCerts, Options, Server};

/// How long a started process may take to answer.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a Redis process could not be started or driven.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A program could not be run (not installed?).
    #[error("cannot run {program} (is redis-server installed?): {source}")]
    Spawn {
        /// `redis-server` or `redis-cli`.
        program: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A started process did not answer in time.
    #[error("{what} on port {port} does not answer within {timeout:?}")]
    NoAnswer {
        /// What was started.
        what: &'static str,
        /// Its port.
        port: u16,
        /// How long it was given.
        timeout: Duration,
    },
    /// A command to a started process failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// A file or directory could not be written.
    #[error("files: {0}")]
    Io(#[from] std::io::Error),
    /// The certificates could not be made.
    #[error("certificates: {0}")]
    Certs(#[from] rcgen::Error),
    /// A setup step did not reach the state it waits for.
    #[error("{0}")]
    Setup(String),
}

/// `Some(value)`, or, when `result` is an error: locally `None` after
/// printing that `test` skips and why; under CI (`CI=true`) a panic, since
/// CI must run every Redis test.
pub fn or_skip<T>(test: &str, result: Result<T, Error>) -> Option<T> {
    match result {
        Ok(v) => Some(v),
        Err(e) => {
            unavailable(test, &e);
            None
        }
    }
}

/// Says that `test` cannot run for `why`: a skip locally, a panic under CI.
pub fn unavailable(test: &str, why: &dyn fmt::Display) {
    assert_ne!(
        std::env::var("CI").as_deref(),
        Ok("true"),
        "{test}: no Redis under CI=true: {why}"
    );
    println!("{test}: skipped: {why}");
}

/// A loopback port free at the time of the call.
pub fn free_port() -> Result<u16, Error> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// The node the tests share when they need nothing special: the one at
/// `$METAL_TEST_REDIS_URL` when it answers, else a [`Server`] started here.
pub struct Plain {
    /// Its URL.
    pub url: String,
    /// The server started here, if it was.
    pub server: Option<Server>,
}

impl Plain {
    /// The shared node, or (see [`or_skip`]) `None` when there is none.
    pub async fn get(test: &str) -> Option<Self> {
        if let Ok(url) = std::env::var("METAL_TEST_REDIS_URL")
            && server::answers(&url, Duration::from_secs(2)).await
        {
            return Some(Self { url, server: None });
        }
        let server = or_skip(test, Server::start(Options::new()).await)?;
        Some(Self {
            url: server.url(),
            server: Some(server),
        })
    }
}

/// The `calls` of `INFO commandstats` for each of `commands` (lower case,
/// e.g. `evalsha`), summed: how many times clients ran them.
pub fn command_calls(info: &str, commands: &[&str]) -> u64 {
    info.lines()
        .filter_map(|l| l.strip_prefix("cmdstat_"))
        .filter_map(|l| l.split_once(':'))
        .filter(|(name, _)| commands.contains(name))
        .filter_map(|(_, stats)| {
            stats
                .split(',')
                .find_map(|kv| kv.strip_prefix("calls="))
                .and_then(|n| n.parse::<u64>().ok())
        })
        .sum()
}

/// The value of `field` in an `INFO` reply.
pub fn info_field<'a>(info: &'a str, field: &str) -> Option<&'a str> {
    info.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| *k == field)
        .map(|(_, v)| v.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_calls_sums_the_named_commands() {
        let info = "# Commandstats\r\ncmdstat_evalsha:calls=12,usec=30,usec_per_call=2.5\r\n\
                    cmdstat_get:calls=7,usec=1\r\ncmdstat_script|load:calls=2,usec=9\r\n";
        assert_eq!(command_calls(info, &["evalsha", "script|load"]), 14);
        assert_eq!(command_calls(info, &["set"]), 0);
        assert_eq!(info_field("a:1\r\nrole:master\r\n", "role"), Some("master"));
    }
}
