//! No reply of the fake says that it does not model something, but those
//! of the variants `variants::VARIANTS` lists as not yet modelled: every
//! operation of the spec is called once (its path naming live things of a
//! small world, its body the spec's required properties), and every
//! variant of every operation once more, with a request made to reach it
//! (each in a fresh world). A reply that says the fake does not model
//! something fails the test unless the list says so of that variant; a
//! listed variant whose reply does not say it fails it too; a modelled
//! variant must be answered `2xx`.

use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use metal_api::operation::{self, Operation};
use serde_json::{json, Value};
use tower::ServiceExt;

use super::spec;
use super::variants::{Status, VARIANTS};
use crate::document::WorldDoc;
use crate::Fake;

const TOKEN: &str = "coverage-token";
const ORG: &str = "0a000000-0000-4000-8000-000000000001";
const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
const DEVICE: &str = "0d000000-0000-4000-8000-000000000001";
const PLAN: &str = "c3.small.x86";

/// What a reply must not say, ASCII case ignored.
const PHRASES: &[&str] = &[
    "not modelled",
    "not modeled",
    "not supported by the fake",
    "metal-fake models",
    "does not model",
];

/// Whether `body` says the fake does not model something.
fn says_unmodelled(body: &Value) -> bool {
    let text = body.to_string().to_ascii_lowercase();
    PHRASES.iter().any(|p| text.contains(p))
}

/// A small world: one organisation and project, an active device in
/// `da11`, machines on demand, interconnections in `da`.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [{"id": PROJECT, "organization": ORG}],
        "plans": [{"slug": PLAN}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "capacity": [
            {"metro": "da", "plan": PLAN, "available": 4},
            {"facility": "da11", "plan": PLAN, "available": 2}
        ],
        "devices": [{"id": DEVICE, "project": PROJECT, "plan": PLAN, "facility": "da11", "hostname": "a"}],
        "interconnection_metros": ["da"]
    }))
    .expect("the world document decodes")
}

/// The live things of one fresh world, by what names them.
struct World {
    fake: Fake,
    vlan: String,
    vxlan: Value,
    connection: String,
    connection_port: String,
    circuit: String,
    /// A VRF circuit on the dedicated port, for the VRF circuit's update.
    vrf_circuit: String,
    vrf: String,
    vrf_block: String,
    device_port: String,
}

