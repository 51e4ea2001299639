//! Running the `metal-fake` binary in tests: its command line with the
//! environment cleared of what would change it, a run that must end by
//! itself, the URL line a started server prints first, and what a killed
//! one wrote to stderr.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_metal-fake");

/// The binary on a free loopback port with `token`, then `args`; no
/// `RUST_LOG` or `METAL_AUTH_TOKEN` from the test's environment, stdout
/// and stderr piped.
pub fn command(token: &str, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["--listen", "127.0.0.1:0", "--token", token])
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("METAL_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs the binary, expecting it to exit by itself within 20 s (a refused
/// flag or file, `--world-schema`); kills it and fails the test otherwise.
pub fn run_to_exit(token: &str, args: &[&str]) -> Output {
    let mut child = command(token, args).spawn().unwrap();
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

/// Reads the first stdout line (the URL line) of a started server.
pub fn first_line(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    line
}

/// Kills a started server; what it wrote to stderr.
pub fn stop(mut child: Child) -> String {
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
}

/// A started server and its root URL (without `/metal/v1`); killed when
/// dropped.
pub struct Running {
    /// The server's process.
    pub child: Child,
    /// `http://HOST:PORT`.
    pub root: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary with `token` and `args` and reads its URL line (a
/// server that prints another first line is killed and its stderr shown).
pub fn start(token: &str, args: &[&str]) -> Running {
    let mut child = command(token, args).spawn().unwrap();
    let line = first_line(&mut child);
    let Some(url) = line.trim().strip_prefix("metal-fake listening on ") else {
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "unexpected first line {line:?}; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let root = url.trim_end_matches("/metal/v1").to_string();
    Running { child, root }
}
