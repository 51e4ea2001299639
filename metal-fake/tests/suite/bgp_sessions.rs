//! BGP sessions, as Terraform's `equinix_metal_bgp_session` and the
//! device BGP neighbours data source, and cloud-provider-equinix-metal,
//! use them: a session needs the project's BGP ("BGP is not enabled"
//! without it), one an address family a device; listed per device and
//! per project, read (with `include=device`), updated (the default
//! route), deleted; the neighbour data derived from the sessions and the
//! project's configuration. In process, and over HTTP with every reply
//! checked against the spec.

use crate::common::schema;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::{self, call, DEVICE, OTHER_DEVICE, PROJECT, TOKEN};

/// A project (BGP off) with two active devices in `da`.
fn world() -> WorldDoc {
    network::world(
        &[PROJECT],
        &[(DEVICE, "c3.small.x86"), (OTHER_DEVICE, "c3.small.x86")],
    )
}

fn fake() -> Fake {
    network::fake_of(world())
}

/// Turns the project's BGP on: local, ASN 65000, a password.
async fn enable_bgp(fake: &Fake) {
    let (status, body) = call(
        fake,
        "POST",
        &format!("/projects/{PROJECT}/bgp-configs"),
        Some(json!({"deployment_type": "local", "asn": 65000, "md5": "Secret12345"})),
    )
    .await;
    assert_eq!(status, 204, "{body}");
}

async fn create(fake: &Fake, device: &str, body: Value) -> (u16, Value) {
    call(
        fake,
        "POST",
        &format!("/devices/{device}/bgp/sessions"),
        Some(body),
    )
    .await
}

