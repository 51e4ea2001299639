//! The census of the fields each client sends in a body and reads from a
//! reply (`metal-fake/clients/fields/*.tsv`, read from the clients' Go
//! types: `clients/README.md`), walked against the fake in process, in the
//! world of `census.rs` (one of everything).
//!
//! A `sent` row is *taken* when a valid minimal body of its route
//! ([`MINIMAL`]) plus that field, in the row's form, is not refused for
//! it: the reply is a success, or the same refusal as the minimal body's
//! alone (the field changed nothing). A `read` row is *present* when the
//! route's reply (to the minimal body, for a write) has the field (matched
//! without regard to case, as `encoding/json` does) in a JSON type Go
//! decodes into the row's form: a string for `string`, an integral number
//! for `integer`, RFC 3339 text or an integer for `timestamp`, and so on,
//! in every element of a list. `null` is present for a field whose Go type
//! takes none (a pointer, a slice, a map) or that is `omitempty`. A row
//! whose route did not answer a success, or whose list was empty, is *not
//! walked*, and counted apart. Rows that are neither, with why, are
//! [`NOT_TAKEN`] and [`NOT_PRESENT`]; the test fails on any other, and on a
//! listed one that passes now.
//!
//! It writes the section "Fields each client sends and reads" of
//! `metal-fake/COVERAGE.md` and fails when it is stale:
//! `METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --all-features
//! --test suite -- census` rewrites it (and the routes' section).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Map, Value};

use crate::census::{
    fill, ids, tsv_files, world, BLOCK, CLIENTS, COVERAGE, DEDICATED, DEDICATED_PORT, DEVICE,
    FIELDS_SECTION, ORG, PROJECT, TOKEN, USER_KEY, VLAN, VRF,
};
use crate::http;

/// A valid minimal body of each route that has `sent` rows (the census's
/// method and path), in the world of `census.rs`.
fn minimal(method: &str, path: &str) -> Option<Value> {
    let body = match (method, path) {
        ("POST", "/projects/{id}/devices") => json!({
            "metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
            "hostname": "census-1"}),
        ("POST", "/projects/{id}/devices/batch") => json!({"batches": [{
            "metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
            "hostname": "census-1", "quantity": 1}]}),
        ("PUT", "/devices/{id}") => json!({"description": "census"}),
        ("POST", "/devices/{id}/actions") => json!({"type": "reboot"}),
        ("PATCH", "/devices/{id}") => json!({"locked": false}),
        ("DELETE", "/devices/{id}") => json!({}),
        ("POST", "/projects") => json!({"name": "census", "organization_id": ORG}),
        ("PATCH", "/projects/{id}") => json!({"name": "census"}),
        ("POST", "/organizations") => json!({"name": "census"}),
        ("PATCH", "/organizations/{id}") => json!({"name": "census"}),
        ("POST", "/ssh-keys") | ("POST", "/projects/{id}/ssh-keys") => json!({
            "label": "census",
            "key": KEY}),
        ("PATCH", "/ssh-keys/{id}") => json!({"label": "census"}),
        ("POST", "/projects/{id}/ips") => {
            json!({"type": "public_ipv4", "quantity": 1, "metro": "da"})
        }
        ("PATCH", "/ips/{id}") => json!({"details": "census"}),
        ("POST", "/devices/{id}/ips") => json!({"address": "147.75.200.9/32"}),
        ("POST", "/projects/{id}/virtual-networks") => json!({"metro": "da"}),
        ("POST", "/projects/{id}/vrfs") => json!({"name": "census", "metro": "da",
            "ip_ranges": ["10.10.0.0/24"]}),
        ("PUT", "/vrfs/{id}") => json!({"name": "census"}),
        ("POST", "/projects/{id}/bgp-configs") => json!({"deployment_type": "local", "asn": 65000}),
        ("POST", "/devices/{id}/bgp/sessions") => json!({"address_family": "ipv6"}),
        ("PUT", "/bgp/sessions/{id}") => json!(true),
        ("POST", "/projects/{id}/spot-market-requests") => json!({
            "devices_min": 1, "devices_max": 1, "max_bid_price": 0.1, "metro": "da",
            "instance_parameters": {"plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
                                    "hostname": "census-spot"}}),
        ("DELETE", "/spot-market-requests/{id}") => json!({}),
        ("POST", "/projects/{project_id}/metal-gateways") => json!({
            "virtual_network_id": VLAN, "private_ipv4_subnet_size": 8}),
        ("POST", "/projects/{id}/api-keys") | ("POST", "/user/api-keys") => {
            json!({"description": "census"})
        }
        ("POST", "/organizations/{id}/invitations") => json!({"invitee": "census@acme.example"}),
        ("POST", "/organizations/{organization_id}/connections") => json!({
            "name": "census", "metro": "da", "type": "shared", "redundancy": "primary",
            "project": PROJECT, "speed": "50Mbps"}),
        ("POST", "/projects/{project_id}/connections") => json!({
            "name": "census", "metro": "da", "type": "shared", "redundancy": "primary",
            "speed": "50Mbps"}),
        ("PUT", "/connections/{connection_id}") => json!({"description": "census"}),
        ("POST", "/projects/{projectID}/connections/{connID}/ports/{portID}/virtual-circuits") => {
            json!({"vnid": VLAN, "nni_vlan": 101, "name": "census"})
        }
        ("POST", "/connections/{connection_id}/ports/{port_id}/virtual-circuits") => {
            json!({"project_id": PROJECT, "vnid": VLAN, "nni_vlan": 101, "name": "census"})
        }
        ("PUT", "/virtual-circuits/{id}") => json!({"name": "census"}),
        ("POST", "/ports/{id}/assign") | ("POST", "/ports/{id}/unassign") => {
            json!({"vnid": VLAN})
        }
        ("POST", "/ports/{id}/native-vlan") => json!({"vnid": VLAN}),
        ("POST", "/ports/{id}/bond") | ("POST", "/ports/{id}/disbond") => json!({}),
        ("POST", "/ports/{id}/convert/layer-3") => {
            json!({"request_ips": [{"address_family": 4, "public": true}]})
        }
        ("POST", "/hardware-reservations/{id}/move") => json!({"project_id": STAGING}),
        ("POST", "/ports/{id}/vlan-assignments/batches") => json!({"vlan_assignments": [
            {"vlan": VLAN, "state": "assigned"}]}),
        ("POST", "/capacity") => json!({"servers": [{"facility": "da11",
            "plan": "c3.small.x86", "quantity": 1}]}),
        ("POST", "/capacity/metros") => json!({"servers": [{"metro": "da",
            "plan": "c3.small.x86", "quantity": 1}]}),
        ("POST", "/organizations/{id}/projects") => json!({"name": "census"}),
        ("POST", "/ports/{id}/convert/layer-2") => json!({"vnid": VLAN}),
        ("POST", "/emails") => json!({"address": "census@acme.example"}),
        ("PUT", "/emails/{id}") => json!({"address": "census2@acme.example"}),
        ("POST", "/users") => json!({"first_name": "Census", "last_name": "Taker",
            "emails": [{"address": "census@acme.example"}], "password": "census-password-1"}),
        ("PUT", "/user") => json!({"first_name": "Census"}),
        ("GET", "/ips/{id}/available") => json!({"cidr": 32}),
        _ => return None,
    };
    Some(body)
}

