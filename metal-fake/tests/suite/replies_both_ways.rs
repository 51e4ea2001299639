//! Every modelled read's reply checked both ways against the spec's reply
//! shapes (`metal_api::shape`, generated from `openapi/metal.json`): no key
//! its schema lacks (but the few of [`schema::BEYOND_SPEC`] and
//! [`BEYOND`]), no key of its schema missing (but those of [`MISSING`],
//! each with its reason), and every value of a property with known values
//! among them. Nested objects are checked against their own schemas; an
//! `{"href": ...}` alone is a thing not included, and stands for it.

use crate::http;

use crate::common::schema;

use std::collections::BTreeSet;

use metal_api::shape::{self, Shape};
use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

const TOKEN: &str = "both-ways-token";

/// Keys the fake sends that the spec's schema lacks, because real clients
/// read them (each also in `metal_fake::fidelity`): (schema, key, reason).
const BEYOND: &[(&str, &str, &str)] = &[
    (
        "SelfServiceReservationResponse",
        "id",
        "findSelfServiceReservation's path takes it: without it a reservation made cannot be read back",
    ),
    (
        "Plan_available_in_inner",
        "*",
        "with include=available_in each entry is the whole facility (the Terraform provider reads its code)",
    ),
    (
        "Plan_available_in_metros_inner",
        "*",
        "with include=available_in_metros each entry is the whole metro (the Terraform provider reads its code)",
    ),
];

/// Properties of a schema the fake does not send: (schema, properties,
/// reason). Each is a thing the fake does not model, or a value the real
/// API sent as `null` until set, which the spec's schema (no `nullable`
/// the validator reads) would refuse, so the fake leaves it out.
const MISSING: &[(&str, &[&str], &str)] = &[
    (
        "Device",
        &["description", "firmware_set_id", "image_url", "ipxe_script_url", "spot_price_max", "storage", "termination_time"],
        "null until set in the real API; the devices here set none",
    ),
    (
        "HardwareReservation",
        &["custom_rate", "termination_time", "device"],
        "null until set (a device: while it holds none)",
    ),
    (
        "Port",
        &["bond", "native_virtual_network", "network_type"],
        "bond: only on eth ports; a native VLAN only once one is set; network_type only on bond ports (Terraform's port docs)",
    ),
    ("PortData", &["mac"], "bond0 has no MAC of its own"),
    (
        "IPAssignment",
        &["next_hop", "metro", "parent_block"],
        "next_hop is null but for routed blocks; a device's own addresses have no modelled parent block",
    ),
    (
        "IPReservation",
        &["available", "details", "facility", "metal_gateway", "requested_by"],
        "null until set (details, facility); availability, gateways and requesters are not modelled",
    ),
    ("BgpConfig", &["md5", "route_object"], "null until set; route objects are not modelled"),
    ("Vrf", &["description"], "null until set"),
    (
        "Event",
        &["created_at", "href", "id", "ip", "modified_by", "state"],
        "null in the real API: state and ip of its own events (a recorded events reply), and all but type and body of a provisioning step still to come (a recorded create reply)",
    ),
    (
        "VrfIpReservation",
        &["details"],
        "null until set (as IPReservation's)",
    ),
    (
        "Project",
        &["bgp_config", "devices", "ssh_keys", "url"],
        "bgp_config until requested; devices and keys as hrefs would make every project list grow with the world (lists of each serve them)",
    ),
    (
        "Organization",
        &["address", "billing_address", "description", "enforce_2fa_at", "logo", "terms", "twitter", "website"],
        "null until an update sets them, which the fake does not model",
    ),
    (
        "User",
        &["fraud_score", "last_login_at", "max_organizations", "max_projects", "phone_number", "timezone"],
        "account settings and limits the fake does not model",
    ),
    (
        "Interconnection",
        &["authorization_code", "fabric_provider", "mode", "project", "token"],
        "a dedicated port is no project's; authorization codes are not modelled; fabric_provider only on a shared_port_vlan_to_csp connection; mode only on dedicated ports (the spec: shared connections won't have it); the single token is the older service_tokens",
    ),
    ("InterconnectionPort", &["switch_id"], "switches are not modelled"),
    (
        "VlanVirtualCircuit",
        &["bill_type", "provider_connection_id", "nni_vlan", "virtual_network", "vnid"],
        "null until set (bill_type, provider connections are not modelled); a shared connection's circuit has no nni_vlan, and none carries a VLAN until one is given",
    ),
    (
        "Facility",
        &["address", "ip_ranges"],
        "street addresses and a facility's IP ranges are not modelled",
    ),
    (
        "IPReservation_facility",
        &["address", "ip_ranges"],
        "the facility of a device's own block, as Facility: street addresses and IP ranges are not modelled",
    ),
    (
        "OperatingSystem",
        &["build_date", "deprecation_date", "end_of_life_date", "end_of_service_date", "lifecycle_state", "release_date", "release_notes"],
        "image lifecycles are not modelled",
    ),
];

