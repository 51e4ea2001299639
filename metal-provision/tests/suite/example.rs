//! The provisioning run's binary (`src/bin/provision.rs`), run as a user
//! runs it: its exit code and `error:` line when it falls short, its flags,
//! its bounded workers, and its progress lines.
//!
//! The binary is the one cargo built for this test run
//! (`CARGO_BIN_EXE_provision`: the same features and profile as this test,
//! so no second build); `METAL_PROVISION_BIN=PATH` runs another build of it
//! instead (CI's every-feature tests run a copy, as the default-feature
//! build beside them replaces `target/debug/provision`). The `--redis*`
//! flags' tests run under feature `redis`; without it, those flags are
//! refused, naming the feature. Runs that need a server they can script
//! start `metal-fake` in this process and point the binary at it with
//! `METAL_API_URL`, `METAL_PROJECT_ID` and `METAL_AUTH_TOKEN` (or the flags).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common;
use common::create_beside;
use metal_fake::{
    FailProvisioning, Fake, Fault, FaultKind, RandomFailures, RandomFaults, ServerConfig,
    ServerHandle, Timings,
};

const TOKEN: &str = "example-test-token";

/// The provisioning run's executable.
fn binary() -> PathBuf {
    std::env::var_os("METAL_PROVISION_BIN")
        .map_or_else(|| env!("CARGO_BIN_EXE_provision").into(), PathBuf::from)
}

