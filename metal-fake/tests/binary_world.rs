//! The binary's world flags: `--world FILE`, `--world-schema`, `--control-schema`,
//! `--time-scale`, `--control-token`, and `--state-file` persistence across
//! a restart (saved on SIGINT, loaded at start).

mod http;

#[allow(dead_code)] // the binary's helpers; this test runs some
mod binary;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/world.json");
const TOKEN: &str = "world-flags-token";

use binary::Running;

fn start(args: &[&str]) -> Running {
    binary::start(TOKEN, args)
}

/// Sends SIGINT and waits (at most 20 s) for the exit code.
fn interrupt(mut r: Running) -> Option<i32> {
    let pid = r.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = r.child.try_wait().unwrap() {
            return status.code();
        }
        assert!(
            Instant::now() < deadline,
            "metal-fake did not stop on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn exits_with(args: &[&str]) -> (Option<i32>, String) {
    let out = binary::run_to_exit(TOKEN, args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn get(url: &str, headers: &[(&str, &str)]) -> (u16, Value) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut req = http::client().get(url);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    })
}

fn post(url: &str, body: Value) -> (u16, Value) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let resp = http::client()
            .post(url)
            .header("x-auth-token", TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    })
}

#[test]
fn world_schema_prints_the_shipped_schema() {
    let out = Command::new(binary::BIN)
        .arg("--world-schema")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/world.schema.json")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shipped);
}

#[test]
fn control_schema_prints_the_shipped_schema() {
    let out = Command::new(binary::BIN)
        .arg("--control-schema")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/control.schema.json"))
            .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shipped);
}

#[test]
fn world_seeds_the_binary_and_tokens_see_their_projects() {
    let r = start(&["--world", EXAMPLE]);
    let (status, world) = get(&format!("{}/_fake/world", r.root), &[]);
    assert_eq!(status, 200);
    assert_eq!(world["projects"].as_array().unwrap().len(), 3);
    let globex = "/metal/v1/projects/0b000000-0000-4000-8000-000000000003";
    let url = format!("{}{globex}", r.root);
    assert_eq!(get(&url, &[("x-auth-token", "acme-token")]).0, 403);
    assert_eq!(get(&url, &[("x-auth-token", "globex-token")]).0, 200);
    assert_eq!(get(&url, &[("x-auth-token", TOKEN)]).0, 200);
}

#[test]
fn bad_world_files_and_scales_are_refused_with_exit_code_2() {
    let dir = std::env::temp_dir().join(format!("metal-fake-world-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"projects": [{"id": "not-a-uuid"}]}"#).unwrap();
    let dangling = dir.join("dangling.json");
    std::fs::write(
        &dangling,
        json!({"projects": [{"id": "0b000000-0000-4000-8000-000000000001",
                              "organization": "0a000000-0000-4000-8000-000000000009"}]})
        .to_string(),
    )
    .unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--world", bad.to_str().unwrap()], "does not decode"),
        (
            &["--world", dangling.to_str().unwrap()],
            "names organization",
        ),
        (
            &["--world", "/nonexistent/world.json"],
            "/nonexistent/world.json",
        ),
        (&["--time-scale", "0.5"], "time scale"),
        (
            &["--world", EXAMPLE, "--reservations", "3"],
            "cannot be used with",
        ),
    ];
    for (args, says) in cases {
        let (code, stderr) = exits_with(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn state_file_keeps_the_world_across_a_restart() {
    let dir = std::env::temp_dir().join(format!("metal-fake-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let state = dir.join("state.json");
    let _ = std::fs::remove_file(&state);
    let state_arg = state.to_str().unwrap();

    let r = start(&["--state-file", state_arg, "--reservations", "2"]);
    let key =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB kept";
    let (status, created) = post(
        &format!("{}/metal/v1/ssh-keys", r.root),
        json!({"label": "kept", "key": key}),
    );
    assert_eq!(status, 201, "{created}");
    let (_, before) = get(&format!("{}/_fake/world", r.root), &[]);
    assert_eq!(interrupt(r), Some(0));
    assert!(Path::new(&state).exists(), "saved on SIGINT");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&state).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o777,
            0o600,
            "the saved world holds tokens: {mode:o}"
        );
    }

    // Restarted: the same world, whatever --reservations says.
    let r = start(&["--state-file", state_arg, "--reservations", "7"]);
    let (_, after) = get(&format!("{}/_fake/world", r.root), &[]);
    assert_eq!(after["ssh_keys"][0]["id"], created["id"]);
    assert_eq!(after["reservations"], before["reservations"]);
    assert_eq!(after["projects"], before["projects"]);
    let (status, key) = get(
        &format!(
            "{}/metal/v1/ssh-keys/{}",
            r.root,
            created["id"].as_str().unwrap()
        ),
        &[("x-auth-token", TOKEN)],
    );
    assert_eq!((status, key["label"].clone()), (200, json!("kept")));
    assert_eq!(interrupt(r), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn control_token_and_time_scale_flags_take_effect() {
    let r = start(&["--control-token", "ctl", "--time-scale", "100"]);
    let url = format!("{}/_fake/clock", r.root);
    assert_eq!(get(&url, &[]).0, 401);
    let (status, clock) = get(&url, &[("x-fake-control-token", "ctl")]);
    assert_eq!(status, 200);
    assert_eq!(clock["time_scale"], 100.0);
}

/// A world file that lists a plan and a metro, and says nothing of
/// capacity, creates on-demand devices there; with no flags the binary
/// serves the real catalog, and creates on demand where `/plans` says.
#[test]
fn a_world_file_listing_a_plan_and_a_metro_creates_on_demand_devices_there() {
    let dir = std::env::temp_dir().join(format!("metal-fake-plan-metro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("world.json");
    let project = "0c200000-0000-4000-8000-000000000001";
    let doc = json!({
        "projects": [{"id": project}],
        "plans": [{"slug": "m3.small.x86", "metros": [{"code": "tr"}]}],
        "metros": [{"code": "tr"}]
    });
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let r = start(&["--world", file.to_str().unwrap()]);
    let create = |metro: &str| {
        post(
            &format!("{}/metal/v1/projects/{project}/devices", r.root),
            json!({"metro": metro, "plan": "m3.small.x86", "operating_system": "ubuntu_24_04",
                   "hostname": "od"}),
        )
    };
    for _ in 0..3 {
        let (status, device) = create("tr");
        assert_eq!(status, 201, "{device}");
        assert_eq!(device["metro"]["code"], "tr");
    }
    // Narrowed to tr: elsewhere it is not sold.
    assert_eq!(create("da").0, 422);
    let _ = std::fs::remove_dir_all(&dir);

    let r = start(&[]);
    let (status, plans) = get(
        &format!("{}/metal/v1/plans?include=available_in_metros", r.root),
        &[("x-auth-token", TOKEN)],
    );
    assert_eq!(status, 200);
    assert!(plans["plans"].as_array().unwrap().len() >= 20);
    let (_, user) = get(
        &format!("{}/metal/v1/user", r.root),
        &[("x-auth-token", TOKEN)],
    );
    let project = user["default_project_id"].as_str().unwrap().to_string();
    let (status, device) = post(
        &format!("{}/metal/v1/projects/{project}/devices", r.root),
        json!({"metro": "sy", "plan": "c3.small.x86", "operating_system": "windows_2022",
               "hostname": "od"}),
    );
    assert_eq!(status, 201, "{device}");
}
