//! Every read of the spec (each `GET` of `metal_api::operation::ALL` with
//! a reply body, all of which the fake models) has its reply checked both
//! ways against the spec's reply shapes (`metal_api::shape`, generated from
//! `openapi/metal.json`): no key its schema lacks (but the few of
//! [`schema::BEYOND_SPEC`], [`BEYOND`] and [`RETYPED`]), no key of its
//! schema missing (but those of [`MISSING`], each with its reason), and
//! every value of a property with known values among them; and as a strict
//! client (metalv1) reads it: no required property missing, no `null` the
//! spec does not allow, no key beyond a closed schema's, no `{"href": ...}`
//! alone for a schema that requires more (but [`HREF_BY_DEFAULT`]).
//! Nested objects are checked against their own schemas. The walk prints
//! how complete the replies are, and fails under 95%.

use crate::http;

use crate::common::schema;

use std::collections::{BTreeMap, BTreeSet};

use metal_api::operation::{self, Method};
use metal_api::shape::{self, Shape};
use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

pub(crate) const TOKEN: &str = "both-ways-token";

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

/// Properties the fake sends with another shape than the spec's, or
/// beyond it with a shape, because the real API sent them so (real
/// clients decode them so): (schema, property, its shape, whether an array
/// of it, why). Each value is checked against that shape.
pub(crate) const RETYPED: &[(&str, &str, &str, bool, &str)] = &[
    (
        "InvitationList",
        "invitations",
        "Invitation",
        true,
        "the spec types the items as Membership; the list is of invitations (packngo's `invitationsRoot` decodes `[]Invitation`; metalv1 keeps their keys as a Membership's additional properties)",
    ),
    (
        "SpotMarketRequest",
        "facilities",
        "Facility",
        true,
        "the spec has one Href; packngo's `SpotMarketRequest.Facilities` is `[]Facility`, and the Terraform data source reads `Facilities[].Code`",
    ),
    (
        "SpotMarketRequest",
        "devices",
        "Device",
        true,
        "beyond the spec: packngo's `SpotMarketRequest.Devices`, which the Terraform resource waits on",
    ),
    (
        "SpotMarketRequest",
        "plan",
        "Plan",
        false,
        "beyond the spec: packngo's `SpotMarketRequest.Plan`, whose slug `TestAccSpotMarketRequestBasic` checks",
    ),
];

/// Schemas the spec writes as objects with named properties where the real
/// API sent a map keyed by codes: (schema, the shape of each value, why).
/// Their keys are neither checked nor counted as properties.
pub(crate) const MAPS: &[(&str, &str, &str)] = &[
    (
        "SpotPricesReport",
        "SpotPricesPerFacility",
        "keyed by facility code (the spec lists 2019's facilities as properties); packngo's `PriceMap` is a map, the Terraform price data source indexes it by code",
    ),
    (
        "SpotMarketPricesPerMetroReport",
        "SpotPricesPerFacility",
        "keyed by metro code, as the facility report",
    ),
    (
        "SpotPricesPerFacility",
        "SpotPricesPerBaremetal",
        "keyed by plan slug (the spec lists 2019's plans as properties)",
    ),
    (
        "SpotPricesPerNewFacility",
        "SpotPricesPerBaremetal",
        "keyed by plan slug, as SpotPricesPerFacility",
    ),
];

/// Shapes that are no objects (the spec's list of numbers).
const NOT_OBJECTS: &[&str] = &["SpotPricesDatapointsList"];

/// Reads whose spec reply schema is not what their path answers: (the
/// operation, the schema checked instead, why).
pub(crate) const REPLY_AS: &[(&str, &str, &str)] = &[
    (
        "findInterconnectionPortEvents",
        "EventList",
        "the spec gives one Event for a paginated `/events` path (`page`, `per_page`), where its siblings (`findInterconnectionEvents`, `findDeviceEvents`) give EventList",
    ),
    (
        "findVirtualCircuitEvents",
        "EventList",
        "as findInterconnectionPortEvents",
    ),
    ("findVrfRouteEvents", "EventList", "as findInterconnectionPortEvents"),
];

/// References the real API sent as an `{"href": ...}` by default although
/// their schema requires more, so a strict client (metalv1) reads them
/// only with `include`: (the schema holding it, the property, evidence).
/// The walk reads each with its `include` too.
const HREF_BY_DEFAULT: &[(&str, &str, &str)] = &[
    (
        "MetalGateway",
        "ip_reservation",
        "metal-cli's test helper creates and deletes gateways with `include=ip_reservation`; the Terraform provider includes it to tell a gateway from a VRF gateway",
    ),
    (
        "VrfMetalGateway",
        "ip_reservation",
        "as MetalGateway's",
    ),
];

