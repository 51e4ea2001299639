//! The state file (`metal_fake::state`): a snapshot and the log of every
//! change after it, replayed to the world the fake would have saved; a
//! torn last record dropped with its change, a damaged one before it
//! refused with its offset, a log of another snapshot not replayed. In
//! process, on tokio's paused clock.

use std::path::{Path, PathBuf};

use metal_fake::document::WorldDoc;
use metal_fake::state::{StateError, StateFile, SyncPolicy};
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::{self, call, id, DEVICE, OTHER_PROJECT, PROJECT, TOKEN};

/// A fresh folder for one test's state file, and the file's path in it.
fn state_path(test: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("metal-fake-state-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state.json");
    (dir, path)
}

fn log_of(path: &Path) -> PathBuf {
    let mut log = path.as_os_str().to_owned();
    log.push(".log");
    PathBuf::from(log)
}

/// Two projects, a device in the first, a world token seeing the second,
/// three machines for on-demand devices in `da11`.
fn world() -> WorldDoc {
    let mut doc = serde_json::to_value(network::world(
        &[PROJECT, OTHER_PROJECT],
        &[(DEVICE, "c3.small.x86")],
    ))
    .unwrap();
    doc["tokens"] = json!([{"token": "scoped", "projects": [OTHER_PROJECT]}]);
    doc["capacity"] = json!([{"facility": "da11", "plan": "c3.small.x86", "available": 3}]);
    serde_json::from_value(doc).unwrap()
}

/// The fake on `world`, keeping it in the state file at `path`.
fn fake_at(path: &Path, world: WorldDoc) -> Fake {
    let (state, saved) = StateFile::open(path, SyncPolicy::EveryChange).unwrap();
    assert!(saved.is_none(), "a fresh state file");
    Fake::builder()
        .token(TOKEN)
        .world(world)
        .state_file(state)
        .build()
}

/// The world the state file at `path` holds now.
fn recovered(path: &Path) -> WorldDoc {
    StateFile::open(path, SyncPolicy::EveryChange)
        .unwrap()
        .1
        .expect("a snapshot")
}