/// Two public keys of the census's (`ssh-ed25519` blobs of made-up bytes).
const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILCINqoSTMUS7UGN6vcKKsw2N7dZU8p2AuNr+U1XpEbq census";
const OTHER_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDFZBrpyOCm5AVLauIlHQ2keiU37goQkFyb/IJTfbdcE census";

/// Another project of the world's organization.
const STAGING: &str = "0b000000-0000-4000-8000-000000000002";

/// A value of `form` for `field` (named `leaf`, its last segment): a
/// sample the world takes where the name asks for one, else any value of
/// the form.
fn sample(field: &str, leaf: &str, form: &str) -> Value {
    let whole = match (field, form) {
        ("emails[].address", "string") => json!("census2@acme.example"),
        ("ip_addresses[].cidr" | "batches[].ip_addresses[].cidr", "integer") => json!(31),
        ("key", "string") => json!(OTHER_KEY),
        ("speed", "integer") => json!(50_000_000),
        _ => Value::Null,
    };
    if !whole.is_null() {
        return whole;
    }
    let named = match (leaf, form) {
        ("mode", "string") => json!("standard"),
        ("quantity", "string") => json!("1"),
        ("metal_ip", "string") => json!("192.168.100.124"),
        ("customer_ip", "string") => json!("192.168.100.125"),
        ("subnet", "string") => json!("192.168.100.124/31"),
        ("address", "object") => json!({"address": "1 Census Way", "zip_code": "75001",
                                        "country": "US"}),
        ("service_token_type", "string") => json!("a_side"),
        ("md5", "string") => json!("Census12345"),
        ("payment_method_id", "string") => json!(uuid::Uuid::nil().to_string()),
        ("ip_reservation_id", "string") => json!(BLOCK),
        ("invitation_id", "string") => json!(crate::census::INVITATION),
        ("plan", "string") => json!("c3.small.x86"),
        ("metro", "string") => json!("da"),
        ("facility", "string") => json!("da11"),
        ("facility", "array-of-string") => json!(["da11"]),
        ("operating_system", "string") => json!("ubuntu_24_04"),
        ("billing_cycle", "string") => json!("hourly"),
        ("hostname", "string") => json!("census-2"),
        ("project_id", "string") => json!(PROJECT),
        ("organization_id", "string") => json!(ORG),
        ("vrf_id" | "vrf", "string") => json!(VRF),
        ("vnid" | "virtual_network_id" | "vlan", "string") => json!(VLAN),
        ("user_ssh_keys", "array-of-string") => json!([USER_KEY]),
        ("project_ssh_keys", "array-of-string") => json!([]),
        ("hardware_reservation_id", "string") => json!(crate::census::RESERVATION),
        ("device_id", "string") => json!(DEVICE),
        ("ip_reservations", "array-of-string") => json!([]),
        ("termination_time", "timestamp") => json!("2031-01-01T00:00:00Z"),
        ("customdata", "string") => json!("{\"census\": true}"),
        ("address", "string") => json!("147.75.200.9/32"),
        ("type", "string") => json!("public_ipv4"),
        ("state", "string") => json!("assigned"),
        ("speed", "string") => json!("50Mbps"),
        ("email" | "invitee", "string") => json!("census@acme.example"),
        ("timezone", "string") => json!("Etc/UTC"),
        ("address_family", "integer") => json!(4),
        ("address_family", "string") => json!("ipv4"),
        ("cidr", "integer") => json!(32),
        ("asn", "integer") => json!(65100),
        ("peer_asn", "integer") => json!(65530),
        ("nni_vlan", "integer") => json!(102),
        ("vxlan", "integer") => json!(1999),
        _ => Value::Null,
    };
    if !named.is_null() {
        return named;
    }
    match form {
        "string" => json!("census"),
        "integer" => json!(1),
        "number" => json!(1.5),
        "bool" => json!(true),
        "timestamp" => json!("2031-01-01T00:00:00Z"),
        "any" => json!({"census": true}),
        f if f.starts_with("array-of-") => json!([]),
        f if f.starts_with("object") => json!({}),
        _ => Value::Null,
    }
}

/// One row of a fields file.
#[derive(Clone)]
pub(crate) struct FieldRow {
    method: String,
    path: String,
    direction: String,
    field: String,
    form: String,
    source: String,
    go: String,
}

/// Each fields file's client and rows.
fn fields_census() -> BTreeMap<String, Vec<FieldRow>> {
    let header = "method\tpath\tdirection\tfield\tform\tsource\tgo";
    let out: BTreeMap<String, Vec<FieldRow>> = tsv_files(&format!("{CLIENTS}/fields"), header)
        .into_iter()
        .map(|(client, rows)| {
            let rows = rows
                .into_iter()
                .map(|c| {
                    let [method, path, direction, field, form, source, go]: [String; 7] =
                        c.try_into().expect("tsv_files checked the width");
                    FieldRow {
                        method,
                        path,
                        direction,
                        field,
                        form,
                        source,
                        go,
                    }
                })
                .collect();
            (client, rows)
        })
        .collect();
    assert!(
        out.len() >= 2,
        "the fields census has its files: {:?}",
        out.keys()
    );
    out
}

/// The world of `census.rs`, decoded once, its device active (a device
/// action or port change waits for that).
fn doc() -> WorldDoc {
    static DOC: std::sync::OnceLock<WorldDoc> = std::sync::OnceLock::new();
    DOC.get_or_init(|| {
        let mut w = world();
        w["devices"][0]["state"] = json!("active");
        serde_json::from_value(w).unwrap()
    })
    .clone()
}

