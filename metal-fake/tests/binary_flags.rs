//! The `metal-fake` binary's command line: sizes and numbers out of range
//! are refused with one clear error (exit code 2) instead of aborting or
//! overflowing, and its log subscriber honours `RUST_LOG`.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_metal-fake");

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["--listen", "127.0.0.1:0", "--token", "flags-token"])
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("METAL_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs the binary with `args`, expecting it to exit by itself within a few
/// seconds (a refused flag); kills it and fails the test otherwise.
fn run_refused(args: &[&str]) -> Output {
    let mut child = command(args).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "metal-fake {args:?} is still running after 20 s; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn assert_refused(args: &[&str], expected: &str) {
    let out = run_refused(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{args:?}: one error line: {stderr}");
    assert!(
        errors[0].contains(expected),
        "{args:?}: expected {expected:?} in {stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "{args:?}: it must not start serving: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Reads the first stdout line (the URL line) of a started server.
fn first_line(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    line
}

#[test]
fn an_absurd_reservation_count_is_an_error_not_an_out_of_memory_abort() {
    assert_refused(&["--reservations", "100000000000"], "at most 100000");
    assert_refused(&["--reservations", "100001"], "at most 100000");
    assert_refused(&["--reservations=-1"], "--reservations");
}

#[test]
fn a_fault_rate_outside_zero_to_one_or_nan_is_an_error() {
    for rate in ["1.5", "-0.1", "NaN", "inf", "x"] {
        assert_refused(&[&format!("--fault-rate={rate}")], "--fault-rate");
    }
    assert_refused(&["--fault-rate", "NaN"], "not a probability in [0, 1]");
}

#[test]
fn seconds_that_are_huge_nan_or_negative_are_errors() {
    for flag in [
        "--provision-seconds",
        "--power-seconds",
        "--release-seconds",
    ] {
        for value in ["1e300", "NaN", "-1", "inf", "604801"] {
            assert_refused(&[&format!("{flag}={value}")], flag);
        }
    }
    assert_refused(
        &["--provision-seconds", "1e300"],
        "not a number of seconds from 0 to",
    );
}

#[test]
fn the_limits_themselves_are_accepted() {
    let mut child = command(&[
        "--reservations",
        "100000",
        "--fault-rate",
        "1",
        "--provision-seconds",
        "604800",
        "--power-seconds",
        "0",
        "--release-seconds",
        "0.5",
    ])
    .spawn()
    .unwrap();
    let line = first_line(&mut child);
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        line.starts_with("metal-fake listening on http://127.0.0.1:"),
        "{line:?}; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The binary installs a subscriber: what the server logs reaches stderr,
/// filtered by `RUST_LOG` (default: warnings only).
#[test]
fn the_log_subscriber_honours_rust_log() {
    let serve = |rust_log: Option<&str>| {
        let mut c = command(&["--reservations", "2"]);
        if let Some(filter) = rust_log {
            c.env("RUST_LOG", filter);
        }
        let mut child = c.spawn().unwrap();
        let line = first_line(&mut child);
        assert!(line.starts_with("metal-fake listening on "), "{line:?}");
        // The startup event follows the URL line; give it a moment.
        std::thread::sleep(Duration::from_millis(300));
        child.kill().unwrap();
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        child.wait().unwrap();
        stderr
    };
    let info = serve(Some("info"));
    assert!(
        info.contains("INFO") && info.contains("metal-fake serving"),
        "RUST_LOG=info shows the startup event: {info:?}"
    );
    assert!(info.contains("reservations=2"), "with its fields: {info:?}");
    let quiet = serve(None);
    assert!(
        !quiet.contains("metal-fake serving"),
        "the default filter shows warnings only: {quiet:?}"
    );
    let filtered = serve(Some("metal_fake=warn"));
    assert!(!filtered.contains("metal-fake serving"), "{filtered:?}");
}
