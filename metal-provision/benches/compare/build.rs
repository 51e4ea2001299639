//! Section 5, build cost: a clean release build of the whole workspace and
//! an incremental debug build of `metal-api`, for a base revision and for
//! the working tree, side by side in one run.
//!
//! Each tree is exported to a scratch directory (the base with `git
//! archive`; the working tree as `git stash create` records it, uncommitted
//! edits of tracked files included) and built there with its own target
//! directory, so nothing is cached and nothing here is touched. The figure
//! is CPU time (user + system, of cargo and everything it ran), read from
//! `/proc/self/stat` once each build has been waited for: the machines are
//! shared, and wall time swings with the other builds on them, CPU time
//! much less. Wall time is printed beside it.
//!
//! - `BENCH_BUILD_BASE`: the base revision (default [`DEFAULT_BASE`], the
//!   workspace with 18 operations, progenitor in metal-api's build script
//!   and reqwest's aws-lc backend).
//! - The incremental build: `cargo build -p metal-api` after a first one,
//!   with one comment line appended to `metal-api/src/config.rs` (a
//!   hand-written file, as a developer edits one), `CARGO_INCREMENTAL=1`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The revision measured as "before" unless `BENCH_BUILD_BASE` names
/// another.
pub const DEFAULT_BASE: &str = "09a752637f3374299ce68bddb5c2e6070fa4f916";

/// What one build took.
struct Cost {
    cpu: Duration,
    wall: Duration,
}

/// The CPU time (user + system) of this process's waited-for children so
/// far: fields 16 and 17 of `/proc/self/stat`, in the kernel's clock ticks
/// (`USER_HZ`, 100 on Linux).
fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is parenthesised and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // `rest` starts at field 3.
    let cutime: u64 = fields.get(13)?.parse().ok()?;
    let cstime: u64 = fields.get(14)?.parse().ok()?;
    Some(Duration::from_millis((cutime + cstime) * 10))
}

/// Runs `cargo` with `args` in `dir`, returning its cost.
fn cargo(dir: &Path, target: &Path, args: &[&str], incremental: bool) -> Result<Cost, String> {
    let cpu_before = children_cpu().ok_or("/proc/self/stat is unreadable (not Linux?)")?;
    let started = Instant::now();
    let mut command = Command::new(env!("CARGO"));
    // The toolchain this benchmark was built with, for every build: run
    // outside `cargo bench`, rustup's `rustc` proxy would otherwise follow
    // a dependency's own `rust-toolchain.toml` (serde_tokenstream has one)
    // while compiling it.
    if std::env::var_os("RUSTUP_TOOLCHAIN").is_none() && std::env::var_os("RUSTC").is_none() {
        let rustc = Path::new(env!("CARGO")).with_file_name("rustc");
        if rustc.exists() {
            command.env("RUSTC", rustc);
        }
    }
    let status = command
        .args(args)
        .arg("--target-dir")
        .arg(target)
        .current_dir(dir)
        .env("CARGO_INCREMENTAL", if incremental { "1" } else { "0" })
        .env_remove("RUSTFLAGS")
        .status()
        .map_err(|e| format!("cargo could not be started: {e}"))?;
    let wall = started.elapsed();
    let cpu_after = children_cpu().ok_or("/proc/self/stat is unreadable")?;
    if !status.success() {
        return Err(format!("`cargo {}` failed: {status}", args.join(" ")));
    }
    Ok(Cost {
        cpu: cpu_after.saturating_sub(cpu_before),
        wall,
    })
}

/// Writes the tree of `rev` (a commit, or the working tree's stash commit)
/// to `dir`.
fn export(repo: &Path, rev: &str, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    // Binary output: not through `git()`, which reads text.
    let archive = Command::new("git")
        .args(["archive", "--format=tar", rev])
        .current_dir(repo)
        .output()
        .map_err(|e| format!("git could not be started: {e}"))?;
    if !archive.status.success() {
        return Err(format!(
            "git archive {rev} failed: {}",
            String::from_utf8_lossy(&archive.stderr).trim()
        ));
    }
    let mut tar = Command::new("tar")
        .args(["-x", "-C"])
        .arg(dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("tar could not be started: {e}"))?;
    {
        use std::io::Write;
        let mut stdin = tar.stdin.take().ok_or("tar has no stdin")?;
        stdin
            .write_all(&archive.stdout)
            .map_err(|e| format!("feeding tar: {e}"))?;
    }
    let status = tar.wait().map_err(|e| format!("tar: {e}"))?;
    if !status.success() {
        return Err(format!("tar -x failed: {status}"));
    }
    Ok(())
}

