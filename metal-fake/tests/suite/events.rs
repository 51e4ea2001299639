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
            {"id": PROJECT, "organization": ORG, "name": "p-acme"},
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

/// Creates a device on the acme reservation with `TOKEN`; its ID.
async fn create_device(fake: &Fake, hostname: &str) -> String {
    let (status, device) = call(
        fake,
        TOKEN,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        Some(create_body(RESERVATION, hostname)),
    )
    .await;
    assert_eq!(status, 201, "{device}");
    device["id"].as_str().unwrap().to_string()
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
    let id = create_device(&fake, "web-1").await;
    let (_, device) = call(&fake, TOKEN, "GET", &format!("/devices/{id}"), None).await;
    let created = stamp(&device["created_at"]);
    let path = format!("/devices/{id}/events?per_page=100");
    let (_, list) = call(&fake, TOKEN, "GET", &path, None).await;
    assert_eq!(types(&list), ["provisioning.queued", "instance.created"]);

    // Long past the end of provisioning (5 s queued, 60 s provisioning):
    // each step once, at its own instant, however late it is read.
    tokio::time::advance(Duration::from_secs(3600)).await;
    let (_, list) = call(&fake, TOKEN, "GET", &path, None).await;
    let seen = events(&list);
    let chrono_s = |ms: i64| chrono::Duration::milliseconds(ms);
    let expected: Vec<(String, DateTime<Utc>)> = [
        ("provisioning.110", 65_000),
        ("provisioning.109", 62_000),
        ("provisioning.108", 56_000),
        ("provisioning.107", 50_000),
        ("provisioning.106", 41_000),
        ("provisioning.105", 32_000),
        ("provisioning.104", 23_000),
        ("provisioning.104.01", 17_000),
        ("provisioning.103", 11_000),
        ("provisioning.102", 8_000),
        ("provisioning.101", 5_000),
        ("provisioning.queued", 0),
        ("instance.created", 0),
    ]
    .into_iter()
    .map(|(t, ms)| (t.to_string(), created + chrono_s(ms)))
    .collect();
    assert_eq!(seen, expected, "newest first");
    let chrono_s = |s: i64| chrono::Duration::seconds(s);
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
        &format!("/projects/{PROJECT}/events?per_page=100"),
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
        listed.iter().filter(|t| *t == "provisioning.110").count(),
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
    assert_eq!(event["body"], "SSH key \"key 2\" was added by Token User 1");
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
    create_device(&fake, "acme-1").await;
    tokio::time::advance(Duration::from_secs(120)).await;
    let (_, mine) = call(&fake, TOKEN, "GET", "/events?per_page=100", None).await;
    assert_eq!(types(&mine).len(), 13, "{mine}");
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
        &format!("/organizations/{ORG}/events?per_page=100"),
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
    let server = crate::http::serve(&fake(), ServerConfig::new("server-token")).await;
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
        http.get(format!("{base}/devices/{id}/events?per_page=100"))
            .header("x-auth-token", TOKEN)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    assert_eq!(
        types(&read().await),
        ["provisioning.queued", "instance.created"]
    );
    let advanced = http
        .post(format!("{root}/_fake/clock"))
        .json(&json!({"advance_seconds": 70}))
        .send()
        .await
        .unwrap();
    assert_eq!(advanced.status(), 200);
    let list = read().await;
    let listed = types(&list);
    assert_eq!(
        (listed.len(), listed[0].as_str(), listed[12].as_str()),
        (13, "provisioning.110", "instance.created"),
        "{listed:?}"
    );
    let seen = events(&list);
    assert_eq!(seen[0].1 - seen[12].1, chrono::Duration::seconds(65));
    assert_eq!(types(&read().await), types(&list), "once");
    server.shutdown().await;
}

/// Every property of the spec's `Event` schema, as the real API sent
/// them (a recorded `/devices/{id}/events` reply had `ip` and
/// `modified_by`, `state` `null`; the fake leaves out what is `null`,
/// which the spec's schema refuses).
const EVENT_PROPERTIES: [&str; 10] = [
    "body",
    "created_at",
    "href",
    "id",
    "interpolated",
    "ip",
    "modified_by",
    "relationships",
    "state",
    "type",
];

/// [`EVENT_PROPERTIES`] but `left_out`.
fn properties_but(left_out: &[&str]) -> Vec<&'static str> {
    EVENT_PROPERTIES
        .into_iter()
        .filter(|p| !left_out.contains(p))
        .collect()
}