/// What a route's walk does first in its fake, so that there is
/// something to read: `(method, path)` of the route, then a request
/// `(method, path, body)` and, where the route names what it made, the
/// collection whose `{id}` that is and where the reply has its ID (a JSON
/// pointer).
type Setup = (
    &'static str,
    &'static str,
    &'static str,
    String,
    Value,
    Option<(&'static str, &'static str)>,
);

fn setups() -> Vec<Setup> {
    let device_update = || json!({"description": "census was here"});
    let mut out: Vec<Setup> = Vec::new();
    for route in [
        "/devices/{id}/events",
        "/projects/{id}/events",
        "/organizations/{id}/events",
        "/events",
    ] {
        out.push((
            "GET",
            route,
            "PUT",
            format!("/devices/{DEVICE}"),
            device_update(),
            None,
        ));
    }
    out.push((
        "GET",
        "/events/{id}",
        "PUT",
        format!("/devices/{DEVICE}"),
        device_update(),
        None,
    ));
    out.push((
        "GET",
        "/virtual-circuits/{id}/events",
        "PUT",
        format!("/virtual-circuits/{}", crate::census::CIRCUIT),
        json!({"name": "census"}),
        None,
    ));
    out.push((
        "GET",
        "/connections/{connection_id}/events",
        "PUT",
        format!("/connections/{DEDICATED}"),
        json!({"description": "census"}),
        None,
    ));
    for route in ["/ports/{id}/unassign", "/ports/{id}/native-vlan"] {
        out.push((
            "POST",
            route,
            "POST",
            "/ports/{id}/assign".into(),
            json!({"vnid": VLAN}),
            None,
        ));
    }
    for route in [
        "/ports/{id}/vlan-assignments",
        "/ports/{id}/vlan-assignments/batches",
    ] {
        out.push((
            "GET",
            route,
            "POST",
            "/ports/{id}/assign".into(),
            json!({"vnid": VLAN}),
            None,
        ));
    }
    out.push((
        "GET",
        "/projects/{id}/api-keys",
        "POST",
        format!("/projects/{PROJECT}/api-keys"),
        json!({"description": "census"}),
        None,
    ));
    out.push((
        "GET",
        "/user/api-keys",
        "POST",
        "/user/api-keys".into(),
        json!({"description": "census"}),
        None,
    ));
    let batch = minimal("POST", "/projects/{id}/devices/batch").unwrap_or_default();
    out.push((
        "GET",
        "/projects/{id}/batches",
        "POST",
        format!("/projects/{PROJECT}/devices/batch"),
        batch.clone(),
        None,
    ));
    out.push((
        "GET",
        "/batches/{id}",
        "POST",
        format!("/projects/{PROJECT}/devices/batch"),
        batch,
        Some(("batches", "/batches/0/id")),
    ));
    out.push((
        "GET",
        "/spot-market-requests/{id}",
        "POST",
        format!("/projects/{PROJECT}/spot-market-requests"),
        minimal("POST", "/projects/{id}/spot-market-requests").unwrap_or_default(),
        Some(("spot-market-requests", "/id")),
    ));
    out.push((
        "GET",
        "/metal-gateways/{id}",
        "POST",
        format!("/projects/{PROJECT}/metal-gateways"),
        minimal("POST", "/projects/{project_id}/metal-gateways").unwrap_or_default(),
        Some(("metal-gateways", "/id")),
    ));
    out
}

/// One request to a fresh fake of the world, after the route's setup
/// ([`setups`]): its status and body. A device port's path
/// (`/ports/{id}...`) names the device's `bond0`.
async fn send(method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let fake = Fake::builder().token(TOKEN).world(doc()).build();
    let mut ids = ids();
    if path.starts_with("/ports/{") {
        let (_, device) =
            http::in_process(&fake, TOKEN, "GET", &format!("/devices/{DEVICE}"), None).await;
        let bond = device["network_ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"] == "bond0")
            .and_then(|p| p["id"].as_str())
            .expect("the world's device has a bond0")
            .to_string();
        ids.insert("ports", bond);
    }
    for (m, p, setup_method, setup_path, setup_body, made) in setups() {
        if (m, p) != (method, path) {
            continue;
        }
        let (status, reply) = http::in_process(
            &fake,
            TOKEN,
            setup_method,
            &fill(&setup_path, &ids),
            Some(setup_body),
        )
        .await;
        assert!(
            status < 300,
            "{method} {path}'s setup {setup_path}: {status} {reply}"
        );
        if let Some((collection, pointer)) = made {
            let id = reply
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default();
            ids.insert(collection, id.to_string());
        }
    }
    if path == "/events/{id}" {
        let (_, events) = http::in_process(&fake, TOKEN, "GET", "/events", None).await;
        let id = events
            .pointer("/events/0/id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        ids.insert("events", id.to_string());
    }
    let mut path = fill(path, &ids);
    if path.ends_with("/available") {
        path.push_str("?cidr=32"); // packngo sends it in the query too
    }
    http::in_process(&fake, TOKEN, method, &path, body).await
}

/// `body` with `value` at `field` (`a.b[].c`: objects and one-element
/// lists made on the way).
fn set(body: &mut Value, field: &str, value: Value) {
    let segs: Vec<&str> = field.split('.').collect();
    let mut at = body;
    for (i, seg) in segs.iter().enumerate() {
        let last = i == segs.len() - 1;
        let (name, list) = match seg.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (*seg, false),
        };
        if !at.is_object() {
            *at = json!({});
        }
        let obj = at.as_object_mut().unwrap();
        if last && !list {
            obj.insert(name.to_string(), value);
            return;
        }
        let slot = obj.entry(name.to_string()).or_insert(Value::Null);
        if list {
            if !slot.is_array() || slot.as_array().unwrap().is_empty() {
                *slot = json!([{}]);
            }
            if last {
                *slot = json!([value]);
                return;
            }
            at = &mut slot.as_array_mut().unwrap()[0];
        } else {
            at = slot;
        }
    }
}

