//! Events, as the fake's journal makes them: every change once, in order,
//! at the instant it happened on the fake's clock, timed transitions
//! included (a device's provisioning steps come from the due-queue, not
//! from the read that sees them); the lists newest first and paged; a
//! token sees only the events of what it sees. In process on the paused
//! clock, and over HTTP with the control API's clock.

use crate::http;

use std::time::Duration;

use chrono::{DateTime, Utc};
use metal_fake::document::WorldDoc;
use metal_fake::{Fake, ServerConfig};
use serde_json::{json, Value};

const TOKEN: &str = "acme-token";
const OTHER_TOKEN: &str = "globex-token";
const ORG: &str = "0a000000-0000-4000-8000-000000000001";
const OTHER_ORG: &str = "0a000000-0000-4000-8000-000000000002";
const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
const OTHER_PROJECT: &str = "0b000000-0000-4000-8000-000000000002";
const RESERVATION: &str = "0c000000-0000-4000-8000-000000000001";
const OTHER_RESERVATION: &str = "0c000000-0000-4000-8000-000000000002";

/// Two organisations, each with a project, a reservation and a token.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG}, {"id": OTHER_ORG}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": OTHER_PROJECT, "organization": OTHER_ORG}
        ],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "reservations": [
            {"id": RESERVATION, "project": PROJECT, "plan": "c3.small.x86", "facility": "da11"},
            {"id": OTHER_RESERVATION, "project": OTHER_PROJECT, "plan": "c3.small.x86",
             "facility": "da11"}
        ],
        "tokens": [
            {"token": TOKEN, "organizations": [ORG]},
            {"token": OTHER_TOKEN, "organizations": [OTHER_ORG]}
        ]
    }))
    .unwrap()
}

fn fake() -> Fake {
    Fake::builder().token("server-token").world(world()).build()
}

async fn call(
    fake: &Fake,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    http::in_process(fake, token, method, path, body).await
}

fn create_body(reservation: &str, hostname: &str) -> Value {
    json!({
        "hostname": hostname,
        "plan": "c3.small.x86",
        "metro": "da",
        "operating_system": "ubuntu_22_04",
        "hardware_reservation_id": reservation
    })
}

