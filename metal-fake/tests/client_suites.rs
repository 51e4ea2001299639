//! A real client's own test suite, run unmodified against the `metal-fake`
//! binary: packngo's acceptance tests (`PACKNGO_TEST_ACTUAL_API`), which
//! its maintainers ran against the real API for years. Each test gets a
//! fresh fake, started as a user would start it (no world file, no
//! reservations asked for), only faster (`--time-scale 100`, so a device
//! is active in under a second, and no rate limit), and runs alone
//! (`-test.run ^Name$`), so one test's leftovers or panic cannot fail
//! another.
//!
//! What each test is expected to do is committed, one line a test, in
//! `tests/clients/go/packngo-suite.txt`: `pass`, or `fail`/`skip` with the
//! reason (a gap of the fake still open, or a test the fake cannot serve,
//! such as one that calls `api.equinix.com` itself). The test fails when
//! any test does other than its line says, in either direction, so the
//! file stays the true record of how far packngo's own suite passes, and
//! prints the table with the figures.
//!
//! Needs `go`, and the Go module proxy the first time (packngo v0.31.0
//! and its test dependencies, verified against packngo's own `go.sum`):
//! `#[ignore]`d, naming that; `.ci/run` runs it under `CI=true`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[path = "common/external.rs"]
#[allow(dead_code)]
mod external;

use external::{build_go_test, clients_dir, go, missing, run, work_dir, BIN};

/// The module whose suite runs, at the version `tests/clients/go/go.mod`
/// requires.
const PACKNGO: &str = "github.com/packethost/packngo";

/// The token the fakes accept and the suite sends.
const TOKEN: &str = "packngo-suite-token";

/// At most this many tests at once: most of a device test is packngo's
/// own 5 s sleeps between reads, not work.
const PARALLEL: usize = 6;

/// One test's deadline (packngo's slowest wait, a device's, polls every
/// 5 s; with the fake's clock 100 times faster a device is active within
/// one poll).
const TEST_DEADLINE: Duration = Duration::from_secs(240);

/// What a test did, or is expected to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Pass,
    Fail,
    Skip,
}

impl Outcome {
    fn parse(word: &str) -> Option<Self> {
        match word {
            "pass" => Some(Self::Pass),
            "fail" => Some(Self::Fail),
            "skip" => Some(Self::Skip),
            _ => None,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::Skip => "skip",
        }
    }
}

/// The expectations file: each test's outcome and why.
fn expectations() -> BTreeMap<String, (Outcome, String)> {
    let path = clients_dir().join("go/packngo-suite.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.splitn(3, char::is_whitespace);
        let (Some(name), Some(word)) = (words.next(), words.next()) else {
            panic!("{}:{}: `Name outcome [reason]`", path.display(), n + 1);
        };
        let outcome = Outcome::parse(word).unwrap_or_else(|| {
            panic!(
                "{}:{}: outcome `{word}` is not pass, fail or skip",
                path.display(),
                n + 1
            )
        });
        let reason = words.next().unwrap_or("").trim().to_string();
        assert!(
            outcome == Outcome::Pass || !reason.is_empty(),
            "{}:{}: a {word} needs its reason",
            path.display(),
            n + 1
        );
        assert!(
            out.insert(name.to_string(), (outcome, reason)).is_none(),
            "{}:{}: {name} twice",
            path.display(),
            n + 1
        );
    }
    out
}

/// The head of `packngo-suite.txt`, which [`write_expectations`] keeps.
const HEAD: &str = "\
# What each test of packngo v0.31.0's own acceptance suite does against the
# metal-fake binary (tests/client_suites.rs runs them, each against a fresh
# fake with no world file): `Name pass`, or `Name fail|skip reason`.
# A `gap:` is the fake's to close (the first line the test failed on);
# `outside the spec:` and `not servable:` say why the fake cannot pass it.
# The test fails when any line is wrong in either direction;
# METAL_FAKE_WRITE_PACKNGO_SUITE=1 rewrites this file from a run (a line
# whose outcome is unchanged keeps its reason, but a gap's, refreshed).
";

