//! The device and IP request variants beside the default ones: the
//! `rescue` action (packngo's `Devices.Rescue`, the spec's
//! `DeviceActionInput`), a create's `termination_time` (packngo's
//! `TestAccDeviceSpotInstance` sets one and reads it back; the spec: "to
//! automatically delete the resource") and the list's
//! `has_termination_time`, and the IP reservation types the real API took
//! no request for (`private_ipv4`, `public_ipv6`). In process, on tokio's
//! paused clock; the replies over HTTP checked against the spec.

use std::time::Duration;

use metal_fake::document::WorldDoc;
use metal_fake::{Fake, DEFAULT_TOKEN};
use serde_json::{json, Value};

use crate::common::schema;
use crate::http::in_process;

const PROJECT: &str = "0c000000-0000-4000-8000-000000000001";
const ORG: &str = "0c000000-0000-4000-8000-0000000000f1";

/// Metro `da` (facility `da11`) with two `c3.small.x86` free.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [{"id": PROJECT, "organization": ORG}],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "capacity": [{"facility": "da11", "plan": "c3.small.x86", "available": 2}]
    }))
    .unwrap()
}

async fn call(fake: &Fake, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    in_process(fake, DEFAULT_TOKEN, method, path, body).await
}

/// A new on-demand device in `da` with `extra` in its create, active.
async fn active_device(fake: &Fake, extra: Value) -> Value {
    let mut body = json!({"metro": "da", "plan": "c3.small.x86",
                          "operating_system": "ubuntu_24_04", "hostname": "v"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (status, d) = call(fake, "POST", &format!("/projects/{PROJECT}/devices"), Some(body)).await;
    assert_eq!(status, 201, "{d}");
    tokio::time::advance(Duration::from_secs(15 * 60)).await;
    let path = format!("/devices/{}", d["id"].as_str().unwrap());
    let (_, d) = call(fake, "GET", &path, None).await;
    assert_eq!(d["state"], "active", "{d}");
    d
}

/// The fake's wall-clock time now: the `updated_at` of a project updated
/// now.
async fn wall_now(fake: &Fake) -> chrono::DateTime<chrono::Utc> {
    let (status, p) = call(fake, "PUT", &format!("/projects/{PROJECT}"), Some(json!({}))).await;
    assert_eq!(status, 200, "{p}");
    p["updated_at"].as_str().unwrap().parse().unwrap()
}

fn action_types(d: &Value) -> Vec<&str> {
    d["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["type"].as_str().unwrap())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn rescue_reboots_the_device_into_rescue_until_its_next_reboot() {
    let fake = Fake::builder().world(world()).build();
    let d = active_device(&fake, json!({})).await;
    let path = format!("/devices/{}", d["id"].as_str().unwrap());
    let act = |t: &'static str| {
        let fake = fake.clone();
        let path = format!("{path}/actions");
        async move { call(&fake, "POST", &path, Some(json!({"type": t}))).await }
    };
    assert!(action_types(&d).contains(&"rescue"));
    let (status, reply) = act("rescue").await;
    assert_eq!(status, 202, "{reply}");
    let (_, rescued) = call(&fake, "GET", &path, None).await;
    assert_eq!(rescued["state"], "active", "the spec's states have no rescue state");
    assert_eq!(action_types(&rescued), ["power_off", "reboot", "reinstall"]);
    let (status, reply) = act("rescue").await;
    assert_eq!(status, 422, "{reply}");
    assert!(reply["errors"][0].as_str().unwrap().contains("already in rescue"));
    let (_, events) = call(&fake, "GET", &format!("{path}/events"), None).await;
    assert_eq!(events["events"][0]["type"], "instance.rescue", "{events}");
    // A reboot boots its own operating system again.
    assert_eq!(act("reboot").await.0, 202);
    let (_, back) = call(&fake, "GET", &path, None).await;
    assert!(action_types(&back).contains(&"rescue"), "{back}");
    // Not while off.
    assert_eq!(act("power_off").await.0, 202);
    tokio::time::advance(Duration::from_secs(120)).await;
    let (status, reply) = act("rescue").await;
    assert_eq!(status, 422, "{reply}");
    // The world document keeps a device in rescue.
    assert_eq!(act("power_on").await.0, 202);
    tokio::time::advance(Duration::from_secs(120)).await;
    assert_eq!(act("rescue").await.0, 202);
    let saved = fake.world();
    assert!(saved.devices[0].rescue);
    let again = Fake::builder().world(saved).build();
    let (_, loaded) = call(&again, "GET", &path, None).await;
    assert!(!action_types(&loaded).contains(&"rescue"), "{loaded}");
}

#[tokio::test(start_paused = true)]
async fn a_device_with_a_termination_time_is_deleted_then_on_the_fake_s_clock() {
    let fake = Fake::builder().world(world()).build();
    let list = format!("/projects/{PROJECT}/devices");
    // In an hour less ten minutes, as packngo's test asks.
    let at = wall_now(&fake).await + chrono::Duration::minutes(50);
    let ending = active_device(&fake, json!({"termination_time": at.to_rfc3339()})).await;
    let staying = active_device(&fake, json!({"hostname": "stays"})).await;
    let got = chrono::DateTime::parse_from_rfc3339(ending["termination_time"].as_str().unwrap())
        .unwrap();
    assert_eq!(got.timestamp(), at.timestamp(), "{ending}");
    let hosts = |reply: &Value| -> Vec<String> {
        reply["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, with) = call(&fake, "GET", &format!("{list}?has_termination_time=true"), None).await;
    assert_eq!(hosts(&with), [ending["id"].as_str().unwrap()]);
    let (_, without) = call(&fake, "GET", &format!("{list}?has_termination_time=false"), None).await;
    assert_eq!(hosts(&without), [staying["id"].as_str().unwrap()]);
    // A locked device goes too: the time is the API's, not a request.
    let path = format!("/devices/{}", ending["id"].as_str().unwrap());
    assert_eq!(call(&fake, "PUT", &path, Some(json!({"locked": true}))).await.0, 200);
    // Two creates of 15 minutes each have passed; the rest of the 50.
    tokio::time::advance(Duration::from_secs(19 * 60)).await;
    assert_eq!(call(&fake, "GET", &path, None).await.0, 200, "not yet");
    tokio::time::advance(Duration::from_secs(2 * 60)).await;
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
    let (_, all) = call(&fake, "GET", &list, None).await;
    assert_eq!(hosts(&all), [staying["id"].as_str().unwrap()]);
    // A time already past is refused.
    let past = wall_now(&fake).await - chrono::Duration::minutes(1);
    let (status, reply) = call(
        &fake,
        "POST",
        &list,
        Some(json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
                    "termination_time": past.to_rfc3339()})),
    )
    .await;
    assert_eq!(status, 422, "{reply}");
}

#[tokio::test(start_paused = true)]
async fn private_ipv4_and_public_ipv6_blocks_are_not_requested() {
    let fake = Fake::builder().world(world()).build();
    for kind in ["private_ipv4", "public_ipv6"] {
        let (status, reply) = call(
            &fake,
            "POST",
            &format!("/projects/{PROJECT}/ips"),
            Some(json!({"type": kind, "quantity": 1, "metro": "da"})),
        )
        .await;
        assert_eq!(status, 422, "{kind}: {reply}");
        let message = reply["errors"][0].as_str().unwrap();
        assert!(message.contains("cannot be requested"), "{message}");
        assert!(!message.contains("fake"), "the real API's refusal: {message}");
    }
    let (_, listed) = call(&fake, "GET", &format!("/projects/{PROJECT}/ips"), None).await;
    assert_eq!(listed["ip_addresses"], json!([]));
}

#[tokio::test]
async fn over_http_the_device_variants_match_the_spec() {
    let fake = Fake::builder().world(world()).build();
    let at = wall_now(&fake).await + chrono::Duration::hours(1);
    let server = schema::Checked::serve(fake.clone()).await;
    let (status, d) = server
        .send(
            "POST",
            format!("/projects/{PROJECT}/devices"),
            Some(json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
                        "termination_time": at.to_rfc3339()})),
        )
        .await;
    assert_eq!(status, 201, "{d}");
    fake.advance(Duration::from_secs(15 * 60)).unwrap();
    let path = format!("/devices/{}", d["id"].as_str().unwrap());
    let (status, _) = server
        .send("POST", format!("{path}/actions"), Some(json!({"type": "rescue"})))
        .await;
    assert_eq!(status, 202);
    let (status, _) = server.send("GET", path.clone(), None).await;
    assert_eq!(status, 200);
    let (status, _) = server
        .send("GET", format!("/projects/{PROJECT}/devices?has_termination_time=true"), None)
        .await;
    assert_eq!(status, 200);
    server.check_and_stop().await;
}