async fn ssh_key(fake: &Fake, label: &str) -> Value {
    let key = format!(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB {label}"
    );
    let (status, made) = call(
        fake,
        "POST",
        "/ssh-keys",
        Some(json!({"label": label, "key": key})),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    made
}

#[tokio::test(start_paused = true)]
async fn the_log_replays_to_the_world_the_fake_saves_ports_capacity_and_tokens_too() {
    let (dir, path) = state_path("replay");
    let fake = fake_at(&path, world());
    let kept = ssh_key(&fake, "kept").await;
    let gone = ssh_key(&fake, "gone").await;
    let (status, _) = call(&fake, "DELETE", &format!("/ssh-keys/{}", id(&gone)), None).await;
    assert_eq!(status, 204);
    // A port's change (out of its bond, a VLAN on it).
    let vlan = network::vlan(&fake, PROJECT, "da").await;
    let eth1 = network::port(&fake, DEVICE, "eth1").await;
    let (status, p) = call(&fake, "POST", &format!("/ports/{eth1}/disbond"), None).await;
    assert_eq!(status, 200, "{p}");
    let (status, p) = call(
        &fake,
        "POST",
        &format!("/ports/{eth1}/assign"),
        Some(json!({"vnid": id(&vlan)})),
    )
    .await;
    assert_eq!(status, 200, "{p}");
    // An on-demand device takes a machine of its pool.
    let (status, device) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        Some(json!({"metro": "da", "plan": "c3.small.x86",
            "operating_system": "ubuntu_24_04", "hostname": "on-demand"})),
    )
    .await;
    assert_eq!(status, 201, "{device}");
    // A deleted project leaves the token that saw it.
    let (status, body) = call(&fake, "DELETE", &format!("/projects/{OTHER_PROJECT}"), None).await;
    assert_eq!(status, 204, "{body}");
    // The device's steps on the fake's clock, journaled as they fall due.
    fake.advance(std::time::Duration::from_secs(90)).unwrap();
    let now = fake.world();
    let pool = now
        .capacity
        .iter()
        .find(|c| c.facility.as_deref() == Some("da11") && c.plan == "c3.small.x86")
        .expect("the world's own pool");
    assert_eq!(pool.available, 2, "{:?}", now.capacity);
    assert!(now.tokens[0].projects.is_empty(), "{:?}", now.tokens);
    assert!(now.ports.iter().any(|p| p.name == "eth1" && !p.bonded));
    assert!(now.ssh_keys.iter().any(|k| k.id.to_string() == id(&kept)));
    assert_eq!(
        serde_json::to_value(recovered(&path)).unwrap(),
        serde_json::to_value(&now).unwrap(),
        "the snapshot with its log replayed is the world as saved"
    );
    // A restart goes on from it, and its own changes are kept too.
    drop(fake);
    let (state, saved) = StateFile::open(&path, SyncPolicy::EveryChange).unwrap();
    let again = Fake::builder()
        .token(TOKEN)
        .world(saved.unwrap())
        .state_file(state)
        .build();
    let third = ssh_key(&again, "after the restart").await;
    let labels: Vec<String> = recovered(&path)
        .ssh_keys
        .iter()
        .map(|k| k.label.clone())
        .collect();
    assert_eq!(labels, ["kept", "after the restart"], "{third}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The log's records as lines (the header first), each with its offset.
fn lines(log: &[u8]) -> Vec<(usize, &[u8])> {
    let mut at = 0;
    log.split_inclusive(|b| *b == b'\n')
        .map(|line| {
            let start = at;
            at += line.len();
            (start, line)
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_torn_last_record_is_dropped_with_its_change_and_the_world_loads() {
    let (dir, path) = state_path("torn");
    let fake = fake_at(&path, world());
    ssh_key(&fake, "first").await;
    ssh_key(&fake, "second").await;
    drop(fake);
    let log = std::fs::read(log_of(&path)).unwrap();
    let (last, line) = *lines(&log).last().unwrap();
    // Cut anywhere in the last record: it is dropped, the first kept.
    for keep in [1, line.len() / 2, line.len() - 1] {
        std::fs::write(log_of(&path), &log[..last + keep]).unwrap();
        let labels: Vec<String> = recovered(&path)
            .ssh_keys
            .iter()
            .map(|k| k.label.clone())
            .collect();
        assert_eq!(labels, ["first"], "cut {keep} bytes into the last record");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_damaged_record_before_the_last_is_refused_naming_its_offset() {
    let (dir, path) = state_path("damaged");
    let fake = fake_at(&path, world());
    ssh_key(&fake, "first").await;
    ssh_key(&fake, "second").await;
    drop(fake);
    let mut log = std::fs::read(log_of(&path)).unwrap();
    let (offset, _) = lines(&log)[1];
    log[offset + 20] ^= 0x01;
    std::fs::write(log_of(&path), &log).unwrap();
    match StateFile::open(&path, SyncPolicy::EveryChange) {
        Err(StateError::Corrupt {
            offset: at,
            reason,
            path: named,
        }) => {
            assert_eq!(at, offset as u64);
            assert_eq!(named, log_of(&path));
            assert!(reason.contains("checksum"), "{reason}");
        }
        other => panic!("not refused as corrupt: {other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_log_of_another_snapshot_is_not_replayed_and_one_without_a_snapshot_is_refused() {
    let (dir, path) = state_path("stale");
    let fake = fake_at(&path, world());
    ssh_key(&fake, "logged").await;
    drop(fake);
    // As a crash between writing a new snapshot and starting its log
    // leaves it: the new snapshot (here without the key) and the old log.
    let mut snapshot: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    snapshot["ssh_keys"] = json!([]);
    snapshot["metros"][0]["name"] = json!("Dallas, replaced");
    std::fs::write(&path, serde_json::to_vec_pretty(&snapshot).unwrap()).unwrap();
    let world = recovered(&path);
    assert!(world.ssh_keys.is_empty(), "the old log is not replayed");
    assert_eq!(world.metros[0].name.as_deref(), Some("Dallas, replaced"));
    std::fs::remove_file(&path).unwrap();
    let refused = StateFile::open(&path, SyncPolicy::EveryChange).unwrap_err();
    assert!(matches!(refused, StateError::Orphan { .. }), "{refused}");
    std::fs::remove_dir_all(&dir).unwrap();
}
