//! The HTTP server over raw HTTP (reqwest): auth, rate limiting, error
//! bodies and statuses checked against the spec, `/_fake/state`, the
//! binary, and the schema check itself. (How each wire fault reaches the
//! generated client, over HTTP and in-process, is in `tests/router.rs`.)

use crate::http;

use crate::common::schema;

#[cfg(feature = "cli")]
use std::io::{BufRead, BufReader};

use metal_fake::{Fake, Fault, FaultKind, ServerConfig};
use serde_json::{json, Value};
use uuid::Uuid;

const TOKEN: &str = "conformance-token";

async fn server(fake: &Fake, config: ServerConfig) -> metal_fake::ServerHandle {
    crate::http::serve(fake, config.record_replies(true)).await
}

#[tokio::test]
async fn the_token_is_checked_with_error_bodies() {
    let fake = Fake::builder().build();
    let s = server(&fake, ServerConfig::new(TOKEN)).await;
    let url = format!("{}/projects/{}", s.base_url(), fake.project());
    let http = http::client();
    let none = http.get(&url).send().await.unwrap();
    assert_eq!(none.status(), 401);
    let body: Value = none.json().await.unwrap();
    // The real API's shape: one `error` string (ansible/ansible#38162).
    assert_eq!(body, json!({"error": "Invalid authentication token"}));
    let wrong = http
        .get(&url)
        .header("X-Auth-Token", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    let right = http
        .get(&url)
        .header("X-Auth-Token", TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 200);
    assert_eq!(fake.snapshot().requests["findProjectById"]["401"], 2);
    schema::check_all(&s.recorded_replies());
}

#[tokio::test]
async fn statuses_and_bodies_follow_the_spec() {
    let other = Uuid::new_v4();
    let fake = Fake::builder()
        .reservations(2)
        .other_project(other, 1)
        .build();
    let s = server(&fake, ServerConfig::new(TOKEN)).await;
    let base = s.base_url().to_string();
    let http = http::client();
    let send = |m: reqwest::Method, path: String, body: Option<Value>| {
        let mut r = http
            .request(m, format!("{base}{path}"))
            .header("X-Auth-Token", TOKEN);
        if let Some(b) = body {
            r = r.json(&b);
        }
        async move {
            let resp = r.send().await.unwrap();
            let status = resp.status().as_u16();
            let text = resp.text().await.unwrap();
            (status, text)
        }
    };
    use reqwest::Method as M;
    let p = fake.project();
    let free = fake.provisionable_reservations();
    let theirs = fake
        .reservations()
        .into_iter()
        .find(|r| r.project.as_ref().and_then(|p| p.id) == Some(other))
        .and_then(|r| r.id)
        .unwrap();
    let create = |r: Uuid| json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04", "hardware_reservation_id": r.to_string(), "hostname": "wire"});

    let (st, body) = send(
        M::POST,
        format!("/projects/{p}/devices"),
        Some(create(free[0])),
    )
    .await;
    assert_eq!(st, 201, "{body}");
    let device: Value = serde_json::from_str(&body).unwrap();
    let id = device["id"].as_str().unwrap().to_string();
    assert_eq!(device["state"], "queued");
    assert_eq!(
        device["project"],
        json!({"href": format!("/metal/v1/projects/{p}")})
    );
    // Taken, other project's, missing required fields, malformed and unknown IDs.
    assert_eq!(
        send(
            M::POST,
            format!("/projects/{p}/devices"),
            Some(create(free[0]))
        )
        .await
        .0,
        422
    );
    assert_eq!(
        send(
            M::POST,
            format!("/projects/{p}/devices"),
            Some(create(theirs))
        )
        .await
        .0,
        422
    );
    assert_eq!(
        send(
            M::POST,
            format!("/projects/{p}/devices"),
            Some(json!({"metro": "da", "hardware_reservation_id": free[1].to_string()}))
        )
        .await
        .0,
        422
    );
    assert_eq!(
        send(M::GET, "/devices/not-a-uuid".into(), None).await.0,
        404
    );
    assert_eq!(
        send(M::GET, format!("/devices/{}", Uuid::new_v4()), None)
            .await
            .0,
        404
    );
    assert_eq!(
        send(
            M::GET,
            format!("/projects/{}/devices", Uuid::new_v4()),
            None
        )
        .await
        .0,
        404
    );
    // Reads, include, pagination.
    let (st, body) = send(
        M::GET,
        format!("/devices/{id}?include=project,hardware_reservation"),
        None,
    )
    .await;
    assert_eq!(st, 200);
    let full: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(full["project"]["id"], p.to_string());
    let (st, body) = send(M::GET, format!("/hardware-reservations/{}", free[0]), None).await;
    assert_eq!(st, 200);
    let stub: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        stub["device"],
        json!({"href": format!("/metal/v1/devices/{id}")})
    );
    let (st, body) = send(
        M::GET,
        format!("/projects/{p}/hardware-reservations?include=device&per_page=1&page=2"),
        None,
    )
    .await;
    assert_eq!(st, 200);
    let page: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(page["meta"]["total"], 2);
    assert_eq!(page["meta"]["current_page"], 2);
    // Updates and actions.
    assert_eq!(
        send(
            M::PUT,
            format!("/devices/{id}"),
            Some(json!({"hostname": "renamed", "tags": ["a"]}))
        )
        .await
        .0,
        200
    );
    assert_eq!(
        send(
            M::POST,
            format!("/devices/{id}/actions"),
            Some(json!({"type": "reboot"}))
        )
        .await
        .0,
        422,
        "still provisioning"
    );
    assert_eq!(
        send(M::POST, format!("/devices/{id}/actions"), Some(json!({})))
            .await
            .0,
        422
    );
    assert_eq!(
        send(
            M::POST,
            format!("/hardware-reservations/{}/move", free[1]),
            Some(json!({"project_id": other}))
        )
        .await
        .0,
        201
    );
    // SSH keys.
    let key = json!({"label": "k", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAwire k"});
    let (st, body) = send(M::POST, "/ssh-keys".into(), Some(key.clone())).await;
    assert_eq!(st, 201, "{body}");
    let kid = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        send(M::POST, "/ssh-keys".into(), Some(key)).await.0,
        422,
        "same key twice"
    );
    assert_eq!(
        send(
            M::POST,
            format!("/projects/{p}/ssh-keys"),
            Some(json!({"label": "k"}))
        )
        .await
        .0,
        422
    );
    assert_eq!(send(M::GET, "/ssh-keys".into(), None).await.0, 200);
    assert_eq!(
        send(M::GET, format!("/projects/{p}/ssh-keys"), None)
            .await
            .0,
        200
    );
    assert_eq!(
        send(
            M::PUT,
            format!("/ssh-keys/{kid}"),
            Some(json!({"label": "k2"}))
        )
        .await
        .0,
        200
    );
    assert_eq!(send(M::GET, format!("/ssh-keys/{kid}"), None).await.0, 200);
    assert_eq!(
        send(M::DELETE, format!("/ssh-keys/{kid}"), None).await.0,
        204
    );
    assert_eq!(
        send(M::DELETE, format!("/devices/{id}"), None).await,
        (
            422,
            r#"{"errors":["Cannot delete a device while it is provisioning"]}"#.to_string()
        ),
        "still provisioning"
    );
    assert_eq!(send(M::GET, format!("/projects/{p}"), None).await.0, 200);
    assert_eq!(send(M::GET, "/nowhere".into(), None).await.0, 404);

    let replies = s.recorded_replies();
    assert_eq!(replies.len(), 25);
    schema::check_all(&replies);
}

#[tokio::test]
async fn rate_limit_headers_on_every_reply_and_429_over_the_limit() {
    let fake = Fake::builder().build();
    let s = server(&fake, ServerConfig::new(TOKEN).rate_limit(Some(3))).await;
    let url = format!("{}/projects/{}", s.base_url(), fake.project());
    let http = http::client();
    let mut seen = Vec::new();
    for _ in 0..4 {
        let r = http
            .get(&url)
            .header("X-Auth-Token", TOKEN)
            .send()
            .await
            .unwrap();
        let h = |n: &str| r.headers().get(n).map(|v| v.to_str().unwrap().to_string());
        seen.push((
            r.status().as_u16(),
            h("x-ratelimit-limit"),
            h("x-ratelimit-remaining"),
            h("retry-after"),
        ));
        assert!(h("x-ratelimit-reset").is_some());
    }
    let s3 = Some("3".to_string());
    // The window may roll over between requests on a slow machine; the
    // first request of a window always has 2 left.
    assert_eq!(seen[0], (200, s3.clone(), Some("2".into()), None));
    if seen[3].0 == 429 {
        assert_eq!(seen[3], (429, s3, Some("0".into()), Some("1".into())));
    }
    schema::check_all(&s.recorded_replies());
}

#[tokio::test]
async fn fake_state_reports_counters() {
    let fake = Fake::builder().reservations(4).build();
    fake.inject(Fault::on(
        "findProjectById",
        FaultKind::FailBefore { status: 500 },
    ))
    .unwrap();
    let s = server(&fake, ServerConfig::new(TOKEN)).await;
    let http = http::client();
    let url = format!("{}/projects/{}", s.base_url(), fake.project());
    http.get(&url)
        .header("X-Auth-Token", TOKEN)
        .send()
        .await
        .unwrap();
    http.get(&url)
        .header("X-Auth-Token", TOKEN)
        .send()
        .await
        .unwrap();
    let state_url = s.base_url().replace("/metal/v1", "/_fake/state");
    let state: Value = http
        .get(state_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        state["requests"]["findProjectById"],
        json!({"200": 1, "500": 1})
    );
    assert_eq!(state["faults_injected"], json!({"fail_before": 1}));
    assert_eq!(state["reservations_without_device"], 4);
    assert_eq!(state["reservations_with_device"], 0);
    assert_eq!(state["devices_by_state"], json!({}));
    assert_eq!(state["ssh_keys"], 0);
}

#[cfg(feature = "cli")] // the binary's own
#[tokio::test]
async fn the_binary_prints_its_url_first_and_serves() {
    let project = Uuid::new_v4();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_metal-fake"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--token",
            "bin-token",
            "--reservations",
            "3",
        ])
        .args(["--project", &project.to_string(), "--rate-limit", "100"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim_end()
        .strip_prefix("metal-fake listening on http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/metal/v1"))
        .map(|port| port.parse::<u16>().unwrap())
        .map(|port| format!("http://127.0.0.1:{port}/metal/v1"));
    let result = async {
        let url = url.ok_or_else(|| format!("first line {line:?}"))?;
        let r = http::client()
            .get(format!("{url}/projects/{project}/hardware-reservations"))
            .header("X-Auth-Token", "bin-token")
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let limit = r.headers().get("x-ratelimit-limit").cloned();
        let body: Value = r.json().await.map_err(|e| e.to_string())?;
        Ok::<_, String>((body["meta"]["total"].clone(), limit))
    }
    .await;
    child.kill().unwrap();
    child.wait().unwrap();
    let (total, limit) = result.unwrap();
    assert_eq!(total, 3);
    assert_eq!(limit.unwrap(), "100");
}

/// The schema check rejects what the spec does not allow, so passing it
/// means something.
#[test]
fn the_schema_check_has_teeth() {
    let spec = schema::strict_spec();
    let device = schema::validator(&spec, "#/components/schemas/Device");
    assert!(device.is_valid(
        &json!({"id": Uuid::new_v4().to_string(), "state": "active", "project": {"href": "/p"}})
    ));
    assert!(!device.is_valid(&json!({"state": 5})));
    assert!(!device.is_valid(&json!({"id": "not-a-uuid"})));
    assert!(!device.is_valid(&json!({"tags": "a"})));
    assert!(!device.is_valid(&json!({"surprise": true})));
    let list = schema::validator(&spec, "#/components/schemas/DeviceList");
    assert!(
        !list.is_valid(&json!({"meta": {"next": {}}})),
        "Href requires href"
    );
}