/// Properties the real API sent as `null` although the spec does not say
/// `nullable`, where a client relies on the key being there: (schema,
/// property, why). A `null` there is no problem (metalv1 reads it as
/// unset), and counts as present.
const SENT_NULL: &[(&str, &str, &str)] = &[
    (
        "Meta",
        "next",
        "null on the last page: packngo's list loops decode every page into one struct, so a next left out would keep the page before's",
    ),
    ("Meta", "previous", "null on the first page, as next"),
];

/// Properties of a schema the fake does not send: (schema, properties,
/// reason). Each reason is evidence that the real API left the key out
/// (what it sent as `null` the fake sends as `null`:
/// [`schema::SENT_NULL`]).
const MISSING: &[(&str, &[&str], &str)] = &[
    (
        "Port",
        &["network_type"],
        "only on bond ports: a recorded 2019 reply (a Go client's TestAPIGetDevices fixture) has it on bond0 and not on eth0, eth1; Terraform's port docs",
    ),
    (
        "PortData",
        &["mac"],
        "bond0 has no MAC of its own (the recorded 2019 reply: bond0's data is {\"bonded\": true})",
    ),
    (
        "Event",
        &["modified_by"],
        "null in the real API for a step to come and a project API key's change (a recorded create reply), which the spec's object refuses: left out",
    ),
    (
        "Organization",
        &["address", "billing_address"],
        "only with include=address,billing_address (metal-cli's organisation helper: \"the address is not included by default\"; terraform-provider-equinix's sweepers exclude them so that metalv1 decodes the list)",
    ),
    (
        "Address",
        &["address2", "city", "coordinates", "state"],
        "as the create or update gave them (a client sends what it has)",
    ),
    (
        "Interconnection",
        &["mode"],
        "upstream spec's Interconnection.mode: shared connections won't have this field",
    ),
];

/// The checks of one reply, collected.
struct Check {
    problems: Vec<String>,
    /// The (schema, property) entries of [`MISSING`] that excused a key.
    used: BTreeSet<(&'static str, &'static str)>,
    /// Each property of each object checked (a stub aside), and whether
    /// some object held it.
    seen: BTreeMap<(&'static str, &'static str), bool>,
}

impl Check {
    fn new() -> Self {
        Self {
            problems: Vec::new(),
            used: BTreeSet::new(),
            seen: BTreeMap::new(),
        }
    }

    /// Takes in what `other` found.
    fn absorb(&mut self, other: Check) {
        self.problems.extend(other.problems);
        self.used.extend(other.used);
        for (k, v) in other.seen {
            *self.seen.entry(k).or_default() |= v;
        }
    }

