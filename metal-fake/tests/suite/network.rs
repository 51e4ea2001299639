//! What the network families' tests share (VLANs, ports, port batches,
//! gateways, VRFs, BGP sessions): a world of projects with active devices
//! in `da11` (metros `da` and `sv`), the fake on it, calls in process as
//! its token, the VLANs, ports and VRFs they set up, and what they read
//! of events.

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::http;

/// The token the fake takes.
pub const TOKEN: &str = "network-token";
/// The first project, which holds the devices.
pub const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
/// A second project, for refusals across projects.
pub const OTHER_PROJECT: &str = "0b000000-0000-4000-8000-000000000002";
/// The first device.
pub const DEVICE: &str = "0d000000-0000-4000-8000-000000000001";
/// The second device, when a world has one.
pub const OTHER_DEVICE: &str = "0d000000-0000-4000-8000-000000000002";

/// `projects`, and `devices` (ID and plan) of the first one, active in
/// `da11`, with hostnames `a`, `b`, ... in order.
pub fn world(projects: &[&str], devices: &[(&str, &str)]) -> WorldDoc {
    let mut plans: Vec<&str> = devices.iter().map(|(_, plan)| *plan).collect();
    plans.sort_unstable();
    plans.dedup();
    let devices: Vec<Value> = devices
        .iter()
        .zip(b'a'..)
        .map(|((id, plan), host)| {
            json!({
                "id": id, "project": projects[0], "plan": plan, "facility": "da11",
                "hostname": (host as char).to_string()
            })
        })
        .collect();
    serde_json::from_value(json!({
        "projects": projects.iter().map(|id| json!({"id": id})).collect::<Vec<_>>(),
        "plans": plans.iter().map(|slug| json!({"slug": slug})).collect::<Vec<_>>(),
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}],
        "devices": devices
    }))
    .unwrap()
}

/// The fake on `world`, taking [`TOKEN`].
pub fn fake_of(world: WorldDoc) -> Fake {
    Fake::builder().token(TOKEN).world(world).build()
}

/// One call in process as [`TOKEN`]: its status and reply.
pub async fn call(fake: &Fake, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    http::in_process(fake, TOKEN, method, path, body).await
}

/// A VLAN of `project` in `metro`: the create's reply.
pub async fn vlan(fake: &Fake, project: &str, metro: &str) -> Value {
    let (status, v) = call(
        fake,
        "POST",
        &format!("/projects/{project}/virtual-networks"),
        Some(json!({ "metro": metro })),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    v
}

/// A device's ports, as its `network_ports` show them.
pub async fn ports(fake: &Fake, device: &str) -> Vec<Value> {
    let (status, d) = call(fake, "GET", &format!("/devices/{device}"), None).await;
    assert_eq!(status, 200, "{d}");
    d["network_ports"].as_array().unwrap().clone()
}

/// The ID of `device`'s port `name`.
pub async fn port(fake: &Fake, device: &str, name: &str) -> String {
    id(ports(fake, device)
        .await
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no port {name}")))
}

/// The types of a list of events, as listed.
pub fn event_types(list: &Value) -> Vec<&str> {
    list["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect()
}

/// A VRF of `project` in `metro` named `name`, ASN 65000, routing
/// `ranges`, as Terraform's acceptance tests make one: the create's reply.
pub async fn vrf(fake: &Fake, project: &str, metro: &str, name: &str, ranges: Value) -> Value {
    let (status, v) = call(
        fake,
        "POST",
        &format!("/projects/{project}/vrfs"),
        Some(json!({"name": name, "metro": metro, "local_asn": 65000, "ip_ranges": ranges})),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    v
}

/// The `id` of a reply.
pub fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}
