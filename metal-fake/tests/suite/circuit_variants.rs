//! The variants of connections and virtual circuits beside the VLAN ones:
//! a VRF circuit on a dedicated port as Terraform's
//! `equinix_metal_virtual_circuit` makes it (`vrf_id`, `peer_asn`,
//! `subnet`, `metal_ip`, `customer_ip`, `md5`; `""` for what it leaves
//! out), its updates and what it holds; a shared connection with VRFs
//! (pending, waiting on peering details, active); `shared_port_vlan` and
//! `shared_port_vlan_to_csp` connections (pending, waiting on a VLAN,
//! active); a connection in a facility. In process, and over HTTP with
//! every reply checked against the spec.

use std::time::Duration;

use metal_fake::Fake;
use serde_json::{json, Value};

use crate::common::schema;
use crate::network::{self, call, id, vlan, PROJECT, TOKEN};

const ORG: &str = "0a000000-0000-4000-8000-000000000001";

/// A world of one organisation and project, metros `da` (facility
/// `da11`) and `sv` (facility `sv15`), both with interconnections.
fn fake() -> Fake {
    network::fake_of(
        serde_json::from_value(json!({
            "organizations": [{"id": ORG, "name": "acme"}],
            "projects": [{"id": PROJECT, "organization": ORG}],
            "plans": [{"slug": "c3.small.x86"}],
            "metros": [{"code": "da"}, {"code": "sv"}],
            "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}]
        }))
        .unwrap(),
    )
}

/// A VRF of the project in `metro`, ASN 65000, routing `ranges`.
async fn vrf(fake: &Fake, metro: &str, ranges: Value) -> Value {
    let name = format!("vrf-{metro}-{ranges}");
    network::vrf(fake, PROJECT, metro, &name, ranges).await
}