    fn value(&mut self, name: &str, at: &str, value: &Value) {
        let Some(s) = shape::find(name) else {
            self.problems.push(format!("{at}: no shape {name}"));
            return;
        };
        if !s.one_of.is_empty() {
            // The alternative that fits: the one without problems, else the
            // one with the fewest.
            let mut best: Option<Check> = None;
            for alt in s.one_of {
                let mut inner = Check::new();
                inner.value(alt, at, value);
                if inner.problems.is_empty() {
                    self.absorb(inner);
                    return;
                }
                if best
                    .as_ref()
                    .is_none_or(|b| inner.problems.len() < b.problems.len())
                {
                    best = Some(inner);
                }
            }
            if let Some(best) = best {
                self.absorb(best);
            }
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
        if let Some((_, inner, _)) = MAPS.iter().find(|(n, _, _)| *n == s.name) {
            for (key, v) in map {
                self.nested((s.name, "*"), inner, &format!("{at}.{key}"), v);
            }
            return;
        }
        // A closed schema (`additionalProperties: false`) takes no key
        // beyond its own, whatever a client reads.
        let beyond = |key: &str| {
            !s.closed
                && (BEYOND
                    .iter()
                    .any(|(n, k, _)| *n == s.name && (*k == "*" || *k == key))
                    || schema::BEYOND_SPEC
                        .iter()
                        .any(|(n, k, _)| *n == s.name && *k == key))
        };
        for (key, v) in map {
            let here = format!("{at}.{key}");
            if let Some((_, _, inner, array, _)) =
                RETYPED.iter().find(|(n, k, ..)| *n == s.name && k == key)
            {
                match v {
                    Value::Array(items) if *array => {
                        for (i, item) in items.iter().enumerate() {
                            self.nested((s.name, key), inner, &format!("{here}[{i}]"), item);
                        }
                    }
                    other if !*array => self.nested((s.name, key), inner, &here, other),
                    other => self.problems.push(format!("{here}: not an array: {other}")),
                }
                continue;
            }
            let Some(p) = s.property(key) else {
                if !beyond(key) {
                    self.problems.push(format!("{here}: not in {}", s.name));
                }
                continue;
            };
            if v.is_null() {
                // metalv1 reads a null as unset; the spec refuses it
                // unless `nullable`, so the fake leaves the key out.
                if !null_allowed(s.name, p) {
                    self.problems.push(format!(
                        "{here}: null, which {}.{} does not allow (leave it out)",
                        s.name, p.name
                    ));
                }
                continue;
            }
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
                            self.nested((s.name, p.name), inner, &format!("{here}[{i}]"), item);
                        }
                    }
                    other => self.nested((s.name, p.name), inner, &here, other),
                }
            }
        }
        for p in s.properties {
            // A null is present only where the spec allows it (a problem
            // above elsewhere).
            let held = map
                .get(p.name)
                .is_some_and(|v| !v.is_null() || null_allowed(s.name, p));
            *self.seen.entry((s.name, p.name)).or_default() |= held;
            if map.contains_key(p.name) {
                continue;
            }
            if p.required {
                // metalv1 refuses the whole reply ("no value given for
                // required property").
                self.problems.push(format!(
                    "{at}: {}.{} is required and missing",
                    s.name, p.name
                ));
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
    /// included, where its schema requires nothing else (a strict client
    /// refuses a stub of a schema with other required properties).
    fn nested(&mut self, owner: (&str, &str), name: &str, at: &str, value: &Value) {
        if NOT_OBJECTS.contains(&name) {
            return;
        }
        if let Value::Object(map) = value
            && map.len() == 1
            && map.contains_key("href")
        {
            if HREF_BY_DEFAULT.iter().any(|(n, k, _)| (*n, *k) == owner) {
                return;
            }
            for required in required_of(name) {
                if required != "href" {
                    self.problems.push(format!(
                        "{at}: an href alone stands for {name}, which requires {required}"
                    ));
                }
            }
            return;
        }
        self.value(name, at, value);
    }
}

/// Whether `null` is a value of property `p` of schema `schema`: the
/// spec's `nullable`, or [`SENT_NULL`].
fn null_allowed(schema: &str, p: &shape::Property) -> bool {
    p.nullable
        || schema::sent_null(schema, p.name)
        || SENT_NULL
            .iter()
            .any(|(n, k, _)| *n == schema && *k == p.name)
}

/// The properties every alternative of `name` requires (its own, when it
/// is no `oneOf`).
fn required_of(name: &str) -> Vec<&'static str> {
    let Some(s) = shape::find(name) else {
        return Vec::new();
    };
    if s.one_of.is_empty() {
        return s
            .properties
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect();
    }
    let mut alternatives = s.one_of.iter().map(|alt| required_of(alt));
    let first = alternatives.next().unwrap_or_default();
    alternatives.fold(first, |all, next| {
        all.into_iter().filter(|p| next.contains(p)).collect()
    })
}

/// The seeded dedicated port, its port and its circuit.
const DEDICATED: &str = "0c000000-0000-4000-8000-0000000000c1";
const DEDICATED_PORT: &str = "0c000000-0000-4000-8000-0000000000d1";
const CIRCUIT: &str = "0c000000-0000-4000-8000-0000000000a1";