/// Whether `value` is of the JSON type Go decodes into `form`.
fn decodes(form: &str, value: &Value) -> bool {
    match form {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "bool" => value.is_boolean(),
        "timestamp" => {
            value.is_i64()
                || value
                    .as_str()
                    .is_some_and(|t| chrono::DateTime::parse_from_rfc3339(t).is_ok())
        }
        "any" => true,
        "array" => value.is_array(),
        "object" => value.is_object(),
        f if f.starts_with("array-of-") => value.as_array().is_some_and(|items| {
            items
                .iter()
                .all(|v| v.is_null() || decodes(&f["array-of-".len()..], v))
        }),
        f if f.starts_with("object-of-") => value.as_object().is_some_and(|m| {
            m.values()
                .all(|v| v.is_null() || decodes(&f["object-of-".len()..], v))
        }),
        _ => true,
    }
}

/// A key of `obj` as `encoding/json` finds it: exactly, else without
/// regard to case.
fn key<'a>(obj: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    obj.get(name).or_else(|| {
        obj.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

/// What a reply holds at a field.
#[derive(Debug, PartialEq)]
enum Found {
    Present,
    Null,
    Absent,
    Wrong(String),
    /// A list on the way was empty: nothing to look at.
    Empty,
}

/// What `reply` holds at `field`, over every element of its lists.
fn found(reply: &Value, field: &str, form: &str) -> Found {
    let mut values = vec![reply];
    let segs: Vec<&str> = field.split('.').collect();
    for (i, seg) in segs.iter().enumerate() {
        let last = i == segs.len() - 1;
        let (name, list) = match seg.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (*seg, false),
        };
        let mut next = Vec::new();
        for v in values {
            let inner = if name.is_empty() {
                Some(v)
            } else {
                match v.as_object() {
                    Some(o) => key(o, name),
                    None if v.is_null() => continue,
                    None => return Found::Wrong(format!("{v} where an object was expected")),
                }
            };
            let Some(inner) = inner else {
                return Found::Absent;
            };
            if list && !last {
                match inner.as_array() {
                    Some(items) => next.extend(items.iter()),
                    None if inner.is_null() => {}
                    None => return Found::Wrong(format!("{inner} where a list was expected")),
                }
            } else if list {
                match inner.as_array() {
                    Some(items) => next.extend(items.iter()),
                    None if inner.is_null() => next.push(inner),
                    None => return Found::Wrong(format!("{inner} where a list was expected")),
                }
            } else {
                next.push(inner);
            }
        }
        values = next;
        if values.is_empty() {
            return Found::Empty;
        }
    }
    // `a[]` as a whole field: the list itself was the value.
    let leaf_form = form;
    let mut null = false;
    for v in &values {
        if v.is_null() {
            null = true;
        } else if !decodes(leaf_form, v) {
            let text = v.to_string();
            let short: String = text.chars().take(60).collect();
            return Found::Wrong(format!("{short} for a Go {form}"));
        }
    }
    if null {
        Found::Null
    } else {
        Found::Present
    }
}

/// How one row fared.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    /// Taken (sent) or present (read).
    Passed,
    /// Refused (sent): the status and message; absent, `null` into a
    /// field that takes none, or of another type (read).
    Failed(String),
    /// Not walked: why.
    NotWalked(String),
}