/// An active dedicated port in `da`, and its primary port's ID.
async fn dedicated(fake: &Fake) -> (Value, String) {
    let (status, c) = call(
        fake,
        "POST",
        &format!("/organizations/{ORG}/connections"),
        Some(
            json!({"name": "port", "type": "dedicated", "redundancy": "primary",
                    "metro": "da", "speed": "10Gbps"}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    tokio::time::advance(Duration::from_secs(31)).await;
    let port = id(&c["ports"][0]);
    (c, port)
}

/// The body Terraform's VC resource sends for a VRF circuit: every
/// optional text it leaves out as `""`, `md5` included.
fn tf_body(vrf: &Value, extra: Value) -> Value {
    let mut b = json!({
        "project_id": PROJECT, "name": "vrf-vc", "description": "", "speed": "",
        "vrf": vrf["id"], "md5": "", "peer_asn": 65530, "subnet": "192.168.100.16/31",
        "customer_ip": "", "metal_ip": "", "subnet_ipv6": "", "customer_ipv6": "",
        "metal_ipv6": "", "nni_vlan": 1056
    });
    for (k, v) in extra.as_object().unwrap() {
        b[k] = v.clone();
    }
    b
}

/// Deletes VRF `v`, nothing holding it any more: `204`.
async fn assert_vrf_deleted(fake: &Fake, v: &Value) {
    let (status, reply) = call(fake, "DELETE", &format!("/vrfs/{}", id(v)), None).await;
    assert_eq!(status, 204, "{reply}");
}

fn messages(reply: &Value) -> String {
    reply["errors"].to_string()
}

#[tokio::test(start_paused = true)]
async fn a_vrf_circuit_on_a_dedicated_port_peers_in_its_subnet_and_changes_its_peering() {
    let fake = fake();
    let v = vrf(
        &fake,
        "da",
        json!(["192.168.100.0/25", "2604:1380:4641:a00::/64"]),
    )
    .await;
    let (c, port) = dedicated(&fake).await;
    let vcs = format!("/connections/{}/ports/{port}/virtual-circuits", id(&c));
    let (status, vc) = call(&fake, "POST", &vcs, Some(tf_body(&v, json!({})))).await;
    assert_eq!(status, 201, "{vc}");
    assert_eq!(
        (&vc["type"], &vc["status"], &vc["peer_asn"], &vc["nni_vlan"]),
        (
            &json!("vrf"),
            &json!("activating"),
            &json!(65530),
            &json!(1056)
        )
    );
    // A /31's two addresses: the Metal side the first, the customer the
    // other; no MD5 for the empty text.
    assert_eq!(
        (&vc["subnet"], &vc["metal_ip"], &vc["customer_ip"]),
        (
            &json!("192.168.100.16/31"),
            &json!("192.168.100.16"),
            &json!("192.168.100.17")
        )
    );
    assert!(vc.get("md5").is_none() && vc.get("vnid").is_none(), "{vc}");
    let vc_path = format!("/virtual-circuits/{}", id(&vc));
    tokio::time::advance(Duration::from_secs(31)).await;
    // As Terraform reads it back.
    let (_, got) = call(
        &fake,
        "GET",
        &format!("{vc_path}?include=project,virtual_network,vrf"),
        None,
    )
    .await;
    assert_eq!(got["status"], "active");
    assert_eq!(
        (&got["vrf"]["id"], &got["vrf"]["local_asn"]),
        (&v["id"], &json!(65000))
    );
    // The subnet's VRF IP reservation was made for it.
    let (_, ips) = call(&fake, "GET", &format!("/vrfs/{}/ips", id(&v)), None).await;
    let blocks: Vec<(&Value, &Value)> = ips["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (&b["network"], &b["cidr"]))
        .collect();
    assert_eq!(blocks, [(&json!("192.168.100.16"), &json!(31))]);
    // The VRF lists it.
    let (_, of_vrf) = call(&fake, "GET", &format!("/vrfs/{}", id(&v)), None).await;
    assert_eq!(of_vrf["virtual_circuits"][0]["id"], vc["id"]);
    // New peering details: changing, then active again.
    let (status, changed) = call(
        &fake,
        "PUT",
        &vc_path,
        Some(
            json!({"subnet": "192.168.100.20/30", "customer_ip": "192.168.100.21",
                    "md5": "Secret12345", "subnet_ipv6": "2604:1380:4641:a00::4/126"}),
        ),
    )
    .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (
            &changed["status"],
            &changed["metal_ip"],
            &changed["customer_ip"]
        ),
        (
            &json!("changing_peering_details"),
            &json!("192.168.100.22"),
            &json!("192.168.100.21")
        ),
        "a /30's usable pair, the Metal side the other of the customer's"
    );
    assert_eq!(
        (
            &changed["metal_ipv6"],
            &changed["customer_ipv6"],
            &changed["md5"]
        ),
        (
            &json!("2604:1380:4641:a00::5"),
            &json!("2604:1380:4641:a00::6"),
            &json!("Secret12345")
        )
    );
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(got["status"], "active");
    let (_, ips) = call(&fake, "GET", &format!("/vrfs/{}/ips", id(&v)), None).await;
    assert_eq!(
        ips["ip_addresses"][0]["network"], "192.168.100.20",
        "the old subnet's block went with the change: {ips}"
    );
    // Name and tags alone change no status.
    let (_, renamed) = call(
        &fake,
        "PUT",
        &vc_path,
        Some(json!({"name": "r", "tags": ["t"]})),
    )
    .await;
    assert_eq!(
        (&renamed["name"], &renamed["status"]),
        (&json!("r"), &json!("active"))
    );
    // What the circuit holds stays while it does.
    for path in [
        format!("/vrfs/{}", id(&v)),
        format!("/ips/{}", ips["ip_addresses"][0]["id"].as_str().unwrap()),
    ] {
        let (status, reply) = call(&fake, "DELETE", &path, None).await;
        assert_eq!(status, 422, "{path}: {reply}");
    }
    assert_eq!(call(&fake, "DELETE", &vc_path, None).await.0, 202);
    tokio::time::advance(Duration::from_secs(31)).await;
    assert_eq!(call(&fake, "GET", &vc_path, None).await.0, 404);
    let (_, ips) = call(&fake, "GET", &format!("/vrfs/{}/ips", id(&v)), None).await;
    assert_eq!(ips["ip_addresses"], json!([]), "its block went with it");
    assert_vrf_deleted(&fake, &v).await;
}

#[tokio::test(start_paused = true)]
async fn a_vrf_circuit_uses_a_block_that_holds_its_subnet_and_each_refusal_once() {
    let fake = fake();
    let v = vrf(&fake, "da", json!(["192.168.100.0/25"])).await;
    let sv = vrf(&fake, "sv", json!(["10.1.0.0/24"])).await;
    let (_, block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "vrf", "vrf_id": v["id"], "network": "192.168.100.0", "cidr": 29})),
    )
    .await;
    let (c, port) = dedicated(&fake).await;
    let vcs = format!("/connections/{}/ports/{port}/virtual-circuits", id(&c));
    let v_vlan = vlan(&fake, PROJECT, "da").await;
    for (extra, why) in [
        (json!({"vrf": sv["id"]}), "not in the connection's metro"),
        (
            json!({"vrf": "0b000000-0000-4000-8000-0000000000ff"}),
            "was not found",
        ),
        (json!({"peer_asn": 65000}), "local_asn"),
        (json!({"peer_asn": null}), "peer_asn can't"),
        (json!({"subnet": ""}), "subnet can't"),
        (json!({"subnet": "192.168.100.16/29"}), "/30 or /31"),
        (json!({"subnet": "192.168.100.17/30"}), "host bits"),
        (
            json!({"subnet": "172.16.0.0/31"}),
            "not within the VRF's IP ranges",
        ),
        (
            json!({"subnet": "192.168.100.16/30", "metal_ip": "192.168.100.16"}),
            "not a usable",
        ),
        (
            json!({"subnet": "192.168.100.16/30", "metal_ip": "192.168.100.17", "customer_ip": "192.168.100.17"}),
            "differ",
        ),
        (json!({"md5": "short"}), "md5"),
        (json!({"vnid": v_vlan["id"]}), "not both"),
        (json!({"nni_vlan": null}), "nni_vlan"),
    ] {
        let (status, reply) = call(&fake, "POST", &vcs, Some(tf_body(&v, extra.clone()))).await;
        assert_eq!(status, 422, "{extra}: {reply}");
        assert!(messages(&reply).contains(why), "{extra}: {reply}");
    }
    // Peering details without a VRF are refused too.
    let (status, reply) = call(
        &fake,
        "POST",
        &vcs,
        Some(json!({"project_id": PROJECT, "nni_vlan": 7, "peer_asn": 65001})),
    )
    .await;
    assert_eq!(status, 422, "{reply}");
    // In the existing /29: no new block; the block is held by it.
    let (status, vc) = call(
        &fake,
        "POST",
        &vcs,
        Some(tf_body(&v, json!({"subnet": "192.168.100.4/30"}))),
    )
    .await;
    assert_eq!(status, 201, "{vc}");
    let (_, ips) = call(&fake, "GET", &format!("/vrfs/{}/ips", id(&v)), None).await;
    assert_eq!(ips["ip_addresses"].as_array().unwrap().len(), 1);
    let block_path = format!("/ips/{}", id(&block));
    assert_eq!(call(&fake, "DELETE", &block_path, None).await.0, 422);
    // A second circuit may not take an overlapping subnet, nor one that
    // overlaps a block without lying in it: a /31 VRF block, which a
    // request no longer makes (IPv4 /22 to /29, equinix-sdk-go's
    // `VrfIpReservationCreateInput`) but a world document may hold.
    let (status, _) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "vrf", "vrf_id": v["id"], "network": "192.168.100.8", "cidr": 31})),
    )
    .await;
    assert_eq!(status, 422);
    let mut doc = serde_json::to_value(fake.world()).unwrap();
    doc["ip_reservations"].as_array_mut().unwrap().push(json!({
        "id": "0e000000-0000-4000-8000-000000000031", "project": PROJECT, "type": "vrf",
        "network": "192.168.100.8", "cidr": 31, "metro": "da", "vrf": v["id"]
    }));
    fake.load_world(&serde_json::from_value(doc).unwrap())
        .unwrap();
    for (subnet, why) in [
        ("192.168.100.4/31", "used by another virtual circuit"),
        ("192.168.100.8/30", "overlaps the VRF's IP reservation"),
    ] {
        let (status, reply) = call(
            &fake,
            "POST",
            &vcs,
            Some(tf_body(&v, json!({"subnet": subnet, "nni_vlan": 1057}))),
        )
        .await;
        assert_eq!(status, 422, "{subnet}: {reply}");
        assert!(messages(&reply).contains(why), "{subnet}: {reply}");
    }
    // A VLAN circuit's fields are refused on a VRF circuit's update.
    let vc_path = format!("/virtual-circuits/{}", id(&vc));
    let (status, _) = call(&fake, "PUT", &vc_path, Some(json!({"vnid": v_vlan["id"]}))).await;
    assert_eq!(status, 422);
    let (status, _) = call(&fake, "PUT", &vc_path, Some(json!({"vrf": sv["id"]}))).await;
    assert_eq!(status, 422);
    assert_eq!(call(&fake, "DELETE", &vc_path, None).await.0, 202);
    tokio::time::advance(Duration::from_secs(31)).await;
    assert_eq!(
        call(&fake, "DELETE", &block_path, None).await.0,
        204,
        "a block named, not made for the circuit, stays until released"
    );
}