/// The checks of one reply, collected.
struct Check<'a> {
    what: &'a str,
    problems: Vec<String>,
    /// The (schema, property) entries of [`MISSING`] that excused a key.
    used: &'a mut BTreeSet<(&'static str, &'static str)>,
}

impl Check<'_> {
    fn value(&mut self, name: &str, at: &str, value: &Value) {
        let Some(s) = shape::find(name) else {
            self.problems.push(format!("{at}: no shape {name}"));
            return;
        };
        if !s.one_of.is_empty() {
            // The alternative that fits: the one without problems, else the
            // one with the fewest.
            let mut best: Option<Vec<String>> = None;
            for alt in s.one_of {
                let mut inner = Check {
                    what: self.what,
                    problems: Vec::new(),
                    used: self.used,
                };
                inner.value(alt, at, value);
                if inner.problems.is_empty() {
                    return;
                }
                if best.as_ref().is_none_or(|b| inner.problems.len() < b.len()) {
                    best = Some(inner.problems);
                }
            }
            self.problems.extend(best.unwrap_or_default());
            return;
        }
        self.object(s, at, value);
    }

    fn object(&mut self, s: &'static Shape, at: &str, value: &Value) {
        let Value::Object(map) = value else {
            self.problems
                .push(format!("{at}: {} is not an object: {value}", s.name));
            return;
        };
        let beyond_all = BEYOND.iter().any(|(n, k, _)| *n == s.name && *k == "*");
        for (key, v) in map {
            let here = format!("{at}.{key}");
            match s.property(key) {
                Some(p) => {
                    if !p.values.is_empty() {
                        let items: Vec<&Value> = match v {
                            Value::Array(a) if p.array => a.iter().collect(),
                            other => vec![other],
                        };
                        for item in items {
                            let text = item.as_str().map_or_else(|| item.to_string(), String::from);
                            if !p.values.contains(&text.as_str()) {
                                self.problems.push(format!(
                                    "{here}: {text:?} is none of the spec's values {:?}",
                                    p.values
                                ));
                            }
                        }
                    }
                    if let Some(inner) = p.shape {
                        match v {
                            Value::Array(items) if p.array => {
                                for (i, item) in items.iter().enumerate() {
                                    self.nested(inner, &format!("{here}[{i}]"), item);
                                }
                            }
                            Value::Null => {}
                            other => self.nested(inner, &here, other),
                        }
                    }
                }
                None if beyond_all
                    || BEYOND.iter().any(|(n, k, _)| *n == s.name && k == key)
                    || schema::BEYOND_SPEC
                        .iter()
                        .any(|(n, k, _)| *n == s.name && k == key) => {}
                None => self.problems.push(format!("{here}: not in {}", s.name)),
            }
        }
        for p in s.properties {
            if map.contains_key(p.name) {
                continue;
            }
            match MISSING
                .iter()
                .find(|(n, ks, _)| *n == s.name && ks.contains(&p.name))
            {
                Some((n, _, _)) => {
                    self.used.insert((n, p.name));
                }
                None => self
                    .problems
                    .push(format!("{at}: {}.{} is missing", s.name, p.name)),
            }
        }
    }

    /// A nested object: an `{"href": ...}` alone stands for a thing not
    /// included.
    fn nested(&mut self, name: &str, at: &str, value: &Value) {
        if let Value::Object(map) = value {
            if map.len() == 1 && map.contains_key("href") {
                return;
            }
        }
        self.value(name, at, value);
    }
}

/// The seeded dedicated port, its port and its circuit.
const DEDICATED: &str = "0c000000-0000-4000-8000-0000000000c1";
const DEDICATED_PORT: &str = "0c000000-0000-4000-8000-0000000000d1";
const CIRCUIT: &str = "0c000000-0000-4000-8000-0000000000a1";

