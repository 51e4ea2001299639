//! `include` and `exclude` on every read the spec gives them: the table
//! test walks each such read (from `openapi/metal.json`) and every
//! reference property of its reply's schema (`metal_api::shape`: a
//! property whose schema has an `id` or an `href`), in a world with one
//! of everything, and checks that the reference is whole or an
//! `{"href": ...}` by default as [`DEFAULTS`] says the real API sent it,
//! whole when included (alone, and comma-joined with the others as
//! packngo sends them), and an `{"href": ...}` when excluded.

use std::collections::{BTreeMap, BTreeSet};

use crate::http;

use metal_api::shape;
use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

const TOKEN: &str = "include-token";

/// How the real API sent a reference when a request named it neither in
/// `include` nor in `exclude`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    /// Whole.
    Whole,
    /// An `{"href": ...}`.
    Href,
    /// Data of the thing itself, not a reference to another (it has an
    /// `id` of its own kind): always whole; `exclude` leaves it.
    Data,
}

/// What a reply held for one reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Seen {
    Whole,
    Href,
}

use Sent::{Data, Href, Whole};

/// (schema, property, default, evidence): every reference property of
/// the replies of the reads with `include`/`exclude`. The spec's own rule
/// ("the Equinix Metal API will return `href` values" for references, its
/// introduction) is the default; the rows that say otherwise cite what
/// real clients read without asking. The same rows are in
/// `metal_fake::fidelity` ("Include and exclude").
const DEFAULTS: &[(&str, &str, Sent, &str)] = &[
    ("AuthToken", "project", Href, "packngo TestAccAPIKeyCreateProject reads key.Project.URL"),
    ("AuthToken", "user", Href, "the spec's rule"),
    ("Batch", "devices", Href, "the spec's Href items"),
    ("Batch", "project", Href, "the spec's rule"),
    ("BgpConfig", "project", Href, "the spec's rule"),
    ("BgpConfig", "ranges", Data, "GlobalBgpRange rows of the configuration"),
    ("BgpConfig", "sessions", Href, "packngo TestAccBGPSession asks include=sessions to read Sessions[0].ID"),
    ("BgpDynamicNeighbor", "created_by", Whole, "the spec's UserLimited requires `id`, and metalv1's `model_user_limited.go` refuses a bare href"),
    ("BgpDynamicNeighbor", "metal_gateway", Href, "the spec's rule"),
    ("BgpSession", "device", Href, "the Terraform session resource reads with include=device"),
    ("Device", "created_by", Whole, "the spec's UserLite; metal-cli prints a device's creator without include"),
    ("Device", "facility", Whole, "packngo TestAccDeviceCreateFacilities reads d.Facility.Code after a Get without includes"),
    ("Device", "hardware_reservation", Href, "the spec's rule; Terraform reads it with include"),
    ("Device", "ip_addresses", Whole, "packngo's GetNetworkType and the device's Network read addresses without include"),
    ("Device", "metro", Whole, "packngo's device tests read d.Metro.Code without include"),
    ("Device", "network_ports", Whole, "packngo's GetNetworkType reads ports' types without include"),
    ("Device", "operating_system", Whole, "packngo reads d.OS.Slug without include"),
    ("Device", "plan", Whole, "packngo reads d.Plan.Slug without include"),
    ("Device", "project", Href, "the spec's introduction (its own example is a device's project)"),
    ("Device", "project_lite", Href, "the spec's rule"),
    ("Device", "provisioning_events", Whole, "a recorded create reply lists the provisioning steps whole"),
    ("Device", "volumes", Href, "the spec's Href items"),
    ("Device", "ssh_keys", Href, "packngo TestAccDeviceSSHKeys asks include=ssh_keys to read each key's ID"),
    ("Event", "relationships", Href, "the spec's Href items"),
    ("Facility", "metro", Whole, "the Terraform facility data source reads metro.code without include"),
    ("HardwareReservation", "device", Href, "the spec's rule; the Terraform data source reads it with include=device"),
    ("HardwareReservation", "facility", Whole, "the Terraform hardware reservation data source reads facility.code"),
    ("HardwareReservation", "plan", Whole, "the Terraform hardware reservation data source reads plan.slug"),
    ("HardwareReservation", "project", Href, "the spec's rule"),
    ("IPAssignment", "assigned_to", Href, "packngo TestAccDeviceAssignIP compares assignment.AssignedTo.Href"),
    ("IPAssignment", "metro", Whole, "the Terraform IP attachment reads metro.code"),
    ("IPAssignment", "parent_block", Data, "the block's network, cidr and netmask beside its href"),
    ("IPReservation", "assignments", Href, "cloud-provider-equinix-metal lists with include=assignments to read them"),
    ("IPReservation", "facility", Whole, "packngo's reserved IP tests read Facility.Code"),
    ("IPReservation", "metal_gateway", Whole, "the spec's MetalGatewayLite: a summary in place"),
    ("IPReservation", "metro", Whole, "packngo's metro reservation test reads Metro.Code"),
    ("IPReservation", "project", Href, "the spec's rule; Terraform reads it with include=project"),
    ("IPReservation", "project_lite", Href, "the spec's rule"),
    ("IPReservation", "requested_by", Href, "the spec's rule"),
    ("Interconnection", "facility", Whole, "the Terraform connection reads facility.code"),
    ("Interconnection", "metro", Whole, "the Terraform connection reads metro.code"),
    ("Interconnection", "organization", Href, "the spec's rule"),
    ("Interconnection", "ports", Whole, "packngo TestAccConnectionProject reads the ports' IDs and status"),
    ("Interconnection", "project", Href, "the spec's rule"),
    ("Interconnection", "requested_by", Href, "the spec's rule"),
    ("Interconnection", "service_tokens", Data, "the connection's own tokens; the Terraform connection reads each one's ID and type"),
    ("InterconnectionPort", "organization", Href, "the spec's rule"),
    ("InterconnectionPort", "virtual_circuits", Whole, "the Terraform port data source reads the circuits"),
    ("Invitation", "invitation", Href, "the spec's rule"),
    ("Invitation", "invited_by", Href, "the spec's rule"),
    ("Invitation", "organization", Href, "the spec's rule"),
    ("Invitation", "projects", Href, "the spec's rule"),
    ("License", "licensee_product", Href, "the spec's rule"),
    ("License", "project", Href, "the spec's rule"),
    ("Membership", "project", Href, "the spec's rule"),
    ("Membership", "user", Href, "the spec's rule"),
    ("MetalGateway", "created_by", Href, "the spec's rule"),
    ("MetalGateway", "ip_reservation", Href, "packngo TestAccMetalGatewayExistingReservation and Terraform read it with include=ip_reservation"),
    ("MetalGateway", "project", Href, "the spec's rule"),
    ("MetalGateway", "virtual_network", Href, "Terraform reads it with include=virtual_network"),
    ("Organization", "members", Href, "the spec's rule"),
    ("Organization", "memberships", Href, "the spec's rule"),
    ("Organization", "projects", Href, "the spec's rule"),
    ("PaymentMethod", "created_by_user", Href, "the spec's rule"),
    ("PaymentMethod", "organization", Href, "the spec's rule"),
    ("PaymentMethod", "projects", Href, "the spec's rule"),
    ("Plan", "available_in", Href, "the Terraform plans data source asks include=available_in to read each code"),
    ("Plan", "available_in_metros", Href, "the Terraform plans data source asks include=available_in_metros"),
    ("Port", "bond", Data, "the bond's id and name beside a port"),
    ("Port", "native_virtual_network", Href, "the spec's rule"),
    ("Port", "virtual_networks", Href, "packngo's Port.AttachedVirtualNetworks read as hrefs"),
    ("PortVlanAssignment", "port", Href, "the spec's Href"),
    ("PortVlanAssignment", "virtual_network", Href, "the spec's Href"),
    ("PortVlanAssignmentBatch", "port", Href, "packngo TestAccVLANAssignmentServiceOp reads b.Port.Href"),
    ("PortVlanAssignmentBatch", "project", Href, "the spec's Href"),
    ("PortVlanAssignmentBatch", "vlan_assignments", Data, "the batch's own assignments"),
    ("Project", "bgp_config", Href, "the spec's Href"),
    ("Project", "devices", Href, "the spec's Href items"),
    ("Project", "invitations", Href, "the spec's Href items"),
    ("Project", "members", Href, "packngo TestAccProjectExtra asks include=members to read each user's ID"),
    ("Project", "memberships", Href, "the spec's Href items"),
    ("Project", "organization", Href, "packngo's project tests read p.Organization.URL (the href)"),
    ("Project", "payment_method", Href, "packngo TestAccProjectBasic reads PaymentMethod.URL"),
    ("Project", "ssh_keys", Href, "the spec's Href items"),
    ("Project", "volumes", Href, "the spec's Href items"),
    ("SSHKey", "entity", Href, "the spec's Href"),
    ("SpotMarketRequest", "facilities", Whole, "the Terraform data source reads Facilities[].Code"),
    ("SpotMarketRequest", "instances", Href, "the spec's Href"),
    ("SpotMarketRequest", "metro", Whole, "the Terraform data source reads Metro.Code"),
    ("SpotMarketRequest", "project", Href, "the spec's Href"),
    ("TransferRequest", "project", Href, "the spec's Href"),
    ("TransferRequest", "target_organization", Href, "the spec's Href"),
    ("User", "emails", Href, "packngo TestAccUsersList asks include=emails to read Emails[0].Address"),
    ("VirtualNetwork", "assigned_to", Href, "Terraform's VLAN reads with include=assigned_to"),
    ("VirtualNetwork", "facility", Href, "the spec's Href; packngo TestAccVirtualNetworksFacility asks include=facility"),
    ("VirtualNetwork", "instances", Href, "Terraform's VLAN delete reads with include=instances"),
    ("VirtualNetwork", "metal_gateways", Whole, "the spec's MetalGatewayLite items: summaries in place"),
    ("VirtualNetwork", "metro", Whole, "packngo's getVLANByMetroVXLAN asks include=metro, but the Terraform VLAN reads metro.code of a list"),
    ("VlanVirtualCircuit", "port", Href, "the Terraform circuit parses the port's href"),
    ("VlanVirtualCircuit", "project", Href, "the Terraform circuit reads with include=project"),
    ("VlanVirtualCircuit", "virtual_network", Href, "the Terraform circuit reads with include=virtual_network"),
    ("Vrf", "created_by", Href, "the spec's rule"),
    ("Vrf", "metro", Whole, "the Terraform VRF reads metro.code"),
    ("Vrf", "project", Href, "the Terraform VRF reads with include=project"),
    ("Vrf", "virtual_circuits", Whole, "the VRF's circuits with their peering (the Terraform VRF reads them)"),
    ("VrfIpReservation", "created_by", Href, "the spec's Href"),
    ("VrfIpReservation", "metal_gateway", Whole, "as IPReservation's"),
    ("VrfIpReservation", "metro", Whole, "as IPReservation's"),
    ("VrfIpReservation", "project", Href, "the spec's rule"),
    ("VrfIpReservation", "project_lite", Href, "the spec's rule"),
    ("VrfIpReservation", "vrf", Href, "the Terraform reserved block reads with include=vrf"),
    ("VrfMetalGateway", "created_by", Href, "the spec's rule"),
    ("VrfMetalGateway", "ip_reservation", Href, "as MetalGateway's"),
    ("VrfMetalGateway", "project", Href, "the spec's rule"),
    ("VrfMetalGateway", "virtual_network", Href, "as MetalGateway's"),
    ("VrfMetalGateway", "vrf", Href, "the Terraform gateway reads with include=vrf"),
    ("VrfRoute", "metal_gateway", Href, "the spec's rule"),
    ("VrfRoute", "virtual_network", Href, "the spec's rule"),
    ("VrfRoute", "vrf", Href, "the Terraform route reads with include=vrf"),
    ("VrfVirtualCircuit", "port", Href, "as VlanVirtualCircuit's"),
    ("VrfVirtualCircuit", "project", Href, "as VlanVirtualCircuit's"),
    ("VrfVirtualCircuit", "vrf", Href, "the Terraform circuit reads with include=vrf"),
];

