//! The census of the clients (`metal-fake/clients/*.tsv`: every request
//! each Metal-era client can send, read from its source) walked against
//! the fake: each row's method and path, its placeholders filled with the
//! IDs of a world with one of everything, is sent in process, and the
//! route must be served: routed to an operation the fake models, not the
//! router's answer for a path or a method it does not have (the call log
//! names no operation then) nor the `501` of an operation it does not
//! model. What the route then answers (a `404` for a thing the world
//! lacks, a `422` for the empty body sent) is the model's, not the
//! router's, and counts as served. The rows that cannot be served are
//! listed in [`NOT_SERVED`] with why; the test fails on any other, and on
//! a listed one that is served now.
//!
//! It also writes the census section of `metal-fake/COVERAGE.md` (routes
//! served out of each client's total, and the rows that are not, with
//! why), and fails when the committed file is stale:
//! `METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --all-features
//! --test suite -- census` rewrites the section.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use metal_fake::Fake;
use serde_json::{json, Value};

use crate::http;

/// The census, beside the crate's `Cargo.toml`.
pub(crate) const CLIENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/clients");
/// The coverage table, whose last section this test writes.
pub(crate) const COVERAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/COVERAGE.md");
/// The section's heading; the lib's coverage table stops before it.
const SECTION: &str = "\n## Routes each client sends";
/// The heading of the section after this one, the fields' (written by
/// `census_fields.rs`), where this one stops.
pub(crate) const FIELDS_SECTION: &str = "\n## Fields each client sends and reads";

/// Held while `COVERAGE.md` is read and rewritten: this test and
/// `census_fields.rs` each write their section of it.
pub(crate) static COVERAGE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) const TOKEN: &str = "census-token";

/// Block storage, retired by the real API (`metal_fake::fidelity`,
/// "Routes older clients used").
const STORAGE: &str = "retired: block storage, whose API support was deprecated on June 1st 2021 \
     (terraform-provider-metal v3.3.0 `docs/resources/volume.md`; its volume delete ignores 403 \
     and 404); 404 as any path the API does not have";
/// SMS two-factor authentication and one-time passwords, retired.
const OTP: &str = "retired: removed from the API's published spec of 2024-09-16 (equinix-sdk-go \
     `5fcd0c15`, which dropped `OTPsApi` and the SMS operations of `TwoFactorAuthApi`); 404 as \
     any path the API does not have";

/// Packet Connect, retired in 2019.
const PACKET_CONNECT: &str =
    "retired: Packet Connect, removed from packngo \"as per deprecation\" \
     (packngo `eef7cf1`, 2019-11-20) and from the Terraform provider (terraform-provider-metal \
     `b66b9d7c`); 404 as any path the API does not have";
/// The user's Doorman VPN, retired.
const VPN: &str =
    "retired: the user's VPN, removed from packngo as \"no longer usable in the API\" \
     (packngo `fb2019c`, 2021-07-08); 404 as any path the API does not have";
/// A VLAN's internet gateway, which no later client sent.
const INTERNET_GATEWAY: &str = "retired: not in the 2024 spec, and in no other client's history \
     (packngo, equinix-sdk-go, metal-cli and terraform-provider-metal never sent it); \
     packet-python's own tests never call `Vlan.create_internet_gateway`; 404 as any path the API \
     does not have";

