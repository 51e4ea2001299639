//! Devices' ports, as Terraform's `equinix_metal_port` and metal-cli's
//! port tests use them: every device has its plan's ports (in its
//! `network_ports` and at `/ports/{id}`); VLANs are assigned and
//! unassigned, a native VLAN set and removed, ports bonded and disbonded,
//! a bond converted to layer 2 and back, with the API's refusals; the
//! bond's `network_type` follows. In process, and over HTTP with every
//! reply checked against the spec.

use crate::common::schema;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::DEVICE as DA_DEVICE;
use crate::network::OTHER_DEVICE as BIG_DEVICE;
use crate::network::{self, call, port, ports, PROJECT, TOKEN};

/// A project with a two-port device and a four-port one, both in `da`.
fn world() -> WorldDoc {
    network::world(
        &[PROJECT],
        &[(DA_DEVICE, "c3.small.x86"), (BIG_DEVICE, "n3.xlarge.x86")],
    )
}

fn fake() -> Fake {
    network::fake_of(world())
}

/// A VLAN of the project in `metro`: its ID.
async fn vlan(fake: &Fake, metro: &str) -> String {
    network::id(&network::vlan(fake, PROJECT, metro).await)
}

/// `POST /ports/{port}/{action}` with `body`: status and reply.
async fn act(fake: &Fake, port: &str, action: &str, body: Option<Value>) -> (u16, Value) {
    call(fake, "POST", &format!("/ports/{port}/{action}"), body).await
}

/// The `network_type` of the bond `bond` of the device.
async fn network_type(fake: &Fake, bond: &str) -> String {
    let (_, p) = call(fake, "GET", &format!("/ports/{bond}"), None).await;
    p["network_type"].as_str().unwrap().to_string()
}

/// The refusal's first message, after checking it is a `422`.
fn refusal((status, body): (u16, Value)) -> String {
    assert_eq!(status, 422, "{body}");
    body["errors"][0].as_str().unwrap().to_string()
}