/// References the fake never sends in a world with one of everything
/// (absent, or an empty list), each with why: the test does not ask the
/// world for them, and the table's row applies wherever one is sent.
const NOT_SENT: &[(&str, &str, &str)] = &[
    (
        "Device",
        "volumes",
        "block storage left the API before the spec the fake follows: always []",
    ),
    (
        "Project",
        "volumes",
        "block storage left the API: always []",
    ),
    (
        "Project",
        "invitations",
        "a project's invitations are listed by their own read: always []",
    ),
    (
        "SpotMarketRequest",
        "instances",
        "the fake lists a request's devices as `devices`",
    ),
];

/// References whose href no read of the spec serves, so that `include`
/// leaves them an href: (schema, property, why). The test fails once one
/// becomes whole.
const UNREADABLE: &[(&str, &str, &str)] = &[
    (
        "License",
        "licensee_product",
        "the spec has no read of a licensee product",
    ),
    (
        "Project",
        "bgp_config",
        "the spec reads a BGP configuration by its project only, not by its href",
    ),
    (
        "Project",
        "memberships",
        "the project's owner's membership has no record of its own",
    ),
];

/// The seeded things' IDs.
const ACME: &str = "0a000000-0000-4000-8000-000000000001";
const PROD: &str = "0b000000-0000-4000-8000-000000000001";
const GLOBEX: &str = "0b000000-0000-4000-8000-000000000003";
const GLOBEX_ORG: &str = "0a000000-0000-4000-8000-000000000002";
const DEVICE: &str = "0d000000-0000-4000-8000-000000000002";
const RESERVATION: &str = "0c000000-0000-4000-8000-000000000005";
const USER_KEY: &str = "0e000000-0000-4000-8000-000000000001";
const BLOCK: &str = "0f000000-0000-4000-8000-000000000001";
const VRF: &str = "0a100000-0000-4000-8000-000000000001";
const VRF_BLOCK: &str = "0f000000-0000-4000-8000-000000000002";
const ROUTE: &str = "0a200000-0000-4000-8000-000000000001";
const VLAN: &str = "0a300000-0000-4000-8000-000000000001";
const GATEWAY: &str = "0a400000-0000-4000-8000-000000000001";
const PUBLIC_GATEWAY: &str = "0a400000-0000-4000-8000-000000000002";
const PUBLIC_VLAN: &str = "0a300000-0000-4000-8000-000000000002";
const PUBLIC_BLOCK: &str = "0f000000-0000-4000-8000-000000000003";
const NEIGHBOR: &str = "0a600000-0000-4000-8000-000000000001";
const DEDICATED: &str = "0c000000-0000-4000-8000-0000000000c1";
const DEDICATED_PORT: &str = "0c000000-0000-4000-8000-0000000000d1";
const SHARED: &str = "0c000000-0000-4000-8000-0000000000c2";
const CIRCUIT: &str = "0c000000-0000-4000-8000-0000000000a1";
const VRF_CONNECTION: &str = "0c000000-0000-4000-8000-0000000000c4";
const VRF_CIRCUIT_PORT: &str = "0c000000-0000-4000-8000-0000000000d4";
const EVENT: &str = "0e000000-0000-4000-8000-0000000000e1";
const LICENSE: &str = "0f000000-0000-4000-8000-0000000000c1";
const BATCH: &str = "0f100000-0000-4000-8000-000000000001";
const SPOT: &str = "0f200000-0000-4000-8000-000000000001";
const INVITATION: &str = "0f300000-0000-4000-8000-000000000001";
const MEMBERSHIP: &str = "0f400000-0000-4000-8000-000000000001";
const TRANSFER: &str = "0f500000-0000-4000-8000-000000000001";
const PAYMENT: &str = "0f600000-0000-4000-8000-000000000001";
const SESSION: &str = "0f700000-0000-4000-8000-000000000001";
const OTHER_USER: &str = "0f800000-0000-4000-8000-000000000001";
const FACILITY_VLAN: &str = "0a300000-0000-4000-8000-000000000003";