/// (method, the census's path) of the rows the fake does not serve, and
/// why: each a route the real API had retired by the 2024 spec the fake
/// follows, answered `404` as the router answers a path it does not have.
const NOT_SERVED: &[(&str, &str, &str)] = &[
    ("GET", "/projects/{projectID}/storage", STORAGE),
    ("POST", "/projects/{projectID}/storage", STORAGE),
    ("GET", "/storage/{volumeID}", STORAGE),
    ("PATCH", "/storage/{id}", STORAGE),
    ("DELETE", "/storage/{volumeID}", STORAGE),
    ("POST", "/storage/{volumeID}/attachments", STORAGE),
    ("GET", "/storage/attachments/{attachmentID}", STORAGE),
    ("DELETE", "/storage/attachments/{attachmentID}", STORAGE),
    // packet-python's, by its own placeholder names
    ("GET", "/projects/{project_id}/storage", STORAGE),
    ("POST", "/projects/{project_id}/storage", STORAGE),
    ("GET", "/storage/{volume_id}", STORAGE),
    ("DELETE", "/storage/{id}", STORAGE),
    ("POST", "/storage/{id}/attachments", STORAGE),
    ("POST", "/storage/{id}/clone", STORAGE),
    ("POST", "/storage/{id}/snapshot-policies", STORAGE),
    ("POST", "/storage/{id}/snapshots", STORAGE),
    ("DELETE", "/storage/{id}/snapshots/{id}", STORAGE),
    ("POST", "/storage/{volume_id}/restore", STORAGE),
    ("GET", "/storage/{volume_id}/snapshots", STORAGE),
    ("PATCH", "/storage/snapshot-policies/{id}", STORAGE),
    ("DELETE", "/storage/snapshot-policies/{id}", STORAGE),
    ("GET", "/volumes/{volume_id}/events", STORAGE),
    ("POST", "/packet-connect/connections", PACKET_CONNECT),
    (
        "GET",
        "/packet-connect/connections/{connection_id}",
        PACKET_CONNECT,
    ),
    (
        "DELETE",
        "/packet-connect/connections/{connection_id}",
        PACKET_CONNECT,
    ),
    ("GET", "/packet-connect/providers", PACKET_CONNECT),
    (
        "GET",
        "/packet-connect/providers/{provider_id}",
        PACKET_CONNECT,
    ),
    ("GET", "/user/vpn", VPN),
    ("POST", "/user/vpn", VPN),
    ("DELETE", "/user/vpn", VPN),
    (
        "POST",
        "/virtual-networks/{id}/internet-gateways",
        INTERNET_GATEWAY,
    ),
    ("POST", "/user/otp/sms", OTP),
    ("DELETE", "/user/otp/sms", OTP),
    ("POST", "/user/otp/sms/receive", OTP),
    ("POST", "/user/otp/app/receive", OTP),
];

// The world's things (the example world's, and those added below).
pub(crate) const ORG: &str = "0a000000-0000-4000-8000-000000000001";
pub(crate) const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
pub(crate) const DEVICE: &str = "0d000000-0000-4000-8000-000000000001";
pub(crate) const RESERVATION: &str = "0c000000-0000-4000-8000-000000000001";
pub(crate) const USER_KEY: &str = "0e000000-0000-4000-8000-000000000001";
pub(crate) const VLAN: &str = "0a300000-0000-4000-8000-000000000001";
pub(crate) const BLOCK: &str = "0f000000-0000-4000-8000-000000000001";
pub(crate) const VRF: &str = "0a100000-0000-4000-8000-000000000001";
pub(crate) const DEDICATED: &str = "0c000000-0000-4000-8000-0000000000c1";
pub(crate) const DEDICATED_PORT: &str = "0c000000-0000-4000-8000-0000000000d1";
pub(crate) const CIRCUIT: &str = "0c000000-0000-4000-8000-0000000000a1";
pub(crate) const INVITATION: &str = "0f300000-0000-4000-8000-000000000001";
pub(crate) const MEMBERSHIP: &str = "0f400000-0000-4000-8000-000000000001";
pub(crate) const OTHER_USER: &str = "0f800000-0000-4000-8000-000000000001";
pub(crate) const SESSION: &str = "0f700000-0000-4000-8000-000000000001";

