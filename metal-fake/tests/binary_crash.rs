//! The binary's `--state-file` through a crash: a stream of creates from a
//! few clients at once, the server killed with SIGKILL at a random point
//! (after a random number of replies, others in flight), then restarted
//! on the same file: every create whose reply was sent is there, and the
//! world loads. Three rounds on one file, each with another
//! `--sync-interval` (0, the default, half a second): a crash of the
//! process alone loses nothing answered with any of them.

mod http;

#[allow(dead_code)] // the binary's helpers; this test runs some
mod binary;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use base64::Engine;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

const TOKEN: &str = "crash-token";

/// Creates in flight at once.
const CLIENTS: usize = 4;

use binary::Running;

fn start(state: &Path, sync: &str) -> Running {
    let mut args = vec![
        "--state-file",
        state.to_str().unwrap(),
        "--rate-limit",
        "0",
        "--reservations",
        "1",
    ];
    if !sync.is_empty() {
        args.extend(["--sync-interval", sync]);
    }
    binary::start(TOKEN, &args)
}

/// An SSH key of its own (a random body: the fake checks base64 only).
fn key(rng: &mut impl Rng) -> String {
    let body: [u8; 51] = std::array::from_fn(|_| rng.random());
    format!(
        "ssh-ed25519 {}",
        base64::engine::general_purpose::STANDARD.encode(body)
    )
}

/// The SSH keys the server at `root` holds.
async fn keys(client: &reqwest::Client, root: &str) -> BTreeSet<String> {
    let reply: Value = client
        .get(format!("{root}/metal/v1/ssh-keys?per_page=1000"))
        .header("x-auth-token", TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    reply["ssh_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap().to_string())
        .collect()
}

/// Creates from [`CLIENTS`] clients at once until the server is killed,
/// which happens once `kill_after` creates were answered: the IDs
/// answered.
async fn creates_until_killed(
    running: &mut Running,
    kill_after: usize,
    seed: u64,
) -> BTreeSet<String> {
    let answered = Arc::new(Mutex::new(BTreeSet::new()));
    let child = Arc::new(Mutex::new(&mut running.child));
    let client = http::client();
    let url = format!("{}/metal/v1/ssh-keys", running.root);
    let clients = (0..CLIENTS).map(|n| {
        let (answered, child, client, url) =
            (answered.clone(), child.clone(), client.clone(), url.clone());
        async move {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ n as u64);
            for i in 0.. {
                let body = json!({"label": format!("k{n}-{i}"), "key": key(&mut rng)});
                let sent = client
                    .post(&url)
                    .header("x-auth-token", TOKEN)
                    .json(&body)
                    .send()
                    .await;
                // Killed: the connection is gone.
                let Ok(reply) = sent else { return };
                let status = reply.status().as_u16();
                let Ok(made) = reply.json::<Value>().await else {
                    return;
                };
                assert_eq!(status, 201, "{made}");
                let mut answered = answered.lock().unwrap();
                answered.insert(made["id"].as_str().unwrap().to_string());
                if answered.len() == kill_after {
                    // SIGKILL, with the other clients' creates in flight.
                    child.lock().unwrap().kill().unwrap();
                }
            }
        }
    });
    futures::future::join_all(clients).await;
    answered.lock().unwrap().clone()
}

#[test]
fn a_kill_at_a_random_point_keeps_every_answered_create_and_the_world_loads() {
    let seed: u64 = std::env::var("METAL_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("the crash test's seed: {seed} (METAL_CRASH_SEED reruns it)");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let dir = std::env::temp_dir().join(format!("metal-fake-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let state = dir.join("state.json");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut kept = BTreeSet::new();
    for (round, sync) in ["0", "", "0.5"].into_iter().enumerate() {
        let mut running = start(&state, sync);
        let kill_after = rng.random_range(10..150);
        let answered = rt.block_on(creates_until_killed(&mut running, kill_after, rng.random()));
        let _ = running.child.wait();
        assert!(answered.len() >= kill_after, "round {round}");
        kept.extend(answered);
        // Restarted on the same file: everything answered, in every round.
        let restarted = start(&state, sync);
        let held = rt.block_on(keys(&http::client(), &restarted.root));
        let lost: Vec<&String> = kept.difference(&held).collect();
        assert!(
            lost.is_empty(),
            "round {round} (seed {seed}, --sync-interval {sync:?}): {} answered creates lost: {lost:?}",
            lost.len()
        );
        // What was in flight may be there too; it is kept from now on.
        kept = held;
        drop(restarted);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