/// One call: its status and JSON body (`null` when none).
async fn call(fake: &Fake, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut request = Request::builder()
        .method(method)
        .uri(format!("/metal/v1{path}"))
        .header("x-auth-token", TOKEN);
    let body = match body {
        Some(b) => {
            request = request.header("content-type", "application/json");
            Body::from(b.to_string())
        }
        None => Body::empty(),
    };
    let request = request.body(body).expect("a valid request");
    let reply = fake
        .router()
        .clone()
        .oneshot(request)
        .await
        .expect("the router answers");
    let status = reply.status().as_u16();
    let bytes = axum::body::to_bytes(reply.into_body(), 1 << 24)
        .await
        .expect("the body reads");
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// `path`'s reply's `id`, which must be made (`2xx`).
async fn made(fake: &Fake, path: &str, body: Value) -> Value {
    let (status, reply) = call(fake, "POST", path, Some(&body)).await;
    assert!(status < 300, "setting up {path}: {status} {reply}");
    reply
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap_or_default().to_string()
}

impl World {
    async fn new() -> Self {
        let fake = Fake::builder().token(TOKEN).world(world()).build();
        let vlan = made(
            &fake,
            &format!("/projects/{PROJECT}/virtual-networks"),
            json!({"metro": "da"}),
        )
        .await;
        let connection = made(
            &fake,
            &format!("/organizations/{ORG}/connections"),
            json!({"name": "port", "type": "dedicated", "redundancy": "primary",
                   "metro": "da", "speed": "10Gbps"}),
        )
        .await;
        let connection_port = id(&connection["ports"][0]);
        let circuit = made(
            &fake,
            &format!(
                "/connections/{}/ports/{connection_port}/virtual-circuits",
                id(&connection)
            ),
            json!({"project_id": PROJECT, "vnid": vlan["id"], "nni_vlan": 100}),
        )
        .await;
        let vrf = made(
            &fake,
            &format!("/projects/{PROJECT}/vrfs"),
            json!({"name": "vrf", "metro": "da", "local_asn": 65000, "ip_ranges": ["10.0.0.0/16"]}),
        )
        .await;
        let vrf_block = made(
            &fake,
            &format!("/projects/{PROJECT}/ips"),
            json!({"type": "vrf", "vrf_id": vrf["id"], "network": "10.0.0.0", "cidr": 24}),
        )
        .await;
        let vrf_circuit = made(
            &fake,
            &format!(
                "/connections/{}/ports/{connection_port}/virtual-circuits",
                id(&connection)
            ),
            json!({"project_id": PROJECT, "vrf": vrf["id"], "nni_vlan": 202, "peer_asn": 65101,
                   "subnet": "10.0.3.0/30", "metal_ip": "10.0.3.1", "customer_ip": "10.0.3.2"}),
        )
        .await;
        let (_, device) = call(&fake, "GET", &format!("/devices/{DEVICE}"), None).await;
        Self {
            vrf_circuit: id(&vrf_circuit),
            vxlan: vlan["vxlan"].clone(),
            vlan: id(&vlan),
            connection: id(&connection),
            connection_port,
            circuit: id(&circuit),
            vrf: id(&vrf),
            vrf_block: id(&vrf_block),
            device_port: id(&device["network_ports"][0]),
            fake,
        }
    }

    /// `op`'s path, each parameter a live thing of the kind its segment
    /// names (a made-up ID where the world has none).
    fn path(&self, op: &Operation) -> String {
        let mut out = Vec::new();
        let segments: Vec<&str> = op.path.split('/').collect();
        for (i, seg) in segments.iter().enumerate() {
            let Some(param) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
                out.push((*seg).to_string());
                continue;
            };
            let before = if i > 0 { segments[i - 1] } else { "" };
            let value = match (before, param) {
                (_, "project_id") | ("projects", _) => PROJECT.to_string(),
                (_, "organization_id") | ("organizations", _) => ORG.to_string(),
                (_, "instance_id") | ("devices", _) => DEVICE.to_string(),
                (_, "connection_id") | ("connections", _) => self.connection.clone(),
                (_, "port_id") => self.connection_port.clone(),
                ("ports", _) if op.path.starts_with("/connections") => self.connection_port.clone(),
                ("ports", _) => self.device_port.clone(),
                ("virtual-circuits", _) => self.circuit.clone(),
                (_, "vrf_id") | ("vrfs", _) => self.vrf.clone(),
                ("virtual-networks", _) => self.vlan.clone(),
                ("ips", _) => self.vrf_block.clone(),
                _ => uuid::Uuid::new_v4().to_string(),
            };
            out.push(value);
        }
        out.join("/")
    }

    /// The request of `variant` of `op`: calls to make first, and the
    /// body. `None`: none is written for it (the test fails).
    fn variant(&self, op: &str, variant: &str) -> Option<(Vec<(&'static str, String)>, Value)> {
        let none = Vec::new();
        let shared = |kind: &str, extra: Value| {
            let mut b = json!({"name": "c", "type": kind, "metro": "da", "project": PROJECT});
            for (k, v) in extra.as_object().into_iter().flatten() {
                b[k] = v.clone();
            }
            b
        };
        let dedicated = json!({"name": "d", "type": "dedicated", "redundancy": "primary",
                               "metro": "da", "speed": "10Gbps"});
        let fabric =
            json!({"redundancy": "primary", "service_token_type": "a_side", "speed": "50Mbps"});
        let body = match (op, variant) {
            ("performAction", "type=power_on") => {
                let off = format!("/devices/{DEVICE}/actions");
                return Some((vec![("power_off", off)], json!({"type": "power_on"})));
            }
            ("performAction", v) => json!({"type": v.strip_prefix("type=")?}),
            ("createProject" | "createOrganizationProject", v) => {
                json!({"name": "p", "type": v.strip_prefix("type=")?})
            }
            ("createDevice", "DeviceCreateInMetroInput") => {
                json!({"metro": "da", "plan": PLAN, "operating_system": "ubuntu_24_04"})
            }
            ("createDevice", "DeviceCreateInFacilityInput") => {
                json!({"facility": ["da11"], "plan": PLAN, "operating_system": "ubuntu_24_04"})
            }
            ("requestIPReservation", "IPReservationRequestInput") => {
                json!({"type": "public_ipv4", "quantity": 1, "metro": "da"})
            }
            ("requestIPReservation", "VrfIpReservationCreateInput") => {
                json!({"type": "vrf", "vrf_id": self.vrf, "network": "10.0.1.0", "cidr": 24})
            }
            ("requestIPReservation", "type=global_ipv4") => {
                json!({"type": "global_ipv4", "quantity": 1})
            }
            ("requestIPReservation", v) => {
                json!({"type": v.strip_prefix("type=")?, "quantity": 1, "metro": "da"})
            }
            ("createMetalGateway", "MetalGatewayCreateInput") => {
                json!({"virtual_network_id": self.vlan, "private_ipv4_subnet_size": 8})
            }
            ("createMetalGateway", "VrfMetalGatewayCreateInput") => {
                json!({"virtual_network_id": self.vlan, "ip_reservation_id": self.vrf_block})
            }
            ("createInterconnectionPortVirtualCircuit", "VlanVirtualCircuitCreateInput") => {
                json!({"project_id": PROJECT, "vnid": self.vlan, "nni_vlan": 200})
            }
            ("createInterconnectionPortVirtualCircuit", "VrfVirtualCircuitCreateInput") => json!({
                "project_id": PROJECT, "vrf": self.vrf, "nni_vlan": 201, "peer_asn": 65100,
                "subnet": "10.0.2.0/30", "metal_ip": "10.0.2.1", "customer_ip": "10.0.2.2"
            }),
            ("updateVirtualCircuit", "VlanVirtualCircuitUpdateInput") => json!({"name": "renamed"}),
            // Sent to the world's VRF circuit (see `send`).
            ("updateVirtualCircuit", "VrfVirtualCircuitUpdateInput") => {
                json!({"peer_asn": 65110})
            }
            (
                "createOrganizationInterconnection" | "createProjectInterconnection",
                "DedicatedPortCreateInput" | "type=dedicated",
            ) => dedicated,
            (
                "createOrganizationInterconnection" | "createProjectInterconnection",
                "VlanFabricVcCreateInput" | "type=shared",
            ) => {
                let mut b = shared("shared", fabric);
                b["vlans"] = json!([self.vxlan]);
                b
            }
            (
                "createOrganizationInterconnection" | "createProjectInterconnection",
                "VrfFabricVcCreateInput",
            ) => {
                let mut b = shared("shared", fabric);
                b["vrfs"] = json!([self.vrf]);
                b
            }
            (
                "createOrganizationInterconnection" | "createProjectInterconnection",
                "SharedPortVCVlanCreateInput" | "type=shared_port_vlan",
            ) => shared("shared_port_vlan", json!({"vlans": [self.vxlan]})),
            (
                "createOrganizationInterconnection" | "createProjectInterconnection",
                "VlanCSPConnectionCreateInput" | "type=shared_port_vlan_to_csp",
            ) => shared(
                "shared_port_vlan_to_csp",
                json!({"vlans": [self.vxlan],
                       "fabric_provider": {"type": "CSP_AWS", "account_id": "123456789012"}}),
            ),
            (
                "createOrganizationInterconnection" | "createProjectInterconnection",
                "facility_id",
            ) => {
                let mut b = dedicated;
                if let Some(fields) = b.as_object_mut() {
                    fields.remove("metro");
                }
                b["facility_id"] = json!("da11");
                b
            }
            _ => return None,
        };
        Some((none, body))
    }
}

/// One operation called in a fresh world: the reply.
async fn send(op: &Operation, variant: Option<&str>) -> Result<(u16, Value), String> {
    let w = World::new().await;
    let mut path = w.path(op);
    if variant == Some("VrfVirtualCircuitUpdateInput") {
        path = path.replace(&w.circuit, &w.vrf_circuit);
    }
    let body = match variant {
        None => spec::request(op).map(spec::body),
        Some(v) => {
            let (before, body) = w
                .variant(op.id, v)
                .ok_or_else(|| format!("{} {v}: no request written for it", op.id))?;
            for (action, path) in before {
                let (status, reply) =
                    call(&w.fake, "POST", &path, Some(&json!({ "type": action }))).await;
                if status >= 300 {
                    return Err(format!("{} {v}: {action} first: {status} {reply}", op.id));
                }
                w.fake
                    .advance(Duration::from_secs(3600))
                    .map_err(|e| e.to_string())?;
            }
            Some(body)
        }
    };
    Ok(call(&w.fake, op.method.as_str(), &path, body.as_ref()).await)
}

#[tokio::test(start_paused = true)]
async fn no_reply_says_the_fake_does_not_model_something_but_the_listed_variants() {
    let mut wrong = Vec::new();
    for op in operation::ALL {
        let (status, reply) = send(op, None).await.unwrap_or_else(|e| (0, json!(e)));
        if says_unmodelled(&reply) && !VARIANTS.iter().any(|d| d.operation == op.id) {
            wrong.push(format!("{}: {status} {reply}", op.id));
        }
        for v in spec::variants(op) {
            let declared = VARIANTS
                .iter()
                .find(|d| d.operation == op.id && d.variant == v);
            let (status, reply) = match send(op, Some(&v)).await {
                Ok(r) => r,
                Err(e) => {
                    wrong.push(e);
                    continue;
                }
            };
            let says = says_unmodelled(&reply);
            match declared.map(|d| d.status) {
                Some(Status::Refused(_)) if says || !(400..500).contains(&status) => {
                    wrong.push(format!(
                        "{} {v}: listed as refused as the real API refused it, answered {status} {reply}",
                        op.id
                    ))
                }
                Some(Status::Refused(_)) => {}
                _ if says => wrong.push(format!(
                    "{} {v}: says it is not modelled: {status} {reply}",
                    op.id
                )),
                _ if status >= 300 => wrong.push(format!(
                    "{} {v}: modelled, but answered {status} {reply}",
                    op.id
                )),
                _ => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_phrases_are_found() {
    assert!(says_unmodelled(
        &json!({"errors": ["Rescue mode is not supported by the fake"]})
    ));
    assert!(says_unmodelled(
        &json!({"errors": ["metal-fake does not model findX"]})
    ));
    assert!(!says_unmodelled(&json!({"errors": ["Not found"]})));
}