/// A world with one of everything a reference can name.
fn world() -> WorldDoc {
    let mut doc = crate::example_world::json();
    doc["projects"][2]["bgp_config"] = json!({"asn": 65000, "deployment_type": "local"});
    doc["organizations"][0]["members"] = json!([OTHER_USER]);
    doc["users"] = json!([{"id": OTHER_USER, "first_name": "Wile", "last_name": "Coyote",
                           "email": "wile@acme.example"}]);
    doc["ip_reservations"] = json!([
        {"id": BLOCK, "project": GLOBEX, "type": "public_ipv4", "network": "147.75.200.8",
         "cidr": 29, "metro": "sv",
         "assignments": [{"id": "0f000000-0000-4000-8000-0000000000a1", "device": DEVICE,
                          "address": "147.75.200.9"}]},
        {"id": VRF_BLOCK, "project": GLOBEX, "type": "vrf", "network": "192.168.100.0",
         "cidr": 29, "metro": "sv", "vrf": VRF},
        {"id": PUBLIC_BLOCK, "project": GLOBEX, "type": "public_ipv4", "network": "147.75.201.0",
         "cidr": 29, "metro": "sv"},
        {"id": "0f000000-0000-4000-8000-000000000004", "project": GLOBEX, "type": "public_ipv4",
         "network": "147.75.202.0", "cidr": 30, "facility": "sv15"}
    ]);
    doc["vrfs"] = json!([{"id": VRF, "project": GLOBEX, "metro": "sv", "name": "globex-vrf",
                          "ip_ranges": ["192.168.100.0/25"]}]);
    doc["virtual_networks"] = json!([
        {"id": VLAN, "project": GLOBEX, "metro": "sv", "vxlan": 1000},
        {"id": PUBLIC_VLAN, "project": GLOBEX, "metro": "sv", "vxlan": 1001},
        {"id": FACILITY_VLAN, "project": GLOBEX, "metro": "sv", "facility": "sv15", "vxlan": 1002}
    ]);
    doc["metal_gateways"] = json!([
        {"id": GATEWAY, "project": GLOBEX, "virtual_network": VLAN, "ip_reservation": VRF_BLOCK},
        {"id": PUBLIC_GATEWAY, "project": GLOBEX, "virtual_network": PUBLIC_VLAN,
         "ip_reservation": PUBLIC_BLOCK}
    ]);
    doc["bgp_dynamic_neighbors"] = json!([{"id": NEIGHBOR, "metal_gateway": GATEWAY,
        "bgp_neighbor_range": "192.168.100.0/30", "bgp_neighbor_asn": 65001}]);
    doc["vrf_routes"] = json!([{"id": ROUTE, "vrf": VRF, "prefix": "0.0.0.0/0",
                                "next_hop": "192.168.100.2"}]);
    doc["global_bgp_ranges"] = json!([{"id": "0a500000-0000-4000-8000-000000000001",
        "project": GLOBEX, "range": "147.75.0.0/24"}]);
    doc["bgp_sessions"] = json!([{"id": SESSION, "device": DEVICE, "address_family": "ipv4",
                                  "default_route": true}]);
    doc["ports"] = json!([{"device": DEVICE, "name": "bond0", "virtual_networks": [VLAN],
                           "native_virtual_network": VLAN}]);
    let vlan = "0e000000-0000-4000-8000-0000000000e1";
    doc["virtual_networks"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": vlan, "project": PROD, "metro": "da", "vxlan": 1000}));
    doc["interconnections"] = json!([
        {"id": DEDICATED, "organization": ACME, "name": "port", "metro": "da", "type": "dedicated",
         "redundancy": "primary", "speed": 10_000_000_000u64, "ports": [DEDICATED_PORT]},
        {"id": SHARED, "organization": ACME, "project": PROD,
         "name": "shared", "metro": "da", "type": "shared", "redundancy": "redundant",
         "speed": 50_000_000, "service_token_type": "a_side",
         "ports": ["0c000000-0000-4000-8000-0000000000d2", "0c000000-0000-4000-8000-0000000000d3"],
         "service_tokens": ["0c000000-0000-4000-8000-0000000000f2", "0c000000-0000-4000-8000-0000000000f3"],
         "status": "requested"},
        {"id": "0c000000-0000-4000-8000-0000000000c4", "organization": GLOBEX_ORG,
         "name": "vrf-port", "metro": "sv", "type": "dedicated", "redundancy": "primary",
         "speed": 10_000_000_000u64, "ports": [VRF_CIRCUIT_PORT]}
    ]);
    doc["virtual_circuits"] = json!([
        {"id": CIRCUIT, "interconnection": DEDICATED, "port": DEDICATED_PORT, "project": PROD,
         "virtual_network": vlan, "nni_vlan": 100, "name": "vc", "speed": 1_000_000_000},
        {"id": "0c000000-0000-4000-8000-0000000000a4", "interconnection": "0c000000-0000-4000-8000-0000000000c4",
         "port": VRF_CIRCUIT_PORT, "project": GLOBEX, "nni_vlan": 101, "vrf": VRF,
         "peering": {"peer_asn": 65530, "subnet": "192.168.100.32/31",
                     "metal_ip": "192.168.100.32", "customer_ip": "192.168.100.33"}}
    ]);
    doc["licenses"] = json!([{"id": LICENSE, "project": PROD,
        "licensee_product_id": "windows-server", "size": 2.0, "license_key": "KEY"}]);
    doc["batches"] = json!([{"id": BATCH, "project": GLOBEX, "quantity": 1, "state": "completed",
                             "devices": [DEVICE]}]);
    doc["spot_market_requests"] = json!([{"id": SPOT, "project": GLOBEX, "plan": "c3.small.x86",
        "metro": "sv", "devices_min": 1, "devices_max": 1, "max_bid_price": 0.3}]);
    doc["invitations"] = json!([{"id": INVITATION, "organization": ACME, "invitee": "new@acme.example",
                                 "projects": [PROD]}]);
    doc["memberships"] = json!([{"id": MEMBERSHIP, "project": PROD, "user": OTHER_USER}]);
    doc["transfers"] = json!([{"id": TRANSFER, "project": "0b000000-0000-4000-8000-000000000002",
                               "target_organization": GLOBEX_ORG}]);
    doc["payment_methods"] = json!([{"id": PAYMENT, "organization": ACME, "name": "card",
                                     "default": true}]);
    doc["emails"] = json!([{"id": "0f900000-0000-4000-8000-000000000001",
        "user": OTHER_USER, "address": "coyote@acme.example"}]);
    doc["api_keys"] = json!([{"id": "0fa00000-0000-4000-8000-000000000002",
        "token": "project-api-key", "description": "project", "project": PROD}]);
    doc["events"] = json!([{
        "id": EVENT, "type": "provisioning.110",
        "body": "Provision complete! Your device is ready to go.",
        "created_at": "2024-06-04T23:53:17Z", "project": GLOBEX, "device": DEVICE,
        "relationships": [format!("/metal/v1/devices/{DEVICE}")]
    }]);
    serde_json::from_value(doc).unwrap()
}

/// The reads with `include` or `exclude` in the spec: (operationId, its
/// path template, whether it takes `exclude`).
fn spec_reads() -> Vec<(String, String, bool)> {
    let spec: Value = serde_json::from_str(include_str!("../../../openapi/metal.json")).unwrap();
    let param = |p: &Value| -> String {
        match p.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.rsplit('/').next().unwrap();
                spec["components"]["parameters"][name]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            }
            None => p["name"].as_str().unwrap_or_default().to_string(),
        }
    };
    let mut reads = Vec::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        let Some(op) = item.get("get") else { continue };
        let names: Vec<String> = op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .map(param)
            .collect();
        if names.iter().any(|n| n == "include") || names.iter().any(|n| n == "exclude") {
            reads.push((
                op["operationId"].as_str().unwrap().to_string(),
                path.clone(),
                names.iter().any(|n| n == "exclude"),
            ));
        }
    }
    reads
}