/// Rewrites `packngo-suite.txt` from `results`: a test whose outcome is
/// what the file said keeps its reason (but a `gap:`, which is
/// refreshed), any other gets `gap:` and the line it failed on (its addresses and IDs left out, so that the file
/// does not change from run to run).
fn write_expectations(
    expected: &BTreeMap<String, (Outcome, String)>,
    results: &BTreeMap<String, (Outcome, String)>,
) {
    let mut out = String::from(HEAD);
    for (name, (outcome, why)) in results {
        let reason = match expected.get(name) {
            Some((was, reason)) if was == outcome && !reason.starts_with("gap:") => reason.clone(),
            _ if *outcome == Outcome::Pass => String::new(),
            _ => format!("gap: {}", steady(why)),
        };
        out.push_str(&format!("{name} {}", outcome.word()));
        if !reason.is_empty() {
            out.push(' ');
            out.push_str(&reason);
        }
        out.push('\n');
    }
    let path = clients_dir().join("go/packngo-suite.txt");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// `line` without what changes from run to run: the fake's address and
/// the IDs it made.
fn steady(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("http://127.0.0.1:") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "http://127.0.0.1:".len()..];
        rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    let words: Vec<String> = out
        .split_inclusive(|c: char| !(c.is_ascii_hexdigit() || c == '-'))
        .map(|w| {
            let core = w.trim_end_matches(|c: char| !(c.is_ascii_hexdigit() || c == '-'));
            if uuid::Uuid::parse_str(core).is_ok() {
                w.replacen(core, "{id}", 1)
            } else {
                w.to_string()
            }
        })
        .collect();
    words.concat()
}

/// packngo's module, copied out of the read-only module cache (its tests
/// open `fixtures/` relative to the package), and its test binary, built
/// once; returns the package folder and the binary.
fn packngo_suite(test: &str, go: &str) -> (PathBuf, PathBuf) {
    let mut download = Command::new(go);
    download
        .args(["mod", "download", "-json", PACKNGO])
        .current_dir(clients_dir().join("go"))
        .env("GOWORK", "off")
        .env("GOFLAGS", "-mod=readonly");
    let output = download
        .output()
        .unwrap_or_else(|e| missing(test, &format!("go mod download: {e}")));
    let info: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        missing(
            test,
            &format!(
                "go mod download printed no JSON ({e}): {}",
                String::from_utf8_lossy(&output.stderr)
            ),
        )
    });
    if let Some(error) = info.get("Error").and_then(|e| e.as_str()) {
        missing(test, &format!("go mod download {PACKNGO}: {error}"));
    }
    let (Some(dir), Some(version)) = (
        info.get("Dir").and_then(|d| d.as_str()),
        info.get("Version").and_then(|v| v.as_str()),
    ) else {
        missing(test, &format!("go mod download gave no Dir: {info}"));
    };
    let root = work_dir().join(format!("packngo-suite-{version}"));
    let package = root.join("src");
    let binary = root.join("packngo.test");
    if !binary.exists() {
        let _ = std::fs::remove_dir_all(&root);
        copy_tree(Path::new(dir), &package);
        if let Err(output) =
            build_go_test(test, go, &package, ".", &binary, Duration::from_secs(900))
        {
            let _ = std::fs::remove_file(&binary);
            missing(test, &format!("cannot build packngo's tests: {output}"))
        }
    }
    (package, binary)
}

/// Copies the folder `from` to `to`, writable (the module cache's files
/// are read-only).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            let mut permissions = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            std::fs::set_permissions(&target, permissions).unwrap();
        }
    }
}

/// A fake started as a user starts the binary; killed when dropped.
struct Fake {
    child: Child,
    url: String,
}