/// A world with one of everything the fake models.
pub(crate) fn world() -> WorldDoc {
    let mut doc = crate::example_world::json();
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
    // The account family, billing, and what the compute and network
    // families hold beyond one of each above.
    doc["projects"][2]["bgp_config"] = json!({"asn": 65000, "deployment_type": "local"});
    doc["users"] = json!([{
        "id": USER, "first_name": "Road", "last_name": "Runner", "email": "road@runner.example",
        "phone_number": "+1 555 0100", "timezone": "America/Denver"
    }]);
    doc["organizations"][0]["members"] = json!([USER]);
    doc["memberships"] =
        json!([{"id": MEMBERSHIP, "project": prod, "user": USER, "roles": ["collaborator"]}]);
    doc["api_keys"] = json!([
        {"id": USER_API_KEY, "token": "user-api-key", "description": "ci"},
        {"id": PROJECT_API_KEY, "token": "project-api-key", "project": prod, "description": "deploy", "read_only": true}
    ]);
    doc["invitations"] = json!([{
        "id": INVITATION, "organization": acme, "invitee": "wile@acme.example",
        "projects": [prod], "roles": ["collaborator"]
    }]);
    doc["transfers"] = json!([{
        "id": TRANSFER, "project": "0b000000-0000-4000-8000-000000000002",
        "target_organization": "0a000000-0000-4000-8000-000000000002"
    }]);
    doc["emails"] =
        json!([{"id": EMAIL, "user": USER, "address": "road@runner.example", "verified": true}]);
    doc["payment_methods"] = json!([{
        "id": PAYMENT_METHOD, "organization": acme, "name": "visa", "default": true,
        "cardholder_name": "Wile E. Coyote"
    }]);
    doc["batches"] = json!([{
        "id": BATCH, "project": prod, "quantity": 1, "state": "completed",
        "devices": ["0d000000-0000-4000-8000-000000000001"]
    }]);
    doc["spot_market_requests"] = json!([{
        "id": SPOT_REQUEST, "project": prod, "plan": "c3.small.x86", "metro": "da",
        "devices_min": 1, "devices_max": 1, "max_bid_price": 0.5
    }]);
    doc["bgp_sessions"] = json!([{
        "id": BGP_SESSION, "device": "0d000000-0000-4000-8000-000000000002",
        "address_family": "ipv4", "default_route": true
    }]);
    doc["bgp_dynamic_neighbors"] = json!([{
        "id": DYNAMIC_NEIGHBOR, "metal_gateway": "0a400000-0000-4000-8000-000000000001",
        "bgp_neighbor_range": "192.168.100.0/30", "bgp_neighbor_asn": 65100, "tags": ["peers"]
    }]);
    doc["elastic_ips"] = json!([{
        "id": ELASTIC_IP, "metal_gateway": "0a400000-0000-4000-8000-000000000001",
        "ip_reservation": "0f000000-0000-4000-8000-000000000001",
        "address": "147.75.200.12", "cidr": 32, "next_hop": "192.168.100.2"
    }]);
    doc["ports"] = json!([{
        "device": "0d000000-0000-4000-8000-000000000002", "name": "bond0",
        "virtual_networks": ["0a300000-0000-4000-8000-000000000001"]
    }]);
    // What a thing holds once set, set on one of each (a thing without
    // it shows what the allow-list says).
    doc["organizations"][0]["description"] = json!("Roadrunner catchers");
    doc["organizations"][0]["website"] = json!("https://acme.example");
    doc["organizations"][0]["twitter"] = json!("@acme");
    doc["organizations"][0]["logo"] = json!("https://acme.example/logo.png");
    doc["organizations"][0]["enforce_2fa_at"] = json!("2024-07-01T00:00:00Z");
    doc["organizations"][0]["address"] = json!({
        "address": "1 Desert Road", "address2": "Suite 2", "city": "Tucson", "state": "AZ",
        "zip_code": "85701", "country": "US",
        "coordinates": {"latitude": "32.2226", "longitude": "-110.9747"}
    });
    doc["organizations"][0]["billing_address"] =
        json!({"address": "1 Desert Road", "zip_code": "85701", "country": "US"});
    doc["payment_methods"][0]["card_type"] = json!("Visa");
    doc["payment_methods"][0]["email"] = json!("billing@acme.example");
    doc["payment_methods"][0]["expiration_month"] = json!("12");
    doc["payment_methods"][0]["expiration_year"] = json!("2030");
    doc["payment_methods"][0]["billing_address"] = json!({
        "country_code_alpha2": "US", "postal_code": "85701", "street_address": "1 Desert Road"
    });
    doc["projects"][2]["bgp_config"]["md5"] = json!("s3cret-md5");
    doc["devices"][1]["description"] = json!("the database");
    doc["devices"][1]["termination_time"] = json!("2099-01-01T00:00:00Z");
    doc["devices"].as_array_mut().unwrap().push(json!({
        "id": "0d000000-0000-4000-8000-000000000003", "project": prod, "plan": "c3.small.x86",
        "facility": "da11", "hostname": "pxe-spot", "state": "active",
        "operating_system": "custom_ipxe", "ipxe_script_url": "https://boot.example/ipxe",
        "always_pxe": true, "spot_instance": true, "spot_price_max": 0.5
    }));
    doc["virtual_networks"][0]["description"] = json!("gateway VLAN");
    doc["virtual_networks"].as_array_mut().unwrap().extend([
        json!({"id": "0a300000-0000-4000-8000-000000000002", "project": "0b000000-0000-4000-8000-000000000003",
               "metro": "sv", "vxlan": 1001}),
    ]);
    doc["ip_reservations"][0]["details"] = json!("load balancers");
    doc["ip_reservations"][1]["details"] = json!("the VRF's first block");
    doc["ip_reservations"].as_array_mut().unwrap().push(json!({
        "id": "0f000000-0000-4000-8000-000000000003",
        "project": "0b000000-0000-4000-8000-000000000003",
        "type": "private_ipv4", "network": "10.1.0.0", "cidr": 29, "metro": "sv"
    }));
    // A Metal Gateway (no VRF) on its private block.
    doc["metal_gateways"].as_array_mut().unwrap().push(json!({
        "id": "0a400000-0000-4000-8000-000000000002",
        "project": "0b000000-0000-4000-8000-000000000003",
        "virtual_network": "0a300000-0000-4000-8000-000000000002",
        "ip_reservation": "0f000000-0000-4000-8000-000000000003"
    }));
    doc["vrfs"][0]["description"] = json!("the VRF");
    doc["spot_market_requests"][0]["end_at"] = json!("2099-01-01T00:00:00Z");
    doc["ports"][0]["native_virtual_network"] = json!("0a300000-0000-4000-8000-000000000001");
    doc["interconnections"].as_array_mut().unwrap().push(json!({
        "id": "0c000000-0000-4000-8000-0000000000c3", "organization": acme, "project": prod,
        "name": "to aws", "metro": "da", "type": "shared_port_vlan_to_csp", "redundancy": "primary",
        "speed": 50_000_000, "ports": ["0c000000-0000-4000-8000-0000000000d4"],
        "fabric_provider": {"type": "CSP_AWS", "account_id": "123456789012", "location": "us-east-1"}
    }));
    serde_json::from_value(doc).unwrap()
}