/// The example world with one of most things a path can name.
pub(crate) fn world() -> Value {
    let mut doc = crate::example_world::json();
    doc["organizations"][0]["members"] = json!([OTHER_USER]);
    doc["users"] = json!([{"id": OTHER_USER, "first_name": "Wile", "last_name": "Coyote",
                           "email": "wile@acme.example"}]);
    doc["projects"][0]["bgp_config"] = json!({"asn": 65000, "deployment_type": "local"});
    doc["virtual_networks"] =
        json!([{"id": VLAN, "project": PROJECT, "metro": "da", "vxlan": 1000}]);
    doc["ip_reservations"] = json!([
        {"id": BLOCK, "project": PROJECT, "type": "public_ipv4", "network": "147.75.200.8",
         "cidr": 29, "metro": "da"}
    ]);
    doc["vrfs"] = json!([{"id": VRF, "project": PROJECT, "metro": "da", "name": "vrf",
                          "ip_ranges": ["192.168.100.0/25"]}]);
    doc["bgp_sessions"] = json!([{"id": SESSION, "device": DEVICE, "address_family": "ipv4"}]);
    doc["interconnections"] = json!([
        {"id": DEDICATED, "organization": ORG, "name": "port", "metro": "da", "type": "dedicated",
         "redundancy": "primary", "speed": 10_000_000_000u64, "ports": [DEDICATED_PORT]}
    ]);
    doc["virtual_circuits"] = json!([
        {"id": CIRCUIT, "interconnection": DEDICATED, "port": DEDICATED_PORT, "project": PROJECT,
         "virtual_network": VLAN, "nni_vlan": 100, "name": "vc"}
    ]);
    doc["invitations"] = json!([{"id": INVITATION, "organization": ORG,
                                 "invitee": "new@acme.example", "projects": [PROJECT]}]);
    doc["memberships"] = json!([{"id": MEMBERSHIP, "project": PROJECT, "user": OTHER_USER}]);
    doc
}

/// The ID a placeholder takes: by its name, or for `{id}` by the
/// collection before it; a random one where the world has none (the route
/// is still served: its model answers `404`).
pub(crate) fn fill(path: &str, ids: &BTreeMap<&str, String>) -> String {
    let segments: Vec<&str> = path.split('/').collect();
    let mut out = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
            out.push(seg.to_string());
            continue;
        };
        let before = if i > 0 { segments[i - 1] } else { "" };
        let key = match name {
            "id" => before,
            "connection_id" | "connID" => "connections",
            "port_id" | "portID" => "ports",
            "project_id" | "projectID" => "projects",
            "organization_id" | "organizationID" => "organizations",
            "memberID" => "members",
            "vrf_id" => "vrfs",
            other => other,
        };
        out.push(
            ids.get(key)
                .cloned()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        );
    }
    out.join("/")
}

/// The IDs by collection (the segment before `{id}`).
pub(crate) fn ids() -> BTreeMap<&'static str, String> {
    [
        ("organizations", ORG),
        ("projects", PROJECT),
        ("devices", DEVICE),
        ("hardware-reservations", RESERVATION),
        ("ssh-keys", USER_KEY),
        ("virtual-networks", VLAN),
        ("ips", BLOCK),
        ("vrfs", VRF),
        ("sessions", SESSION),
        ("connections", DEDICATED),
        ("ports", DEDICATED_PORT),
        ("virtual-circuits", CIRCUIT),
        ("invitations", INVITATION),
        ("memberships", MEMBERSHIP),
        ("users", OTHER_USER),
        ("members", OTHER_USER),
        ("discover", PROJECT),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_string()))
    .collect()
}

/// One row of a census file.
struct Row {
    method: String,
    path: String,
    source: String,
}

/// Each `.tsv` file of `dir`'s client (its file name) and rows, each row
/// its columns, after checking the file's `header` and every row's width.
pub(crate) fn tsv_files(dir: &str, header: &str) -> BTreeMap<String, Vec<Vec<String>>> {
    let width = header.split('\t').count();
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("tsv") {
            continue;
        }
        let client = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(header), "{client}: the header");
        let rows = lines
            .map(|line| {
                let cols: Vec<String> = line.split('\t').map(str::to_string).collect();
                assert_eq!(cols.len(), width, "{client}: {line}");
                cols
            })
            .collect();
        out.insert(client, rows);
    }
    out
}

/// Each census file's client (its file name) and rows, by name.
fn census() -> BTreeMap<String, Vec<Row>> {
    let out: BTreeMap<String, Vec<Row>> = tsv_files(CLIENTS, "method\tpath\tquery\tsource\tvia")
        .into_iter()
        .map(|(client, rows)| {
            let rows = rows
                .into_iter()
                .map(|mut c| Row {
                    source: std::mem::take(&mut c[3]),
                    path: std::mem::take(&mut c[1]),
                    method: std::mem::take(&mut c[0]),
                })
                .collect();
            (client, rows)
        })
        .collect();
    assert!(
        out.len() >= 8,
        "the census has its eight files: {:?}",
        out.keys()
    );
    out
}

