//! Interconnections and their virtual circuits, as Terraform's
//! `equinix_metal_connection` and `equinix_metal_virtual_circuit` and
//! metal-cli's `interconnections` use them: a dedicated port of an
//! organisation (one port or two, active on the fake's clock) with VLAN
//! circuits on it, a shared connection of a project with its service
//! tokens and its circuits, each refusal once, the world document, the
//! events; in process, and over HTTP with every reply checked against the
//! spec.

use std::time::Duration;

use crate::common::schema;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::{self, call, id, vlan, OTHER_PROJECT, PROJECT, TOKEN};

const ORG: &str = "0a000000-0000-4000-8000-000000000001";
const OTHER_ORG: &str = "0a000000-0000-4000-8000-000000000002";

fn world() -> Value {
    json!({
        "catalog": "none",
        "organizations": [{"id": ORG, "name": "acme"}, {"id": OTHER_ORG, "name": "globex"}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": OTHER_PROJECT, "organization": OTHER_ORG}
        ],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}, {"code": "sv"}, {"code": "fr"}],
        "facilities": [
            {"code": "da11", "metro": "da"},
            {"code": "sv15", "metro": "sv"},
            {"code": "fr2", "metro": "fr"}
        ],
        "interconnection_metros": ["da", "sv"]
    })
}

fn fake() -> Fake {
    network::fake_of(serde_json::from_value(world()).unwrap())
}