/// The first error message of a reply.
fn message(reply: &Value) -> String {
    reply["errors"]
        .as_array()
        .and_then(|e| e.first())
        .and_then(Value::as_str)
        .or_else(|| reply["error"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// The fate of each distinct sent row (by method, path, field, form).
async fn walk_sent(rows: &[&FieldRow]) -> BTreeMap<(String, String, String, String), Outcome> {
    let mut out = BTreeMap::new();
    let mut baselines: BTreeMap<(String, String), (u16, Value)> = BTreeMap::new();
    for row in rows {
        let k = (
            row.method.clone(),
            row.path.clone(),
            row.field.clone(),
            row.form.clone(),
        );
        if out.contains_key(&k) {
            continue;
        }
        let Some(body) = minimal(&row.method, &row.path) else {
            out.insert(
                k,
                Outcome::NotWalked("no minimal body for the route".into()),
            );
            continue;
        };
        let route = (row.method.clone(), row.path.clone());
        if !baselines.contains_key(&route) {
            let reply = send(&row.method, &row.path, Some(body.clone())).await;
            baselines.insert(route.clone(), reply);
        }
        let (base_status, base) = &baselines[&route];
        let leaf = row
            .field
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .trim_end_matches("[]");
        let mut value = sample(&row.field, leaf, &row.form);
        if let Some(c) = row.go.split(',').find_map(|f| f.strip_prefix("const:")) {
            value = match row.form.as_str() {
                "bool" => json!(c == "true"),
                "integer" => json!(c.parse::<i64>().unwrap_or(1)),
                _ => json!(c),
            };
        }
        if let Some(existing) = body.get(leaf)
            && !row.field.contains('.')
            && decodes(&row.form, existing)
        {
            value = existing.clone();
        }
        let mut with = body.clone();
        for (a, b) in EXCLUSIVE {
            if row.field == *a
                && let Some(o) = with.as_object_mut()
            {
                o.remove(*b);
            }
        }
        // A VRF circuit's peering detail is sent on a VRF circuit's create.
        let peering = ["customer_ip", "metal_ip", "md5", "peer_asn", "subnet"];
        if row.method == "POST"
            && row.path.ends_with("/virtual-circuits")
            && peering.contains(&row.field.as_str())
            && let Some(o) = with.as_object_mut()
        {
            o.remove("vnid");
            o.insert("vrf".into(), json!(VRF));
            o.insert("peer_asn".into(), json!(65530));
            o.insert("subnet".into(), json!("192.168.100.124/31"));
        }
        for (prefix, fields) in COMPANIONS.iter() {
            if (row.field == *prefix || row.field.starts_with(&format!("{prefix}.")))
                && let Some(o) = with.as_object_mut()
            {
                for (k, v) in fields.as_object().into_iter().flatten() {
                    o.entry(k.clone()).or_insert(v.clone());
                }
            }
        }
        set(&mut with, &row.field, value);
        let (status, reply) = send(&row.method, &row.path, Some(with)).await;
        let outcome =
            if status < 400 || (status == *base_status && message(&reply) == message(base)) {
                if *base_status >= 400 && status == *base_status {
                    Outcome::NotWalked(format!(
                        "the minimal body is refused: {base_status} {}",
                        message(base)
                    ))
                } else {
                    Outcome::Passed
                }
            } else {
                Outcome::Failed(format!("{status} {}", message(&reply)))
            };
        out.insert(k, outcome);
    }
    out
}

/// What a field needs beside it (the API refuses it alone): `(field or
/// its parent, what else the body gets)`.
static COMPANIONS: std::sync::LazyLock<Vec<(&str, Value)>> = std::sync::LazyLock::new(|| {
    vec![
        ("spot_instance", json!({"spot_price_max": 0.75})),
        (
            "vrf_id",
            json!({"peer_asn": 65530, "subnet": "192.168.100.124/31"}),
        ),
        (
            "vrf",
            json!({"peer_asn": 65530, "subnet": "192.168.100.124/31"}),
        ),
        ("batches[].spot_instance", json!({})),
        (
            "address",
            json!({"address": {"address": "1 Census Way", "zip_code": "75001",
                                         "country": "US"}}),
        ),
    ]
});

/// Fields that one of the minimal body's stands for (the API takes one of
/// the two): the minimal body's is taken out when the row's is sent.
const EXCLUSIVE: &[(&str, &str)] = &[
    ("facility", "metro"),
    ("vrf_id", "vnid"),
    ("vrf", "vnid"),
    ("hardware_reservation_id", "metro"),
    ("ip_reservation_id", "private_ipv4_subnet_size"),
];

/// Whether a read row's Go type takes `null` as none.
fn none_ok(row: &FieldRow) -> bool {
    row.go.contains("nullable") || row.go.contains("omitempty")
}

/// The key of a read row's fate: its method, path, field, and form with
/// whether its Go type takes `null` (two clients' rows of one field differ
/// in that).
fn read_key(row: &FieldRow) -> (String, String, String, String) {
    let null = if none_ok(row) { " or null" } else { "" };
    (
        row.method.clone(),
        row.path.clone(),
        row.field.clone(),
        format!("{}{null}", row.form),
    )
}

/// The fate of each distinct read row (by [`read_key`]).
async fn walk_read(rows: &[&FieldRow]) -> BTreeMap<(String, String, String, String), Outcome> {
    let mut out = BTreeMap::new();
    let mut replies: BTreeMap<(String, String), (u16, Value)> = BTreeMap::new();
    for row in rows {
        let k = read_key(row);
        if out.contains_key(&k) {
            continue;
        }
        let route = (row.method.clone(), row.path.clone());
        if !replies.contains_key(&route) {
            let body = minimal(&row.method, &row.path)
                .filter(|_| row.method != "GET")
                .or_else(|| (row.method != "GET").then(|| json!({})));
            let reply = send(&row.method, &row.path, body).await;
            replies.insert(route.clone(), reply);
        }
        let (status, reply) = &replies[&route];
        if !(200..300).contains(status) || !(reply.is_object() || reply.is_array()) {
            out.insert(
                k,
                Outcome::NotWalked(format!("the route answered {status} {}", message(reply))),
            );
            continue;
        }
        let outcome = match found(reply, &row.field, &row.form) {
            Found::Present => Outcome::Passed,
            Found::Null if none_ok(row) => Outcome::Passed,
            Found::Null => Outcome::Failed("null, and its Go type takes none".into()),
            Found::Absent => Outcome::Failed("absent".into()),
            Found::Wrong(why) => Outcome::Failed(why),
            Found::Empty => Outcome::NotWalked("an empty list on the way".into()),
        };
        out.insert(k, outcome);
    }
    out
}

/// Why the reply of a field read lacks it, when the spec's reply schema of
/// its operation has no such property: the real API of the spec the fake
/// follows (2024) did not document it, and the fake gives what the spec
/// has. Decided by the spec, there being no client test that reads it
/// from the real API (searched: each client's tests for the field's
/// name, at the census's revisions).
pub(crate) const NOT_IN_SPEC: &str = "not in the spec's reply schema of the operation: \
     the fake gives what the spec has (packngo's struct is older than the 2024 spec)";

/// `(direction, method, a part of the path or "*", field, why)` of the
/// rows that fail for a reason other than [`NOT_IN_SPEC`], with the
/// evidence. The field matches a row's whole field, or its last part
/// after a list's `[].`.
const NOT_TAKEN: &[(&str, &str, &str, &str, &str)] = &[
    ("read", "*", "virtual-circuits", "customer_ip", VRF_CIRCUIT),
    ("read", "*", "virtual-circuits", "md5", VRF_CIRCUIT),
    ("read", "*", "virtual-circuits", "metal_ip", VRF_CIRCUIT),
    ("read", "*", "virtual-circuits", "peer_asn", VRF_CIRCUIT),
    ("read", "*", "virtual-circuits", "subnet", VRF_CIRCUIT),
    ("read", "*", "virtual-circuits", "vrf", VRF_CIRCUIT),
    ("read", "GET", "/ips", "vrf", VRF_BLOCK),
    ("read", "PATCH", "/ips", "vrf", VRF_BLOCK),
    ("read", "POST", "/ips", "vrf", VRF_BLOCK),
    ("read", "GET", "/ips/{id}", "parent_block", ASSIGNMENT),
    ("read", "PATCH", "/ips/{id}", "parent_block", ASSIGNMENT),
    ("read", "GET", "/ips/{id}", "assigned_to", ASSIGNMENT),
    ("read", "GET", "metal-gateways", "vrf", VRF_GATEWAY),
    ("read", "POST", "metal-gateways", "vrf", VRF_GATEWAY),
    ("read", "*", "/organizations", "address", ORG_ADDRESS),
    (
        "read",
        "*",
        "/organizations",
        "billing_address",
        ORG_BILLING_ADDRESS,
    ),
    ("read", "POST", "/connections", "mode", SHARED_MODE),
    (
        "sent",
        "PUT",
        "/virtual-circuits/{id}",
        "customer_ip",
        VRF_PEERING,
    ),
    ("sent", "PUT", "/virtual-circuits/{id}", "md5", VRF_PEERING),
    (
        "sent",
        "PUT",
        "/virtual-circuits/{id}",
        "metal_ip",
        VRF_PEERING,
    ),
    (
        "sent",
        "PUT",
        "/virtual-circuits/{id}",
        "peer_asn",
        VRF_PEERING,
    ),
    (
        "sent",
        "PUT",
        "/virtual-circuits/{id}",
        "subnet",
        VRF_PEERING,
    ),
];

/// `(direction, method, a part of the path or "*", field, why)` of reads
/// whose reply has the field `null` where the real API sent `null` (an
/// unset value, `metal_fake::fidelity`, "Replies whole"), read by a
/// client into a plain Go value: `encoding/json` leaves it as it was (the
/// zero value), so the client reads what it read from the real API. Not
/// checked for passing: the same field of another client's pointer type
/// passes.
const NULL_AS_SENT: &[(&str, &str, &str, &str, &str)] = &[
    ("read", "*", "/bgp/neighbors", "md5_password", MD5_NULL),
    ("read", "*", "/vrfs", "description", DESCRIPTION_NULL),
    (
        "read",
        "*",
        "hardware-reservations",
        "device",
        RESERVATION_DEVICE_NULL,
    ),
];

/// Why a null is one.
const MD5_NULL: &str = "`null` while the project's BGP has no password, as the real API sent \
     it (a metadata BGP client's recorded neighbour data: `md5_enabled` false, `md5_password` \
     null; `metal_fake::fidelity`, \"Replies whole\"); packngo's `string` reads it as `\"\"`";
const DESCRIPTION_NULL: &str = "`null` until set, as the real API sent an unset description \
     (a recorded 2019 device reply; `metal_fake::fidelity`, \"Replies whole\"); packngo's \
     `string` reads it as `\"\"`";

const RESERVATION_DEVICE_NULL: &str = "`null` while the reservation holds no device \
     (`metal_fake::fidelity`, \"Replies whole\", **Thin**: no recorded reply of a free \
     reservation); packet-python's `HardwareReservation` reads `data[\"device\"][\"href\"]` \
     catching only `KeyError` and `IndexError`, so a `null` raises `TypeError` where a key left \
     out would not: the real API left it out, or the client failed on free reservations (its \
     tests have no reservation fixture)";

/// Left out of the replies as the real API left them out
/// (`metal_fake::fidelity`, "Replies whole"; `replies_both_ways.rs`'s
/// `MISSING`).
const ORG_ADDRESS: &str = "left out unless `include=address`, as the real API did (metal-cli's \
     organisation helper: the address is not included by default; `metal_fake::fidelity`, \
     \"Replies whole\")";
const ORG_BILLING_ADDRESS: &str = "left out unless `include=billing_address`, as `address` \
     (`metal_fake::fidelity`, \"Replies whole\"); packet-python reads it with `data.get`, which \
     takes its absence";
const SHARED_MODE: &str = "a shared connection has no `mode` (the upstream spec's \
     `Interconnection.mode`; `metal_fake::fidelity`, \"Replies whole\"); the census's create is \
     a shared one";

/// A VRF circuit's peering detail in an update of the world's VLAN circuit.
const VRF_PEERING: &str = "a VRF circuit's update field (`VrfVirtualCircuitUpdateInput`), sent \
     to the world's VLAN circuit, whose update (`VlanVirtualCircuitUpdateInput`) has no such \
     field: refused by the fake's rule (`metal_fake::fidelity`, a VRF circuit's row); metal-cli \
     sends them for a VRF circuit only";

/// The spec's reply is one of several schemas, and the field is another's
/// than the world's thing's.
const VRF_CIRCUIT: &str = "a VRF circuit's (`VrfVirtualCircuit`): the world's circuit is a VLAN \
     one, whose schema (`VlanVirtualCircuit`) has no such property";
const VRF_BLOCK: &str = "a VRF block's (`VrfIpReservation`): the world's block is a public \
     reservation, whose schema (`IPReservation`) has no such property";
const ASSIGNMENT: &str = "an assignment's (`IPAssignment`): the world's block is a \
     reservation, whose schema (`IPReservation`) has no such property";
const VRF_GATEWAY: &str = "a VRF gateway's (`VrfMetalGateway`): the world's gateway is on a \
     VLAN's own block, whose schema (`MetalGateway`) has no such property";

/// The spec (`openapi/metal.json`).
fn spec() -> &'static Value {
    static SPEC: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SPEC.get_or_init(|| {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../openapi/metal.json"
        ))
        .unwrap();
        serde_json::from_str(&text).unwrap()
    })
}