/// The binary with a clean environment: no Metal variables, no RUST_LOG.
fn provision(args: &[&str]) -> Command {
    let mut c = Command::new(binary());
    c.args(args)
        .env_remove("METAL_API_URL")
        .env_remove("METAL_AUTH_TOKEN")
        .env_remove("METAL_PROJECT_ID")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs to the end, killing it (and failing) after `limit`.
fn finish(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    // Drain both pipes while waiting, so a chatty run cannot block on them.
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the run did not end within {limit:?}; stderr: {}",
                String::from_utf8_lossy(&err.join().unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn run(args: &[&str]) -> Output {
    finish(provision(args).spawn().unwrap(), Duration::from_secs(120))
}

async fn run_async(cmd: Command) -> Output {
    spawn_run(cmd).await.unwrap()
}

/// Runs `cmd` to the end (within 120 s) on a blocking thread, while the
/// test goes on: its output when joined.
fn spawn_run(mut cmd: Command) -> tokio::task::JoinHandle<Output> {
    tokio::task::spawn_blocking(move || finish(cmd.spawn().unwrap(), Duration::from_secs(120)))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn error_lines(out: &Output) -> Vec<String> {
    text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(str::to_string)
        .collect()
}

/// The one `error:` line of a run that exited with `code`.
fn the_error(out: &Output, code: i32) -> String {
    let errors = error_lines(out);
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(errors.len(), 1, "one error line: {}", text(&out.stderr));
    errors[0].clone()
}

fn summary(out: &Output) -> String {
    text(&out.stdout)
        .lines()
        .rfind(|l| l.starts_with("provisioned "))
        .unwrap_or_else(|| panic!("no summary line in {}", text(&out.stdout)))
        .to_string()
}

/// A fake served over HTTP from this process, with quick lifecycles.
async fn serve(fake: &Fake) -> ServerHandle {
    metal_fake::bind(fake.clone(), "127.0.0.1:0", ServerConfig::new(TOKEN))
        .await
        .unwrap()
}

fn fake(reservations: usize) -> metal_fake::FakeBuilder {
    Fake::builder().reservations(reservations).timings(Timings {
        queued: Duration::from_millis(200),
        provisioning: Duration::from_millis(800),
        ..Timings::uniform(Duration::from_millis(100))
    })
}

/// The binary pointed at `server` through the environment, as metal-cli's
/// variables name it.
fn against(server: &ServerHandle, fake: &Fake, args: &[&str]) -> Command {
    let mut c = provision(args);
    c.env("METAL_API_URL", server.base_url())
        .env("METAL_PROJECT_ID", fake.project().to_string())
        .env("METAL_AUTH_TOKEN", TOKEN);
    c
}

/// Runs the binary for `devices` devices against `fake` served over HTTP
/// (10 ms between requests), then stops the server.
async fn run_served(fake: &Fake, devices: &str) -> Output {
    let server = serve(fake).await;
    let out = run_async(against(
        &server,
        fake,
        &["--devices", devices, "--api-rate", "10ms"],
    ))
    .await;
    server.shutdown().await;
    out
}

// ------------------------------------------------------------ exit codes

#[test]
fn a_clean_run_exits_zero_and_counts_no_minus_zero_retries() {
    let out = run(&[
        "--devices",
        "2",
        "--fault-rate",
        "0",
        "--fail-rate",
        "0",
        "--provision-time",
        "200ms",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(error_lines(&out).is_empty(), "{}", text(&out.stderr));
    let line = summary(&out);
    assert!(line.starts_with("provisioned 2/2 devices in "), "{line}");
    assert!(
        line.ends_with(": 0 adopted, 0 duplicates, 0 lost, 0 retries, 0 race-lost, 0 failed"),
        "{line}"
    );
}

#[test]
fn the_default_run_meets_a_failed_device_and_still_provisions_every_device() {
    let out = run(&["--provision-time", "500ms"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = summary(&out);
    assert!(line.starts_with("provisioned 8/8 devices in "), "{line}");
    let failed: usize = line
        .rsplit(", ")
        .next()
        .and_then(|last| last.strip_suffix(" failed"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no failed count in {line}"));
    assert!(failed >= 1, "{line}");
    let warnings = text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("warning: device ") && l.ends_with("; deleted"))
        .count();
    assert_eq!(warnings, failed, "{}", text(&out.stderr));
}

#[test]
fn the_default_rates_and_retries_provision_hundreds_of_devices() {
    // The default fault and failure rates, seed and retries, with quick
    // timings: about 20 devices fail to provision, and none of the 200
    // hostnames runs out of tries (with two retries at a failure rate of
    // 0.2, four in five such runs fell short).
    let out = finish(
        provision(&[
            "--devices",
            "200",
            "--parallelism",
            "64",
            "--api-rate",
            "1ms",
            "--rate-limit",
            "0",
            "--provision-time",
            "200ms",
            "--progress-interval",
            "1h",
        ])
        .spawn()
        .unwrap(),
        Duration::from_secs(300),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = summary(&out);
    assert!(line.starts_with("provisioned 200/200 devices"), "{line}");
    assert!(line.contains(", 0 duplicates, 0 lost, "), "{line}");
    assert!(!line.ends_with(" 0 failed"), "no device failed: {line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_device_is_replaced_and_the_run_exits_zero() {
    let fake = fake(3)
        .fail_provisioning(FailProvisioning::Hostname("provision-1".into()))
        .build();
    let out = run_served(&fake, "2").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = summary(&out);
    assert!(line.starts_with("provisioned 2/2 devices"), "{line}");
    assert!(line.ends_with(", 0 race-lost, 1 failed"), "{line}");
    assert!(
        text(&out.stderr).contains("(provision-1) failed to provision on reservation"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_that_leave_a_device_short_are_exit_code_1() {
    // Two reservations, and the first device fails: the second hostname
    // finds none left.
    let fake = fake(2)
        .fail_provisioning(FailProvisioning::NthCreate(1))
        .build();
    let out = run_served(&fake, "2").await;
    assert_eq!(
        the_error(&out, 1),
        "error: only 1 of 2 devices became active"
    );
    assert!(summary(&out).ends_with(", 1 failed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fewer_devices_active_than_asked_is_exit_code_1() {
    // The competitor takes the first reservation the run asks for; with
    // exactly two, the second device has none left.
    let fake = fake(2)
        .fault(Fault::on("createDevice", FaultKind::Competitor).nth(1))
        .build();
    let out = run_served(&fake, "2").await;
    let error = the_error(&out, 1);
    assert_eq!(error, "error: only 1 of 2 devices became active");
    assert!(summary(&out).starts_with("provisioned 1/2 devices"));
    assert!(text(&out.stderr).contains("warning: no provisionable hardware reservation left"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_device_active_is_exit_code_1() {
    let fake = fake(2)
        .fault(Fault::on("createDevice", FaultKind::Competitor).times(2))
        .build();
    let out = run_served(&fake, "2").await;
    assert_eq!(the_error(&out, 1), "error: no device became active (0/2)");
    assert!(summary(&out).starts_with("provisioned 0/2 devices"));
}

/// Waits until the run has created a device (with the default name's
/// tag), and returns it.
async fn first_device(fake: &Fake) -> metal_api::types::Device {
    let tag = metal_provision::run_tag("provision");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ours = fake.devices().into_iter().find(|d| d.tags.contains(&tag));
        if let Some(d) = ours {
            return d;
        }
        assert!(Instant::now() < deadline, "the run created no device");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_of_the_run_it_does_not_know_is_exit_code_1() {
    let fake = fake(6).build();
    let server = serve(&fake).await;
    let child = spawn_run(against(
        &server,
        &fake,
        &["--devices", "2", "--api-rate", "10ms"],
    ));
    // While it runs, another API user creates a device with the run's tag
    // under a hostname the run does not have: not the run's, not adopted,
    // so the audit counts it unknown (no hostname of the run is lost).
    first_device(&fake).await;
    create_beside(&fake, "provision-9").await;

    let out = child.await.unwrap();
    let error = the_error(&out, 1);
    assert_eq!(
        error,
        "error: the audit found 1 device of the run's tag under a hostname it was not asked for"
    );
    assert!(summary(&out).contains(": 0 adopted, 0 duplicates, 0 lost, "));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_made_while_the_run_works_is_removed() {
    let fake = fake(6).build();
    let server = serve(&fake).await;
    let child = spawn_run(against(
        &server,
        &fake,
        &["--devices", "2", "--api-rate", "10ms"],
    ));
    // As soon as the run's first device exists, another API user creates a
    // second one under the same hostname and tag: the run keeps the
    // earlier and deletes the later when it checks the hostname again.
    let first = first_device(&fake).await;
    let second = create_beside(&fake, first.hostname.as_deref().unwrap()).await;

    let out = child.await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(summary(&out).contains(": 0 adopted, 0 duplicates, 0 lost, "));
    let state = |id| {
        fake.devices()
            .into_iter()
            .find(|d| d.id == Some(id))
            .and_then(|d| d.state)
    };
    // Deleted: deprovisioning, or gone already.
    let second = state(second);
    assert!(
        matches!(second.as_deref(), None | Some("deprovisioning")),
        "{second:?}"
    );
    assert_eq!(state(first.id.unwrap()).as_deref(), Some("active"));
    server.shutdown().await;
}

/// The live devices carrying the default run's tag, by hostname.
fn live_by_hostname(fake: &Fake) -> std::collections::BTreeMap<String, usize> {
    live_by_hostname_of(fake, "provision")
}

/// The live devices carrying the tag of the run named `name`, by hostname.
fn live_by_hostname_of(fake: &Fake, name: &str) -> std::collections::BTreeMap<String, usize> {
    let tag = metal_provision::run_tag(name);
    let mut by = std::collections::BTreeMap::new();
    for d in fake.devices() {
        let going = matches!(d.state.as_deref(), Some("deprovisioning" | "deleted"));
        if d.tags.contains(&tag) && !going {
            *by.entry(d.hostname.unwrap_or_default()).or_insert(0) += 1;
        }
    }
    by
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_after_kill_9_adopts_what_the_killed_run_left() {
    let fake = fake(12).build();
    let server = serve(&fake).await;
    let args = [
        "--devices",
        "5",
        "--parallelism",
        "1",
        "--api-rate",
        "10ms",
        "--poll",
    ];
    // One slot and four workers, each polling its device: the fifth
    // hostname waits for a worker, so the run is killed part-way.
    let mut child = against(&server, &fake, &args).spawn().unwrap();
    first_device(&fake).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while fake.devices().len() < 2 {
        assert!(Instant::now() < deadline, "the run created one device only");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let left = fake.devices().len();
    assert!((2..5).contains(&left), "{left} devices when it was killed");

    let out = run_async(against(&server, &fake, &args)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = summary(&out);
    assert!(line.starts_with("provisioned 5/5 devices"), "{line}");
    assert!(
        line.contains(&format!(": {left} adopted, 0 duplicates, 0 lost, ")),
        "{left} left: {line}"
    );
    let by = live_by_hostname(&fake);
    assert_eq!(by.len(), 5, "{by:?}");
    assert!(by.values().all(|n| *n == 1), "{by:?}");
    assert_eq!(fake.devices().len(), 5);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_of_one_name_end_with_one_device_per_hostname() {
    let fake = fake(16).build();
    let server = serve(&fake).await;
    let args = ["--devices", "4", "--api-rate", "10ms"];
    let (a, b) = tokio::join!(
        run_async(against(&server, &fake, &args)),
        run_async(against(&server, &fake, &args)),
    );
    for out in [&a, &b] {
        assert!(out.status.success(), "{}", text(&out.stderr));
        let line = summary(out);
        assert!(line.starts_with("provisioned 4/4 devices"), "{line}");
        assert!(line.contains(" 0 duplicates, 0 lost, "), "{line}");
    }
    let by = live_by_hostname(&fake);
    assert_eq!(by.len(), 4, "{by:?}");
    assert!(by.values().all(|n| *n == 1), "{by:?}");
    server.shutdown().await;
}

/// The stress of several processes of one name: `rounds` rounds, round
/// `r` running `2 + r % 4` processes (2 to 5) of one name at once, each
/// asking for `devices` devices, against a fake served from this process
/// with random faults (`0.1` of the requests) and provisioning failures
/// (`0.1` of the devices), a fresh one each round. Every process must exit
/// 0 with an honest summary (all active, no duplicate, no lost hostname,
/// and between them one process made each hostname's device: the others
/// adopted it), and the server must end with one live device per hostname.
/// `processes` fixes every round's number of processes instead.
async fn processes_of_one_name(rounds: u64, devices: usize, processes: Option<usize>) {
    for round in 0..rounds {
        let k = processes.unwrap_or(2 + (round % 4) as usize);
        let fake = fake(k * devices * 4)
            .random_faults(RandomFaults {
                rate: 0.1,
                seed: round,
                kinds: FaultKind::recoverable(),
            })
            .random_provisioning_failures(RandomFailures {
                rate: 0.1,
                seed: round,
            })
            .build();
        let server = serve(&fake).await;
        let n = devices.to_string();
        let args = ["--name", "stress", "--devices", &n, "--api-rate", "5ms"];
        let outs =
            futures::future::join_all((0..k).map(|_| run_async(against(&server, &fake, &args))))
                .await;
        server.shutdown().await;
        let context = |out: &Output| {
            format!(
                "round {round} ({k} processes): stdout: {}\nstderr: {}",
                text(&out.stdout),
                text(&out.stderr)
            )
        };
        let mut adopted = 0;
        for out in &outs {
            assert!(out.status.success(), "{}", context(out));
            let line = summary(out);
            let all = format!("provisioned {devices}/{devices} devices in ");
            assert!(line.starts_with(&all), "{}", context(out));
            assert!(
                line.contains(" adopted, 0 duplicates, 0 lost, "),
                "{}",
                context(out)
            );
            adopted += count_before(&line, " adopted");
        }
        assert_eq!(adopted, (k - 1) * devices, "round {round}: {outs:?}");
        let by = live_by_hostname_of(&fake, "stress");
        assert_eq!(by.len(), devices, "round {round}: {by:?}");
        assert!(by.values().all(|n| *n == 1), "round {round}: {by:?}");
    }
}

/// The number before `what` in a summary line (`3 adopted`).
fn count_before(line: &str, what: &str) -> usize {
    let at = line
        .find(what)
        .unwrap_or_else(|| panic!("no {what:?} in {line}"));
    line[..at]
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count before {what:?} in {line}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_of_one_name_with_faults_end_with_one_device_per_hostname() {
    processes_of_one_name(2, 4, None).await;
}

/// The long version: `METAL_PROVISION_STRESS_ROUNDS` rounds (default 50),
/// and `METAL_PROVISION_STRESS_PROCESSES` processes in every round (default
/// 2 to 5 by round).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: rounds of 2 to 5 processes of one name (METAL_PROVISION_STRESS_ROUNDS, default 50; METAL_PROVISION_STRESS_PROCESSES)"]
async fn many_rounds_of_processes_of_one_name_end_with_one_device_per_hostname() {
    let var = |name: &str| std::env::var(name).ok().and_then(|r| r.parse().ok());
    let rounds = var("METAL_PROVISION_STRESS_ROUNDS").unwrap_or(50);
    let processes = var("METAL_PROVISION_STRESS_PROCESSES").map(|k: u64| k as usize);
    processes_of_one_name(rounds, 6, processes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_devices_than_free_reservations_is_refused_before_creating_any() {
    let fake = fake(2).build();
    let out = run_served(&fake, "3").await;
    assert_eq!(
        the_error(&out, 1),
        format!(
            "error: --devices 3 is more than the 2 free hardware reservations of project {}; \
             nothing was created",
            fake.project()
        )
    );
    assert!(fake.devices().is_empty());
}

// ------------------------------------------------------------ output

#[test]
fn the_output_is_a_table_of_requests_then_the_summary() {
    let out = run(&[
        "--devices",
        "2",
        "--fail-rate",
        "0",
        "--provision-time",
        "200ms",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() <= 16, "{stdout}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "operation",
            "requests",
            "2xx",
            "4xx",
            "429",
            "5xx",
            "no",
            "reply",
            "retries"
        ]
    );
    let create: Vec<&str> = lines
        .iter()
        .find(|l| l.starts_with("createDevice "))
        .unwrap_or_else(|| panic!("no createDevice row in {stdout}"))
        .split_whitespace()
        .collect();
    assert_eq!(create.len(), 8, "{create:?}");
    let all = lines.iter().find(|l| l.starts_with("all ")).unwrap();
    assert!(lines[lines.len() - 2].starts_with("pauses: "), "{stdout}");
    assert!(lines[lines.len() - 1].starts_with("provisioned 2/2 devices"));
    // The retries column's total is the summary's retries.
    let retries = all.split_whitespace().last().unwrap();
    assert!(
        summary(&out).contains(&format!(", {retries} retries, ")),
        "{all} / {}",
        summary(&out)
    );
    assert!(
        !stdout.contains("equinix_api_"),
        "raw metrics without --metrics: {stdout}"
    );
}

#[test]
fn metrics_prints_the_prometheus_text_before_the_table() {
    let out = run(&[
        "--devices",
        "1",
        "--fail-rate",
        "0",
        "--provision-time",
        "200ms",
        "--metrics",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for name in [
        "# TYPE equinix_api_request_duration_seconds histogram",
        "# TYPE equinix_api_latency histogram",
        "# TYPE equinix_api_requests_total counter",
        "equinix_api_requests_total{endpoint=\"createDevice\",status_code=\"201\"}",
    ] {
        assert!(stdout.contains(name), "{name} missing from {stdout}");
    }
    let table = stdout.find("\noperation ").expect("the table");
    assert!(stdout[..table].contains("equinix_api_"), "{stdout}");
    assert!(summary(&out).starts_with("provisioned 1/1 devices"));
}

// ------------------------------------------------------------ flags

#[test]
fn bad_numbers_are_one_error_and_exit_code_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["--fault-rate", "NaN"], "not a probability in [0, 1]"),
        (&["--fault-rate", "1.5"], "not a probability in [0, 1]"),
        (&["--fault-rate=-0.1"], "not a probability in [0, 1]"),
        (&["--fail-rate", "2"], "not a probability in [0, 1]"),
        (&["--devices", "0"], "at least one device"),
        (&["--devices", "100001"], "at most 100000"),
        (&["--devices", "18446744073709551615"], "at most 100000"),
        (&["--devices", "18446744073709551616"], "--devices"),
        (&["--parallelism", "0"], "not from 1 to 1024"),
        (&["--api-rate", "2"], "not a duration like 250ms"),
        (&["--provision-time", "100years"], "longer than a day"),
        (&["--progress-interval", "0s"], "shorter than 100ms"),
        (&["--endpoint", "http://127.0.0.1:9/metal/v1"], "--project"),
        (&["--name", "web_1"], "not 1 to 40 ASCII letters"),
        (&["--name=-web"], "not 1 to 40 ASCII letters"),
        (&["--name", &"n".repeat(41)], "not 1 to 40 ASCII letters"),
        (&["--failed-retries", "101"], "more than 100"),
    ];
    for (args, expected) in cases {
        let out = run(args);
        let error = the_error(&out, 2);
        assert!(error.contains(expected), "{args:?}: {error}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    }
}

#[test]
fn version_and_help_name_the_environment_without_showing_the_token() {
    let out = run(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).trim(),
        format!("provision {}", env!("CARGO_PKG_VERSION"))
    );

    let out = finish(
        provision(&["--help"])
            .env("METAL_AUTH_TOKEN", "do-not-print-me")
            .spawn()
            .unwrap(),
        Duration::from_secs(30),
    );
    let help = text(&out.stdout);
    assert!(out.status.success());
    for name in ["METAL_API_URL", "METAL_AUTH_TOKEN", "METAL_PROJECT_ID"] {
        assert!(help.contains(&format!("[env: {name}")), "{name}: {help}");
    }
    assert!(!help.contains("do-not-print-me"), "{help}");
    assert!(help.contains("Exit status"), "{help}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_flags_work_as_the_environment_does() {
    let fake = fake(1).build();
    let server = serve(&fake).await;
    let project = fake.project().to_string();
    let out = run_async(provision(&[
        "--endpoint",
        server.base_url(),
        "--project",
        &project,
        "--token",
        TOKEN,
        "--devices",
        "1",
        "--api-rate",
        "10ms",
    ]))
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(summary(&out).starts_with("provisioned 1/1 devices"));
    server.shutdown().await;
}

// ------------------------------------------------------------ bounded runs

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_four_devices_per_parallelism_slot_are_in_flight() {
    // 12 devices, one slot: at most 4 workers, each polling its device
    // until it is active. One per device would create all 12 (10 ms
    // apart) before the first is active (1 s).
    let fake = fake(12).build();
    let server = serve(&fake).await;
    let child = spawn_run(against(
        &server,
        &fake,
        &[
            "--devices",
            "12",
            "--parallelism",
            "1",
            "--api-rate",
            "10ms",
            "--poll",
        ],
    ));
    let mut most = 0;
    while !child.is_finished() {
        let pending = fake
            .devices()
            .iter()
            .filter(|d| d.state.as_deref() != Some("active"))
            .count();
        most = most.max(pending);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let out = child.await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(summary(&out).starts_with("provisioned 12/12 devices"));
    assert!(
        (1..=4).contains(&most),
        "{most} devices were being provisioned at once"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_cannot_progress_says_so() {
    // Every listing of the project's SSH keys fails: the run is stuck
    // retrying the first step after the project check.
    let fake = fake(2)
        .fault(
            Fault::on("findProjectSSHKeys", FaultKind::FailBefore { status: 500 }).times(100_000),
        )
        .build();
    let server = serve(&fake).await;
    let mut child = against(
        &server,
        &fake,
        &[
            "--devices",
            "2",
            "--api-rate",
            "10ms",
            "--progress-interval",
            "1s",
        ],
    )
    .spawn()
    .unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let seen = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(40);
        let mut seen = Vec::new();
        let mut progress = 0;
        while Instant::now() < deadline {
            let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) else {
                continue;
            };
            if line.starts_with("progress at ") {
                progress += 1;
            }
            let warned = line.starts_with("warning: every API attempt in the last 1s failed")
                && line.ends_with("the run is making no progress");
            seen.push(line);
            if warned && progress >= 2 {
                return (true, seen);
            }
        }
        (false, seen)
    })
    .await
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    server.shutdown().await;
    let (warned, lines) = seen;
    assert!(warned, "no progress lines and warning in: {lines:#?}");
    let progress = lines
        .iter()
        .find(|l| l.starts_with("progress at "))
        .unwrap();
    assert!(
        progress.contains("0/2 requested") && progress.contains("failed"),
        "{progress}"
    );
}

// ------------------------------------------------------------ shared limits

/// Whether `node` holds the run's schedule (key prefix `metal-provision`).
#[cfg(feature = "redis")]
async fn holds_the_schedule(node: &redis_harness::Server) -> bool {
    let n: u8 = node
        .query(redis::cmd("EXISTS").arg("{metal-provision}:tat"))
        .await
        .unwrap();
    n == 1
}

/// `--redis rediss://... --redis-ca FILE` and `--redis-cluster
/// URL,URL,URL` share the run's limits there (real servers: a TLS node
/// with a private CA, a three-master cluster).
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server"]
async fn the_redis_flags_share_the_limits_over_tls_and_on_a_cluster() {
    use redis_harness::{or_skip, Certs, ClientCerts, Cluster, Options, Server};
    let name = "the_redis_flags_share_the_limits_over_tls_and_on_a_cluster";
    let Some(certs) = or_skip(name, Certs::new()) else {
        return;
    };
    let Some(tls) = or_skip(
        name,
        Server::start(Options::new().tls(&certs, ClientCerts::No)).await,
    ) else {
        return;
    };
    let Some(cluster) = or_skip(name, Cluster::start(3, 0).await) else {
        return;
    };
    let (tls_url, ca) = (tls.tls_url().unwrap(), certs.ca());
    let nodes = cluster.urls().join(",");
    let runs: [&[&str]; 2] = [
        &["--redis", &tls_url, "--redis-ca", ca.to_str().unwrap()],
        &["--redis-cluster", &nodes],
    ];
    for flags in runs {
        let fake = fake(1).build();
        let server = serve(&fake).await;
        let mut args = vec!["--devices", "1", "--api-rate", "10ms"];
        args.extend_from_slice(flags);
        let out = run_async(against(&server, &fake, &args)).await;
        server.shutdown().await;
        assert!(out.status.success(), "{flags:?}: {}", text(&out.stderr));
        assert!(summary(&out).starts_with("provisioned 1/1 devices"));
    }
    assert!(holds_the_schedule(&tls).await, "shared over TLS");
    let home = cluster.master_of("{metal-provision}:tat").await.unwrap();
    assert!(
        holds_the_schedule(&cluster.nodes()[home]).await,
        "shared on the cluster"
    );
}

#[cfg(feature = "redis")]
#[test]
fn a_plaintext_redis_password_to_another_host_is_refused() {
    let out = run(&[
        "--devices",
        "1",
        "--redis",
        "redis://:secret-pw@10.9.8.7:6379/",
    ]);
    let error = the_error(&out, 1);
    assert!(error.contains("unencrypted to 10.9.8.7"), "{error}");
    assert!(
        !text(&out.stderr).contains("secret-pw"),
        "{}",
        text(&out.stderr)
    );
}

/// Built without feature `redis`, each Redis flag is a bad command line
/// that names the feature, before the run starts or creates anything.
#[cfg(not(feature = "redis"))]
#[test]
fn the_redis_flags_without_feature_redis_are_exit_code_2_naming_it() {
    let cases: &[(&[&str], &str)] = &[
        (&["--redis", "redis://127.0.0.1:6379/"], "--redis"),
        (
            &[
                "--redis-cluster",
                "redis://127.0.0.1:7000/,redis://127.0.0.1:7001/",
            ],
            "--redis-cluster",
        ),
        (&["--redis-ca", "ca.pem"], "--redis-ca"),
    ];
    for (args, flag) in cases {
        let mut all = vec!["--devices", "1"];
        all.extend_from_slice(args);
        let out = run(&all);
        let error = the_error(&out, 2);
        assert!(
            error.contains(&format!("{flag} needs metal-provision's feature `redis`")),
            "{args:?}: {error}"
        );
        assert!(error.contains("--features redis"), "{args:?}: {error}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    }
}