/// How one row fared.
struct Seen<'a> {
    row: &'a Row,
    /// The operation the fake routed it to; `None` for the router's own
    /// answer (a path or method it does not have) or the `501` of an
    /// operation it does not model.
    operation: Option<&'static str>,
    status: u16,
}

/// Sends each of `rows` to a fresh fake of the world (reads and writes
/// first, deletes last, so that a delete takes nothing a later row names).
async fn walk(rows: &[Row]) -> Vec<Seen<'_>> {
    let fake = Fake::builder()
        .token(TOKEN)
        .world(serde_json::from_value(world()).unwrap())
        .build();
    let ids = ids();
    let mut order: Vec<&Row> = rows.iter().collect();
    order.sort_by_key(|r| r.method == "DELETE");
    let mut seen = Vec::new();
    for row in order {
        let path = fill(&row.path, &ids);
        let body = matches!(row.method.as_str(), "POST" | "PUT" | "PATCH").then(|| json!({}));
        let before = fake.calls().len();
        let (status, _) = http::in_process(&fake, TOKEN, &row.method, &path, body).await;
        let calls = fake.calls();
        let call = calls
            .get(before)
            .unwrap_or_else(|| panic!("{} {path}: no call logged", row.method));
        let routed = call.operation != "unknown" && status != 501;
        seen.push(Seen {
            row,
            operation: routed.then_some(call.operation),
            status,
        });
    }
    seen
}

/// Why `row` is not served, if the list says it is not.
fn listed(row: &Row) -> Option<&'static str> {
    NOT_SERVED
        .iter()
        .find(|(m, p, _)| *m == row.method && *p == row.path)
        .map(|(_, _, why)| *why)
}

/// Escapes a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The census section of `COVERAGE.md`.
fn section(walked: &BTreeMap<String, Vec<Seen<'_>>>) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{SECTION}\n\n\
         Written by the test `census` (`tests/suite/census.rs`; \
         `METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --all-features --test suite -- census` \
         rewrites this section); do not edit. Each client's requests are its census in \
         `metal-fake/clients/` (method and path, one row each, read from its source: \
         `clients/README.md` says how). A route is served when the fake routes it to an \
         operation it models (the spec's, or one outside the spec that older clients used, \
         each in `metal_fake::fidelity`, \"Routes older clients used\"); what it then answers \
         is that operation's.\n\n\
         | client | routes | served | not served |\n| --- | --- | --- | --- |\n"
    );
    for (client, seen) in walked {
        let served = seen.iter().filter(|s| s.operation.is_some()).count();
        let _ = writeln!(
            out,
            "| `{client}` | {} | {served} | {} |",
            seen.len(),
            seen.len() - served
        );
    }
    for (client, seen) in walked {
        let mut missing: Vec<&Seen> = seen.iter().filter(|s| s.operation.is_none()).collect();
        if !missing.is_empty() {
            missing.sort_by(|a, b| (&a.row.path, &a.row.method).cmp(&(&b.row.path, &b.row.method)));
            let _ = write!(
                out,
                "\n### Not served: `{client}`\n\n| method and path | source | why |\n| --- | --- | --- |\n"
            );
            for s in missing {
                let _ = writeln!(
                    out,
                    "| `{} {}` | `{}` | {} |",
                    s.row.method,
                    s.row.path,
                    cell(&s.row.source),
                    cell(listed(s.row).unwrap_or("not served, and not listed: the test fails"))
                );
            }
        }
    }
    out
}