/// A world with one of everything the fake models.
fn world() -> WorldDoc {
    let mut doc: Value = serde_json::from_str(include_str!("../../examples/world.json")).unwrap();
    doc["ip_reservations"] = json!([{
        "id": "0f000000-0000-4000-8000-000000000001",
        "project": "0b000000-0000-4000-8000-000000000003",
        "type": "public_ipv4",
        "network": "147.75.200.8",
        "cidr": 29,
        "metro": "sv",
        "tags": ["lb"],
        "assignments": [{
            "id": "0f000000-0000-4000-8000-0000000000a1",
            "device": "0d000000-0000-4000-8000-000000000002",
            "address": "147.75.200.9"
        }]
    }, {
        "id": "0f000000-0000-4000-8000-000000000002",
        "project": "0b000000-0000-4000-8000-000000000003",
        "type": "vrf",
        "network": "192.168.100.0",
        "cidr": 29,
        "metro": "sv",
        "vrf": "0a100000-0000-4000-8000-000000000001"
    }]);
    doc["vrfs"] = json!([{
        "id": "0a100000-0000-4000-8000-000000000001",
        "project": "0b000000-0000-4000-8000-000000000003",
        "metro": "sv",
        "name": "globex-vrf",
        "ip_ranges": ["192.168.100.0/25"]
    }]);
    doc["virtual_networks"] = json!([{
        "id": "0a300000-0000-4000-8000-000000000001",
        "project": "0b000000-0000-4000-8000-000000000003",
        "metro": "sv",
        "vxlan": 1000
    }]);
    doc["metal_gateways"] = json!([{
        "id": "0a400000-0000-4000-8000-000000000001",
        "project": "0b000000-0000-4000-8000-000000000003",
        "virtual_network": "0a300000-0000-4000-8000-000000000001",
        "ip_reservation": "0f000000-0000-4000-8000-000000000002"
    }]);
    doc["global_bgp_ranges"] = json!([{
        "id": "0a500000-0000-4000-8000-000000000001",
        "project": "0b000000-0000-4000-8000-000000000003",
        "range": "147.75.0.0/24"
    }]);
    doc["vrf_routes"] = json!([{
        "id": "0a200000-0000-4000-8000-000000000001",
        "vrf": "0a100000-0000-4000-8000-000000000001",
        "prefix": "0.0.0.0/0",
        "next_hop": "192.168.100.2"
    }]);
    doc["projects"][0]["bgp_config"] = json!({"asn": 65000, "deployment_type": "local"});
    let vlan = "0e000000-0000-4000-8000-0000000000e1";
    let prod = "0b000000-0000-4000-8000-000000000001";
    let acme = "0a000000-0000-4000-8000-000000000001";
    // Beside the VRF gateway's VLAN above.
    doc["virtual_networks"]
        .as_array_mut()
        .expect("the VRF gateway's VLAN is set above")
        .push(json!({"id": vlan, "project": prod, "metro": "da", "vxlan": 1000}));
    doc["interconnections"] = json!([
        {"id": DEDICATED, "organization": acme, "name": "port", "metro": "da", "type": "dedicated",
         "redundancy": "primary", "speed": 10_000_000_000u64, "ports": [DEDICATED_PORT]},
        {"id": "0c000000-0000-4000-8000-0000000000c2", "organization": acme, "project": prod,
         "name": "shared", "metro": "da", "type": "shared", "redundancy": "redundant",
         "speed": 50_000_000, "service_token_type": "a_side",
         "ports": ["0c000000-0000-4000-8000-0000000000d2", "0c000000-0000-4000-8000-0000000000d3"],
         "service_tokens": ["0c000000-0000-4000-8000-0000000000f2", "0c000000-0000-4000-8000-0000000000f3"],
         "status": "requested"}
    ]);
    doc["virtual_circuits"] = json!([
        {"id": CIRCUIT, "interconnection": DEDICATED, "port": DEDICATED_PORT, "project": prod,
         "virtual_network": vlan, "nni_vlan": 100, "name": "vc", "speed": 1_000_000_000},
        {"id": "0c000000-0000-4000-8000-0000000000a2", "interconnection": "0c000000-0000-4000-8000-0000000000c2",
         "port": "0c000000-0000-4000-8000-0000000000d2", "project": prod, "virtual_network": vlan},
        {"id": "0c000000-0000-4000-8000-0000000000a3", "interconnection": "0c000000-0000-4000-8000-0000000000c2",
         "port": "0c000000-0000-4000-8000-0000000000d3", "project": prod, "status": "activating"}
    ]);
    doc["self_service_reservations"] = json!([{
        "id": "0f000000-0000-4000-8000-0000000000d1",
        "project": "0b000000-0000-4000-8000-000000000001",
        "items": [{
            "id": "0f000000-0000-4000-8000-0000000000d2",
            "plan": "c3.small.x86",
            "metro": "da",
            "quantity": 2,
            "term": "1 year"
        }],
        "period": {"count": 12, "unit": "monthly"}
    }]);
    doc["licenses"] = json!([{
        "id": "0f000000-0000-4000-8000-0000000000c1",
        "project": "0b000000-0000-4000-8000-000000000001",
        "licensee_product_id": "windows-server",
        "size": 2.0,
        "license_key": "KEY"
    }]);
    doc["events"] = json!([{
        "id": EVENT,
        "type": "provisioning.110",
        "body": "Provision complete! Your device is ready to go.",
        "created_at": "2024-06-04T23:53:17Z",
        "project": "0b000000-0000-4000-8000-000000000003",
        "device": "0d000000-0000-4000-8000-000000000002",
        "relationships": ["/metal/v1/devices/0d000000-0000-4000-8000-000000000002"]
    }]);
    serde_json::from_value(doc).unwrap()
}