async fn dedicated(fake: &Fake, redundancy: &str) -> Value {
    let (status, c) = call(
        fake,
        "POST",
        &format!("/organizations/{ORG}/connections"),
        Some(
            json!({"name": "port", "type": "dedicated", "redundancy": redundancy,
                    "metro": "DA", "speed": "10Gbps", "contact_email": "ops@example.com"}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    c
}

#[tokio::test(start_paused = true)]
async fn a_dedicated_port_has_one_port_a_redundancy_and_activates_on_the_clock() {
    let fake = fake();
    let c = dedicated(&fake, "redundant").await;
    assert_eq!(c["type"], "dedicated");
    assert_eq!(c["speed"], 10_000_000_000u64);
    assert_eq!(c["metro"]["code"], "da", "the catalog's spelling");
    assert_eq!(c["status"], "requested");
    let roles: Vec<&Value> = c["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["role"])
        .collect();
    assert_eq!(roles, [&json!("primary"), &json!("secondary")]);
    assert_eq!(c["ports"][0]["status"], "requested");
    assert_eq!(c["service_tokens"], json!([]));
    let path = format!("/connections/{}", id(&c));
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(&fake, "GET", &path, None).await;
    assert_eq!(
        (&got["status"], &got["ports"][1]["status"]),
        (&json!("active"), &json!("active"))
    );
    assert_eq!(got["ports"][0]["link_status"], "up");
    let primary = id(&got["ports"][0]);
    let (status, port) = call(&fake, "GET", &format!("{path}/ports/{primary}"), None).await;
    assert_eq!((status, port["role"].clone()), (200, json!("primary")));
    let (_, ports) = call(&fake, "GET", &format!("{path}/ports"), None).await;
    assert_eq!(ports["ports"].as_array().unwrap().len(), 2);
    let (_, of_org) = call(
        &fake,
        "GET",
        &format!("/organizations/{ORG}/connections"),
        None,
    )
    .await;
    assert_eq!(of_org["interconnections"][0]["id"], c["id"]);
    let (_, of_project) = call(
        &fake,
        "GET",
        &format!("/projects/{PROJECT}/connections"),
        None,
    )
    .await;
    assert_eq!(
        of_project["meta"]["total"], 0,
        "an organisation's port is no project's"
    );
    let (status, updated) = call(
        &fake,
        "PUT",
        &path,
        Some(json!({"name": "renamed", "mode": "tunnel", "tags": ["a"]})),
    )
    .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(
        (&updated["name"], &updated["mode"]),
        (&json!("renamed"), &json!("tunnel"))
    );
    let (_, events) = call(&fake, "GET", &format!("{path}/events"), None).await;
    let types = network::event_types(&events);
    assert_eq!(
        types,
        [
            "interconnection.updated",
            "interconnection.active",
            "interconnection.created"
        ]
    );
    let (status, gone) = call(&fake, "DELETE", &path, None).await;
    assert_eq!((status, gone["id"].clone()), (202, c["id"].clone()));
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
}

#[tokio::test(start_paused = true)]
async fn a_shared_connection_makes_a_circuit_a_port_with_its_vlans_and_takes_them_when_deleted() {
    let fake = fake();
    let v = vlan(&fake, PROJECT, "sv").await;
    let (status, c) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/connections"),
        Some(
            json!({"name": "to-cloud", "type": "shared", "redundancy": "redundant",
                    "metro": "sv", "service_token_type": "z_side", "vlans": [v["vxlan"]]}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    assert_eq!(c["speed"], 0, "a z_side connection may leave its speed out");
    let tokens = c["service_tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    assert_eq!(
        (&tokens[0]["service_token_type"], &tokens[1]["role"]),
        (&json!("z_side"), &json!("secondary"))
    );
    assert_eq!(tokens[0]["state"], "inactive");
    let first = &c["ports"][0]["virtual_circuits"][0];
    let second = &c["ports"][1]["virtual_circuits"][0];
    assert_eq!(first["vnid"], v["vxlan"]);
    assert!(second["vnid"].is_null(), "{second}");
    // Terraform reads the project from the first circuit's project href.
    assert!(first["project"]["href"]
        .as_str()
        .unwrap()
        .ends_with(PROJECT));
    let port_href = first["port"]["href"].as_str().unwrap();
    assert!(
        port_href.contains(&format!("/connections/{}/ports/", id(&c))),
        "{port_href}"
    );
    let vlan_path = format!("/virtual-networks/{}", id(&v));
    let (_, got) = call(&fake, "GET", &vlan_path, None).await;
    assert_eq!(got["assigned_to_virtual_circuit"], true);
    // The VLAN stays while a circuit carries it; a shared connection's
    // circuits go only with it.
    assert_eq!(call(&fake, "DELETE", &vlan_path, None).await.0, 422);
    let vc_path = format!("/virtual-circuits/{}", id(first));
    let (status, refused) = call(&fake, "DELETE", &vc_path, None).await;
    assert_eq!(status, 422, "{refused}");
    // As Terraform moves a VLAN: the update with the vxlan as text, "" to
    // take it off.
    let (status, moved) = call(&fake, "PUT", &vc_path, Some(json!({"vnid": ""}))).await;
    assert_eq!(status, 200, "{moved}");
    assert!(moved["virtual_network"].is_null(), "{moved}");
    let (status, _) = call(
        &fake,
        "PUT",
        &format!("/virtual-circuits/{}", id(second)),
        Some(json!({"vnid": v["vxlan"].to_string()})),
    )
    .await;
    assert_eq!(status, 200);
    let (_, listed) = call(
        &fake,
        "GET",
        &format!("/connections/{}/virtual-circuits", id(&c)),
        None,
    )
    .await;
    let vnids: Vec<&Value> = listed["virtual_circuits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|vc| &vc["vnid"])
        .collect();
    assert_eq!(vnids, [&Value::Null, &v["vxlan"]]);
    assert_eq!(
        call(&fake, "DELETE", &format!("/projects/{PROJECT}"), None)
            .await
            .0,
        422
    );
    let (status, _) = call(&fake, "DELETE", &format!("/connections/{}", id(&c)), None).await;
    assert_eq!(status, 202);
    assert_eq!(call(&fake, "GET", &vc_path, None).await.0, 404);
    assert_eq!(call(&fake, "DELETE", &vlan_path, None).await.0, 204);
}

/// A shared connection made as packngo makes one, with neither a token
/// type nor a speed (its TestAccConnectionProject): Z-side tokens, one a
/// port, and no speed.
#[tokio::test(start_paused = true)]
async fn a_shared_connection_without_a_token_type_gets_z_side_tokens() {
    let fake = fake();
    let (status, c) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/connections"),
        Some(
            json!({"name": "testconn", "type": "shared", "redundancy": "redundant",
                    "metro": "da", "project": PROJECT}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    assert_eq!(c["speed"], 0);
    let tokens = c["service_tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2, "{c}");
    assert!(
        tokens.iter().all(|t| t["service_token_type"] == "z_side"),
        "{c}"
    );
    assert_eq!(c["ports"].as_array().unwrap().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_connection_the_api_refused_is_refused_and_nothing_is_made() {
    let fake = fake();
    let v = vlan(&fake, PROJECT, "da").await;
    let other = vlan(&fake, PROJECT, "da").await;
    let shared = |extra: Value| {
        let mut b = json!({"name": "s", "type": "shared", "redundancy": "primary", "metro": "da",
                           "service_token_type": "a_side", "speed": "50Mbps"});
        for (k, val) in extra.as_object().unwrap() {
            b[k] = val.clone();
        }
        b
    };
    let on_project = format!("/projects/{PROJECT}/connections");
    let on_org = format!("/organizations/{ORG}/connections");
    for (path, body, why) in [
        (
            &on_org,
            json!({"name": "d", "type": "fiber", "redundancy": "primary", "metro": "da", "speed": "10Gbps"}),
            "not valid",
        ),
        (
            &on_org,
            json!({"name": "d", "type": "dedicated", "redundancy": "double", "metro": "da", "speed": "10Gbps"}),
            "Redundancy",
        ),
        (
            &on_org,
            json!({"name": "d", "type": "dedicated", "redundancy": "primary", "metro": "da", "speed": "3Gbps"}),
            "not valid for a dedicated",
        ),
        (
            &on_org,
            json!({"name": "d", "type": "dedicated", "redundancy": "primary", "metro": "da", "speed": "10Gbps", "service_token_type": "a_side"}),
            "service_token_type",
        ),
        (
            &on_org,
            json!({"name": "d", "type": "dedicated", "redundancy": "primary", "metro": "da", "speed": "10Gbps", "vlans": [v["vxlan"]]}),
            "no vlans",
        ),
        (
            &on_org,
            json!({"type": "dedicated", "redundancy": "primary", "metro": "da", "speed": "10Gbps"}),
            "Name",
        ),
        (&on_org, shared(json!({})), "needs a project"),
        (
            &on_project,
            shared(json!({"speed": "3Gbps"})),
            "not valid for a shared",
        ),
        (&on_project, shared(json!({"speed": "fast"})), "Speed must"),
        (&on_project, shared(json!({"speed": null})), "Speed can't"),
        (&on_project, shared(json!({"metro": "xx"})), "was not found"),
        (
            &on_project,
            shared(json!({"metro": "fr"})),
            "does not support",
        ),
        (&on_project, shared(json!({"mode": "tunnel"})), "Tunnel"),
        (
            &on_project,
            shared(json!({"vlans": [v["vxlan"], other["vxlan"]]})),
            "at most 1",
        ),
        (
            &on_project,
            shared(json!({"vlans": [3999]})),
            "was not found in metro",
        ),
        (
            &on_project,
            shared(json!({"vrfs": ["0b000000-0000-4000-8000-00000000000f"]})),
            "VRF",
        ),
        (
            &on_project,
            shared(json!({"type": "shared_port_vlan"})),
            "no service tokens",
        ),
        (
            &on_project,
            shared(json!({"type": "shared_port_vlan_to_csp", "service_token_type": null})),
            "Fabric provider",
        ),
    ] {
        let (status, reply) = call(&fake, "POST", path, Some(body.clone())).await;
        assert_eq!(status, 422, "{body}: {reply}");
        let message = reply["errors"][0].as_str().unwrap();
        assert!(message.contains(why), "{body}: {message}");
    }
    let (_, listed) = call(&fake, "GET", &on_org, None).await;
    assert_eq!(listed["meta"]["total"], 0);
    // Another organisation's is another token's.
    let (status, _) = call(
        &fake,
        "GET",
        &format!("/organizations/{OTHER_ORG}/connections"),
        None,
    )
    .await;
    assert_eq!(status, 200, "the server's token sees every organisation");
}

#[tokio::test(start_paused = true)]
async fn a_vlan_circuit_on_a_dedicated_port_activates_refuses_what_does_not_fit_and_goes_after_deleting(
) {
    let fake = fake();
    let c = dedicated(&fake, "primary").await;
    let port = id(&c["ports"][0]);
    let v = vlan(&fake, PROJECT, "da").await;
    let sv = vlan(&fake, PROJECT, "sv").await;
    let foreign = vlan(&fake, OTHER_PROJECT, "da").await;
    let vcs = format!("/connections/{}/ports/{port}/virtual-circuits", id(&c));
    let body = |extra: Value| {
        let mut b = json!({"project_id": PROJECT, "vnid": v["id"], "nni_vlan": 1234, "name": "vc"});
        for (k, val) in extra.as_object().unwrap() {
            b[k] = val.clone();
        }
        b
    };
    let (status, vc) = call(&fake, "POST", &vcs, Some(body(json!({})))).await;
    assert_eq!(status, 201, "{vc}");
    assert_eq!(
        (&vc["status"], &vc["vnid"], &vc["nni_vlan"]),
        (&json!("activating"), &v["vxlan"], &json!(1234))
    );
    assert_eq!(
        vc["speed"], 10_000_000_000u64,
        "the connection's by default"
    );
    for (extra, why) in [
        (json!({}), "already in use"),
        (json!({"nni_vlan": null}), "nni_vlan can't"),
        (json!({"nni_vlan": 5000}), "between 2 and 4094"),
        (
            json!({"nni_vlan": 7, "vnid": sv["id"]}),
            "not in the connection's metro",
        ),
        (
            json!({"nni_vlan": 7, "vnid": foreign["id"]}),
            "another project",
        ),
        (
            json!({"nni_vlan": 7, "project_id": OTHER_PROJECT, "vnid": foreign["id"]}),
            "organization",
        ),
        (json!({"nni_vlan": 7, "project_id": null}), "project_id"),
        (json!({"nni_vlan": 7, "speed": "100Gbps"}), "exceeds"),
        (
            json!({"nni_vlan": 7, "vrf": "0b000000-0000-4000-8000-00000000000f"}),
            "a vnid or a vrf",
        ),
        (
            json!({"nni_vlan": 7, "vnid": null, "vrf": "0b000000-0000-4000-8000-00000000000f"}),
            "VRF 0b000000-0000-4000-8000-00000000000f was not found",
        ),
    ] {
        let (status, reply) = call(&fake, "POST", &vcs, Some(body(extra.clone()))).await;
        assert_eq!(status, 422, "{extra}: {reply}");
        assert!(
            reply["errors"][0].as_str().unwrap().contains(why),
            "{extra}: {reply}"
        );
    }
    let vc_path = format!("/virtual-circuits/{}", id(&vc));
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(
        &fake,
        "GET",
        &format!("{vc_path}?include=project,virtual_network"),
        None,
    )
    .await;
    assert_eq!(got["status"], "active");
    assert_eq!(
        (&got["project"]["id"], &got["virtual_network"]["id"]),
        (&json!(PROJECT), &v["id"])
    );
    // What it holds stays while it does.
    let conn_path = format!("/connections/{}", id(&c));
    for path in [&conn_path, &format!("/virtual-networks/{}", id(&v))] {
        let (status, reply) = call(&fake, "DELETE", path, None).await;
        assert_eq!(status, 422, "{path}: {reply}");
    }
    let (_, on_port) = call(&fake, "GET", &vcs, None).await;
    assert_eq!(on_port["virtual_circuits"][0]["id"], vc["id"]);
    let (_, port_view) = call(&fake, "GET", &format!("{conn_path}/ports/{port}"), None).await;
    assert_eq!(port_view["virtual_circuits"][0]["id"], vc["id"]);
    let (status, renamed) = call(
        &fake,
        "PUT",
        &vc_path,
        Some(json!({"name": "renamed", "tags": ["x"]})),
    )
    .await;
    assert_eq!((status, renamed["name"].clone()), (200, json!("renamed")));
    let (status, deleting) = call(&fake, "DELETE", &vc_path, None).await;
    assert_eq!(
        (status, deleting["status"].clone()),
        (202, json!("deleting"))
    );
    assert_eq!(
        call(&fake, "DELETE", &vc_path, None).await.0,
        422,
        "already deleting"
    );
    let (_, events) = call(&fake, "GET", &format!("{vc_path}/events"), None).await;
    let types = network::event_types(&events);
    assert_eq!(
        types,
        [
            "virtual_circuit.deleting",
            "virtual_circuit.updated",
            "virtual_circuit.active",
            "virtual_circuit.created"
        ]
    );
    let (_, port_events) = call(
        &fake,
        "GET",
        &format!("{conn_path}/ports/{port}/events"),
        None,
    )
    .await;
    assert_eq!(
        port_events["meta"]["total"], 6,
        "the connection's two and the circuit's four"
    );
    tokio::time::advance(Duration::from_secs(31)).await;
    assert_eq!(call(&fake, "GET", &vc_path, None).await.0, 404);
    assert_eq!(call(&fake, "DELETE", &conn_path, None).await.0, 202);
}

#[tokio::test(start_paused = true)]
async fn the_world_document_seeds_connections_and_circuits_and_refuses_what_does_not_fit() {
    let c = "0c000000-0000-4000-8000-0000000000c1";
    let p1 = "0c000000-0000-4000-8000-0000000000c2";
    let v = "0e000000-0000-4000-8000-0000000000e1";
    let vc = "0c000000-0000-4000-8000-0000000000c3";
    let mut doc = world();
    doc["virtual_networks"] = json!([{"id": v, "project": PROJECT, "metro": "da", "vxlan": 1000}]);
    doc["interconnections"] = json!([{"id": c, "organization": ORG, "name": "seeded",
        "metro": "da", "type": "dedicated", "redundancy": "primary", "speed": 10_000_000_000u64,
        "ports": [p1]}]);
    doc["virtual_circuits"] = json!([{"id": vc, "interconnection": c, "port": p1, "project": PROJECT,
        "virtual_network": v, "nni_vlan": 100, "status": "activating"}]);
    let parsed: WorldDoc = serde_json::from_value(doc.clone()).unwrap();
    let fake = Fake::builder().token(TOKEN).world(parsed.clone()).build();
    let (_, got) = call(&fake, "GET", &format!("/connections/{c}"), None).await;
    assert_eq!(
        (
            &got["status"],
            &got["ports"][0]["virtual_circuits"][0]["status"]
        ),
        (&json!("active"), &json!("activating"))
    );
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, circuit) = call(&fake, "GET", &format!("/virtual-circuits/{vc}"), None).await;
    assert_eq!(
        circuit["status"], "active",
        "a seeded circuit goes on from its state"
    );
    let saved = fake.world();
    assert_eq!(saved.interconnections, parsed.interconnections);
    assert_eq!(saved.virtual_circuits.len(), 1);
    assert_eq!(saved.interconnection_metros, parsed.interconnection_metros);
    for (field, bad, why) in [
        (
            "interconnections",
            json!([{"id": c, "organization": ORG, "name": "x", "metro": "fr",
            "type": "dedicated", "redundancy": "primary", "speed": 10_000_000_000u64, "ports": [p1]}]),
            "does not support",
        ),
        (
            "interconnections",
            json!([{"id": c, "organization": ORG, "name": "x", "metro": "da",
            "type": "dedicated", "redundancy": "redundant", "speed": 10_000_000_000u64, "ports": [p1]}]),
            "ports",
        ),
        (
            "virtual_circuits",
            json!([
                {"id": vc, "interconnection": c, "port": p1, "project": PROJECT, "nni_vlan": 100},
                {"id": "0c000000-0000-4000-8000-0000000000c4", "interconnection": c, "port": p1, "project": PROJECT, "nni_vlan": 100}
            ]),
            "taken",
        ),
        ("interconnection_metros", json!(["zz"]), "zz"),
    ] {
        let mut d = doc.clone();
        d[field] = bad;
        let parsed: WorldDoc = serde_json::from_value(d).unwrap();
        let e = Fake::builder().token(TOKEN).world(parsed).try_build().err();
        let e = e.unwrap_or_else(|| panic!("{field}: loaded")).to_string();
        assert!(e.contains(why), "{field}: {e}");
    }
}

#[tokio::test(start_paused = true)]
async fn the_metros_with_interconnections_are_listed_with_their_provider_and_prices() {
    let fake = fake();
    let (status, metros) = call(&fake, "GET", "/connections/metros", None).await;
    assert_eq!(status, 200, "{metros}");
    let codes: Vec<&Value> = metros["metros"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["code"])
        .collect();
    assert_eq!(codes, [&json!("da"), &json!("sv")], "fr has none");
    let provider = &metros["metros"][0]["providers"][0];
    assert_eq!(provider["locations"], json!(["da11"]));
    assert_eq!(provider["bandwidths"][0], 50);
    assert_eq!(metros["meta"]["total"], 2);
    let (status, prices) = call(&fake, "GET", "/connections/prices", None).await;
    assert_eq!(status, 200);
    let tiers = prices["provider_pricing"][0]["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), 7);
    assert!(
        tiers
            .windows(2)
            .all(|t| t[0]["price"].as_f64() < t[1]["price"].as_f64()),
        "{prices}"
    );
}

#[tokio::test]
async fn over_http_every_interconnection_reply_matches_the_spec() {
    let fake = fake();
    let server = schema::Checked::serve(fake.clone()).await;
    let send =
        |method: &'static str, path: String, body: Option<Value>| server.send(method, path, body);
    let (_, v) = send(
        "POST",
        format!("/projects/{PROJECT}/virtual-networks"),
        Some(json!({"metro": "da"})),
    )
    .await;
    let (status, shared) = send(
        "POST",
        format!("/projects/{PROJECT}/connections?include=project,organization"),
        Some(
            json!({"name": "s", "type": "shared", "redundancy": "redundant", "metro": "da",
                    "speed": 50_000_000, "service_token_type": "a_side", "vlans": [v["vxlan"]]}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{shared}");
    let (status, c) = send(
        "POST",
        format!("/organizations/{ORG}/connections"),
        Some(json!({"name": "d", "type": "dedicated", "redundancy": "primary", "metro": "da", "speed": "1Gbps", "mode": "tunnel"})),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    let conn = format!("/connections/{}", id(&c));
    let port = id(&c["ports"][0]);
    let (status, vc) = send(
        "POST",
        format!("{conn}/ports/{port}/virtual-circuits"),
        Some(json!({"project_id": PROJECT, "vnid": v["id"]})),
    )
    .await;
    assert_eq!(status, 201, "{vc}");
    fake.advance(Duration::from_secs(31)).unwrap();
    let vc_path = format!("/virtual-circuits/{}", id(&vc));
    for (method, p, want) in [
        ("GET", format!("{conn}?include=organization,project"), 200),
        ("GET", format!("/connections/{}", id(&shared)), 200),
        ("GET", format!("/projects/{PROJECT}/connections"), 200),
        ("GET", format!("/organizations/{ORG}/connections"), 200),
        ("GET", format!("{conn}/ports"), 200),
        ("GET", format!("{conn}/ports/{port}"), 200),
        ("GET", format!("{conn}/ports/{port}/virtual-circuits"), 200),
        ("GET", format!("{conn}/virtual-circuits"), 200),
        // `virtual_network` is an `Href` in the spec: included, it is the
        // whole VLAN (Terraform reads its `id`), checked in process.
        ("GET", format!("{vc_path}?include=project"), 200),
        ("GET", format!("{conn}/events"), 200),
        // The spec's `InterconnectionMetroList_metros_inner` is `allOf`
        // `Metro` and `providers`, which no reply passes once `Metro` is
        // closed; the port's and circuit's event lists are an `Event` in
        // the spec. Those are checked in process.
        ("GET", "/connections/prices".to_string(), 200),
        ("DELETE", conn.clone(), 422),
        ("DELETE", vc_path.clone(), 202),
    ] {
        let (status, reply) = send(method, p.clone(), None).await;
        assert_eq!(status, want, "{method} {p}: {reply}");
    }
    let (status, _) = send("PUT", conn.clone(), Some(json!({"description": "d"}))).await;
    assert_eq!(status, 200);
    server.check_and_stop().await;
}