#[tokio::test(start_paused = true)]
async fn a_shared_connection_with_vrfs_waits_on_peering_details_then_activates() {
    let fake = fake();
    let v = vrf(&fake, "da", json!(["192.168.100.0/25"])).await;
    let on_project = format!("/projects/{PROJECT}/connections");
    let shared = |vrfs: Value| {
        json!({"name": "fabric-vrf", "type": "shared", "redundancy": "redundant", "metro": "da",
               "speed": "50Mbps", "service_token_type": "a_side", "vrfs": vrfs})
    };
    let (status, reply) = call(&fake, "POST", &on_project, Some(shared(json!([v["id"]])))).await;
    assert_eq!(status, 422, "a redundant connection takes two: {reply}");
    let (status, c) = call(
        &fake,
        "POST",
        &on_project,
        Some(shared(json!([v["id"], v["id"]]))),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    assert_eq!(c["service_tokens"].as_array().unwrap().len(), 2);
    let circuits: Vec<&Value> = c["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["virtual_circuits"][0])
        .collect();
    for vc in &circuits {
        assert_eq!(
            (&vc["type"], &vc["status"]),
            (&json!("vrf"), &json!("pending")),
            "{vc}"
        );
        assert!(vc.get("subnet").is_none());
    }
    tokio::time::advance(Duration::from_secs(31)).await;
    let vc_path = format!("/virtual-circuits/{}", id(circuits[0]));
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(got["status"], "waiting_on_peering_details");
    let (status, reply) = call(
        &fake,
        "PUT",
        &vc_path,
        Some(json!({"subnet": "192.168.100.0/31"})),
    )
    .await;
    assert_eq!(status, 422, "a peer ASN is needed too: {reply}");
    let (status, peered) = call(
        &fake,
        "PUT",
        &vc_path,
        Some(json!({"subnet": "192.168.100.0/31", "peer_asn": 65100})),
    )
    .await;
    assert_eq!(status, 200, "{peered}");
    assert_eq!(peered["status"], "activating");
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(
        (&got["status"], &got["metal_ip"]),
        (&json!("active"), &json!("192.168.100.0"))
    );
    // The circuits (and the block made for one) go with the connection.
    let (status, _) = call(&fake, "DELETE", &format!("/connections/{}", id(&c)), None).await;
    assert_eq!(status, 202);
    assert_eq!(call(&fake, "GET", &vc_path, None).await.0, 404);
    assert_vrf_deleted(&fake, &v).await;
}

#[tokio::test(start_paused = true)]
async fn shared_port_connections_wait_on_a_vlan_and_a_csp_connection_names_its_provider() {
    let fake = fake();
    let a = vlan(&fake, PROJECT, "sv").await;
    let on_project = format!("/projects/{PROJECT}/connections");
    let (status, c) = call(
        &fake,
        "POST",
        &on_project,
        Some(
            json!({"name": "shared-port", "type": "shared_port_vlan", "metro": "sv",
                    "project": PROJECT, "speed": "1Gbps", "vlans": [a["vxlan"]]}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    assert_eq!(
        (
            &c["type"],
            &c["redundancy"],
            &c["service_tokens"],
            &c["speed"]
        ),
        (
            &json!("shared_port_vlan"),
            &json!("primary"),
            &json!([]),
            &json!(1_000_000_000u64)
        )
    );
    assert_eq!(
        (&c["metro"]["code"], &c["facility"]["code"]),
        (&json!("sv"), &json!("sv15"))
    );
    assert!(
        c.get("mode").is_none(),
        "a shared connection has no mode: {c}"
    );
    let vc = &c["ports"][0]["virtual_circuits"][0];
    assert_eq!(
        (&vc["status"], &vc["vnid"]),
        (&json!("pending"), &a["vxlan"])
    );
    tokio::time::advance(Duration::from_secs(31)).await;
    let vc_path = format!("/virtual-circuits/{}", id(vc));
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(got["status"], "activating", "found with its VLAN");
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(got["status"], "active");
    // Its VLAN taken off: deactivating, then waiting on one; given one
    // again, activating.
    let (_, off) = call(&fake, "PUT", &vc_path, Some(json!({"vnid": ""}))).await;
    assert_eq!(off["status"], "deactivating");
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(got["status"], "waiting_on_customer_vlan");
    let (_, on) = call(
        &fake,
        "PUT",
        &vc_path,
        Some(json!({"vnid": a["vxlan"].to_string()})),
    )
    .await;
    assert_eq!(on["status"], "activating");

    // To a cloud provider: two VLANs make it redundant; no speed is 10 Gbps.
    let b = vlan(&fake, PROJECT, "sv").await;
    let csp = |provider: Value| {
        json!({"name": "to-aws", "type": "shared_port_vlan_to_csp", "metro": "sv",
               "project": PROJECT, "vlans": [a["vxlan"], b["vxlan"]], "fabric_provider": provider})
    };
    for (provider, why) in [
        (Value::Null, "Fabric provider can't"),
        (
            json!({"type": "CSP_GCP", "account_id": "123412341234"}),
            "CSP_AWS",
        ),
        (
            json!({"type": "CSP_AWS", "account_id": "1234"}),
            "12 digits",
        ),
    ] {
        let (status, reply) = call(&fake, "POST", &on_project, Some(csp(provider.clone()))).await;
        assert_eq!(status, 422, "{provider}: {reply}");
        assert!(messages(&reply).contains(why), "{provider}: {reply}");
    }
    let provider =
        json!({"type": "CSP_AWS", "account_id": "123412341234", "location": "us-west-1"});
    let (status, c) = call(&fake, "POST", &on_project, Some(csp(provider.clone()))).await;
    assert_eq!(status, 201, "{c}");
    assert_eq!(
        (&c["redundancy"], &c["speed"], &c["fabric_provider"]),
        (&json!("redundant"), &json!(10_000_000_000u64), &provider)
    );
    tokio::time::advance(Duration::from_secs(61)).await;
    let (_, listed) = call(
        &fake,
        "GET",
        &format!("/connections/{}/virtual-circuits", id(&c)),
        None,
    )
    .await;
    let statuses: Vec<&Value> = listed["virtual_circuits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|vc| &vc["status"])
        .collect();
    assert_eq!(statuses, [&json!("active"), &json!("active")]);
    // What these types refuse.
    for (body, why) in [
        (
            json!({"name": "x", "type": "shared_port_vlan", "metro": "sv", "project": PROJECT,
                "vlans": [a["vxlan"]], "service_token_type": "a_side"}),
            "no service tokens",
        ),
        (
            json!({"name": "x", "type": "shared_port_vlan", "metro": "sv", "project": PROJECT,
                "vlans": [a["vxlan"]], "fabric_provider": provider}),
            "fabric_provider",
        ),
        (
            json!({"name": "x", "type": "shared_port_vlan", "metro": "sv", "project": PROJECT,
                "vlans": [a["vxlan"]], "vrfs": ["0b000000-0000-4000-8000-0000000000ff"]}),
            "vrfs",
        ),
    ] {
        let (status, reply) = call(&fake, "POST", &on_project, Some(body.clone())).await;
        assert_eq!(status, 422, "{body}: {reply}");
        assert!(messages(&reply).contains(why), "{body}: {reply}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_connection_in_a_facility_is_in_its_metro_and_shows_both() {
    let fake = fake();
    let on_org = format!("/organizations/{ORG}/connections");
    // packngo sends `facility`, the spec `facility_id`.
    for key in ["facility", "facility_id"] {
        let (status, c) = call(
            &fake,
            "POST",
            &on_org,
            Some(
                json!({"name": "in-da11", "type": "dedicated", "redundancy": "primary",
                        "speed": "10Gbps", key: "da11"}),
            ),
        )
        .await;
        assert_eq!(status, 201, "{key}: {c}");
        assert_eq!(
            (&c["facility"]["code"], &c["metro"]["code"]),
            (&json!("da11"), &json!("da"))
        );
    }
    for (body, why) in [
        (json!({"facility_id": "xx1"}), "Facility xx1 was not found"),
        (
            json!({"facility_id": "sv15", "metro": "da"}),
            "is not in metro da",
        ),
        (json!({}), "Metro can't"),
    ] {
        let mut b =
            json!({"name": "x", "type": "dedicated", "redundancy": "primary", "speed": "10Gbps"});
        for (k, v) in body.as_object().unwrap() {
            b[k] = v.clone();
        }
        let (status, reply) = call(&fake, "POST", &on_org, Some(b)).await;
        assert_eq!(status, 422, "{body}: {reply}");
        assert!(messages(&reply).contains(why), "{body}: {reply}");
    }
    let saved = fake.world();
    assert_eq!(saved.interconnections[0].facility.as_deref(), Some("da11"));
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world().interconnections, saved.interconnections);
}

#[tokio::test]
async fn over_http_every_variant_reply_matches_the_spec() {
    let fake = fake();
    let server = schema::Checked::serve(fake.clone()).await;
    let send =
        |method: &'static str, path: String, body: Option<Value>| server.send(method, path, body);
    let (_, v) = send(
        "POST",
        format!("/projects/{PROJECT}/vrfs"),
        Some(json!({"name": "v", "metro": "da", "local_asn": 65000, "ip_ranges": ["192.168.100.0/25"]})),
    )
    .await;
    let (_, vl) = send(
        "POST",
        format!("/projects/{PROJECT}/virtual-networks"),
        Some(json!({"metro": "da"})),
    )
    .await;
    let (status, c) = send(
        "POST",
        format!("/organizations/{ORG}/connections"),
        Some(json!({"name": "d", "type": "dedicated", "redundancy": "primary", "facility_id": "da11", "speed": "10Gbps"})),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    fake.advance(Duration::from_secs(31)).unwrap();
    let port = id(&c["ports"][0]);
    let conn = format!("/connections/{}", id(&c));
    let (status, vc) = send(
        "POST",
        format!("{conn}/ports/{port}/virtual-circuits"),
        Some(tf_body(&v, json!({"md5": "Secret12345"}))),
    )
    .await;
    assert_eq!(status, 201, "{vc}");
    let (status, shared) = send(
        "POST",
        format!("/projects/{PROJECT}/connections"),
        Some(
            json!({"name": "s", "type": "shared", "redundancy": "primary", "metro": "da",
                    "speed": "50Mbps", "service_token_type": "a_side", "vrfs": [v["id"]]}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{shared}");
    let (status, csp) = send(
        "POST",
        format!("/projects/{PROJECT}/connections"),
        Some(json!({"name": "c", "type": "shared_port_vlan_to_csp", "metro": "da", "project": PROJECT,
                    "vlans": [vl["vxlan"]], "fabric_provider": {"type": "CSP_AWS", "account_id": "123412341234"}})),
    )
    .await;
    assert_eq!(status, 201, "{csp}");
    let vc_path = format!("/virtual-circuits/{}", id(&vc));
    for (method, p, body, want) in [
        ("GET", format!("{vc_path}?include=vrf,project"), None, 200),
        ("GET", format!("/vrfs/{}", id(&v)), None, 200),
        ("GET", format!("{conn}?include=facility"), None, 200),
        ("GET", format!("/connections/{}", id(&shared)), None, 200),
        ("GET", format!("/connections/{}", id(&csp)), None, 200),
        (
            "GET",
            format!("/connections/{}/virtual-circuits", id(&shared)),
            None,
            200,
        ),
        (
            "PUT",
            vc_path.clone(),
            Some(json!({"peer_asn": 65001})),
            200,
        ),
        ("DELETE", vc_path.clone(), None, 202),
    ] {
        let (status, reply) = send(method, p.clone(), body).await;
        assert_eq!(status, want, "{method} {p}: {reply}");
    }
    server.check_and_stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_shared_connection_s_circuit_is_pending_then_waits_on_a_vlan_until_given_one() {
    let fake = fake();
    let v = vlan(&fake, PROJECT, "da").await;
    let (status, c) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/connections"),
        Some(
            json!({"name": "later", "type": "shared", "redundancy": "primary", "metro": "da",
                    "speed": "50Mbps", "service_token_type": "a_side"}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    let vc = &c["ports"][0]["virtual_circuits"][0];
    assert_eq!(vc["status"], "pending");
    let vc_path = format!("/virtual-circuits/{}", id(vc));
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(got["status"], "waiting_on_customer_vlan");
    tokio::time::advance(Duration::from_secs(600)).await;
    let (_, still) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(
        still["status"], "waiting_on_customer_vlan",
        "until a VLAN is given"
    );
    let (status, given) = call(&fake, "PUT", &vc_path, Some(json!({"vnid": v["id"]}))).await;
    assert_eq!((status, &given["status"]), (200, &json!("activating")));
    tokio::time::advance(Duration::from_secs(31)).await;
    let (_, got) = call(&fake, "GET", &vc_path, None).await;
    assert_eq!(
        (&got["status"], &got["vnid"]),
        (&json!("active"), &v["vxlan"])
    );
}