#[tokio::test(start_paused = true)]
async fn a_session_needs_the_project_s_bgp_and_one_an_address_family() {
    let fake = fake();
    let (status, body) = create(&fake, DEVICE, json!({"address_family": "ipv4"})).await;
    assert_eq!(
        (status, body),
        (422, json!({"errors": ["BGP is not enabled"]}))
    );
    enable_bgp(&fake).await;
    // As Terraform creates it.
    let (status, s) = create(
        &fake,
        DEVICE,
        json!({"address_family": "ipv4", "default_route": false}),
    )
    .await;
    assert_eq!(status, 201, "{s}");
    assert_eq!(s["address_family"], "ipv4");
    assert_eq!(s["default_route"], false);
    assert_eq!(s["status"], "down");
    assert_eq!(
        s["device"],
        json!({"href": format!("/metal/v1/devices/{DEVICE}")})
    );
    assert_eq!(s["learned_routes"], json!([]));
    let (status, body) = create(&fake, DEVICE, json!({"address_family": "ipv4"})).await;
    assert_eq!(status, 422, "{body}");
    let (status, v6) = create(
        &fake,
        DEVICE,
        json!({"address_family": "ipv6", "default_route": true}),
    )
    .await;
    assert_eq!(status, 201, "{v6}");
    let (status, other) = create(&fake, OTHER_DEVICE, json!({"address_family": "ipv4"})).await;
    assert_eq!(status, 201);
    assert_eq!(create(&fake, DEVICE, json!({})).await.0, 422);

    let ids = |list: &Value| -> Vec<Value> {
        list["bgp_sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].clone())
            .collect()
    };
    let (_, mine) = call(
        &fake,
        "GET",
        &format!("/devices/{DEVICE}/bgp/sessions"),
        None,
    )
    .await;
    assert_eq!(ids(&mine), [s["id"].clone(), v6["id"].clone()]);
    let (_, all) = call(
        &fake,
        "GET",
        &format!("/projects/{PROJECT}/bgp/sessions"),
        None,
    )
    .await;
    assert_eq!(
        ids(&all),
        [s["id"].clone(), v6["id"].clone(), other["id"].clone()]
    );

    // Terraform reads it back with the device included, for its ID.
    let path = format!("/bgp/sessions/{}", s["id"].as_str().unwrap());
    let (status, got) = call(&fake, "GET", &format!("{path}?include=device"), None).await;
    assert_eq!((status, &got["device"]["id"]), (200, &json!(DEVICE)));
    // The update's body is the default route alone (the spec), or as
    // packngo's `UpdateBGPSessionRequest` sends it; the reply is the
    // session (packngo's TestAccBGPSession reads its ID from it).
    let (status, body) = call(&fake, "PUT", &path, Some(json!(true))).await;
    assert_eq!(
        (status, &body["id"], &body["default_route"]),
        (200, &s["id"], &json!(true))
    );
    assert_eq!(
        call(&fake, "GET", &path, None).await.1["default_route"],
        true
    );
    let (status, body) = call(&fake, "PUT", &path, Some(json!({"default_route": false}))).await;
    assert_eq!((status, &body["default_route"]), (200, &json!(false)));
    let (status, body) = call(&fake, "PUT", &path, Some(json!(true))).await;
    assert_eq!((status, &body["default_route"]), (200, &json!(true)));
    assert_eq!(
        call(&fake, "PUT", &path, Some(json!({"x": 1}))).await.0,
        422
    );

    let (status, _) = call(&fake, "DELETE", &path, None).await;
    assert_eq!(status, 204);
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
    assert_eq!(call(&fake, "DELETE", &path, None).await.0, 404);
}

#[tokio::test(start_paused = true)]
async fn the_neighbour_data_follows_the_sessions_and_the_project_s_config() {
    let fake = fake();
    let neighbors = |fake: Fake| async move {
        let (status, body) = call(
            &fake,
            "GET",
            &format!("/devices/{DEVICE}/bgp/neighbors"),
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        body["bgp_neighbors"].as_array().unwrap().clone()
    };
    assert!(neighbors(fake.clone()).await.is_empty());
    enable_bgp(&fake).await;
    // An elastic block of the device's metro is a route it may announce;
    // one of another metro is not.
    let (_, block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 2, "metro": "da"})),
    )
    .await;
    call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 1, "metro": "sv"})),
    )
    .await;
    // Nor is a Metal Gateway's private block of its metro.
    let (status, vlan) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/virtual-networks"),
        Some(json!({"metro": "da"})),
    )
    .await;
    assert_eq!(status, 201, "{vlan}");
    let (status, gateway) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/metal-gateways"),
        Some(json!({"virtual_network_id": vlan["id"], "private_ipv4_subnet_size": 8})),
    )
    .await;
    assert_eq!(status, 201, "{gateway}");
    create(
        &fake,
        DEVICE,
        json!({"address_family": "ipv4", "default_route": true}),
    )
    .await;
    create(&fake, DEVICE, json!({"address_family": "ipv6"})).await;
    let got = neighbors(fake.clone()).await;
    assert_eq!(got.len(), 2);
    let v4 = &got[0];
    assert_eq!(v4["address_family"], 4);
    assert_eq!(v4["customer_as"], 65000);
    assert_eq!(v4["peer_as"], 65530);
    assert_eq!(v4["peer_ips"], json!(["169.254.255.1", "169.254.255.2"]));
    assert_eq!(
        (&v4["md5_enabled"], &v4["md5_password"]),
        (&json!(true), &json!("Secret12345"))
    );
    assert_eq!(v4["multihop"], true);
    // Routes in: the elastic block, then the project's own private subnets
    // in the metro (each device's own block stands for them), never the
    // gateway's block.
    let routes: Vec<&str> = v4["routes_in"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["exact"], false);
            r["route"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        routes[0],
        format!("{}/31", block["network"].as_str().unwrap())
    );
    let (_, device) = call(&fake, "GET", &format!("/devices/{DEVICE}"), None).await;
    let own_private = device["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["public"] == false && a["address_family"] == 4)
        .map(|a| format!("{}/{}", a["network"].as_str().unwrap(), a["cidr"]))
        .unwrap();
    assert!(routes.contains(&own_private.as_str()), "{routes:?}");
    let (_, gateway_block) = call(
        &fake,
        "GET",
        &format!(
            "/metal-gateways/{}?include=ip_reservation",
            gateway["id"].as_str().unwrap()
        ),
        None,
    )
    .await;
    let held = format!(
        "{}/{}",
        gateway_block["ip_reservation"]["network"].as_str().unwrap(),
        gateway_block["ip_reservation"]["cidr"]
    );
    assert!(!routes.contains(&held.as_str()), "{routes:?}");
    assert_eq!(
        v4["routes_out"],
        json!([{"route": "0.0.0.0/0", "exact": true}])
    );
    // Its customer address is the device's private IPv4 address.
    let private = device["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["public"] == false)
        .unwrap()["address"]
        .clone();
    assert_eq!(v4["customer_ip"], private);
    let v6 = &got[1];
    assert_eq!(v6["address_family"], 6);
    assert_eq!(v6["peer_ips"], json!(["fc00::e", "fc00::f"]));
    assert_eq!(v6["routes_out"], json!([]));
    // The project's IPv6 subnets: the device's own block among them.
    let own_v6 = device["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["address_family"] == 6)
        .map(|a| format!("{}/{}", a["network"].as_str().unwrap(), a["cidr"]))
        .unwrap();
    assert!(
        v6["routes_in"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["route"] == own_v6.as_str()),
        "{v6}"
    );
    // Another device has no sessions, so no neighbours.
    let (_, other) = call(
        &fake,
        "GET",
        &format!("/devices/{OTHER_DEVICE}/bgp/neighbors"),
        None,
    )
    .await;
    assert_eq!(other, json!({"bgp_neighbors": []}));
}

#[tokio::test(start_paused = true)]
async fn sessions_round_trip_and_go_with_their_device() {
    let fake = fake();
    enable_bgp(&fake).await;
    let (_, s) = create(
        &fake,
        DEVICE,
        json!({"address_family": "ipv4", "default_route": true}),
    )
    .await;
    let saved = fake.world();
    assert_eq!(saved.bgp_sessions.len(), 1);
    assert!(saved.bgp_sessions[0].default_route);
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);
    // Without the project's BGP, a document's session is refused.
    let mut bad = saved.clone();
    bad.projects[0].bgp_config = None;
    let err = Fake::builder()
        .world(bad)
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("BGP"), "{err}");

    assert_eq!(
        call(&fake, "DELETE", &format!("/devices/{DEVICE}"), None)
            .await
            .0,
        204
    );
    tokio::time::advance(std::time::Duration::from_secs(3600)).await;
    let path = format!("/bgp/sessions/{}", s["id"].as_str().unwrap());
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
    assert!(fake.world().bgp_sessions.is_empty());
}

