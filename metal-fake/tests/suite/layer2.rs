//! Layer 2 and layer 3 as packngo's `DevicePorts.ConvertDevice` drives
//! them and as clients read the outcome: a device goes layer 3 →
//! layer 2 bonded → layer 2 individual → hybrid → layer 3, and at each
//! step its ports, its addresses and the network type packngo's
//! `Device.GetNetworkType` computes from them agree (a layer-2 device has
//! no management address, so it does not read as layer 3). Converting to
//! layer 2 takes the device's addresses, assigned ones too; back to
//! layer 3 it gets those `request_ips` asks for. Over HTTP, every reply
//! checked against the spec.

use crate::common::schema::Checked;

use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::{self, call, port, PROJECT};

/// The device of the walks.
const DEVICE: &str = network::DEVICE;

fn fake() -> Fake {
    network::fake_of(network::world(&[PROJECT], &[(DEVICE, "c3.small.x86")]))
}

/// The network type packngo's `Device.GetNetworkType` computes from a
/// device's reply (packngo v0.31.0 `devices.go`: every bond bonded and
/// every physical port bonded is `layer2-bonded` without a management
/// address and `layer3` with one; a bond bonded but a physical port not
/// is `hybrid`; otherwise `layer2-individual`).
fn packngo_network_type(device: &Value) -> &'static str {
    let ports = device["network_ports"].as_array().unwrap();
    let all_bonded = |kind: &str| {
        let of: Vec<&Value> = ports.iter().filter(|p| p["type"] == kind).collect();
        !of.is_empty() && of.iter().all(|p| p["data"]["bonded"] == true)
    };
    let management = device["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["management"] == true);
    match (
        all_bonded("NetworkBondPort"),
        all_bonded("NetworkPort"),
        management,
    ) {
        (true, true, false) => "layer2-bonded",
        (true, true, true) => "layer3",
        (true, false, _) => "hybrid",
        (false, _, _) => "layer2-individual",
    }
}