fn keys(event: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = event
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn bodies(list: &Value) -> Vec<String> {
    list["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["body"].as_str().unwrap().to_string())
        .collect()
}

/// What metal-cli's e2e tests read back, made the way they make it: a
/// project created through the API (its events name it), a device in it
/// provisioned (its events carry the real provisioning bodies), `/events`
/// not empty and each event readable by its ID, with every property of
/// the spec's `Event`.
#[tokio::test(start_paused = true)]
async fn a_new_project_and_its_provisioned_device_list_what_the_real_api_listed() {
    let fake = fake();
    let (status, project) = call(
        &fake,
        TOKEN,
        "POST",
        "/projects",
        Some(json!({"name": "metal-cli-abcde-projects-events"})),
    )
    .await;
    assert_eq!(status, 201, "{project}");
    let project = project["id"].as_str().unwrap().to_string();
    let (_, list) = call(
        &fake,
        TOKEN,
        "GET",
        &format!("/projects/{project}/events"),
        None,
    )
    .await;
    let said = bodies(&list);
    assert!(
        said.iter()
            .any(|b| b.contains("metal-cli-abcde-projects-events")),
        "a project's events name it: {said:?}"
    );
    assert_eq!(types(&list), ["project.created"]);
    assert_eq!(
        said[0],
        "Project \"metal-cli-abcde-projects-events\" was created by Token User 1"
    );

    let id = create_device(&fake, "metal-cli-events-dev").await;
    tokio::time::advance(Duration::from_secs(120)).await;
    let (_, d) = call(&fake, TOKEN, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "active");
    let (_, list) = call(
        &fake,
        TOKEN,
        "GET",
        &format!("/devices/{id}/events?per_page=100"),
        None,
    )
    .await;
    let said = bodies(&list);
    for body in [
        "Queued for provisioning",
        "Connected to magic install system",
        "Provision complete! Your device is ready to go.",
    ] {
        assert!(said.iter().any(|b| b == body), "{body:?} in {said:?}");
    }
    assert_eq!(
        said.last().map(String::as_str),
        Some("\"metal-cli-events-dev\" (c3.small.x86) was deployed to project \"p-acme\" by Token User 1")
    );
    // packet-cli stops polling when the newest event says it is done.
    assert_eq!(said[0], "Provision complete! Your device is ready to go.");
    let newest = &list["events"][0];
    // `state` and `ip` were `null` in the recorded reply.
    assert_eq!(keys(newest), properties_but(&[]));
    assert!(
        newest["ip"].is_null() && newest["state"].is_null(),
        "{newest}"
    );
    assert_eq!(newest["modified_by"]["full_name"], "Packet Bot");
    let created = list["events"].as_array().unwrap().last().unwrap();
    assert_eq!(created["modified_by"]["full_name"], "Token User 1");
    assert_eq!(created["interpolated"], created["body"]);

    // The project's list has the device's events too; `/events` has
    // them all, each readable by its ID as listed.
    let (_, of_project) = call(
        &fake,
        TOKEN,
        "GET",
        &format!("/projects/{PROJECT}/events?per_page=100"),
        None,
    )
    .await;
    assert_eq!(types(&of_project), types(&list));
    let (status, all) = call(&fake, TOKEN, "GET", "/events?per_page=100", None).await;
    assert_eq!(status, 200);
    let all = all["events"].as_array().unwrap();
    assert_eq!(all.len(), 14, "the project's one and the device's 13");
    for e in all {
        let (status, one) = call(
            &fake,
            TOKEN,
            "GET",
            &format!("/events/{}", e["id"].as_str().unwrap()),
            None,
        )
        .await;
        assert_eq!((status, &one), (200, e));
    }
    // exclude leaves the href of what it names (the spec's introduction).
    let (_, thin) = call(
        &fake,
        TOKEN,
        "GET",
        &format!(
            "/events/{}?exclude=modified_by,relationships",
            all[0]["id"].as_str().unwrap()
        ),
        None,
    )
    .await;
    let href_only = |v: &Value| {
        v.as_object()
            .is_some_and(|m| m.len() == 1 && m.contains_key("href"))
    };
    assert!(href_only(&thin["modified_by"]), "{thin}");
    assert!(
        thin["relationships"]
            .as_array()
            .is_some_and(|r| r.iter().all(href_only)),
        "{thin}"
    );
    assert_eq!(thin["body"], all[0]["body"]);
}

/// A device's `provisioning_events` agree with its events: while it
/// provisions, the steps done are its events (the same IDs, times and
/// bodies) and the steps to come are listed with a `null` ID and time, as
/// a recorded create reply shows them; once active, they are the
/// provisioning events it reported.
#[tokio::test(start_paused = true)]
async fn a_device_s_provisioning_events_agree_with_its_events() {
    let fake = fake();
    let id = create_device(&fake, "steps").await;
    // 20 s in: queued, started, network, configuration, DHCP done.
    tokio::time::advance(Duration::from_secs(20)).await;
    let (_, d) = call(&fake, TOKEN, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "provisioning");
    let planned = d["provisioning_events"].as_array().unwrap();
    assert_eq!(planned.len(), 12, "{planned:?}");
    let done: Vec<&Value> = planned.iter().filter(|e| !e["id"].is_null()).collect();
    let to_come: Vec<&Value> = planned.iter().filter(|e| e["id"].is_null()).collect();
    assert_eq!(
        done.iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [
            "provisioning.queued",
            "provisioning.101",
            "provisioning.102",
            "provisioning.103",
            "provisioning.104.01"
        ]
    );
    // As recorded: `null` where it was (`modified_by`, whose object the
    // spec's schema refuses as `null`, left out).
    let planned_keys = properties_but(&["modified_by"]);
    assert!(to_come.iter().all(|e| e["body"].is_string()
        && keys(e) == planned_keys
        && ["created_at", "href", "id", "ip", "state"]
            .iter()
            .all(|k| e[*k].is_null())));
    assert_eq!(
        to_come.last().unwrap()["body"],
        "Provision complete! Your device is ready to go."
    );
    for e in &done {
        let (status, one) = call(
            &fake,
            TOKEN,
            "GET",
            &format!("/events/{}", e["id"].as_str().unwrap()),
            None,
        )
        .await;
        assert_eq!((status, &one), (200, *e));
    }
    tokio::time::advance(Duration::from_secs(60)).await;
    let (_, d) = call(&fake, TOKEN, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "active");
    let (_, list) = call(
        &fake,
        TOKEN,
        "GET",
        &format!("/devices/{id}/events?per_page=100"),
        None,
    )
    .await;
    let mut from_list: Vec<Value> = list["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"].as_str().unwrap().starts_with("provisioning."))
        .cloned()
        .collect();
    from_list.reverse();
    assert_eq!(d["provisioning_events"], Value::Array(from_list));
}

/// A world document's `events` are listed as given (newest first, before
/// what the world does after), readable by ID, seen by who sees what they
/// name; and a saved world holds every event, so that it lists the same
/// ones once loaded again.
#[tokio::test(start_paused = true)]
async fn seeded_events_load_and_a_saved_world_lists_the_same_events() {
    let mut doc = serde_json::to_value(world()).unwrap();
    doc["events"] = json!([
        {"id": "0e000000-0000-4000-8000-0000000000e2", "type": "provisioning.110",
         "body": "Provision complete! Your device is ready to go.",
         "created_at": "2024-06-04T23:53:17Z", "project": PROJECT,
         "relationships": ["#11e2ba60-0e9c-424f-a217-0ae2d9bda0f3"], "ip": "147.75.200.3"},
        {"id": "0e000000-0000-4000-8000-0000000000e1", "type": "provisioning.104.01",
         "body": "Device connected to DHCP system", "created_at": "2024-06-04T23:52:55Z",
         "project": PROJECT, "state": "succeeded"}
    ]);
    let doc: WorldDoc = serde_json::from_value(doc).unwrap();
    let fake = Fake::builder()
        .token("server-token")
        .world(doc.clone())
        .build();
    let (_, list) = call(
        &fake,
        TOKEN,
        "GET",
        &format!("/projects/{PROJECT}/events"),
        None,
    )
    .await;
    assert_eq!(
        types(&list),
        ["provisioning.110", "provisioning.104.01"],
        "newest first"
    );
    let first = &list["events"][0];
    assert_eq!(first["created_at"], "2024-06-04T23:53:17Z");
    assert_eq!(first["ip"], "147.75.200.3");
    assert_eq!(
        first["relationships"],
        json!([{"href": "#11e2ba60-0e9c-424f-a217-0ae2d9bda0f3"}])
    );
    assert_eq!(keys(first), properties_but(&[]));
    assert!(first["state"].is_null(), "{first}");
    assert_eq!(list["events"][1]["state"], "succeeded");
    let (status, one) = call(
        &fake,
        TOKEN,
        "GET",
        "/events/0e000000-0000-4000-8000-0000000000e1",
        None,
    )
    .await;
    assert_eq!((status, &one), (200, &list["events"][1]));
    let (status, _) = call(
        &fake,
        OTHER_TOKEN,
        "GET",
        "/events/0e000000-0000-4000-8000-0000000000e1",
        None,
    )
    .await;
    assert_eq!(status, 403, "another organisation's event");
    let (_, theirs) = call(&fake, OTHER_TOKEN, "GET", "/events", None).await;
    assert!(types(&theirs).is_empty());

    // The world's own change, then a save: the seeded events as given,
    // and the new one; loaded again, the same list.
    let (status, _) = call(
        &fake,
        TOKEN,
        "POST",
        "/projects",
        Some(json!({"name": "later", "organization_id": ORG})),
    )
    .await;
    assert_eq!(status, 201);
    let saved = fake.world();
    assert_eq!(saved.events.len(), 3, "{:?}", saved.events);
    assert_eq!(
        &saved.events[..2],
        {
            let mut seeded = doc.events.clone();
            seeded.reverse();
            seeded
        }
        .as_slice(),
        "oldest first, as given"
    );
    let (_, before) = call(&fake, TOKEN, "GET", "/events", None).await;
    let again = Fake::builder()
        .token("server-token")
        .world(saved.clone())
        .build();
    let (_, after) = call(&again, TOKEN, "GET", "/events", None).await;
    assert_eq!(after["events"], before["events"]);
    assert_eq!(again.world().events, saved.events, "saved as loaded");
}

/// Events out of bounds or twice are refused, each with its reason.
#[test]
fn seeded_events_out_of_bounds_are_refused() {
    let with = |event: Value| {
        let mut doc = serde_json::to_value(world()).unwrap();
        doc["events"] = json!([event]);
        let doc: WorldDoc = serde_json::from_value(doc).unwrap();
        Fake::builder()
            .world(doc)
            .try_build()
            .err()
            .map(|e| e.to_string())
    };
    let base = json!({"id": "0e000000-0000-4000-8000-0000000000e1", "type": "t",
                      "body": "b", "created_at": "2024-06-04T23:52:55Z"});
    assert_eq!(with(base.clone()), None);
    for (field, value, why) in [
        ("type", json!(""), "its type"),
        ("type", json!("t".repeat(256)), "its type"),
        ("body", json!("b".repeat(4097)), "its body"),
        ("relationships", json!(vec!["/x"; 17]), "relationships"),
    ] {
        let mut e = base.clone();
        e[field] = value;
        let refused = with(e).unwrap_or_default();
        assert!(refused.contains(why), "{field}: {refused}");
    }
    let mut doc = serde_json::to_value(world()).unwrap();
    doc["events"] = json!([base.clone(), base]);
    let doc: WorldDoc = serde_json::from_value(doc).unwrap();
    let refused = Fake::builder()
        .world(doc)
        .try_build()
        .err()
        .unwrap()
        .to_string();
    assert!(refused.contains("appears twice"), "{refused}");
}

/// A token that sees its organisation only through one project still
/// sees a project it makes there, and that project's events (its maker
/// becomes its member), as a client reading its new project's events
/// expects.
#[tokio::test(start_paused = true)]
async fn a_project_s_maker_sees_it_and_its_events() {
    let mut doc = serde_json::to_value(world()).unwrap();
    doc["tokens"]
        .as_array_mut()
        .unwrap()
        .push(json!({"token": "project-token", "projects": [PROJECT]}));
    let doc: WorldDoc = serde_json::from_value(doc).unwrap();
    let fake = Fake::builder().token("server-token").world(doc).build();
    let (status, made) = call(
        &fake,
        "project-token",
        "POST",
        "/projects",
        Some(json!({"name": "mine"})),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().unwrap();
    let (status, list) = call(
        &fake,
        "project-token",
        "GET",
        &format!("/projects/{id}/events"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert!(
        types(&list).contains(&"project.created".to_string()),
        "{list}"
    );
    let (_, all) = call(&fake, "project-token", "GET", "/events", None).await;
    assert!(!types(&all).is_empty());
}
