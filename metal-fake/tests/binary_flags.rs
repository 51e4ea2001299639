//! The `metal-fake` binary's command line: sizes and numbers out of range
//! are refused with one clear error (exit code 2) instead of aborting or
//! overflowing, and its log subscriber honours `RUST_LOG`.

#[allow(dead_code)] // the binary's helpers; this test runs some
mod binary;

use std::io::Read;
use std::process::Command;

const TOKEN: &str = "flags-token";

fn command(args: &[&str]) -> Command {
    binary::command(TOKEN, args)
}

fn assert_refused(args: &[&str], expected: &str) {
    let out = binary::run_to_exit(TOKEN, args);
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
    let line = binary::first_line(&mut child);
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
        let line = binary::first_line(&mut child);
        assert!(line.starts_with("metal-fake listening on "), "{line:?}");
        // The startup event is written before the URL line: nothing to
        // wait for.
        binary::stop(child)
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

/// `--log-calls` prints one line a call to stderr: method, path and
/// query, operation, status and the error answered; never the token.
#[test]
fn log_calls_prints_one_line_a_call_without_the_token() {
    use std::io::Write;
    let mut child = command(&["--log-calls", "--rate-limit", "0"])
        .spawn()
        .unwrap();
    let line = binary::first_line(&mut child);
    let address = line
        .trim()
        .strip_prefix("metal-fake listening on http://")
        .and_then(|rest| rest.strip_suffix("/metal/v1"))
        .unwrap_or_else(|| panic!("{line:?}"))
        .to_string();
    let missing = "0d000000-0000-4000-8000-00000000dead";
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    write!(
        stream,
        "GET /metal/v1/devices/{missing}?include=project HTTP/1.1\r\nHost: {address}\r\n\
         X-Auth-Token: {TOKEN}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 404"), "{reply}");
    // The line is written before the reply is sent.
    let stderr = binary::stop(child);
    let expected = format!(
        "metal-fake: call 1 GET /metal/v1/devices/{missing}?include=project findDeviceById 404: Not found"
    );
    assert!(
        stderr.lines().any(|l| l == expected),
        "{expected:?} in {stderr:?}"
    );
    assert!(
        !stderr.contains(TOKEN),
        "the token is never logged: {stderr:?}"
    );
}