/// The second user, a member of acme-prod.
const USER: &str = "0e100000-0000-4000-8000-000000000001";
const MEMBERSHIP: &str = "0e100000-0000-4000-8000-000000000002";
const USER_API_KEY: &str = "0e100000-0000-4000-8000-000000000003";
const PROJECT_API_KEY: &str = "0e100000-0000-4000-8000-000000000004";
const INVITATION: &str = "0e100000-0000-4000-8000-000000000005";
const TRANSFER: &str = "0e100000-0000-4000-8000-000000000006";
const EMAIL: &str = "0e100000-0000-4000-8000-000000000007";
const PAYMENT_METHOD: &str = "0e100000-0000-4000-8000-000000000008";
const BATCH: &str = "0e200000-0000-4000-8000-000000000001";
const SPOT_REQUEST: &str = "0e200000-0000-4000-8000-000000000002";
const BGP_SESSION: &str = "0e300000-0000-4000-8000-000000000001";
const DYNAMIC_NEIGHBOR: &str = "0e300000-0000-4000-8000-000000000002";
const ELASTIC_IP: &str = "0e300000-0000-4000-8000-000000000003";

/// The seeded event.
const EVENT: &str = "0e000000-0000-4000-8000-0000000000e1";

/// What the walk reads that the world names only once it runs: a
/// device's port, a metro's ID, a port's VLAN batch and assignment.
pub(crate) struct Live {
    port: String,
    metro: String,
    port_batch: String,
    port_assignment: String,
    /// Two hours before now, in Unix seconds.
    hours_ago: u64,
}