impl Fake {
    fn start(log: &Path) -> Self {
        let mut child = Command::new(BIN)
            .args(["--token", TOKEN, "--rate-limit", "0", "--time-scale", "100"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        let stdout = child.stdout.take().unwrap();
        let mut first = String::new();
        BufReader::new(stdout).read_line(&mut first).unwrap();
        let url = first
            .trim()
            .strip_prefix("metal-fake listening on ")
            .unwrap_or_else(|| panic!("the fake's first line: {first:?}"))
            .to_string();
        Self { child, url }
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the test `name` of the suite against a fresh fake: its outcome,
/// and the first line that says why it failed.
fn run_one(package: &Path, binary: &Path, name: &str) -> (Outcome, String) {
    let logs = work_dir().join("packngo-suite-logs");
    std::fs::create_dir_all(&logs).unwrap();
    let fake = Fake::start(&logs.join(format!("{name}.fake.log")));
    let mut command = Command::new(binary);
    command
        .args(["-test.v", "-test.count=1", "-test.timeout", "220s"])
        .arg(format!("-test.run=^{name}$"))
        .current_dir(package)
        .env("PACKET_AUTH_TOKEN", TOKEN)
        // packngo resolves paths against its base URL, so it ends in `/`.
        .env("PACKET_API_URL", format!("{}/", fake.url))
        .env("PACKNGO_TEST_ACTUAL_API", "1");
    let (status, output) = run(
        &format!("packngo-suite-logs/{name}"),
        &mut command,
        TEST_DEADLINE,
    );
    drop(fake);
    let outcome = if output.contains(&format!("--- PASS: {name} (")) && status.is_some() {
        Outcome::Pass
    } else if output.contains(&format!("--- SKIP: {name} (")) {
        Outcome::Skip
    } else {
        Outcome::Fail
    };
    let why = if status.is_none() {
        format!("killed after {TEST_DEADLINE:?}")
    } else {
        output
            .lines()
            .map(str::trim)
            .find(|l| l.contains("_test.go:") || l.starts_with("panic:"))
            .unwrap_or("")
            .chars()
            .take(240)
            .collect()
    };
    (outcome, why)
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_s_own_suite_does_what_packngo_suite_txt_says() {
    let test = "packngo_s_own_suite_does_what_packngo_suite_txt_says";
    let go = go(test);
    let expected = expectations();
    let (package, binary) = packngo_suite(test, go);
    let listed = Command::new(&binary)
        .args(["-test.list", ".*"])
        .current_dir(&package)
        .output()
        .unwrap();
    let names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter(|l| l.starts_with("Test"))
        .map(str::to_string)
        .collect();
    assert!(!names.is_empty(), "packngo's test binary lists no tests");

    let queue = Arc::new(Mutex::new(names.clone()));
    let results = Arc::new(Mutex::new(BTreeMap::new()));
    let workers: Vec<_> = (0..PARALLEL)
        .map(|_| {
            let (queue, results) = (queue.clone(), results.clone());
            let (package, binary) = (package.clone(), binary.clone());
            std::thread::spawn(move || loop {
                let Some(name) = queue.lock().unwrap().pop() else {
                    return;
                };
                let result = run_one(&package, &binary, &name);
                results.lock().unwrap().insert(name, result);
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let results = std::mem::take(&mut *results.lock().unwrap());

    let mut counts = BTreeMap::new();
    let mut wrong = Vec::new();
    for (name, (outcome, why)) in &results {
        *counts.entry(*outcome).or_insert(0) += 1;
        match expected.get(name) {
            None => wrong.push(format!(
                "{name}: {} ({why}), and packngo-suite.txt does not name it",
                outcome.word()
            )),
            Some((want, reason)) if want != outcome => wrong.push(format!(
                "{name}: {} ({why}), but packngo-suite.txt says {} {reason}",
                outcome.word(),
                want.word()
            )),
            Some(_) => {}
        }
    }
    for name in expected.keys().filter(|n| !results.contains_key(*n)) {
        wrong.push(format!(
            "{name}: in packngo-suite.txt, but packngo has no such test"
        ));
    }
    println!(
        "packngo's own suite against metal-fake: {} pass, {} fail, {} skip, of {}",
        counts.get(&Outcome::Pass).unwrap_or(&0),
        counts.get(&Outcome::Fail).unwrap_or(&0),
        counts.get(&Outcome::Skip).unwrap_or(&0),
        results.len()
    );
    for (name, (outcome, why)) in &results {
        if *outcome != Outcome::Pass {
            println!("  {name} {}: {why}", outcome.word());
        }
    }
    if std::env::var_os("METAL_FAKE_WRITE_PACKNGO_SUITE").is_some() {
        write_expectations(&expected, &results);
        return;
    }
    assert!(
        wrong.is_empty(),
        "packngo's suite differs from tests/clients/go/packngo-suite.txt (logs in {}; \
         METAL_FAKE_WRITE_PACKNGO_SUITE=1 rewrites it from this run):\n{}",
        work_dir().join("packngo-suite-logs").display(),
        wrong.join("\n")
    );
}
