//! What the benchmark prints, kept as it goes, and `benches/README.md`
//! written from it (with `BENCH_README=1`): the command that ran, the
//! machine it ran on, its load, the date and the commit, then every table.

use std::fmt::Write as _;
use std::sync::Mutex;

static PRINTED: Mutex<String> = Mutex::new(String::new());

/// Prints a line and keeps it for the README.
pub fn line(text: &str) {
    println!("{text}");
    let mut printed = PRINTED.lock().unwrap_or_else(|p| p.into_inner());
    printed.push_str(text);
    printed.push('\n');
}

/// The variables that shape a run, as they were set.
const VARIABLES: [&str; 5] = [
    "BENCH_ONLY",
    "BENCH_SKIP_BUILD",
    "BENCH_BUILD_BASE",
    "BENCH_QUICK",
    "METAL_TEST_REDIS_URL",
];

/// The command line that reproduces this run.
pub fn command() -> String {
    let mut command = String::new();
    for name in VARIABLES {
        if let Ok(value) = std::env::var(name) {
            // A Redis URL may carry a password: keep only where it points.
            let value = match value.rsplit_once('@') {
                Some((_, host)) if name == "METAL_TEST_REDIS_URL" => format!("redis://{host}"),
                _ => value,
            };
            let _ = write!(command, "{name}={value} ");
        }
    }
    command.push_str("cargo bench -p metal-provision --bench compare");
    command
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The machine: CPU model, logical cores, memory, kernel, architecture.
pub fn machine() -> String {
    let cpu = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "an unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let memory_kib: u64 = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    let kernel = read("/proc/sys/kernel/osrelease");
    format!(
        "{cpu}, {cores} logical cores, {:.0} GiB of memory, Linux {}, {}",
        memory_kib as f64 / (1u64 << 20) as f64,
        kernel.trim(),
        std::env::consts::ARCH
    )
}

/// The 1, 5 and 15 minute load averages now.
pub fn load() -> String {
    let text = read("/proc/loadavg");
    let mut parts = text.split_whitespace();
    match (parts.next(), parts.next(), parts.next()) {
        (Some(a), Some(b), Some(c)) => format!("{a} / {b} / {c}"),
        _ => "unknown".into(),
    }
}

/// The commit the benchmark was built from, and whether the tree had
/// changes beside it.
fn commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(head) if git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty()) => {
            format!("{head} with local changes")
        }
        Some(head) => head,
        None => "unknown".into(),
    }
}

/// Writes `benches/README.md` from what was printed.
pub fn write_readme(started: std::time::SystemTime, load_before: &str) -> std::io::Result<()> {
    let printed = PRINTED.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut text = String::new();
    let _ = write!(
        text,
        "# metal-provision benchmarks\n\n\
         This file is written by the benchmark itself (`benches/compare.rs`, run with\n\
         `BENCH_README=1`); run it again to replace the figures. Every section runs against\n\
         `metal-fake`'s server on loopback, the server and the clients sharing the machine, so\n\
         figures from a loaded machine (see the load averages) are slower and noisier; ratios\n\
         measured side by side in one run hold up better than absolute rates.\n\n\
         - command: `{}`\n\
         - machine: {}\n\
         - load average (1 / 5 / 15 min): {load_before} at the start, {} at the end\n\
         - started: {}\n\
         - commit: {}\n",
        command(),
        machine(),
        load(),
        humantime::format_rfc3339_seconds(started),
        commit(),
    );
    text.push_str(&printed);
    std::fs::write(
        concat!(env!("CARGO_MANIFEST_DIR"), "/benches/README.md"),
        text,
    )
}