/// `schema` with its `$ref` followed.
fn resolve(schema: &Value) -> &Value {
    let mut at = schema;
    while let Some(r) = at["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        at = &spec()["components"]["schemas"][name];
    }
    at
}

/// Whether `schema` has the property path `segs` (a `name[]` segment is
/// the property's items), through `allOf`, `oneOf` and `anyOf`.
fn schema_has(schema: &Value, segs: &[&str]) -> bool {
    let schema = resolve(schema);
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(all) = schema[key].as_array()
            && all.iter().any(|s| schema_has(s, segs))
        {
            return true;
        }
    }
    let Some((first, rest)) = segs.split_first() else {
        return true;
    };
    let (name, list) = match first.strip_suffix("[]") {
        Some(n) => (n, true),
        None => (*first, false),
    };
    let inner = if name.is_empty() {
        schema
    } else {
        match schema["properties"]
            .as_object()
            .and_then(|p| p.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        {
            Some((_, v)) => v,
            None => return false,
        }
    };
    let inner = if list {
        &resolve(inner)["items"]
    } else {
        inner
    };
    schema_has(inner, rest)
}

/// Whether the spec's success reply of `method path` has `field`; `None`
/// for a route the spec lacks.
fn spec_has(method: &str, path: &str, field: &str) -> Option<bool> {
    let paths = &spec()["paths"];
    let path = spec_path(path);
    let path = path.as_str();
    // A legacy route answers as the spec's: `PATCH` as its `PUT`, a
    // create the spec lacks as the read of what it made.
    let schema = [
        &paths[path][method.to_lowercase()],
        &paths[path][if method == "PATCH" { "put" } else { "-" }],
        &paths[format!("{path}/{{id}}")][if method == "POST" { "get" } else { "-" }],
    ]
    .into_iter()
    .flat_map(|op| {
        ["200", "201", "202"].map(|c| &op["responses"][c]["content"]["application/json"]["schema"])
    })
    .find(|s| !s.is_null())?;
    let segs: Vec<&str> = field.split('.').collect();
    Some(schema_has(schema, &segs))
}