/// The seeded event.
const EVENT: &str = "0e000000-0000-4000-8000-0000000000e1";

/// The modelled reads, each with its path (with and without `include`).
fn reads() -> Vec<(&'static str, String)> {
    let prod = "0b000000-0000-4000-8000-000000000001";
    let globex = "0b000000-0000-4000-8000-000000000003";
    let acme = "0a000000-0000-4000-8000-000000000001";
    let device = "0d000000-0000-4000-8000-000000000002";
    let provisioning = "0d000000-0000-4000-8000-000000000001";
    let reservation = "0c000000-0000-4000-8000-000000000002";
    let user_key = "0e000000-0000-4000-8000-000000000001";
    let project_key = "0e000000-0000-4000-8000-000000000002";
    let block = "0f000000-0000-4000-8000-000000000001";
    let assignment = "0f000000-0000-4000-8000-0000000000a1";
    let vrf = "0a100000-0000-4000-8000-000000000001";
    let vrf_block = "0f000000-0000-4000-8000-000000000002";
    let route = "0a200000-0000-4000-8000-000000000001";
    vec![
        ("findDeviceById", format!("/devices/{device}")),
        ("findDeviceById", format!("/devices/{provisioning}")),
        (
            "findDeviceById",
            format!("/devices/{provisioning}?include=project,hardware_reservation"),
        ),
        ("findProjectDevices", format!("/projects/{prod}/devices")),
        (
            "findProjectDevices",
            format!("/projects/{globex}/devices?include=project"),
        ),
        ("findProjectById", format!("/projects/{prod}")),
        ("findProjects", "/projects".to_string()),
        (
            "findBgpConfigByProject",
            format!("/projects/{prod}/bgp-config"),
        ),
        ("findSSHKeyById", format!("/ssh-keys/{user_key}")),
        ("findSSHKeyById", format!("/ssh-keys/{project_key}")),
        ("findSSHKeys", "/ssh-keys".to_string()),
        ("findProjectSSHKeys", format!("/projects/{prod}/ssh-keys")),
        ("findCurrentUser", "/user".to_string()),
        (
            "findHardwareReservationById",
            format!("/hardware-reservations/{reservation}"),
        ),
        (
            "findHardwareReservationById",
            format!("/hardware-reservations/{reservation}?include=device,project"),
        ),
        (
            "findProjectHardwareReservations",
            format!("/projects/{prod}/hardware-reservations"),
        ),
        ("findOrganizations", "/organizations".to_string()),
        ("findOrganizationById", format!("/organizations/{acme}")),
        (
            "findOrganizationProjects",
            format!("/organizations/{acme}/projects"),
        ),
        ("findIPAddressById", format!("/ips/{block}")),
        (
            "findIPAddressById",
            format!("/ips/{block}?include=project,assignments"),
        ),
        ("findIPAddressById", format!("/ips/{assignment}")),
        ("findIPReservations", format!("/projects/{globex}/ips")),
        ("findIPAssignments", format!("/devices/{device}/ips")),
        (
            "findLicenseById",
            "/licenses/0f000000-0000-4000-8000-0000000000c1".to_string(),
        ),
        ("findProjectLicenses", format!("/projects/{prod}/licenses")),
        (
            "findSelfServiceReservations",
            format!("/projects/{prod}/self-service/reservations"),
        ),
        (
            "findSelfServiceReservation",
            format!(
                "/projects/{prod}/self-service/reservations/0f000000-0000-4000-8000-0000000000d1"
            ),
        ),
        ("findPlans", "/plans".to_string()),
        (
            "findPlans",
            "/plans?include=available_in,available_in_metros".to_string(),
        ),
        ("findMetros", "/locations/metros".to_string()),
        ("findFacilities", "/facilities".to_string()),
        ("findOperatingSystems", "/operating-systems".to_string()),
        ("findCapacityForFacility", "/capacity".to_string()),
        ("findCapacityForMetro", "/capacity/metros".to_string()),
        (
            "findOrganizationCapacityPerFacility",
            format!("/organizations/{acme}/capacity"),
        ),
        (
            "findOrganizationCapacityPerMetro",
            format!("/organizations/{acme}/capacity/metros"),
        ),
        ("findVrfById", format!("/vrfs/{vrf}")),
        ("findVrfById", format!("/vrfs/{vrf}?include=project")),
        ("findVrfs", format!("/projects/{globex}/vrfs")),
        ("findIPAddressById", format!("/ips/{vrf_block}?include=vrf")),
        ("findVrfIpReservations", format!("/vrfs/{vrf}/ips")),
        (
            "findVrfIpReservation",
            format!("/vrfs/{vrf}/ips/{vrf_block}"),
        ),
        ("getVrfRoutes", format!("/vrfs/{vrf}/routes")),
        ("findVrfRouteById", format!("/routes/{route}?include=vrf")),
        ("getVrfLearnedRoutes", format!("/vrfs/{vrf}/learned-routes")),
        ("getVrfBGPNeighbors", format!("/vrfs/{vrf}/bgp-neighbors")),
        (
            "findGlobalBgpRanges",
            format!("/projects/{globex}/global-bgp-ranges"),
        ),
        ("getInterconnection", format!("/connections/{DEDICATED}")),
        (
            "getInterconnection",
            "/connections/0c000000-0000-4000-8000-0000000000c2?include=project,organization"
                .to_string(),
        ),
        (
            "projectListInterconnections",
            format!("/projects/{prod}/connections"),
        ),
        (
            "organizationListInterconnections",
            format!("/organizations/{acme}/connections"),
        ),
        (
            "listInterconnectionPorts",
            format!("/connections/{DEDICATED}/ports"),
        ),
        (
            "getInterconnectionPort",
            format!("/connections/{DEDICATED}/ports/{DEDICATED_PORT}"),
        ),
        (
            "listInterconnectionVirtualCircuits",
            "/connections/0c000000-0000-4000-8000-0000000000c2/virtual-circuits".to_string(),
        ),
        (
            "listInterconnectionPortVirtualCircuits",
            format!("/connections/{DEDICATED}/ports/{DEDICATED_PORT}/virtual-circuits"),
        ),
        (
            "getVirtualCircuit",
            format!("/virtual-circuits/{CIRCUIT}?include=project"),
        ),
        (
            "getInterconnectionMetros",
            "/connections/metros".to_string(),
        ),
        (
            "getInterconnectionPricing",
            "/connections/prices".to_string(),
        ),
        (
            "findOperatingSystemVersion",
            "/operating-system-versions".to_string(),
        ),
        ("findPlansByProject", format!("/projects/{prod}/plans")),
        (
            "findFacilitiesByProject",
            format!("/projects/{prod}/facilities"),
        ),
        ("findDeviceMetadataByID", format!("/devices/{device}/metadata")),
        (
            "findDeviceMetadataByID",
            format!("/devices/{provisioning}/metadata"),
        ),
        ("findDeviceUserdataByID", format!("/devices/{device}/userdata")),
        ("findDeviceSSHKeys", format!("/devices/{device}/ssh-keys")),
        ("findDeviceUsages", format!("/devices/{device}/usages")),
        ("findProjectUsage", format!("/projects/{globex}/usages")),
        (
            "getDeviceHealthRollup",
            format!("/devices/{device}/diagnostics/health/rollup"),
        ),
        (
            "getOrganizationFirmwareSets",
            format!("/organizations/{acme}/firmware-sets"),
        ),
        (
            "getProjectFirmwareSets",
            format!("/projects/{prod}/firmware-sets"),
        ),
        ("findIPAvailabilities", format!("/ips/{block}/available?cidr=32")),
        (
            "findIPReservations",
            format!("/projects/{globex}/ips?types=public_ipv4,private_ipv4,public_ipv6&include=assignments,project"),
        ),
        ("findEvents", "/events".to_string()),
        ("findEventById", format!("/events/{EVENT}")),
        ("findDeviceEvents", format!("/devices/{device}/events")),
        ("findProjectEvents", format!("/projects/{globex}/events")),
        (
            "findOrganizationEvents",
            "/organizations/0a000000-0000-4000-8000-000000000002/events".to_string(),
        ),
    ]
}