/// Whether the schema `name` (or one it is one of) is a thing with an
/// `id` or an `href`: a reference.
fn is_reference(name: &str) -> bool {
    let Some(s) = shape::find(name) else {
        return false;
    };
    s.property("id").is_some()
        || s.property("href").is_some()
        || s.one_of.iter().any(|alt| is_reference(alt))
}

/// The schema `item` is, of `name` or its alternatives: the one whose
/// properties hold the most of its keys.
fn schema_of(name: &'static str, item: &Value) -> &'static str {
    let Some(s) = shape::find(name) else {
        return name;
    };
    if s.one_of.is_empty() {
        return name;
    }
    let keys: Vec<&String> = item
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    s.one_of
        .iter()
        .copied()
        .max_by_key(|alt| {
            let fit = shape::find(alt).map_or(0, |a| {
                keys.iter().filter(|k| a.property(k).is_some()).count()
            });
            let typed = item["type"].as_str().is_some_and(|t| {
                shape::find(alt)
                    .and_then(|a| a.property("type"))
                    .is_some_and(|p| p.values.contains(&t))
            });
            // Of those that fit as well, the one with the fewest
            // properties the entry lacks.
            let spare =
                shape::find(alt).map_or(0, |a| a.properties.len() - fit.min(a.properties.len()));
            (typed, fit, std::cmp::Reverse(spare))
        })
        .map_or(name, |alt| schema_of(alt, item))
}

/// The things of a reply with their schemas: the reply itself, or each
/// entry of a list.
fn things(operation: &str, reply: &Value) -> Vec<(&'static str, Value)> {
    let name = shape::reply(operation).unwrap_or_else(|| panic!("{operation} has no reply"));
    let is_thing = reply.get("id").is_some() || reply.get("href").is_some();
    if is_thing {
        return vec![(schema_of(name, reply), reply.clone())];
    }
    let s = shape::find(name).unwrap();
    let mut out = Vec::new();
    for p in s.properties.iter().filter(|p| p.array) {
        let Some(item) = p.shape else { continue };
        for entry in reply[p.name].as_array().into_iter().flatten() {
            // The spec's InvitationList says its entries are Memberships;
            // they are invitations.
            let item = if entry.get("invitee").is_some() {
                "Invitation"
            } else {
                item
            };
            out.push((schema_of(item, entry), entry.clone()));
        }
    }
    out
}

/// What `value` (a reference, or a list of them) is, if anything.
fn seen(value: &Value) -> Option<Seen> {
    // A plan's places are `{href, price}` when not included.
    let one = |v: &Value| match v {
        Value::Object(m)
            if m.contains_key("href") && m.keys().all(|k| k == "href" || k == "price") =>
        {
            Some(Seen::Href)
        }
        Value::Object(m) if !m.is_empty() => Some(Seen::Whole),
        _ => None,
    };
    match value {
        Value::Array(items) => {
            let kinds: BTreeSet<_> = items.iter().map(one).collect();
            match kinds.len() {
                1 => kinds.into_iter().next().flatten(),
                _ => None,
            }
        }
        other => one(other),
    }
}

/// The reference properties of schema `name`.
fn references(name: &str) -> Vec<&'static str> {
    shape::find(name)
        .map(|s| {
            s.properties
                .iter()
                .filter(|p| p.shape.is_some_and(is_reference))
                .map(|p| p.name)
                .collect()
        })
        .unwrap_or_default()
}

