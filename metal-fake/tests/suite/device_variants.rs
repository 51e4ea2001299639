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
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::common::schema;
use crate::http::call;

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

/// A new on-demand device in `da` with `extra` in its create, active.
async fn active_device(fake: &Fake, extra: Value) -> Value {
    let mut body = json!({"metro": "da", "plan": "c3.small.x86",
                          "operating_system": "ubuntu_24_04", "hostname": "v"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (status, d) = call(
        fake,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        Some(body),
    )
    .await;
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
    let (status, p) = call(
        fake,
        "PUT",
        &format!("/projects/{PROJECT}"),
        Some(json!({})),
    )
    .await;
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
    assert_eq!(
        rescued["state"], "active",
        "the spec's states have no rescue state"
    );
    assert_eq!(action_types(&rescued), ["power_off", "reboot", "reinstall"]);
    let (status, reply) = act("rescue").await;
    assert_eq!(status, 422, "{reply}");
    assert!(reply["errors"][0]
        .as_str()
        .unwrap()
        .contains("already in rescue"));
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
    let got =
        chrono::DateTime::parse_from_rfc3339(ending["termination_time"].as_str().unwrap()).unwrap();
    assert_eq!(got.timestamp(), at.timestamp(), "{ending}");
    let hosts = |reply: &Value| -> Vec<String> {
        reply["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, with) = call(
        &fake,
        "GET",
        &format!("{list}?has_termination_time=true"),
        None,
    )
    .await;
    assert_eq!(hosts(&with), [ending["id"].as_str().unwrap()]);
    let (_, without) = call(
        &fake,
        "GET",
        &format!("{list}?has_termination_time=false"),
        None,
    )
    .await;
    assert_eq!(hosts(&without), [staying["id"].as_str().unwrap()]);
    // A locked device is not reclaimed at its time: terraform-provider-
    // equinix's doc of `locked` (`internal/resources/metal/device/
    // resource.go`, `docs/resources/metal_device.md`): locking "prevents an
    // instance with a termination time set from being reclaimed, even if
    // the termination time was reached".
    let path = format!("/devices/{}", ending["id"].as_str().unwrap());
    let lock = |locked: bool| {
        let (fake, path) = (fake.clone(), path.clone());
        async move {
            call(&fake, "PUT", &path, Some(json!({ "locked": locked })))
                .await
                .0
        }
    };
    assert_eq!(lock(true).await, 200);
    // Two creates of 15 minutes each have passed; the rest of the 50.
    tokio::time::advance(Duration::from_secs(19 * 60)).await;
    assert_eq!(call(&fake, "GET", &path, None).await.0, 200, "not yet");
    tokio::time::advance(Duration::from_secs(2 * 60)).await;
    let (status, kept) = call(&fake, "GET", &path, None).await;
    assert_eq!((status, &kept["locked"]), (200, &json!(true)), "locked");
    assert_eq!(kept["termination_time"], ending["termination_time"]);
    // Unlocked past its time, it goes (the fake's choice: the lock only
    // held it): the unlock's reply still shows it, the next read not.
    assert_eq!(lock(false).await, 200);
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
    let (_, all) = call(&fake, "GET", &list, None).await;
    assert_eq!(hosts(&all), [staying["id"].as_str().unwrap()]);
    // Unlocked before its time, a device goes at its time.
    let soon = wall_now(&fake).await + chrono::Duration::minutes(40);
    let second = active_device(&fake, json!({"termination_time": soon.to_rfc3339()})).await;
    let second = format!("/devices/{}", second["id"].as_str().unwrap());
    for locked in [true, false] {
        let body = json!({ "locked": locked });
        assert_eq!(call(&fake, "PUT", &second, Some(body)).await.0, 200);
    }
    assert_eq!(call(&fake, "GET", &second, None).await.0, 200, "not yet");
    tokio::time::advance(Duration::from_secs(26 * 60)).await;
    assert_eq!(call(&fake, "GET", &second, None).await.0, 404);
    // A time already past is refused.
    let past = wall_now(&fake).await - chrono::Duration::minutes(1);
    let (status, reply) = call(
        &fake,
        "POST",
        &list,
        Some(
            json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
                    "termination_time": past.to_rfc3339()}),
        ),
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
        assert!(
            !message.contains("fake"),
            "the real API's refusal: {message}"
        );
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
            Some(
                json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
                        "termination_time": at.to_rfc3339()}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{d}");
    fake.advance(Duration::from_secs(15 * 60)).unwrap();
    let path = format!("/devices/{}", d["id"].as_str().unwrap());
    let (status, _) = server
        .send(
            "POST",
            format!("{path}/actions"),
            Some(json!({"type": "rescue"})),
        )
        .await;
    assert_eq!(status, 202);
    let (status, _) = server.send("GET", path.clone(), None).await;
    assert_eq!(status, 200);
    let (status, _) = server
        .send(
            "GET",
            format!("/projects/{PROJECT}/devices?has_termination_time=true"),
            None,
        )
        .await;
    assert_eq!(status, 200);
    server.check_and_stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_device_s_own_blocks_are_as_its_create_and_its_operating_system_ask() {
    let mut doc = serde_json::to_value(world()).unwrap();
    doc["operating_systems"] = json!([
        {"slug": "ubuntu_24_04"}, {"slug": "windows_2022"}, {"slug": "vmware_esxi_8_0"}
    ]);
    doc["capacity"] = json!([{"facility": "da11", "plan": "c3.small.x86", "available": 10}]);
    let fake = Fake::builder()
        .world(serde_json::from_value(doc).unwrap())
        .build();
    let cidrs = |d: &Value| -> Vec<(i64, bool, i64)> {
        d["ip_addresses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["address_family"].as_i64().unwrap(),
                    a["public"].as_bool().unwrap(),
                    a["cidr"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    // By operating system (Equinix's minimum public IPv4 subnets).
    for (os, public) in [
        ("ubuntu_24_04", 31),
        ("windows_2022", 30),
        ("vmware_esxi_8_0", 29),
    ] {
        let d = active_device(&fake, json!({"operating_system": os})).await;
        assert_eq!(
            cidrs(&d),
            [(4, true, public), (6, true, 127), (4, false, 31)],
            "{os}"
        );
    }
    // As the create asks: a /29 public IPv4, a /28 private, a /124 IPv6.
    let asked = json!({"ip_addresses": [
        {"address_family": 4, "public": true, "cidr": 29},
        {"address_family": 6, "public": true, "cidr": 124},
        {"address_family": 4, "public": false, "cidr": 28}
    ]});
    let a = active_device(&fake, asked.clone()).await;
    let b = active_device(&fake, asked).await;
    assert_eq!(cidrs(&a), [(4, true, 29), (6, true, 124), (4, false, 28)]);
    let block = |d: &Value,
                 i: usize|
     -> (
        std::net::Ipv4Addr,
        std::net::Ipv4Addr,
        std::net::Ipv4Addr,
        String,
    ) {
        let x = &d["ip_addresses"][i];
        (
            x["network"].as_str().unwrap().parse().unwrap(),
            x["gateway"].as_str().unwrap().parse().unwrap(),
            x["address"].as_str().unwrap().parse().unwrap(),
            x["netmask"].as_str().unwrap().to_string(),
        )
    };
    let (net, gw, addr, mask) = block(&a, 0);
    assert_eq!(mask, "255.255.255.248");
    assert_eq!(u32::from(net) % 8, 0, "{net} is a /29's network");
    assert_eq!(
        (u32::from(gw), u32::from(addr)),
        (u32::from(net) + 1, u32::from(net) + 2)
    );
    let (other, ..) = block(&b, 0);
    assert!(
        u32::from(other) / 8 != u32::from(net) / 8,
        "two devices' /29s are apart: {net}, {other}"
    );
    assert_eq!(block(&a, 2).3, "255.255.255.240");
    assert_eq!(
        a["ip_addresses"][1]["netmask"],
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fff0"
    );
    // The project lists the private block at its size.
    let (_, listed) = call(
        &fake,
        "GET",
        &format!("/projects/{PROJECT}/ips?types=private_ipv4"),
        None,
    )
    .await;
    let sizes: Vec<&Value> = listed["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["cidr"])
        .collect();
    assert!(sizes.contains(&&json!(28)), "{listed}");
    // Refused: smaller than the operating system takes, or out of range.
    for (os, asked) in [
        (
            "windows_2022",
            json!({"address_family": 4, "public": true, "cidr": 31}),
        ),
        (
            "ubuntu_24_04",
            json!({"address_family": 4, "public": true, "cidr": 27}),
        ),
        (
            "ubuntu_24_04",
            json!({"address_family": 6, "public": true, "cidr": 64}),
        ),
    ] {
        let (status, reply) = call(
            &fake,
            "POST",
            &format!("/projects/{PROJECT}/devices"),
            Some(
                json!({"metro": "da", "plan": "c3.small.x86", "operating_system": os,
                        "ip_addresses": [asked]}),
            ),
        )
        .await;
        assert_eq!(status, 422, "{os} {asked}: {reply}");
    }
}