/// The commit that records the working tree: `git stash create` (tracked
/// files, uncommitted edits included), or `HEAD` when nothing is edited.
fn working_tree(repo: &Path) -> Result<String, String> {
    let out = Command::new("git")
        .args(["stash", "create"])
        .current_dir(repo)
        .output()
        .map_err(|e| format!("git could not be started: {e}"))?;
    let stash = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(if stash.is_empty() {
        "HEAD".into()
    } else {
        stash
    })
}

/// Both builds of one tree: the clean release build of the workspace, then
/// the incremental debug build of metal-api.
fn measure(tree: &Path) -> Result<(Cost, Cost), String> {
    let release_target = tree.join("target-release");
    let release = cargo(
        tree,
        &release_target,
        &["build", "--release", "--workspace", "--locked", "--quiet"],
        false,
    )?;
    // Only the figure is wanted; the disk is shared.
    let _ = std::fs::remove_dir_all(&release_target);
    let debug_target = tree.join("target-debug");
    let build = ["build", "-p", "metal-api", "--locked", "--quiet"];
    cargo(tree, &debug_target, &build, true)?;
    let edited = tree.join("metal-api/src/config.rs");
    let mut text = std::fs::read_to_string(&edited)
        .map_err(|e| format!("reading {}: {e}", edited.display()))?;
    text.push_str("// An edit, for the incremental build.\n");
    std::fs::write(&edited, text).map_err(|e| format!("writing {}: {e}", edited.display()))?;
    let incremental = cargo(tree, &debug_target, &build, true)?;
    Ok((release, incremental))
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// Runs the section and prints its table.
pub fn section() {
    out!("\n## 5. Build cost (CPU time = user + system; wall time beside it)");
    if std::env::var_os("BENCH_SKIP_BUILD").is_some() {
        out!("skipped (BENCH_SKIP_BUILD is set)");
        return;
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let base = std::env::var("BENCH_BUILD_BASE").unwrap_or_else(|_| DEFAULT_BASE.to_string());
    let scratch = std::env::temp_dir().join(format!("metal-build-bench-{}", uuid::Uuid::new_v4()));
    let result = (|| {
        let head = working_tree(&repo)?;
        let mut rows = Vec::new();
        for (name, rev) in [("base", base.as_str()), ("working tree", head.as_str())] {
            let tree = scratch.join(name.replace(' ', "-"));
            export(&repo, rev, &tree)?;
            let (release, incremental) = measure(&tree)?;
            let _ = std::fs::remove_dir_all(&tree);
            rows.push((name, rev.to_string(), release, incremental));
        }
        Ok::<_, String>(rows)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    match result {
        Ok(rows) => {
            out!(
                "| tree | revision | clean `cargo build --release --workspace`: CPU | wall | \
                 incremental `cargo build -p metal-api` (debug, one edit): CPU | wall |"
            );
            out!("|---|---|---|---|---|---|");
            for (name, rev, release, incremental) in &rows {
                out!(
                    "| {name} | {} | {} | {} | {} | {} |",
                    &rev[..rev.len().min(12)],
                    secs(release.cpu),
                    secs(release.wall),
                    secs(incremental.cpu),
                    secs(incremental.wall)
                );
            }
            if let [(_, _, before, _), (_, _, after, _)] = rows.as_slice() {
                out!(
                    "release CPU, working tree / base: {:.2}; {} cores, builds one after the other",
                    after.cpu.as_secs_f64() / before.cpu.as_secs_f64().max(f64::EPSILON),
                    std::thread::available_parallelism().map_or(1, |n| n.get())
                );
            }
        }
        Err(e) => out!("the build section failed: {e}"),
    }
}