/// The events of a list reply: `(type, created_at)`, as listed.
fn events(list: &Value) -> Vec<(String, DateTime<Utc>)> {
    list["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["created_at"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

fn types(list: &Value) -> Vec<String> {
    events(list).into_iter().map(|(t, _)| t).collect()
}

fn stamp(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap().parse().unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_device_s_timed_transitions_are_events_once_in_order_at_their_due_instants() {
    let fake = fake();
    let (status, device) = call(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        Some(create_body(RESERVATION, "web-1")),
    )
    .await;
    assert_eq!(status, 201, "{device}");
    let id = device["id"].as_str().unwrap().to_string();
    let created = stamp(&device["created_at"]);
    let path = format!("/devices/{id}/events");
    let (_, list) = call(&fake, TOKEN, "GET", &path, None).await;
    assert_eq!(types(&list), ["instance.created"]);

    // Long past the end of provisioning (5 s queued, 60 s provisioning):
    // each step once, at its own instant, however late it is read.
    tokio::time::advance(Duration::from_secs(3600)).await;
    let (_, list) = call(&fake, TOKEN, "GET", &path, None).await;
    let seen = events(&list);
    let chrono_s = |s: i64| chrono::Duration::seconds(s);
    assert_eq!(
        seen,
        vec![
            ("provisioning.109".to_string(), created + chrono_s(65)),
            ("provisioning.104.01".to_string(), created + chrono_s(5)),
            ("instance.created".to_string(), created),
        ],
        "newest first"
    );
    let (_, again) = call(&fake, TOKEN, "GET", &path, None).await;
    assert_eq!(events(&again), seen, "a second read makes nothing again");
    let (_, d) = call(&fake, TOKEN, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "active");
    assert_eq!(stamp(&d["updated_at"]), created + chrono_s(65));

    // Power off: the request, then 5 s later the transition.
    let (status, _) = call(
        &fake,
        TOKEN,
        "POST",
        &format!("/devices/{id}/actions"),
        Some(json!({"type": "power_off"})),
    )
    .await;
    assert_eq!(status, 202);
    let off = created + chrono_s(3600);
    tokio::time::advance(Duration::from_secs(10)).await;
    let (_, list) = call(&fake, TOKEN, "GET", &path, None).await;
    assert_eq!(
        events(&list)[..2],
        [
            ("instance.powered_off".to_string(), off + chrono_s(5)),
            ("instance.power_off".to_string(), off),
        ]
    );
    let (_, d) = call(&fake, TOKEN, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "inactive");

    // The delete is an event of the project's list (the device's own is
    // gone with it), and its reservation's release one of the due-queue's.
    let (status, _) = call(&fake, TOKEN, "DELETE", &format!("/devices/{id}"), None).await;
    assert_eq!(status, 204);
    let (status, _) = call(&fake, TOKEN, "GET", &path, None).await;
    assert_eq!(status, 404);
    tokio::time::advance(Duration::from_secs(300)).await;
    let (_, list) = call(
        &fake,
        TOKEN,
        "GET",
        &format!("/projects/{PROJECT}/events"),
        None,
    )
    .await;
    let listed = types(&list);
    assert_eq!(
        listed[..2],
        ["hardware_reservation.released", "instance.deleted"],
        "{listed:?}"
    );
    assert_eq!(
        listed.iter().filter(|t| *t == "provisioning.109").count(),
        1,
        "{listed:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn events_are_paged_newest_first_and_found_by_id() {
    let fake = fake();
    for n in 0..3 {
        let (status, _) = call(
            &fake,
            TOKEN,
            "POST",
            "/ssh-keys",
            Some(json!({
                "label": format!("key {n}"),
                "key": format!("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9e{n} k")
            })),
        )
        .await;
        assert_eq!(status, 201);
        tokio::time::advance(Duration::from_secs(1)).await;
    }
    let (status, all) = call(&fake, TOKEN, "GET", "/events?per_page=2", None).await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(types(&all), ["ssh_key.created", "ssh_key.created"]);
    assert_eq!(all["meta"]["total"], 3);
    let at = events(&all);
    assert!(at[0].1 > at[1].1, "newest first: {at:?}");
    let (_, second) = call(&fake, TOKEN, "GET", "/events?per_page=2&page=2", None).await;
    assert_eq!(events(&second).len(), 1);
    assert!(events(&second)[0].1 < at[1].1);

    let event = &all["events"][0];
    let id = event["id"].as_str().unwrap();
    assert_eq!(event["href"], format!("/metal/v1/events/{id}"));
    assert_eq!(event["body"], "SSH key added");
    let key = event["relationships"][0]["href"].as_str().unwrap();
    assert!(key.starts_with("/metal/v1/ssh-keys/"), "{key}");
    let (status, one) = call(&fake, TOKEN, "GET", &format!("/events/{id}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(&one, event);
    let (status, _) = call(
        &fake,
        TOKEN,
        "GET",
        "/events/0e000000-0000-4000-8000-000000000000",
        None,
    )
    .await;
    assert_eq!(status, 404);
}

#[tokio::test(start_paused = true)]
async fn a_token_sees_only_the_events_of_what_it_sees() {
    let fake = fake();
    let (status, _) = call(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        Some(create_body(RESERVATION, "acme-1")),
    )
    .await;
    assert_eq!(status, 201);
    tokio::time::advance(Duration::from_secs(120)).await;
    let (_, mine) = call(&fake, TOKEN, "GET", "/events", None).await;
    assert_eq!(types(&mine).len(), 3, "{mine}");
    let acme_event = mine["events"][0]["id"].as_str().unwrap().to_string();

    let (status, theirs) = call(&fake, OTHER_TOKEN, "GET", "/events", None).await;
    assert_eq!(status, 200);
    assert!(types(&theirs).is_empty(), "{theirs}");
    let (status, _) = call(
        &fake,
        OTHER_TOKEN,
        "GET",
        &format!("/events/{acme_event}"),
        None,
    )
    .await;
    assert_eq!(status, 403);
    for path in [
        format!("/projects/{PROJECT}/events"),
        format!("/organizations/{ORG}/events"),
    ] {
        let (status, _) = call(&fake, OTHER_TOKEN, "GET", &path, None).await;
        assert_eq!(status, 403, "{path}");
    }
    let (status, org) = call(
        &fake,
        TOKEN,
        "GET",
        &format!("/organizations/{ORG}/events"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(types(&org), types(&mine));
    let (status, other_org) = call(
        &fake,
        OTHER_TOKEN,
        "GET",
        &format!("/organizations/{OTHER_ORG}/events"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert!(types(&other_org).is_empty());
}

#[tokio::test]
async fn over_http_the_transitions_are_events_when_the_fake_s_clock_passes_them() {
    let server = metal_fake::bind(fake(), "127.0.0.1:0", ServerConfig::new("server-token"))
        .await
        .unwrap();
    let base = server.base_url().to_string();
    let root = base.trim_end_matches("/metal/v1").to_string();
    let http = http::client();
    let created: Value = http
        .post(format!("{base}/projects/{PROJECT}/devices"))
        .header("x-auth-token", TOKEN)
        .json(&create_body(RESERVATION, "web-http"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    let read = || async {
        http.get(format!("{base}/devices/{id}/events"))
            .header("x-auth-token", TOKEN)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    assert_eq!(types(&read().await), ["instance.created"]);
    let advanced = http
        .post(format!("{root}/_fake/clock"))
        .json(&json!({"advance_seconds": 70}))
        .send()
        .await
        .unwrap();
    assert_eq!(advanced.status(), 200);
    let list = read().await;
    assert_eq!(
        types(&list),
        [
            "provisioning.109",
            "provisioning.104.01",
            "instance.created"
        ]
    );
    let seen = events(&list);
    assert_eq!(seen[0].1 - seen[2].1, chrono::Duration::seconds(65));
    assert_eq!(types(&read().await), types(&list), "once");
    server.shutdown().await;
}