#[tokio::test(start_paused = true)]
async fn every_device_has_its_plan_s_ports_in_its_network_ports_and_at_their_path() {
    let fake = fake();
    let two = ports(&fake, DA_DEVICE).await;
    let names: Vec<&str> = two.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bond0", "eth0", "eth1"]);
    assert_eq!(two[0]["type"], "NetworkBondPort");
    assert_eq!(two[0]["network_type"], "layer3");
    assert_eq!(two[0]["data"], json!({"bonded": true}));
    for eth in &two[1..] {
        assert_eq!(eth["type"], "NetworkPort");
        assert_eq!(eth["bond"], json!({"id": two[0]["id"], "name": "bond0"}));
        assert_eq!(eth["data"]["bonded"], true);
        assert!(eth["data"]["mac"]
            .as_str()
            .unwrap()
            .starts_with("0c:42:a1:"));
        assert_eq!(eth["virtual_networks"], json!([]));
        assert!(eth.get("network_type").is_none(), "{eth}");
    }
    assert_ne!(two[1]["data"]["mac"], two[2]["data"]["mac"]);
    // The same port at its own path.
    for p in &two {
        let (status, got) = call(
            &fake,
            "GET",
            p["href"].as_str().unwrap().trim_start_matches("/metal/v1"),
            None,
        )
        .await;
        assert_eq!((status, &got), (200, p));
    }
    // A four-port plan: two bonds, eth1 in bond1.
    let four = ports(&fake, BIG_DEVICE).await;
    let names: Vec<&str> = four.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bond0", "bond1", "eth0", "eth1", "eth2", "eth3"]);
    let bond_of =
        |name: &str| four.iter().find(|p| p["name"] == name).unwrap()["bond"]["name"].clone();
    assert_eq!(
        ["eth0", "eth1", "eth2", "eth3"].map(bond_of),
        [
            json!("bond0"),
            json!("bond1"),
            json!("bond1"),
            json!("bond0")
        ]
    );
    // Each MAC filters the project's devices to its own.
    let mac = four[5]["data"]["mac"].as_str().unwrap().to_uppercase();
    let (_, listed) = call(
        &fake,
        "GET",
        &format!("/projects/{PROJECT}/devices?mac_address={mac}"),
        None,
    )
    .await;
    let ids: Vec<&Value> = listed["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["id"])
        .collect();
    assert_eq!(ids, [&json!(BIG_DEVICE)]);
    // An ID no device has is 404.
    assert_eq!(
        call(
            &fake,
            "GET",
            &format!("/ports/{}", uuid::Uuid::new_v4()),
            None
        )
        .await
        .0,
        404
    );
}

#[tokio::test(start_paused = true)]
async fn a_vlan_goes_on_a_disbonded_port_of_its_metro_with_its_native_vlan() {
    let fake = fake();
    let (bond0, eth1) = (
        port(&fake, DA_DEVICE, "bond0").await,
        port(&fake, DA_DEVICE, "eth1").await,
    );
    let da = vlan(&fake, "da").await;
    let sv = vlan(&fake, "sv").await;
    // A bonded port's members take no VLAN of their own.
    let message = refusal(act(&fake, &eth1, "assign", Some(json!({"vnid": da}))).await);
    assert!(message.contains("bonded"), "{message}");
    // Hybrid: eth1 out of the bond.
    let (status, p) = act(&fake, &eth1, "disbond", None).await;
    assert_eq!((status, &p["data"]["bonded"]), (200, &json!(false)));
    assert_eq!(network_type(&fake, &bond0).await, "hybrid");
    // A VLAN of another metro is refused; one of the device's is taken.
    let message = refusal(act(&fake, &eth1, "assign", Some(json!({"vnid": sv}))).await);
    assert!(message.contains("metro"), "{message}");
    let (status, p) = act(&fake, &eth1, "assign", Some(json!({"vnid": da}))).await;
    assert_eq!(status, 200, "{p}");
    assert_eq!(
        p["virtual_networks"],
        json!([{"href": format!("/metal/v1/virtual-networks/{da}")}])
    );
    let (_, p) = call(
        &fake,
        "GET",
        &format!("/ports/{eth1}?include=virtual_networks"),
        None,
    )
    .await;
    assert_eq!(p["virtual_networks"][0]["vxlan"], 1000);
    assert!(
        refusal(act(&fake, &eth1, "assign", Some(json!({"vnid": da}))).await).contains("already")
    );
    // The device's view shows it too.
    let shown = ports(&fake, DA_DEVICE).await;
    assert_eq!(
        shown[2]["virtual_networks"][0]["href"],
        format!("/metal/v1/virtual-networks/{da}")
    );

    // The native VLAN: one of the port's, and it stays until removed.
    let other = vlan(&fake, "da").await;
    let message = refusal(act(&fake, &eth1, &format!("native-vlan?vnid={other}"), None).await);
    assert!(message.contains("assigned"), "{message}");
    let (status, p) = act(&fake, &eth1, &format!("native-vlan?vnid={da}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(
        p["native_virtual_network"]["href"],
        format!("/metal/v1/virtual-networks/{da}")
    );
    assert!(
        refusal(act(&fake, &eth1, "unassign", Some(json!({"vnid": da}))).await).contains("native")
    );
    let (status, p) = call(&fake, "DELETE", &format!("/ports/{eth1}/native-vlan"), None).await;
    assert_eq!(status, 200);
    assert!(p["native_virtual_network"].is_null(), "{p}");
    // packngo's `AssignNative` names it in the body, as the real API took.
    let (status, p) = act(&fake, &eth1, "native-vlan", Some(json!({"vnid": da}))).await;
    assert_eq!(status, 200, "{p}");
    assert_eq!(
        p["native_virtual_network"]["href"],
        format!("/metal/v1/virtual-networks/{da}")
    );
    let message = refusal(act(&fake, &eth1, "native-vlan", None).await);
    assert!(message.contains("vnid is required"), "{message}");
    call(&fake, "DELETE", &format!("/ports/{eth1}/native-vlan"), None).await;
    // By its vxlan, as Terraform's `vxlan_ids` name it.
    let (status, p) = act(&fake, &eth1, "unassign", Some(json!({"vnid": "1000"}))).await;
    assert_eq!((status, &p["virtual_networks"]), (200, &json!([])));
    assert!(
        refusal(act(&fake, &eth1, "unassign", Some(json!({"vnid": da}))).await)
            .contains("not assigned")
    );
    for bad in [
        json!({}),
        json!({"vnid": "nope"}),
        json!({"vnid": uuid::Uuid::new_v4()}),
    ] {
        refusal(act(&fake, &eth1, "assign", Some(bad)).await);
    }
    // Bonded again, it is layer 3 again.
    let (status, _) = act(&fake, &eth1, "bond", None).await;
    assert_eq!(status, 200);
    assert_eq!(network_type(&fake, &bond0).await, "layer3");
}

#[tokio::test(start_paused = true)]
async fn a_bond_goes_hybrid_bonded_then_layer_2_and_back_with_the_api_s_refusals() {
    let fake = fake();
    let bond0 = port(&fake, DA_DEVICE, "bond0").await;
    let eth0 = port(&fake, DA_DEVICE, "eth0").await;
    let da = vlan(&fake, "da").await;
    let (status, _) = act(&fake, &bond0, "assign", Some(json!({"vnid": da}))).await;
    assert_eq!(status, 200);
    assert_eq!(network_type(&fake, &bond0).await, "hybrid-bonded");
    // Already layer 3: converting it again changes nothing, its VLAN stays.
    let (status, p) = act(&fake, &bond0, "convert/layer-3", Some(json!({}))).await;
    assert_eq!((status, &p["network_type"]), (200, &json!("hybrid-bonded")));
    assert_eq!(
        p["virtual_networks"].as_array().map(Vec::len),
        Some(1),
        "{p}"
    );
    // Only a bond converts.
    assert!(refusal(act(&fake, &eth0, "convert/layer-2", None).await).contains("bond"));
    let (status, p) = act(&fake, &bond0, "convert/layer-2", None).await;
    assert_eq!((status, &p["network_type"]), (200, &json!("layer2-bonded")));
    // packngo sends the bulk flag in the body.
    let (status, p) = act(
        &fake,
        &bond0,
        "disbond",
        Some(json!({"id": bond0, "bulk_disable": true})),
    )
    .await;
    assert_eq!(
        (status, &p["network_type"]),
        (200, &json!("layer2-individual"))
    );
    assert_eq!(p["data"]["bonded"], false);
    // A bond whose ports left it takes no VLAN; a port of it does.
    let other = vlan(&fake, "da").await;
    assert!(
        refusal(act(&fake, &bond0, "assign", Some(json!({"vnid": other}))).await)
            .contains("disbonded")
    );
    let (status, _) = act(&fake, &eth0, "assign", Some(json!({"vnid": other}))).await;
    assert_eq!(status, 200);
    // A port with VLANs of its own is not bonded.
    assert!(refusal(act(&fake, &eth0, "bond", None).await).contains("unassign"));
    act(&fake, &eth0, "unassign", Some(json!({"vnid": other}))).await;
    act(&fake, &bond0, "unassign", Some(json!({"vnid": da}))).await;
    let (status, p) = act(
        &fake,
        &bond0,
        "convert/layer-3",
        Some(json!({"request_ips": [{"address_family": 4, "public": true}]})),
    )
    .await;
    assert_eq!((status, &p["network_type"]), (200, &json!("layer3")));
    let shown = ports(&fake, DA_DEVICE).await;
    assert!(
        shown.iter().all(|p| p["data"]["bonded"] == true),
        "{shown:?}"
    );
    // Nothing is left to save: every port is a fresh server's again.
    assert!(fake.world().ports.is_empty());
}

/// terraform-provider-metal's `metal_port_vlan_attachment` delete takes as
/// done a `422` whose message starts "Virtual network" and ends "not
/// assigned" (`metal/errors.go` `isNotAssigned`, used by
/// `metal/resource_metal_port_vlan_attachment.go`'s delete, as
/// terraform-provider-equinix's `IsNotAssigned` did): a destroy after the
/// VLAN already left the port must meet those words.
#[tokio::test(start_paused = true)]
async fn unassigning_a_vlan_not_on_the_port_is_refused_in_the_words_terraform_takes_as_done() {
    let fake = fake();
    let bond0 = port(&fake, DA_DEVICE, "bond0").await;
    let da = vlan(&fake, "da").await;
    let message = refusal(act(&fake, &bond0, "unassign", Some(json!({"vnid": da}))).await);
    assert!(
        message.starts_with("Virtual network") && message.ends_with("not assigned"),
        "{message}"
    );
    // Once assigned and unassigned, a second unassign (a retried destroy)
    // meets the same words.
    assert_eq!(
        act(&fake, &bond0, "assign", Some(json!({"vnid": da})))
            .await
            .0,
        200
    );
    assert_eq!(
        act(&fake, &bond0, "unassign", Some(json!({"vnid": da})))
            .await
            .0,
        200
    );
    let again = refusal(act(&fake, &bond0, "unassign", Some(json!({"vnid": da}))).await);
    assert_eq!(again, message);
}

/// The Ansible collection's `metal_port` integration target
/// (`tests/integration/targets/metal_port/tasks/main.yml`, "convert bond
/// port to hybrid bonded mode", run against the real API by the
/// collection's CI): a `layer2-bonded` bond0 holding two VLANs is
/// converted to layer 3 with them still on (`plugins/modules/metal_port.py`
/// converts before its VLAN batch) and reads `hybrid-bonded` with both;
/// emptied of them, it reads `layer3`.
#[tokio::test(start_paused = true)]
async fn a_layer_2_bond_converted_to_layer_3_keeps_its_vlans_and_reads_hybrid_bonded() {
    let fake = fake();
    let bond0 = port(&fake, DA_DEVICE, "bond0").await;
    let (v1, v2) = (vlan(&fake, "da").await, vlan(&fake, "da").await);
    let (status, p) = act(&fake, &bond0, "convert/layer-2", Some(json!({}))).await;
    assert_eq!((status, &p["network_type"]), (200, &json!("layer2-bonded")));
    for v in [&v1, &v2] {
        assert_eq!(
            act(&fake, &bond0, "assign", Some(json!({"vnid": v})))
                .await
                .0,
            200
        );
    }
    // As the module asks: all three addresses.
    let (status, p) = act(
        &fake,
        &bond0,
        "convert/layer-3?include=virtual_networks",
        Some(json!({"request_ips": [
            {"address_family": 4, "public": true},
            {"address_family": 4, "public": false},
            {"address_family": 6, "public": true}
        ]})),
    )
    .await;
    assert_eq!(
        (status, &p["network_type"]),
        (200, &json!("hybrid-bonded")),
        "{p}"
    );
    let ids: Vec<&Value> = p["virtual_networks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["id"])
        .collect();
    assert_eq!(ids, [&json!(v1), &json!(v2)]);
    let (_, device) = call(&fake, "GET", &format!("/devices/{DA_DEVICE}"), None).await;
    assert_eq!(device["ip_addresses"].as_array().map(Vec::len), Some(3));
    // The module's next step: a batch taking both off; then `layer3`.
    for v in [&v1, &v2] {
        act(&fake, &bond0, "unassign", Some(json!({"vnid": v}))).await;
    }
    assert_eq!(network_type(&fake, &bond0).await, "layer3");
}

#[tokio::test(start_paused = true)]
async fn port_state_round_trips_and_goes_with_its_device() {
    let fake = fake();
    let bond1 = port(&fake, BIG_DEVICE, "bond1").await;
    let eth2 = port(&fake, BIG_DEVICE, "eth2").await;
    let da = vlan(&fake, "da").await;
    act(&fake, &eth2, "disbond", None).await;
    act(&fake, &eth2, "assign", Some(json!({"vnid": da}))).await;
    act(&fake, &eth2, &format!("native-vlan?vnid={da}"), None).await;
    assert_eq!(network_type(&fake, &bond1).await, "hybrid");
    let saved = fake.world();
    assert_eq!(saved.ports.len(), 1);
    assert_eq!(saved.ports[0].name, "eth2");
    assert!(!saved.ports[0].bonded);
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);
    assert_eq!(
        ports(&again, BIG_DEVICE).await,
        ports(&fake, BIG_DEVICE).await
    );
    // A document's port must be its plan's, and its VLANs of its metro.
    let mut bad = saved.clone();
    bad.ports[0].name = "eth9".into();
    assert!(Fake::builder()
        .world(bad)
        .try_build()
        .unwrap_err()
        .to_string()
        .contains("no such port"));
    let mut bad = saved.clone();
    bad.ports[0].bonded = true;
    assert!(Fake::builder()
        .world(bad)
        .try_build()
        .unwrap_err()
        .to_string()
        .contains("bonded"));

    // The VLAN stays while the port has it; the device's delete takes the
    // port's state, and then the VLAN goes.
    let path = format!("/virtual-networks/{da}");
    assert_eq!(call(&fake, "DELETE", &path, None).await.0, 422);
    assert_eq!(
        call(&fake, "DELETE", &format!("/devices/{BIG_DEVICE}"), None)
            .await
            .0,
        204
    );
    tokio::time::advance(std::time::Duration::from_secs(3600)).await;
    assert_eq!(
        call(&fake, "GET", &format!("/ports/{eth2}"), None).await.0,
        404
    );
    assert!(fake.world().ports.is_empty());
    assert_eq!(call(&fake, "DELETE", &path, None).await.0, 204);
}

/// Over HTTP: the walk, every reply checked against the spec.
#[tokio::test]
async fn over_http_every_port_reply_matches_the_spec() {
    let fake = fake();
    let server = schema::Checked::serve(fake.clone()).await;
    let send =
        |method: &'static str, path: String, body: Option<Value>| server.send(method, path, body);
    let (_, device) = send("GET", format!("/devices/{DA_DEVICE}"), None).await;
    let bond0 = device["network_ports"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let eth1 = device["network_ports"][2]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, v) = send(
        "POST",
        format!("/projects/{PROJECT}/virtual-networks"),
        Some(json!({"metro": "da"})),
    )
    .await;
    let da = v["id"].as_str().unwrap().to_string();
    let steps: Vec<(&str, String, Option<Value>, u16)> = vec![
        ("GET", format!("/ports/{bond0}"), None, 200),
        (
            "POST",
            format!("/ports/{eth1}/assign"),
            Some(json!({"vnid": da})),
            422,
        ),
        ("POST", format!("/ports/{eth1}/disbond"), None, 200),
        (
            "POST",
            format!("/ports/{eth1}/assign"),
            Some(json!({"vnid": da})),
            200,
        ),
        (
            "POST",
            format!("/ports/{eth1}/native-vlan?vnid={da}"),
            None,
            200,
        ),
        (
            "GET",
            format!("/ports/{eth1}?include=virtual_networks,native_virtual_network"),
            None,
            200,
        ),
        (
            "GET",
            format!("/devices/{DA_DEVICE}?include=network_ports.virtual_networks"),
            None,
            200,
        ),
        ("DELETE", format!("/ports/{eth1}/native-vlan"), None, 200),
        (
            "POST",
            format!("/ports/{eth1}/unassign"),
            Some(json!({"vnid": da})),
            200,
        ),
        ("POST", format!("/ports/{eth1}/bond"), None, 200),
        (
            "POST",
            format!("/ports/{bond0}/convert/layer-2"),
            Some(json!({})),
            200,
        ),
        (
            "POST",
            format!("/ports/{bond0}/assign"),
            Some(json!({"vnid": da})),
            200,
        ),
        (
            "POST",
            format!("/ports/{bond0}/convert/layer-3"),
            Some(json!({})),
            200,
        ),
        (
            "POST",
            format!("/ports/{bond0}/unassign"),
            Some(json!({"vnid": da})),
            200,
        ),
        (
            "POST",
            format!("/ports/{bond0}/convert/layer-3"),
            Some(json!({})),
            200,
        ),
        ("GET", format!("/ports/{}", uuid::Uuid::new_v4()), None, 404),
    ];
    for (method, path, body, want) in steps {
        let (status, reply) = send(method, path.clone(), body).await;
        assert_eq!(status, want, "{method} {path}: {reply}");
    }
    server.check_and_stop().await;
}