#[tokio::test(start_paused = true)]
async fn every_route_a_client_sends_is_served() {
    let census = census();
    let mut walked = BTreeMap::new();
    for (client, rows) in &census {
        walked.insert(client.clone(), walk(rows).await);
    }
    let mut problems = Vec::new();
    for (client, seen) in &walked {
        for s in seen {
            let (method, path) = (&s.row.method, &s.row.path);
            match (s.operation, listed(s.row)) {
                (None, None) => problems.push(format!(
                    "{client}: {method} {path} ({}) is not served ({}), and not listed",
                    s.row.source, s.status
                )),
                (Some(op), Some(_)) => problems.push(format!(
                    "{client}: {method} {path} is served now (as {op}): take it off NOT_SERVED"
                )),
                (None, Some(_)) => assert_eq!(s.status, 404, "{method} {path}: retired is 404"),
                (Some(_), None) => {}
            }
        }
    }
    for (m, p, _) in NOT_SERVED {
        assert!(
            census
                .values()
                .flatten()
                .any(|r| r.method == *m && r.path == *p),
            "{m} {p}: listed, but no client's row"
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The section of COVERAGE.md.
    let section = section(&walked);
    let _held = COVERAGE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let file = std::fs::read_to_string(COVERAGE).unwrap_or_default();
    let (table, rest) = file.split_at(file.find(SECTION).unwrap_or(file.len()));
    let (current, fields) = rest.split_at(rest.find(FIELDS_SECTION).unwrap_or(rest.len()));
    if std::env::var_os("METAL_FAKE_WRITE_COVERAGE").is_some() {
        std::fs::write(COVERAGE, format!("{table}{section}{fields}")).unwrap();
        return;
    }
    assert!(
        current == section,
        "metal-fake/COVERAGE.md's census section is stale: run \
         `METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --all-features --test suite -- census`"
    );
}

/// The walk tells the router's answers from a model's: a path the fake
/// does not have and a method a path does not serve are not served; a
/// modelled read of a thing the world lacks (its model's `404`) is.
#[tokio::test(start_paused = true)]
async fn the_walk_tells_the_router_s_404_from_a_model_s() {
    let row = |method: &str, path: &str| Row {
        method: method.to_string(),
        path: path.to_string(),
        source: String::new(),
    };
    let rows = [
        row("GET", "/no-such-things/{id}"),
        row("DELETE", "/user"),
        row("GET", "/devices/{nothing}"),
        row("GET", "/devices/{id}"),
    ];
    let seen = walk(&rows).await;
    let by_path = |p: &str, m: &str| {
        seen.iter()
            .find(|s| s.row.path == p && s.row.method == m)
            .unwrap()
    };
    assert_eq!(by_path("/no-such-things/{id}", "GET").operation, None);
    assert_eq!(by_path("/no-such-things/{id}", "GET").status, 404);
    assert_eq!(by_path("/user", "DELETE").operation, None);
    assert_eq!(by_path("/user", "DELETE").status, 405);
    let missing = by_path("/devices/{nothing}", "GET");
    assert_eq!(
        (missing.operation, missing.status),
        (Some("findDeviceById"), 404),
        "a device the world lacks: the model's 404, served"
    );
    let found = by_path("/devices/{id}", "GET");
    assert_eq!(
        (found.operation, found.status),
        (Some("findDeviceById"), 200)
    );
}

/// packet-python's `create_device` sends `"tags": {}` when its caller
/// gives none (`metal_fake::fidelity`, "Input as the real API took it"):
/// a device without tags, alone and in a batch's entries; an object with
/// members is still refused.
#[tokio::test(start_paused = true)]
async fn packet_python_s_empty_tags_object_is_no_tags() {
    let fake = Fake::builder()
        .token(TOKEN)
        .world(serde_json::from_value(world()).unwrap())
        .build();
    let body = |tags: Value| {
        json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
               "hostname": "packet-python-1", "tags": tags})
    };
    let path = format!("/projects/{PROJECT}/devices");
    let (status, device) =
        http::in_process(&fake, TOKEN, "POST", &path, Some(body(json!({})))).await;
    assert_eq!(status, 201, "{device}");
    assert_eq!(device["tags"], json!([]));
    let (status, reply) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &path,
        Some(body(json!({"env": "prod"}))),
    )
    .await;
    assert_eq!(status, 422, "an object with members: {reply}");
    let mut entry = body(json!({}));
    entry["quantity"] = json!(1);
    let (status, reply) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{PROJECT}/devices/batch"),
        Some(json!({"batches": [entry]})),
    )
    .await;
    assert_eq!(status, 201, "a batch entry's {{}}: {reply}");
}