impl Live {
    /// Reads them, making the port's VLAN batch.
    pub(crate) async fn new(fake: &Fake) -> Self {
        let get = |path: String| async move {
            let (status, body) = http::in_process(fake, TOKEN, "GET", &path, None).await;
            assert_eq!(status, 200, "{path}: {body}");
            body
        };
        let device = get("/devices/0d000000-0000-4000-8000-000000000002".into()).await;
        let port = device["network_ports"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let metros = get("/locations/metros".into()).await;
        let metro = metros["metros"][0]["id"].as_str().unwrap().to_string();
        let (status, batch) = http::in_process(
            fake,
            TOKEN,
            "POST",
            &format!("/ports/{port}/vlan-assignments/batches"),
            Some(json!({"vlan_assignments": [{"vlan": "1000", "state": "unassigned"}]})),
        )
        .await;
        assert_eq!(status, 201, "{batch}");
        let assignments = get(format!("/ports/{port}/vlan-assignments")).await;
        Self {
            port_batch: batch["id"].as_str().unwrap().to_string(),
            port_assignment: assignments["vlan_assignments"][0]["id"]
                .as_str()
                .unwrap_or_else(|| panic!("no assignment: {assignments}"))
                .to_string(),
            port,
            metro,
            hours_ago: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
                .saturating_sub(7200),
        }
    }
}

/// The modelled reads, each with its path (with and without `include`).
pub(crate) fn reads(live: &Live) -> Vec<(&'static str, String)> {
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
        // A middle page: `next` and `previous` both.
        ("findProjects", "/projects?per_page=1&page=2".to_string()),
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
            "findOrganizationById",
            format!("/organizations/{acme}?include=address,billing_address"),
        ),
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
        // The account family.
        ("findUsers", "/users".to_string()),
        ("findUserById", format!("/users/{USER}")),
        ("findEmailById", format!("/emails/{EMAIL}")),
        ("findMembershipById", format!("/memberships/{MEMBERSHIP}")),
        ("findProjectMemberships", format!("/projects/{prod}/memberships")),
        ("findAPIKeys", "/user/api-keys".to_string()),
        ("findProjectAPIKeys", format!("/projects/{prod}/api-keys")),
        ("findInvitations", "/invitations".to_string()),
        ("findInvitationById", format!("/invitations/{INVITATION}")),
        (
            "findOrganizationInvitations",
            format!("/organizations/{acme}/invitations"),
        ),
        ("findProjectInvitations", format!("/projects/{prod}/invitations")),
        ("findTransferRequestById", format!("/transfers/{TRANSFER}")),
        (
            "findOrganizationTransfers",
            format!("/organizations/{acme}/transfers"),
        ),
        ("findPaymentMethodById", format!("/payment-methods/{PAYMENT_METHOD}")),
        (
            "findOrganizationPaymentMethods",
            format!("/organizations/{acme}/payment-methods"),
        ),
        ("findOrganizationInvoices", format!("/organizations/{acme}/invoices")),
        // An organisation's view of the world and the catalog.
        ("findOrganizationDevices", format!("/organizations/{acme}/devices")),
        ("findPlansByOrganization", format!("/organizations/{acme}/plans")),
        (
            "findOperatingSystemsByOrganization",
            format!("/organizations/{acme}/operating-systems"),
        ),
        (
            "findFacilitiesByOrganization",
            format!("/organizations/{acme}/facilities"),
        ),
        ("getMetro", format!("/locations/metros/{}", live.metro)),
        // Compute beyond devices.
        ("findBatchById", format!("/batches/{BATCH}")),
        ("findBatchesByProject", format!("/projects/{prod}/batches")),
        ("findSpotMarketPrices", "/market/spot/prices".to_string()),
        ("findMetroSpotMarketPrices", "/market/spot/prices/metros".to_string()),
        (
            "findSpotMarketPricesHistory",
            format!(
                "/market/spot/prices/history?facility=da11&plan=c3.small.x86&from={}&until={}",
                live.hours_ago,
                live.hours_ago + 3600
            ),
        ),
        (
            "findSpotMarketRequestById",
            format!("/spot-market-requests/{SPOT_REQUEST}"),
        ),
        (
            "listSpotMarketRequests",
            format!("/projects/{prod}/spot-market-requests"),
        ),
        // The network family.
        ("findPortById", format!("/ports/{}", live.port)),
        (
            "findPortVlanAssignments",
            format!("/ports/{}/vlan-assignments", live.port),
        ),
        (
            "findPortVlanAssignmentByPortIdAndAssignmentId",
            format!("/ports/{}/vlan-assignments/{}", live.port, live.port_assignment),
        ),
        (
            "findPortVlanAssignmentBatches",
            format!("/ports/{}/vlan-assignments/batches", live.port),
        ),
        (
            "findPortVlanAssignmentBatchByPortIdAndBatchId",
            format!(
                "/ports/{}/vlan-assignments/batches/{}",
                live.port, live.port_batch
            ),
        ),
        ("findVirtualNetworks", format!("/projects/{globex}/virtual-networks")),
        (
            "getVirtualNetwork",
            "/virtual-networks/0a300000-0000-4000-8000-000000000001".to_string(),
        ),
        (
            "findMetalGatewayById",
            "/metal-gateways/0a400000-0000-4000-8000-000000000001".to_string(),
        ),
        (
            "findMetalGatewayById",
            "/metal-gateways/0a400000-0000-4000-8000-000000000001?include=ip_reservation"
                .to_string(),
        ),
        (
            "findMetalGatewaysByProject",
            format!("/projects/{globex}/metal-gateways"),
        ),
        (
            "findMetalGatewaysByProject",
            format!("/projects/{globex}/metal-gateways?include=ip_reservation"),
        ),
        (
            "getMetalGatewayElasticIps",
            "/metal-gateways/0a400000-0000-4000-8000-000000000001/ips".to_string(),
        ),
        (
            "getBgpDynamicNeighbors",
            "/metal-gateways/0a400000-0000-4000-8000-000000000001/bgp-dynamic-neighbors"
                .to_string(),
        ),
        (
            "findBgpDynamicNeighborById",
            format!("/bgp-dynamic-neighbors/{DYNAMIC_NEIGHBOR}"),
        ),
        ("findBgpSessionById", format!("/bgp/sessions/{BGP_SESSION}")),
        ("findBgpSessions", format!("/devices/{device}/bgp/sessions")),
        ("findProjectBgpSessions", format!("/projects/{globex}/bgp/sessions")),
        ("getBgpNeighborData", format!("/devices/{device}/bgp/neighbors")),
        (
            "findInterconnectionEvents",
            format!("/connections/{DEDICATED}/events"),
        ),
        (
            "findInterconnectionPortEvents",
            format!("/connections/{DEDICATED}/ports/{DEDICATED_PORT}/events"),
        ),
        ("findVirtualCircuitEvents", format!("/virtual-circuits/{CIRCUIT}/events")),
        ("findVrfRouteEvents", format!("/routes/{route}/events")),
    ]
}

/// The modelled reads with a reply body that answer no `200` in any
/// world, each with a path and why: the test checks that they do not.
const NEVER_200: &[(&str, &str, &str)] = &[
    (
        "getInvoiceById",
        "/invoices/0e400000-0000-4000-8000-000000000001",
        "the fake bills nothing: no invoice exists (an organisation's list is empty)",
    ),
    (
        "getDeviceFirmwareSets",
        "/devices/0d000000-0000-4000-8000-000000000002/firmware-sets",
        "the fake models no firmware sets; the spec's 404 for a device without one",
    ),
];