/// The spec's path of a client's `path`: the same, or one of the same
/// segments but for its parameters' names; for a legacy route under
/// `/projects/{id}` the spec lacks (packngo's circuit create), the spec's
/// route without that prefix; for the organisation's hardware
/// reservations, beyond the spec, the project's, whose reply the fake
/// gives (`metal_fake::fidelity`, `findOrganizationHardwareReservations`).
fn spec_path(path: &str) -> String {
    let paths = spec()["paths"].as_object().expect("the spec has paths");
    let shape = |p: &str| -> Vec<String> {
        p.split('/')
            .map(|seg| {
                if seg.starts_with('{') {
                    "{}".into()
                } else {
                    seg.to_string()
                }
            })
            .collect()
    };
    let unprefixed = path
        .strip_prefix("/projects/")
        .and_then(|rest| rest.split_once('/'))
        .map(|(_, rest)| format!("/{rest}"));
    let of_project = path
        .strip_prefix("/organizations/")
        .filter(|rest| rest.ends_with("}/hardware-reservations"))
        .map(|rest| format!("/projects/{rest}"));
    for candidate in std::iter::once(path.to_string())
        .chain(unprefixed)
        .chain(of_project)
    {
        if paths.contains_key(&candidate) {
            return candidate;
        }
        let want = shape(&candidate);
        if let Some(p) = paths.keys().find(|p| shape(p) == want) {
            return p.clone();
        }
    }
    path.to_string()
}

/// Why a row fails, if [`NOT_TAKEN`] lists it.
fn listed(row: &FieldRow) -> Option<&'static str> {
    listed_in(NOT_TAKEN, row)
}

/// Why a row fails, if `list` has it.
fn listed_in(
    list: &[(&str, &str, &str, &str, &'static str)],
    row: &FieldRow,
) -> Option<&'static str> {
    let last = row.field.rsplit("[].").next().unwrap_or_default();
    list.iter()
        .find(|(d, m, p, f, _)| {
            *d == row.direction
                && (*m == "*" || *m == row.method)
                && (*p == "*" || row.path.contains(*p))
                && (*f == row.field || *f == last)
        })
        .map(|(.., why)| *why)
}

/// Why a failed row fails: listed, or a read the spec's reply lacks.
fn why(row: &FieldRow) -> Option<&'static str> {
    listed(row)
        .or_else(|| listed_in(NULL_AS_SENT, row))
        .or_else(|| {
            (row.direction == "read" && spec_has(&row.method, &row.path, &row.field) == Some(false))
                .then_some(NOT_IN_SPEC)
        })
}

/// Escapes a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

type Fates = BTreeMap<(String, String, String, String), Outcome>;

fn fate<'a>(sent: &'a Fates, read: &'a Fates, row: &FieldRow) -> &'a Outcome {
    if row.direction == "sent" {
        let k = (
            row.method.clone(),
            row.path.clone(),
            row.field.clone(),
            row.form.clone(),
        );
        &sent[&k]
    } else {
        &read[&read_key(row)]
    }
}

/// The fields section of `COVERAGE.md`.
fn section(census: &BTreeMap<String, Vec<FieldRow>>, sent: &Fates, read: &Fates) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{FIELDS_SECTION}\n\n\
         Written by the test `census_fields` (`tests/suite/census_fields.rs`; \
         `METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --all-features --test suite -- census` \
         rewrites this section); do not edit. Each client's fields are its census in \
         `metal-fake/clients/fields/` (the body fields it sends and the reply fields it reads, \
         each in the JSON form its Go type gives: `clients/README.md` says how). A field sent \
         is taken when a minimal body of its route with it is not refused for it; a field \
         read is present when the route's reply has it in a JSON type Go decodes into the \
         client's (`null` only where its Go type takes none). Rows whose route the walk could \
         not exercise (no success to read, an empty list) are not walked.\n\n\
         | client | sent | taken | not taken | not walked | read | present | not present | not walked |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for (client, rows) in census {
        let mut n = [0usize; 8];
        for r in rows {
            let base = if r.direction == "sent" { 0 } else { 4 };
            n[base] += 1;
            match fate(sent, read, r) {
                Outcome::Passed => n[base + 1] += 1,
                Outcome::Failed(_) => n[base + 2] += 1,
                Outcome::NotWalked(_) => n[base + 3] += 1,
            }
        }
        let _ = writeln!(
            out,
            "| `{client}` | {} | {} | {} | {} | {} | {} | {} | {} |",
            n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]
        );
    }
    for (client, rows) in census {
        let failed: Vec<&FieldRow> = rows
            .iter()
            .filter(|r| matches!(fate(sent, read, r), Outcome::Failed(_)))
            .collect();
        if failed.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "\n### Not taken or not present: `{client}`\n\n\
             | direction | method and path | field | form | source | what the fake did | why |\n\
             | --- | --- | --- | --- | --- | --- | --- |\n"
        );
        // The reads the spec's replies lack, one line a route after the rest.
        let mut not_in_spec: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
        for r in failed {
            let Outcome::Failed(what) = fate(sent, read, r) else {
                continue;
            };
            let why = why(r);
            if why == Some(NOT_IN_SPEC) {
                not_in_spec
                    .entry((&r.method, &r.path))
                    .or_default()
                    .push(&r.field);
                continue;
            }
            let _ = writeln!(
                out,
                "| {} | `{} {}` | `{}` | {} | `{}` | {} | {} |",
                r.direction,
                r.method,
                r.path,
                r.field,
                r.form,
                cell(&r.source),
                cell(what),
                cell(why.unwrap_or("not listed: the test fails"))
            );
        }
        if !not_in_spec.is_empty() {
            let n: usize = not_in_spec.values().map(Vec::len).sum();
            let _ = write!(out, "\n{n} fields read are absent and {NOT_IN_SPEC}:\n\n");
            for ((method, path), fields) in not_in_spec {
                let _ = writeln!(out, "- `{method} {path}`: `{}`", fields.join("`, `"));
            }
        }
    }
    out
}