#[tokio::test]
async fn every_read_has_every_property_of_its_schema_and_no_other() {
    let fake = Fake::builder().token(TOKEN).world(world()).build();
    let mut used = BTreeSet::new();
    let mut problems = Vec::new();
    let mut operations = BTreeSet::new();
    for (operation, path) in reads() {
        let (status, body) = http::in_process(&fake, TOKEN, "GET", &path, None).await;
        assert_eq!(status, 200, "{operation} {path}: {body}");
        let reply = shape::reply(operation).unwrap_or_else(|| panic!("{operation} has no reply"));
        let mut check = Check {
            what: &path,
            problems: Vec::new(),
            used: &mut used,
        };
        check.value(reply, reply, &body);
        let what = check.what.to_string();
        problems.extend(
            check
                .problems
                .into_iter()
                .map(|p| format!("GET {what}: {p}")),
        );
        operations.insert(operation);
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Every entry of the allow-list excuses something: none is stale.
    for (schema, properties, _) in MISSING {
        for property in *properties {
            assert!(
                used.contains(&(*schema, *property)),
                "MISSING lists {schema}.{property}, which every reply sends"
            );
        }
    }
    // Every modelled read with a body is walked.
    assert_eq!(operations.len(), 65, "{operations:?}");
}

/// The check fails what it should: a missing key, an extra key, a value
/// the spec does not know, in a nested object too.
#[test]
fn the_check_has_teeth() {
    let run = |name: &str, v: Value| {
        let mut used = BTreeSet::new();
        let mut c = Check {
            what: "t",
            problems: Vec::new(),
            used: &mut used,
        };
        c.value(name, name, &v);
        c.problems
    };
    let metro = json!({"id": "x", "code": "da", "name": "Dallas", "country": "US"});
    assert!(run("Metro", metro.clone()).is_empty());
    let mut without = metro.clone();
    without.as_object_mut().unwrap().remove("country");
    assert_eq!(run("Metro", without), ["Metro: Metro.country is missing"]);
    let mut extra = metro.clone();
    extra["surprise"] = json!(1);
    assert_eq!(run("Metro", extra), ["Metro.surprise: not in Metro"]);
    // A nested `Device_metro` (allOf Metro) is checked as a Metro; an href
    // alone stands for it.
    let facility = |metro: Value| {
        json!({"id": "f", "code": "da11", "name": "Dallas 11", "features": ["baremetal"],
               "ip_ranges": [], "address": {"address": "", "address2": "", "city": "",
               "country": "", "state": "", "zip_code": "", "coordinates": {"latitude": "", "longitude": ""}},
               "metro": metro})
    };
    assert!(run("Facility", facility(json!({"href": "/m"}))).is_empty());
    assert_eq!(
        run("Facility", facility(json!({"code": "da"}))),
        [
            "Facility.metro: Device_metro.country is missing",
            "Facility.metro: Device_metro.id is missing",
            "Facility.metro: Device_metro.name is missing"
        ]
    );
    let mut wrong = facility(json!({"href": "/m"}));
    wrong["features"] = json!(["teleport"]);
    assert_eq!(run("Facility", wrong).len(), 1);
}