/// Over HTTP: the walk, every reply checked against the spec (the
/// session with `include=device` is left out: the spec has the device as
/// a bare href there, and Terraform reads its ID).
#[tokio::test]
async fn over_http_every_bgp_reply_matches_the_spec() {
    let fake = fake();
    let server = schema::Checked::serve(fake.clone()).await;
    let send =
        |method: &'static str, path: String, body: Option<Value>| server.send(method, path, body);
    let sessions = format!("/devices/{DEVICE}/bgp/sessions");
    assert_eq!(
        send(
            "POST",
            sessions.clone(),
            Some(json!({"address_family": "ipv4"}))
        )
        .await
        .0,
        422
    );
    send(
        "POST",
        format!("/projects/{PROJECT}/bgp-configs"),
        Some(json!({"deployment_type": "local", "asn": 65000})),
    )
    .await;
    let (status, s) = send(
        "POST",
        sessions.clone(),
        Some(json!({"address_family": "ipv4"})),
    )
    .await;
    assert_eq!(status, 201);
    let path = format!("/bgp/sessions/{}", s["id"].as_str().unwrap());
    for (method, p, body, want) in [
        ("GET", sessions.clone(), None, 200),
        (
            "GET",
            format!("/projects/{PROJECT}/bgp/sessions"),
            None,
            200,
        ),
        ("GET", format!("/devices/{DEVICE}/bgp/neighbors"), None, 200),
        ("GET", path.clone(), None, 200),
        ("PUT", path.clone(), Some(json!(true)), 200),
        ("GET", format!("/devices/{DEVICE}/bgp/neighbors"), None, 200),
        ("DELETE", path.clone(), None, 204),
        ("GET", path.clone(), None, 404),
    ] {
        let (status, reply) = send(method, p.clone(), body).await;
        assert_eq!(status, want, "{method} {p}: {reply}");
    }
    server.check_and_stop().await;
}
