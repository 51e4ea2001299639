//! What the state file costs: changes a second (`POST /projects`, one
//! journaled change and one log record each), through the fake's router
//! without sockets, on wall-clock time, one after another:
//!
//! - `memory`: no state file;
//! - `interval`: a state file synced every second (the binary's default,
//!   `--sync-interval 1`): each record written to the system before its
//!   reply;
//! - `every change`: a state file synced before every reply
//!   (`--sync-interval 0`).
//!
//! Run with `cargo bench -p metal-fake --bench durability` (the state
//! files go to the system's temporary folder; `METAL_BENCH_DIR` names
//! another, to measure another disk). Wall-clock figures: run it on a quiet
//! machine and read them as orders of magnitude.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use metal_fake::state::{StateFile, SyncPolicy};
use metal_fake::Fake;
use tower::ServiceExt;

mod common;

use common::TOKEN;

/// Changes of each run.
const CHANGES: usize = 2000;

/// `CHANGES` project creates on a fake with `state` (none: in memory):
/// changes a second.
fn run(rt: &tokio::runtime::Runtime, state: Option<(PathBuf, SyncPolicy)>) -> f64 {
    rt.block_on(async {
        let mut builder = Fake::builder().token(TOKEN);
        if let Some((path, sync)) = &state {
            let (file, _) = StateFile::open(path, *sync).expect("a fresh state file");
            builder = builder.state_file(file);
        }
        let fake = builder.try_build().expect("the bench's fake");
        let router = fake.router().clone();
        let started = Instant::now();
        for n in 0..CHANGES {
            let request = Request::post("/metal/v1/projects")
                .header("x-auth-token", TOKEN)
                .header("content-type", "application/json")
                .body(Body::from(format!(r#"{{"name":"bench {n}"}}"#)))
                .expect("a valid request");
            let reply = router
                .clone()
                .oneshot(request)
                .await
                .unwrap_or_else(|never| match never {});
            assert_eq!(reply.status().as_u16(), 201, "create {n}");
        }
        let took = started.elapsed().max(Duration::from_nanos(1));
        fake.sync_state().expect("the state file syncs");
        CHANGES as f64 / took.as_secs_f64()
    })
}

fn main() {
    let dir = std::env::var_os("METAL_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("metal-fake-durability-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the bench's folder");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let runs: [(&str, Option<SyncPolicy>); 3] = [
        ("memory", None),
        (
            "interval",
            Some(SyncPolicy::Interval(Duration::from_secs(1))),
        ),
        ("every change", Some(SyncPolicy::EveryChange)),
    ];
    println!("{CHANGES} project creates each, in {}", dir.display());
    for (name, sync) in runs {
        let state = sync.map(|s| (dir.join(format!("{}.json", name.replace(' ', "-"))), s));
        let rate = run(&rt, state);
        println!("{name:>14}: {rate:>9.0} changes/s");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