/// Every read of the spec (a `GET` with a reply body), which the fake
/// all models.
fn spec_reads() -> BTreeSet<&'static str> {
    operation::ALL
        .iter()
        .filter(|op| op.method == Method::Get && shape::reply(op.id).is_some())
        .map(|op| op.id)
        .collect()
}

#[tokio::test]
async fn every_read_has_every_property_of_its_schema_and_no_other() {
    let fake = Fake::builder().token(TOKEN).world(world()).build();
    let live = Live::new(&fake).await;
    let mut all = Check::new();
    let mut problems = Vec::new();
    let mut walked = BTreeSet::new();
    // With METAL_FAKE_WRITE_REPLIES=FILE, each reply (with its operation,
    // path and the spec's reply schema) is written to FILE, one JSON a
    // line, for metalv1's own decoders (`TestRepliesDecode` in
    // `tests/clients/go/metalv1`).
    let mut written = std::env::var_os("METAL_FAKE_WRITE_REPLIES").map(|file| {
        std::fs::File::create(&file)
            .unwrap_or_else(|e| panic!("METAL_FAKE_WRITE_REPLIES {file:?}: {e}"))
    });
    for (operation, path) in reads(&live) {
        let (status, body) = http::in_process(&fake, TOKEN, "GET", &path, None).await;
        assert_eq!(status, 200, "{operation} {path}: {body}");
        if let Some(file) = written.as_mut() {
            use std::io::Write;
            let line = json!({"operation": operation, "path": path,
                              "schema": shape::reply(operation), "body": body});
            writeln!(file, "{line}").expect("the replies file takes a line");
        }
        let reply = REPLY_AS
            .iter()
            .find(|(op, ..)| *op == operation)
            .map(|(_, schema, _)| *schema)
            .or_else(|| shape::reply(operation))
            .unwrap_or_else(|| panic!("{operation} has no reply"));
        let mut check = Check::new();
        check.value(reply, reply, &body);
        problems.extend(
            std::mem::take(&mut check.problems)
                .into_iter()
                .map(|p| format!("GET {path}: {p}")),
        );
        all.absorb(check);
        walked.insert(operation);
    }
    for (operation, path, why) in NEVER_200 {
        let (status, body) = http::in_process(&fake, TOKEN, "GET", path, None).await;
        assert_eq!(status, 404, "{operation} ({why}) answered {status}: {body}");
        walked.insert(operation);
    }
    // How complete the replies are: the share of the properties of every
    // schema the walk met (each once) that some reply held.
    let present = all.seen.values().filter(|held| **held).count();
    let share = 100.0 * present as f64 / all.seen.len() as f64;
    println!(
        "replies_both_ways: {} reads walked; {present} of {} properties present ({share:.1}%)",
        walked.len(),
        all.seen.len()
    );
    for ((schema, property), held) in &all.seen {
        if !held {
            println!("  absent: {schema}.{property}");
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Every entry of the allow-list excuses something: none is stale.
    let stale: Vec<String> = MISSING
        .iter()
        .flat_map(|(schema, properties, _)| properties.iter().map(move |p| (*schema, *p)))
        .filter(|entry| !all.used.contains(entry))
        .map(|(schema, property)| format!("{schema}.{property}"))
        .collect();
    assert!(
        stale.is_empty(),
        "MISSING lists what every reply sends: {stale:?}"
    );
    // Every read of the spec is walked (the fake models all of them), and
    // nothing else.
    let spec = spec_reads();
    let unwalked: Vec<_> = spec.difference(&walked).collect();
    assert!(unwalked.is_empty(), "reads not walked: {unwalked:?}");
    let unknown: Vec<_> = walked.difference(&spec).collect();
    assert!(
        unknown.is_empty(),
        "walked, but no read of the spec: {unknown:?}"
    );
    assert!(share >= 95.0, "{share:.1}% of the properties present");
}

/// The check fails what it should: a missing key, an extra key, a value
/// the spec does not know, in a nested object too.
#[test]
fn the_check_has_teeth() {
    let run = |name: &str, v: Value| {
        let mut c = Check::new();
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

/// What a strict client (metalv1) refuses fails the check too: a required
/// property missing (nested too), an href alone for a schema that requires
/// more, a `null` the spec does not allow, any key beyond a closed schema's.
#[test]
fn the_check_fails_what_strict_clients_refuse() {
    let run = |name: &str, v: Value| {
        let mut c = Check::new();
        c.value(name, name, &v);
        c.problems
    };
    // The spec's `required`, as metalv1's decoders check it.
    let required = |name: &str| required_of(name);
    assert_eq!(required("Address"), ["address", "country", "zip_code"]);
    assert_eq!(required("BgpSession"), ["address_family"]);
    assert_eq!(required("Href"), ["href"]);
    assert_eq!(required("UserLite"), ["id", "short_id"]);
    assert_eq!(required("VrfIpReservation"), ["type", "vrf"]);
    assert_eq!(required("IPReservation"), ["type"]);
    // A missing required property is a problem whatever the allow-list
    // says (Facility.address is nested: its zip_code is missing).
    let facility = json!({"id": "f", "code": "da11", "name": "Dallas 11", "features": [],
        "ip_ranges": [], "metro": {"href": "/m"},
        "address": {"address": "1 Main", "country": "US", "address2": "", "city": "",
                    "state": "", "coordinates": {"latitude": "", "longitude": ""}}});
    assert_eq!(
        run("Facility", facility),
        ["Facility.address: Address.zip_code is required and missing"]
    );
    // An href alone is a stub only where nothing else is required.
    let session = json!({"address_family": "ipv4", "created_at": "2024-01-01T00:00:00Z",
        "default_route": false, "device": {"href": "/d"}, "href": "/s", "id": "s",
        "learned_routes": [], "status": "up", "updated_at": "2024-01-01T00:00:00Z"});
    assert!(run("BgpSession", session.clone()).is_empty());
    let mut user_stub = session.clone();
    user_stub.as_object_mut().unwrap().remove("address_family");
    assert_eq!(
        run("BgpSession", user_stub),
        ["BgpSession: BgpSession.address_family is required and missing"]
    );
    let mut device = json!({"created_by": {"href": "/u"}});
    assert!(run("Device", device.clone()).contains(
        &"Device.created_by: an href alone stands for Device_created_by, which requires id"
            .to_string()
    ));
    // A null only where the spec says `nullable`, or the real API sent
    // one (`schema::SENT_NULL`).
    device = json!({"hostname": null});
    assert!(run("Device", device).contains(
        &"Device.hostname: null, which Device.hostname does not allow (leave it out)".to_string()
    ));
    assert!(!run("Device", json!({"description": null}))
        .iter()
        .any(|p| p.contains("description")));
    assert!(!run("BgpConfig", json!({"md5": null}))
        .iter()
        .any(|p| p.contains("md5")));
    assert!(!run("Meta", json!({"next": null}))
        .iter()
        .any(|p| p.contains("next")));
    // A closed schema takes no key beyond its own, even one a client reads.
    assert!(shape::find("IPReservation").unwrap().closed);
    assert!(run(
        "IPReservation",
        json!({"type": "public_ipv4", "vrf": {"href": "/v"}})
    )
    .contains(&"IPReservation.vrf: not in IPReservation".to_string()));
    // An enum value outside the spec's.
    assert!(run("BgpSession", json!({"address_family": "ipv5"}))
        .iter()
        .any(|p| p.contains("\"ipv5\" is none of the spec's values")));
    // A reference the real API sent as an href by default passes alone;
    // what the allow-lists reshape is still checked.
    assert!(
        !run("MetalGateway", json!({"ip_reservation": {"href": "/i"}}))
            .iter()
            .any(|p| p.contains("ip_reservation"))
    );
    assert!(run(
        "SpotPricesReport",
        json!({"da11": {"c3.small.x86": {"price": 0.1, "x": 1}}})
    )
    .contains(&"SpotPricesReport.da11.c3.small.x86.x: not in SpotPricesPerBaremetal".to_string()));
    assert!(run(
        "SpotMarketRequest",
        json!({"facilities": [{"code": "da11", "x": 1}]})
    )
    .contains(&"SpotMarketRequest.facilities[0].x: not in Facility".to_string()));
}

/// The allow-lists hold together: no entry excuses a required property,
/// none names a property its schema lacks, every reason is given, and no
/// key beyond the spec is claimed for a closed schema.
#[test]
fn the_allow_lists_are_well_formed() {
    for (schema, properties, why) in MISSING {
        let s = shape::find(schema).unwrap_or_else(|| panic!("MISSING names {schema}"));
        assert!(!why.is_empty(), "{schema}: no reason");
        for property in *properties {
            let p = s
                .property(property)
                .unwrap_or_else(|| panic!("MISSING names {schema}.{property}"));
            assert!(!p.required, "{schema}.{property} is required");
        }
    }
    for (schema, property, why) in SENT_NULL {
        let p = shape::find(schema)
            .and_then(|s| s.property(property))
            .unwrap_or_else(|| panic!("SENT_NULL names {schema}.{property}"));
        assert!(!why.is_empty() && !p.nullable, "{schema}.{property}");
    }
    // A null only where a strict client takes one: never on a required
    // property.
    for (schema, properties, why) in schema::SENT_NULL {
        for property in *properties {
            let p = shape::find(schema)
                .and_then(|s| s.property(property))
                .unwrap_or_else(|| panic!("schema::SENT_NULL names {schema}.{property}"));
            assert!(
                !why.is_empty() && !p.nullable && !p.required,
                "{schema}.{property}"
            );
        }
    }
    for (schema, _, why) in BEYOND {
        let s = shape::find(schema).unwrap_or_else(|| panic!("BEYOND names {schema}"));
        assert!(!why.is_empty() && !s.closed, "{schema}");
    }
}