#[tokio::test(start_paused = true)]
async fn every_field_a_client_sends_is_taken_and_every_field_it_reads_is_present() {
    let census = fields_census();
    let all: Vec<&FieldRow> = census.values().flatten().collect();
    let sent_rows: Vec<&FieldRow> = all
        .iter()
        .copied()
        .filter(|r| r.direction == "sent")
        .collect();
    let read_rows: Vec<&FieldRow> = all
        .iter()
        .copied()
        .filter(|r| r.direction == "read")
        .collect();
    let sent = walk_sent(&sent_rows).await;
    let read = walk_read(&read_rows).await;
    if std::env::var_os("METAL_FAKE_CENSUS_DEBUG").is_some() {
        for (k, o) in sent.iter().chain(read.iter()) {
            if let Outcome::NotWalked(why) = o {
                eprintln!("not walked: {} {} {}: {why}", k.0, k.1, k.2);
            }
        }
    }
    let mut problems = Vec::new();
    for (client, rows) in &census {
        for r in rows {
            let (d, m, p, f) = (&r.direction, &r.method, &r.path, &r.field);
            match (fate(&sent, &read, r), listed(r)) {
                (Outcome::Failed(what), None) if why(r).is_none() => problems.push(format!(
                    "{client}: {d} {m} {p} {f} ({}): {what}, and not listed",
                    r.form
                )),
                (Outcome::Passed, Some(_)) => problems.push(format!(
                    "{client}: {d} {m} {p} {f} passes now: take it off NOT_TAKEN"
                )),
                _ => {}
            }
        }
    }
    problems.sort();
    problems.dedup();
    let section = section(&census, &sent, &read);
    let held = crate::census::COVERAGE_LOCK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let file = std::fs::read_to_string(COVERAGE).unwrap_or_default();
    let (before, current) = file.split_at(file.find(FIELDS_SECTION).unwrap_or(file.len()));
    if std::env::var_os("METAL_FAKE_WRITE_COVERAGE").is_some() {
        std::fs::write(COVERAGE, format!("{before}{section}")).unwrap();
    } else {
        assert!(
            current == section,
            "metal-fake/COVERAGE.md's fields section is stale: run \
             `METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --all-features --test suite -- census`"
        );
    }
    drop(held);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// packngo's `VCCreateRequest` names a circuit's VRF `vrf_id`
/// (`metal_fake::fidelity`, "Input as the real API took it"): the circuit
/// it makes is the VRF's, as with the spec's `vrf`; both at once is
/// refused.
#[tokio::test(start_paused = true)]
async fn packngo_s_vrf_id_makes_a_vrf_circuit() {
    let path = format!(
        "/projects/{PROJECT}/connections/{DEDICATED}/ports/{DEDICATED_PORT}/virtual-circuits"
    );
    let fake = Fake::builder().token(TOKEN).world(doc()).build();
    let body = |name: &str| {
        json!({"name": name, "nni_vlan": 150, "peer_asn": 65530,
               "subnet": "192.168.100.124/31", "vrf_id": VRF})
    };
    let (status, vc) = http::in_process(&fake, TOKEN, "POST", &path, Some(body("vrf-id"))).await;
    assert_eq!(status, 201, "{vc}");
    assert_eq!(vc["type"], "vrf", "{vc}");
    assert!(
        vc["vrf"]["href"].as_str().is_some_and(|h| h.ends_with(VRF)),
        "{vc}"
    );
    let mut both = body("both");
    both["vrf"] = json!(VRF);
    both["subnet"] = json!("192.168.100.126/31");
    let (status, reply) = http::in_process(&fake, TOKEN, "POST", &path, Some(both)).await;
    assert_eq!(status, 422, "{reply}");
}

/// packngo's `DeviceCreateRequest.Features` is an object of names to
/// `required` or `preferred` (`metal_fake::fidelity`, "Input as the real
/// API took it"): a create with it is taken, as with the list; a value
/// of another type than text is still refused.
#[tokio::test(start_paused = true)]
async fn features_as_an_object_of_required_and_preferred_names_is_taken() {
    let path = format!("/projects/{PROJECT}/devices");
    for features in [
        json!({"tpm": "required", "raid": "preferred"}),
        json!(["tpm"]),
    ] {
        let mut body = minimal("POST", "/projects/{id}/devices").unwrap();
        body["features"] = features.clone();
        let (status, reply) = send("POST", &path, Some(body)).await;
        assert_eq!(status, 201, "{features}: {reply}");
    }
    let mut body = minimal("POST", "/projects/{id}/devices").unwrap();
    body["features"] = json!(7);
    let (status, reply) = send("POST", &path, Some(body)).await;
    assert_eq!(status, 422, "{reply}");
}

/// The census's former gaps, read directly (`metal_fake::fidelity`,
/// "Replies whole"): a reserved block's `available` is the path of its
/// free addresses, and that path answers them; a neighbour of a project
/// whose BGP has no password has `md5_password` `null` (not left out);
/// a VRF without a description has `description` `null`; the current
/// user has `features`, `social_accounts` and `verification_stage`.
#[tokio::test(start_paused = true)]
async fn the_former_gaps_are_in_the_replies_as_the_real_api_sent_them() {
    let fake = Fake::builder().token(TOKEN).world(doc()).build();
    let get = |path: String| {
        let fake = &fake;
        async move {
            let (status, reply) = http::in_process(fake, TOKEN, "GET", &path, None).await;
            assert_eq!(status, 200, "{path}: {reply}");
            reply
        }
    };
    let block = get(format!("/ips/{BLOCK}")).await;
    let href = block["href"].as_str().expect("a block's href");
    let available = block["available"].as_str().expect("a block's available");
    assert_eq!(available, format!("{href}/available"), "{block}");
    let path = available
        .strip_prefix("/metal/v1")
        .expect("an href under /metal/v1");
    let free = get(format!("{path}?cidr=32")).await;
    assert!(
        free["available"]
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string)),
        "{free}"
    );
    let listed = get(format!("/projects/{PROJECT}/ips")).await;
    let entry = listed["ip_addresses"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| b["id"] == BLOCK)
        .expect("the block is listed");
    assert_eq!(entry["available"], available, "{entry}");

    let neighbours = get(format!("/devices/{DEVICE}/bgp/neighbors")).await;
    let list = neighbours["bgp_neighbors"].as_array().expect("a list");
    assert!(!list.is_empty(), "{neighbours}");
    for n in list {
        assert_eq!(n["md5_enabled"], false, "{n}");
        assert!(
            n.as_object()
                .is_some_and(|o| o.get("md5_password") == Some(&Value::Null)),
            "{n}"
        );
    }

    let vrf = get(format!("/vrfs/{VRF}")).await;
    assert!(
        vrf.as_object()
            .is_some_and(|o| o.get("description") == Some(&Value::Null)),
        "{vrf}"
    );
    let (status, vrf) = http::in_process(
        &fake,
        TOKEN,
        "PUT",
        &format!("/vrfs/{VRF}"),
        Some(json!({"description": "census"})),
    )
    .await;
    assert_eq!(status, 200, "{vrf}");
    assert_eq!(vrf["description"], "census", "{vrf}");

    // The current user's keys beyond the spec, in packet-python's recorded
    // reply's forms.
    let user = get("/user".to_string()).await;
    assert_eq!(user["features"], json!([]), "{user}");
    assert_eq!(user["social_accounts"], json!({}), "{user}");
    assert_eq!(user["verification_stage"], "verified", "{user}");
}