async fn get(fake: &Fake, path: &str) -> Value {
    let (status, body) = http::in_process(fake, TOKEN, "GET", path, None).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

/// `path` with `name=value` added to its query.
fn with(path: &str, name: &str, value: &str) -> String {
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("{path}{sep}{name}={value}")
}

/// The fake with the world, as the token's (which sees every project).
async fn fake() -> (Fake, BTreeMap<&'static str, String>) {
    let mut doc = world();
    doc.tokens.push(metal_fake::document::Token {
        token: TOKEN.into(),
        organizations: vec![ACME.parse().unwrap(), GLOBEX_ORG.parse().unwrap()],
        projects: vec![],
        user: None,
    });
    let fake = Fake::builder().world(doc).build();
    // What only the API makes: a port VLAN batch, and its assignment.
    let device = get(&fake, &format!("/devices/{DEVICE}")).await;
    let port = device["network_ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "bond0")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, batch) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &format!("/ports/{port}/vlan-assignments/batches"),
        Some(json!({"vlan_assignments": [{"vlan": PUBLIC_VLAN, "state": "assigned"}]})),
    )
    .await;
    assert_eq!(status, 201, "{batch}");
    fake.advance(std::time::Duration::from_secs(60)).unwrap();
    let assignments = get(&fake, &format!("/ports/{port}/vlan-assignments")).await;
    let assignment = assignments["vlan_assignments"][0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{assignments}"))
        .to_string();
    // A device made as a client makes one: it gets the project's and the
    // user's keys.
    let (status, made) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{GLOBEX}/devices"),
        Some(
            json!({"metro": "sv", "plan": "c3.small.x86", "operating_system": "ubuntu_22_04",
                    "hostname": "made"}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    fake.advance(std::time::Duration::from_secs(3600)).unwrap();
    let (status, key) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        "/user/api-keys",
        Some(json!({"description": "mine"})),
    )
    .await;
    assert_eq!(status, 201, "{key}");
    let events = get(&fake, &format!("/devices/{DEVICE}/events")).await;
    let event = events["events"][0]["id"].as_str().unwrap().to_string();
    let mut ids = BTreeMap::new();
    ids.insert("port", port);
    ids.insert("batch", batch["id"].as_str().unwrap().to_string());
    ids.insert("assignment", assignment);
    ids.insert("event", event);
    ids.insert("device", made["id"].as_str().unwrap().to_string());
    (fake, ids)
}

/// Each read's path in the world, by operationId.
fn paths(ids: &BTreeMap<&'static str, String>) -> BTreeMap<&'static str, String> {
    let port = &ids["port"];
    let batch = &ids["batch"];
    let assignment = &ids["assignment"];
    let event = &ids["event"];
    let shared_port = "0c000000-0000-4000-8000-0000000000d2";
    BTreeMap::from([
        ("findBatchById", format!("/batches/{BATCH}")),
        (
            "findBgpDynamicNeighborById",
            format!("/bgp-dynamic-neighbors/{NEIGHBOR}"),
        ),
        ("findBgpSessionById", format!("/bgp/sessions/{SESSION}")),
        ("getInterconnection", format!("/connections/{SHARED}")),
        (
            "findInterconnectionEvents",
            format!("/connections/{SHARED}/events"),
        ),
        (
            "getInterconnectionPort",
            format!("/connections/{DEDICATED}/ports/{DEDICATED_PORT}"),
        ),
        (
            "findInterconnectionPortEvents",
            format!("/connections/{SHARED}/ports/{shared_port}/events"),
        ),
        (
            "listInterconnectionPortVirtualCircuits",
            format!("/connections/{VRF_CONNECTION}/ports/{VRF_CIRCUIT_PORT}/virtual-circuits"),
        ),
        ("findDeviceById", format!("/devices/{}", ids["device"])),
        (
            "getBgpNeighborData",
            format!("/devices/{DEVICE}/bgp/neighbors"),
        ),
        ("findBgpSessions", format!("/devices/{DEVICE}/bgp/sessions")),
        ("findDeviceEvents", format!("/devices/{DEVICE}/events")),
        ("findIPAssignments", format!("/devices/{DEVICE}/ips")),
        (
            "findDeviceSSHKeys",
            format!("/devices/{}/ssh-keys", ids["device"]),
        ),
        ("findEvents", "/events".to_string()),
        ("findEventById", format!("/events/{event}")),
        ("findFacilities", "/facilities".to_string()),
        (
            "findHardwareReservationById",
            format!("/hardware-reservations/{RESERVATION}"),
        ),
        ("findIncidents", "/incidents".to_string()),
        ("findInvitations", "/invitations".to_string()),
        ("findInvitationById", format!("/invitations/{INVITATION}")),
        ("findIPAddressById", format!("/ips/{BLOCK}")),
        ("findLicenseById", format!("/licenses/{LICENSE}")),
        ("findMembershipById", format!("/memberships/{MEMBERSHIP}")),
        (
            "findMetalGatewayById",
            format!("/metal-gateways/{PUBLIC_GATEWAY}"),
        ),
        (
            "getBgpDynamicNeighbors",
            format!("/metal-gateways/{GATEWAY}/bgp-dynamic-neighbors"),
        ),
        (
            "getMetalGatewayElasticIps",
            format!("/metal-gateways/{GATEWAY}/ips"),
        ),
        ("findOrganizations", "/organizations".to_string()),
        ("findOrganizationById", format!("/organizations/{ACME}")),
        (
            "findOrganizationDevices",
            format!("/organizations/{GLOBEX_ORG}/devices"),
        ),
        (
            "findOrganizationEvents",
            format!("/organizations/{GLOBEX_ORG}/events"),
        ),
        (
            "findFacilitiesByOrganization",
            format!("/organizations/{ACME}/facilities"),
        ),
        (
            "findOrganizationInvitations",
            format!("/organizations/{ACME}/invitations"),
        ),
        (
            "findOperatingSystemsByOrganization",
            format!("/organizations/{ACME}/operating-systems"),
        ),
        (
            "findOrganizationPaymentMethods",
            format!("/organizations/{ACME}/payment-methods"),
        ),
        (
            "findPlansByOrganization",
            format!("/organizations/{ACME}/plans"),
        ),
        (
            "findOrganizationProjects",
            format!("/organizations/{ACME}/projects"),
        ),
        (
            "findOrganizationTransfers",
            format!("/organizations/{ACME}/transfers"),
        ),
        (
            "organizationListInterconnections",
            format!("/organizations/{ACME}/connections"),
        ),
        (
            "findPaymentMethodById",
            format!("/payment-methods/{PAYMENT}"),
        ),
        ("findPlans", "/plans".to_string()),
        ("findPortById", format!("/ports/{port}")),
        (
            "findPortVlanAssignments",
            format!("/ports/{port}/vlan-assignments"),
        ),
        (
            "findPortVlanAssignmentBatchByPortIdAndBatchId",
            format!("/ports/{port}/vlan-assignments/batches/{batch}"),
        ),
        (
            "findPortVlanAssignmentByPortIdAndAssignmentId",
            format!("/ports/{port}/vlan-assignments/{assignment}"),
        ),
        ("findProjects", "/projects".to_string()),
        ("findProjectById", format!("/projects/{PROD}")),
        ("findProjectAPIKeys", format!("/projects/{PROD}/api-keys")),
        (
            "findBatchesByProject",
            format!("/projects/{GLOBEX}/batches"),
        ),
        (
            "findBgpConfigByProject",
            format!("/projects/{GLOBEX}/bgp-config"),
        ),
        ("findProjectDevices", format!("/projects/{GLOBEX}/devices")),
        ("findProjectEvents", format!("/projects/{GLOBEX}/events")),
        (
            "findFacilitiesByProject",
            format!("/projects/{PROD}/facilities"),
        ),
        (
            "findProjectHardwareReservations",
            format!("/projects/{GLOBEX}/hardware-reservations"),
        ),
        ("findIPReservations", format!("/projects/{GLOBEX}/ips")),
        ("findProjectLicenses", format!("/projects/{PROD}/licenses")),
        ("findPlansByProject", format!("/projects/{PROD}/plans")),
        ("findProjectSSHKeys", format!("/projects/{PROD}/ssh-keys")),
        (
            "findVirtualNetworks",
            format!("/projects/{GLOBEX}/virtual-networks"),
        ),
        ("findVrfs", format!("/projects/{GLOBEX}/vrfs")),
        (
            "projectListInterconnections",
            format!("/projects/{PROD}/connections"),
        ),
        (
            "findProjectInvitations",
            format!("/projects/{PROD}/invitations"),
        ),
        (
            "findProjectMemberships",
            format!("/projects/{PROD}/memberships"),
        ),
        (
            "findMetalGatewaysByProject",
            format!("/projects/{GLOBEX}/metal-gateways"),
        ),
        ("findVrfRouteById", format!("/routes/{ROUTE}")),
        ("findVrfRouteEvents", format!("/routes/{ROUTE}/events")),
        (
            "findSpotMarketRequestById",
            format!("/spot-market-requests/{SPOT}"),
        ),
        ("findSSHKeys", "/ssh-keys".to_string()),
        ("findSSHKeyById", format!("/ssh-keys/{USER_KEY}")),
        ("findTransferRequestById", format!("/transfers/{TRANSFER}")),
        ("findCurrentUser", "/user".to_string()),
        ("findAPIKeys", "/user/api-keys".to_string()),
        ("findUsers", "/users".to_string()),
        ("findUserById", format!("/users/{OTHER_USER}")),
        ("getVirtualCircuit", format!("/virtual-circuits/{CIRCUIT}")),
        (
            "findVirtualCircuitEvents",
            format!("/virtual-circuits/{CIRCUIT}/events"),
        ),
        (
            "getVirtualNetwork",
            format!("/virtual-networks/{FACILITY_VLAN}"),
        ),
        ("findVrfById", format!("/vrfs/{VRF}")),
        ("findVrfIpReservations", format!("/vrfs/{VRF}/ips")),
        ("getVrfRoutes", format!("/vrfs/{VRF}/routes")),
        (
            "findVrfIpReservation",
            format!("/vrfs/{VRF}/ips/{VRF_BLOCK}"),
        ),
    ])
}

/// Whether some value of `property` among `things` of `schema` is whole
/// (a list's entries may name things gone since, whose hrefs stay).
fn some_whole(things: &[(&'static str, Value)], schema: &str, property: &str) -> bool {
    things
        .iter()
        .filter(|(s, _)| *s == schema)
        .any(|(_, t)| t.get(property).and_then(seen) == Some(Seen::Whole))
}

/// The first value of `property` among `things` of `schema` that says
/// whole or href.
fn first_seen(things: &[(&'static str, Value)], schema: &str, property: &str) -> Option<Seen> {
    things
        .iter()
        .filter(|(s, _)| *s == schema)
        .find_map(|(_, t)| t.get(property).and_then(seen))
}

#[tokio::test(start_paused = true)]
async fn every_reference_of_every_read_is_whole_or_an_href_as_the_real_api_sent_it() {
    let (fake, ids) = fake().await;
    let paths = paths(&ids);
    let mut problems = Vec::new();
    // The (schema, property) rows seen in some reply.
    let mut walked: BTreeSet<(&str, &str)> = BTreeSet::new();
    let listed = |list: &[(&str, &str, &str)], schema: &str, property: &str| {
        list.iter().any(|(s, p, _)| *s == schema && *p == property)
    };
    for (operation, template, takes_exclude) in spec_reads() {
        if shape::reply(&operation).is_none() {
            continue;
        }
        let Some(path) = paths.get(operation.as_str()) else {
            problems.push(format!("{operation} ({template}) has no path in the world"));
            continue;
        };
        let default = things(&operation, &get(&fake, path).await);
        let schemas: BTreeSet<&'static str> = default.iter().map(|(s, _)| *s).collect();
        for schema in schemas {
            let refs = references(schema);
            if refs.is_empty() {
                continue;
            }
            // packngo's form: every name comma-joined in one `include`.
            let joined = with(path, "include", &refs.join(","));
            let all = things(&operation, &get(&fake, &joined).await);
            for property in refs {
                let Some(&(_, _, sent, _)) = DEFAULTS
                    .iter()
                    .find(|(s, p, _, _)| *s == schema && *p == property)
                else {
                    problems.push(format!(
                        "{operation}: {schema}.{property} is not in DEFAULTS"
                    ));
                    continue;
                };
                let Some(now) = first_seen(&default, schema, property) else {
                    continue;
                };
                walked.insert((schema, property));
                let expected = match sent {
                    Sent::Whole | Sent::Data => Seen::Whole,
                    Sent::Href => Seen::Href,
                };
                if now != expected {
                    problems.push(format!(
                        "{operation} {path}: {schema}.{property} is {now:?} by default, the real API sent {sent:?}"
                    ));
                }
                let whole = !listed(UNREADABLE, schema, property);
                let included = with(path, "include", property);
                let got = some_whole(
                    &things(&operation, &get(&fake, &included).await),
                    schema,
                    property,
                );
                if got != whole {
                    problems.push(format!("GET {included}: {schema}.{property} whole: {got}"));
                }
                if some_whole(&all, schema, property) != whole {
                    problems.push(format!(
                        "GET {joined}: {schema}.{property} whole: {}",
                        !whole
                    ));
                }
                if takes_exclude && sent != Sent::Data {
                    let excluded = with(path, "exclude", property);
                    let got = first_seen(
                        &things(&operation, &get(&fake, &excluded).await),
                        schema,
                        property,
                    );
                    if got != Some(Seen::Href) {
                        problems.push(format!("GET {excluded}: {schema}.{property} is {got:?}"));
                    }
                }
            }
        }
    }
    for &(schema, property, sent, _) in DEFAULTS {
        let seen = walked.contains(&(schema, property));
        if !seen && sent != Sent::Data && !listed(NOT_SENT, schema, property) {
            problems.push(format!("{schema}.{property}: no reply of the world has it"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Dotted names reach into what they include (`project.organization`),
/// and into what is whole by default (`facility.metro`), for `include`
/// and `exclude` alike; a name under one not included includes it.
#[tokio::test(start_paused = true)]
async fn dotted_names_reach_into_nested_things() {
    let (fake, ids) = fake().await;
    let device = &ids["device"];
    let d = get(
        &fake,
        &format!("/devices/{device}?include=project.organization"),
    )
    .await;
    assert_eq!(seen(&d["project"]), Some(Seen::Whole), "{d}");
    assert_eq!(d["project"]["organization"]["id"], GLOBEX_ORG, "{d}");
    // Only what is named: the project's other references stay hrefs.
    assert_eq!(seen(&d["project"]["payment_method"]), Some(Seen::Href));
    let d = get(&fake, &format!("/devices/{device}?exclude=facility.metro")).await;
    assert_eq!(seen(&d["facility"]), Some(Seen::Whole));
    assert_eq!(seen(&d["facility"]["metro"]), Some(Seen::Href), "{d}");
    assert_eq!(seen(&d["metro"]), Some(Seen::Whole));
    let p = get(&fake, &format!("/projects/{GLOBEX}?include=members.emails")).await;
    let emails = &p["members"][0]["emails"];
    assert!(
        emails[0]["address"]
            .as_str()
            .is_some_and(|a| a.contains('@')),
        "{p}"
    );
    // Three levels, as the spec allows.
    let b = get(
        &fake,
        &format!("/bgp/sessions/{SESSION}?include=device.project.organization"),
    )
    .await;
    assert_eq!(
        b["device"]["project"]["organization"]["id"], GLOBEX_ORG,
        "{b}"
    );
}

/// A plain name reaches references inside lists and nested objects, as
/// the Terraform providers read them: each network port's
/// `virtual_networks` with `include=virtual_networks,native_virtual_network`
/// (equinix/equinix v4.16.1 `internal/resources/metal/port/helpers.go`,
/// `defaultPortIncludes`, on `FindDeviceById` and `FindPortById`, which
/// match a port's VLANs by `vxlan`), and each connection port's circuits'
/// `project` with `include=project` (`connection/resource.go` reads the
/// connection with it, `connection/models.go` takes `project_id` from
/// `Ports[0].VirtualCircuits[0].GetProject().GetId()`).
#[tokio::test(start_paused = true)]
async fn plain_names_reach_references_inside_lists() {
    let (fake, _) = fake().await;
    let path = format!("/devices/{DEVICE}");
    let bond = |d: &Value| {
        d["network_ports"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "bond0")
            .cloned()
            .unwrap_or_else(|| panic!("no bond0 in {d}"))
    };
    // Without the name: hrefs, as the real API sent them.
    let port = bond(&get(&fake, &path).await);
    assert_eq!(
        seen(&port["virtual_networks"][0]),
        Some(Seen::Href),
        "{port}"
    );
    let d = get(
        &fake,
        &with(&path, "include", "virtual_networks,native_virtual_network"),
    )
    .await;
    let port = bond(&d);
    let vxlans: Vec<&Value> = port["virtual_networks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["vxlan"])
        .collect();
    assert!(vxlans.contains(&&json!(1000)), "{port}");
    assert_eq!(port["native_virtual_network"]["vxlan"], 1000, "{port}");
    // The port read alone, as the port resource reads it.
    let id = port["id"].as_str().unwrap();
    let p = get(&fake, &format!("/ports/{id}?include=virtual_networks")).await;
    assert!(p["virtual_networks"][0]["vxlan"].is_number(), "{p}");
    // A dotted name stays where it names.
    let d = get(&fake, &with(&path, "include", "project.organization")).await;
    assert_eq!(seen(&bond(&d)["virtual_networks"][0]), Some(Seen::Href));
    // The connection's circuits' project, and its exclusion at any depth.
    let c = get(&fake, &format!("/connections/{DEDICATED}?include=project")).await;
    let vc = &c["ports"][0]["virtual_circuits"][0];
    assert_eq!(vc["project"]["id"], PROD, "{c}");
    let c = get(&fake, &format!("/connections/{DEDICATED}?exclude=project")).await;
    let vc = &c["ports"][0]["virtual_circuits"][0];
    assert_eq!(seen(&vc["project"]), Some(Seen::Href), "{c}");
}

/// packngo's reads that asked for what they use: a project's members
/// (`TestAccProjectExtra`), a user's emails (`TestAccUsersList`), a BGP
/// configuration's sessions (`TestAccBGPSession`), a device's keys
/// (`TestAccDeviceSSHKeys`) and a gateway's reservation, comma-joined as
/// packngo sends them.
#[tokio::test(start_paused = true)]
async fn what_packngo_asks_for_is_whole() {
    let (fake, ids) = fake().await;
    let p = get(&fake, &format!("/projects/{PROD}?include=members")).await;
    assert!(
        p["members"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["id"].is_string()),
        "{p}"
    );
    let users = get(&fake, "/users").await;
    let first = users["users"][0]["id"].as_str().unwrap();
    let u = get(&fake, &format!("/users/{first}?include=emails")).await;
    assert!(
        u["emails"][0]["address"]
            .as_str()
            .is_some_and(|a| !a.is_empty()),
        "{u}"
    );
    let c = get(
        &fake,
        &format!("/projects/{GLOBEX}/bgp-config?include=sessions"),
    )
    .await;
    assert_eq!(c["sessions"][0]["id"], SESSION, "{c}");
    let device = &ids["device"];
    let d = get(&fake, &format!("/devices/{device}?include=ssh_keys")).await;
    assert_eq!(d["ssh_keys"][0]["id"], USER_KEY, "{d}");
    let g = get(
        &fake,
        &format!("/metal-gateways/{PUBLIC_GATEWAY}?include=ip_reservation,virtual_network"),
    )
    .await;
    assert_eq!(g["ip_reservation"]["id"], PUBLIC_BLOCK, "{g}");
    assert_eq!(g["virtual_network"]["id"], PUBLIC_VLAN, "{g}");
    // A gateway's kind shows with `include=ip_reservation`: a VRF
    // gateway's block is a VRF block (the Terraform provider tells them
    // apart so).
    let g = get(
        &fake,
        &format!("/metal-gateways/{GATEWAY}?include=ip_reservation"),
    )
    .await;
    assert_eq!(g["ip_reservation"]["type"], "vrf", "{g}");
}

/// An organisation's addresses are not in its replies unless included
/// (metal-cli's organisation helper: "the address is not included by
/// default", so it asks `include=address,billing_address` on its create
/// and update); included, each is as the create gave it.
#[tokio::test(start_paused = true)]
async fn an_organisation_s_addresses_are_shown_only_when_included() {
    let (fake, _) = fake().await;
    let address =
        json!({"address": "Boston", "city": "Boston", "country": "US", "zip_code": "02108"});
    let (status, made) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        "/organizations?include=address,billing_address",
        Some(json!({"name": "addressed", "address": address, "billing_address": address})),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["address"], address);
    assert_eq!(made["billing_address"], address);
    let path = format!("/organizations/{}", made["id"].as_str().unwrap());
    let plain = get(&fake, &path).await;
    assert!(
        plain.get("address").is_none() && plain.get("billing_address").is_none(),
        "{plain}"
    );
    let one = get(&fake, &format!("{path}?include=address")).await;
    assert_eq!(
        (&one["address"], one.get("billing_address")),
        (&address, None)
    );
    let (status, updated) = http::in_process(
        &fake,
        TOKEN,
        "PUT",
        &format!("{path}?include=billing_address"),
        Some(json!({"billing_address": {"address": "1 Main St", "country": "GB", "zip_code": "12345"}})),
    )
    .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["billing_address"]["country"], "GB");
    let listed = get(&fake, "/organizations?include=address&per_page=100").await;
    assert!(
        listed["organizations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["address"] == address),
        "{listed}"
    );
}

/// A list of devices writes the references its request excludes
/// (`plan`, `facility`, `metro`, `ip_addresses`, as `metal_policy`'s
/// device watch excludes them) in the device's view, without the walk
/// every other reply takes: each combination of them, on the project's
/// and the organisation's lists, gives each device as its own read with
/// the same `exclude` gives it (the read walks), for devices queued,
/// active with their addresses, with a reserved block's addresses, and
/// with custom data holding keys of those names (user data: neither way
/// cuts inside it).
#[tokio::test(start_paused = true)]
async fn a_device_list_s_excludes_are_each_device_s_read_with_them() {
    let (fake, _) = fake().await;
    let customdata = json!({"plan": {"id": "mine", "slug": "mine"},
                            "metro": {"href": "/metal/v1/somewhere"},
                            "ip_addresses": [{"href": "/metal/v1/ips/x", "address": "a"}]});
    let (status, made) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{GLOBEX}/devices"),
        Some(
            json!({"metro": "sv", "plan": "c3.small.x86", "operating_system": "ubuntu_22_04",
                    "hostname": "queued", "customdata": customdata}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let names = ["plan", "facility", "metro", "ip_addresses"];
    let lists = [
        format!("/projects/{PROD}/devices"),
        format!("/projects/{GLOBEX}/devices"),
        format!("/organizations/{ACME}/devices"),
        format!("/organizations/{GLOBEX_ORG}/devices"),
    ];
    let mut compared = 0;
    let mut stubs = 0;
    for subset in 1..(1 << names.len()) {
        let exclude: Vec<&str> = (0..names.len())
            .filter(|i| subset & (1 << i) != 0)
            .map(|i| names[i])
            .collect();
        let exclude = exclude.join(",");
        for list in &lists {
            let page = get(&fake, &format!("{list}?per_page=1000&exclude={exclude}")).await;
            let devices = page["devices"].as_array().unwrap();
            for listed in devices {
                let id = listed["id"].as_str().unwrap();
                let read = get(&fake, &format!("/devices/{id}?exclude={exclude}")).await;
                assert_eq!(listed, &read, "exclude={exclude}, {list}");
                if listed["hostname"] == "queued" {
                    assert_eq!(listed["customdata"], customdata, "exclude={exclude}");
                }
                for name in exclude.split(',') {
                    let stub = match &listed[name] {
                        Value::Array(items) => items.iter().all(|i| seen(i) == Some(Seen::Href)),
                        one => seen(one) == Some(Seen::Href),
                    };
                    assert!(stub, "{name} of {id} not cut: {listed}");
                    stubs += 1;
                }
                compared += 1;
            }
        }
    }
    // Every combination on every list, with devices on each.
    assert!(compared >= 15 * 4, "{compared} devices compared");
    assert!(stubs > compared, "{stubs}");
}

/// A reservation list's `include` of `facility` and `device` (the one
/// metal-policy's `list_reservations` sends) is written by the view,
/// without the walk a reply is otherwise parsed and written again for:
/// each listed reservation is its read with the same names, which walks.
#[tokio::test]
async fn a_reservation_list_s_includes_are_each_reservation_s_read_with_them() {
    let (fake, _) = fake().await;
    let mut compared = 0;
    let mut held = 0;
    for include in ["facility", "device", "facility,device", "device,facility"] {
        for project in [PROD, GLOBEX] {
            let list = format!("/projects/{project}/hardware-reservations");
            let page = get(&fake, &format!("{list}?per_page=1000&include={include}")).await;
            for listed in page["hardware_reservations"].as_array().unwrap() {
                let id = listed["id"].as_str().unwrap();
                let read = get(
                    &fake,
                    &format!("/hardware-reservations/{id}?include={include}"),
                )
                .await;
                assert_eq!(listed, &read, "include={include}, {list}");
                if include.contains("device") && listed["device"].get("hostname").is_some() {
                    held += 1;
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 8, "{compared} reservations compared");
    assert!(held >= 1, "no reservation held a device read whole");
}