/// The kinds of a device's addresses, `(address_family, public)`, in the
/// order it lists them.
fn address_kinds(device: &Value) -> Vec<(u64, bool)> {
    device["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["address_family"].as_u64().unwrap(), a["public"] == true))
        .collect()
}

/// What the walk checks at each step: bond0's `network_type`, each
/// port's `data.bonded`, the device's addresses and packngo's type.
struct Step {
    bond0: &'static str,
    bonded: [bool; 3],
    addresses: &'static [(u64, bool)],
    packngo: &'static str,
}

const ALL_THREE: &[(u64, bool)] = &[(4, true), (6, true), (4, false)];

/// A layer-3 device: bonded, with its three addresses.
const LAYER3: Step = Step {
    bond0: "layer3",
    bonded: [true, true, true],
    addresses: ALL_THREE,
    packngo: "layer3",
};

fn check(device: &Value, want: &Step, what: &str) {
    let ports = device["network_ports"].as_array().unwrap();
    assert_eq!(ports[0]["network_type"], want.bond0, "{what}: {ports:?}");
    let bonded: Vec<bool> = ports.iter().map(|p| p["data"]["bonded"] == true).collect();
    assert_eq!(bonded, want.bonded, "{what}: {ports:?}");
    assert_eq!(address_kinds(device), want.addresses, "{what}");
    assert_eq!(packngo_network_type(device), want.packngo, "{what}");
}

#[tokio::test]
async fn a_device_goes_layer_2_bonded_individual_hybrid_and_back_as_packngo_computes_it() {
    let fake = fake();
    let server = Checked::serve(fake.clone()).await;
    let send = |method: &'static str, path: String, body: Option<Value>| {
        let server = &server;
        async move {
            let (status, reply) = server.send(method, path.clone(), body).await;
            assert_eq!(status, 200, "{method} {path}: {reply}");
            reply
        }
    };
    let device = || send("GET", format!("/devices/{DEVICE}"), None);
    let (bond0, eth1) = (
        port(&fake, DEVICE, "bond0").await,
        port(&fake, DEVICE, "eth1").await,
    );
    // An address of a reserved block assigned to it, beside its own.
    let (status, block) = server
        .send(
            "POST",
            format!("/projects/{PROJECT}/ips"),
            Some(json!({"type": "public_ipv4", "quantity": 4, "metro": "da"})),
        )
        .await;
    assert_eq!(status, 201, "{block}");
    let (status, _) = server
        .send(
            "POST",
            format!("/devices/{DEVICE}/ips"),
            Some(json!({"address": block["address"]})),
        )
        .await;
    assert_eq!(status, 201);
    let d = device().await;
    assert_eq!(packngo_network_type(&d), "layer3");
    assert_eq!(d["ip_addresses"].as_array().unwrap().len(), 4);

    // layer3 -> layer2-bonded: packngo's PortToLayerTwo, then Bond of each
    // port (already bonded: no change).
    let p = send("POST", format!("/ports/{bond0}/convert/layer-2"), None).await;
    assert_eq!(p["network_type"], "layer2-bonded");
    let l2_bonded = Step {
        bond0: "layer2-bonded",
        bonded: [true, true, true],
        addresses: &[],
        packngo: "layer2-bonded",
    };
    check(&device().await, &l2_bonded, "layer 2 bonded");
    // Its assigned address went too: the block holds none and is released.
    let (_, b) = server
        .send(
            "GET",
            format!("/ips/{}", block["id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(b["assignments"], json!([]), "{b}");
    // Converting again changes nothing.
    send("POST", format!("/ports/{bond0}/convert/layer-2"), None).await;
    check(&device().await, &l2_bonded, "layer 2 twice");

    // layer2-bonded -> layer2-individual: Disbond(bond0, bulk) (the spec's
    // query form).
    send(
        "POST",
        format!("/ports/{bond0}/disbond?bulk_disable=true"),
        None,
    )
    .await;
    check(
        &device().await,
        &Step {
            bond0: "layer2-individual",
            bonded: [false, false, false],
            addresses: &[],
            packngo: "layer2-individual",
        },
        "layer 2 individual",
    );

    // layer2-individual -> hybrid: Bond(bond0) (packngo's body form), back
    // to layer 3 with the addresses packngo asks for, then eth1 out.
    send(
        "POST",
        format!("/ports/{bond0}/bond"),
        Some(json!({"bulk_enable": false})),
    )
    .await;
    let p = send(
        "POST",
        format!("/ports/{bond0}/convert/layer-3"),
        Some(json!({"request_ips": [
            {"address_family": 4, "public": true},
            {"address_family": 4, "public": false},
            {"address_family": 6, "public": true}
        ]})),
    )
    .await;
    assert_eq!(p["network_type"], "layer3");
    check(&device().await, &LAYER3, "layer 3 again");
    send("POST", format!("/ports/{eth1}/disbond"), None).await;
    check(
        &device().await,
        &Step {
            bond0: "hybrid",
            bonded: [true, true, false],
            addresses: ALL_THREE,
            packngo: "hybrid",
        },
        "hybrid",
    );

    // hybrid -> layer3: Bond(bond0) bonds its ports back.
    send("POST", format!("/ports/{bond0}/bond"), None).await;
    check(&device().await, &LAYER3, "layer 3 at the end");
    server.check_and_stop().await;
}

#[tokio::test(start_paused = true)]
async fn back_to_layer_3_a_device_gets_the_addresses_it_asks_for() {
    let fake = fake();
    let bond0 = port(&fake, DEVICE, "bond0").await;
    let convert = |to: &'static str, body: Option<Value>| {
        let (fake, bond0) = (fake.clone(), bond0.clone());
        async move { call(&fake, "POST", &format!("/ports/{bond0}/convert/{to}"), body).await }
    };
    let kinds = || {
        let fake = fake.clone();
        async move {
            address_kinds(
                &call(&fake, "GET", &format!("/devices/{DEVICE}"), None)
                    .await
                    .1,
            )
        }
    };
    assert_eq!(convert("layer-2", None).await.0, 200);
    // A private IPv6 is not offered; an entry must say what it asks for.
    for bad in [
        json!([{"address_family": 6, "public": false}]),
        json!([{"address_family": 4}]),
        json!([{"address_family": 5, "public": true}]),
    ] {
        let (status, body) = convert("layer-3", Some(json!({ "request_ips": bad }))).await;
        assert_eq!(status, 422, "{bad}: {body}");
        assert_eq!(kinds().await, [], "a refusal changes nothing");
    }
    // metal-cli's `port convert --layer2=false` asks for a private IPv4
    // only (unless told `--public-ipv4`, `--public-ipv6`).
    let (status, _) = convert(
        "layer-3",
        Some(json!({"request_ips": [{"address_family": 4, "public": false}]})),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(kinds().await, [(4, false)]);
    // Its metadata and BGP view follow: the metadata lists one address.
    let (_, meta) = call(&fake, "GET", &format!("/devices/{DEVICE}/metadata"), None).await;
    assert_eq!(
        meta["network"]["addresses"].as_array().unwrap().len(),
        1,
        "{meta}"
    );
    // Without request_ips: the three a device has by default.
    assert_eq!(convert("layer-2", None).await.0, 200);
    assert_eq!(kinds().await, []);
    assert_eq!(convert("layer-3", None).await.0, 200);
    assert_eq!(kinds().await, ALL_THREE);
    // A device with its default addresses saves as one never converted.
    let saved = fake.world();
    let d = saved
        .devices
        .iter()
        .find(|d| d.id.to_string() == DEVICE)
        .unwrap();
    assert_eq!(d.own_addresses, None);
}

#[tokio::test(start_paused = true)]
async fn a_layer_3_bond_may_lose_its_ports_and_vlans_follow_the_network_type() {
    let fake = fake();
    let (bond0, eth0, eth1) = (
        port(&fake, DEVICE, "bond0").await,
        port(&fake, DEVICE, "eth0").await,
        port(&fake, DEVICE, "eth1").await,
    );
    let act = |port: &str, action: &str, body: Option<Value>| {
        let (fake, path) = (fake.clone(), format!("/ports/{port}/{action}"));
        async move { call(&fake, "POST", &path, body).await }
    };
    let refused = |(status, body): (u16, Value), want: &str| {
        assert_eq!(status, 422, "{body}");
        let message = body["errors"][0].as_str().unwrap();
        assert!(message.contains(want), "{message}");
    };
    // Layer 3: the bond may lose all its ports (`hybrid`), as the
    // Terraform providers' port resource and metal-cli's `port convert
    // --layer2 --bonded=false` disbond bond0 before converting it; then it
    // takes no VLAN itself. Bonded again, it is layer 3.
    let v = network::id(&network::vlan(&fake, PROJECT, "da").await);
    let (status, p) = act(&bond0, "disbond", Some(json!({"bulk_disable": true}))).await;
    assert_eq!((status, &p["network_type"]), (200, &json!("hybrid")), "{p}");
    refused(
        act(&bond0, "assign", Some(json!({"vnid": v}))).await,
        "disbonded",
    );
    let (status, p) = act(&bond0, "bond", Some(json!({"bulk_enable": true}))).await;
    assert_eq!((status, &p["network_type"]), (200, &json!("layer3")), "{p}");
    assert_eq!(act(&eth1, "disbond", None).await.0, 200);
    assert_eq!(act(&eth0, "disbond", None).await.0, 200);
    assert_eq!(act(&eth0, "bond", None).await.0, 200);
    // Hybrid: a VLAN on the disbonded port, not on the bonded one.
    refused(
        act(&eth0, "assign", Some(json!({"vnid": v}))).await,
        "bonded port",
    );
    assert_eq!(act(&eth1, "assign", Some(json!({"vnid": v}))).await.0, 200);
    // Layer 2 keeps the VLANs, and layer 3 needs them off first.
    assert_eq!(act(&bond0, "convert/layer-2", None).await.0, 200);
    refused(act(&bond0, "convert/layer-3", None).await, "unassigned");
    // Layer 2: every port may leave the bond; then the bond takes no VLAN.
    assert_eq!(act(&eth0, "disbond", None).await.0, 200);
    refused(
        act(&bond0, "assign", Some(json!({"vnid": v}))).await,
        "disbonded",
    );
    assert_eq!(
        act(&eth1, "unassign", Some(json!({"vnid": v}))).await.0,
        200
    );
    let (status, p) = act(&bond0, "convert/layer-3", None).await;
    assert_eq!((status, &p["network_type"]), (200, &json!("layer3")));
}
