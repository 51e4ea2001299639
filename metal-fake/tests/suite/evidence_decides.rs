//! Where the evidence was thin and the fake had chosen the strict answer,
//! the clients' own tests decide (`metal_fake::fidelity`'s rule): each
//! test here walks what a client test did against the real API, or stays
//! within what a client waits for, and names it. In process, on tokio's
//! paused clock.

use std::time::Duration;

use metal_fake::{Fake, Timings};
use serde_json::{json, Value};

use crate::network::{self, call, id, OTHER_PROJECT, PROJECT, TOKEN};

const ORG: &str = "0a000000-0000-4000-8000-000000000001";

/// An organisation, the network tests' two projects in it (no devices),
/// metros `da` and `sv`, both with interconnections.
fn world() -> Value {
    json!({
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": OTHER_PROJECT, "organization": ORG}
        ],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}],
        "interconnection_metros": ["da", "sv"]
    })
}

fn fake() -> Fake {
    network::fake_of(serde_json::from_value(world()).unwrap())
}

/// A call that must succeed with `want`: its reply.
async fn ok(fake: &Fake, method: &str, path: &str, body: Option<Value>, want: u16) -> Value {
    let (status, reply) = call(fake, method, path, body).await;
    assert_eq!(status, want, "{method} {path}: {reply}");
    reply
}

/// What metal-cli's BGP dynamic neighbour tests set up
/// (`test/e2e/gateways/bgp-dynamic-neighbour/*_test.go`, lines 22-28):
/// a project's VLAN, a VRF, a VRF IP block (`/24`, as
/// `helper.CreateTestVrfIpRequest` asks), a VRF gateway on both. Their
/// paths: (VLAN, VRF, block, gateway).
async fn metal_cli_vrf_gateway(fake: &Fake, project: &str) -> (String, String, String, String) {
    let vlan = network::vlan(fake, project, "da").await;
    let vrf = network::vrf(fake, project, "da", "vrf", json!(["10.10.1.0/24"])).await;
    let block = ok(
        fake,
        "POST",
        &format!("/projects/{project}/ips"),
        Some(json!({"type": "vrf", "vrf_id": vrf["id"], "network": "10.10.1.0", "cidr": 24})),
        201,
    )
    .await;
    let gateway = ok(
        fake,
        "POST",
        &format!("/projects/{project}/metal-gateways"),
        Some(json!({"virtual_network_id": vlan["id"], "ip_reservation_id": block["id"]})),
        201,
    )
    .await;
    (
        format!("/virtual-networks/{}", id(&vlan)),
        format!("/vrfs/{}", id(&vrf)),
        format!("/ips/{}", id(&block)),
        format!("/metal-gateways/{}", id(&gateway)),
    )
}

/// metal-cli's `TestGateways_Delete` (`test/e2e/gateways/delete_test.go`,
/// passing against the real API in its PRs #393 and #433, January 2024)
/// reads the gateway right after the delete and fails on anything but
/// Not Found. Its BGP dynamic neighbour tests' cleanups (last registered,
/// first run; each `t.Fatalf` on any error but a `404`) delete the
/// neighbour, the VRF gateway (no wait), the VRF block, the VRF, the VLAN
/// and the project, in that order: each goes.
#[tokio::test(start_paused = true)]
async fn a_gateway_reads_404_right_after_its_delete_and_metal_cli_s_cleanups_pass() {
    let fake = fake();
    let (vlan, vrf, block, gateway) = metal_cli_vrf_gateway(&fake, OTHER_PROJECT).await;
    let neighbor = ok(
        &fake,
        "POST",
        &format!("{gateway}/bgp-dynamic-neighbors"),
        Some(json!({"bgp_neighbor_range": "10.10.1.0", "bgp_neighbor_asn": 65000})),
        201,
    )
    .await;
    ok(
        &fake,
        "DELETE",
        &format!("/bgp-dynamic-neighbors/{}", id(&neighbor)),
        None,
        202,
    )
    .await;
    let gone = ok(&fake, "DELETE", &gateway, None, 202).await;
    assert_eq!(gone["state"], "deleting", "the reply: as it was, deleting");
    ok(&fake, "GET", &gateway, None, 404).await;
    ok(&fake, "DELETE", &block, None, 204).await;
    ok(&fake, "DELETE", &vrf, None, 204).await;
    ok(&fake, "DELETE", &vlan, None, 204).await;
    ok(
        &fake,
        "DELETE",
        &format!("/projects/{OTHER_PROJECT}"),
        None,
        204,
    )
    .await;
}

/// The `deleting` lag of 2022 (terraform-provider-equinix PR 138: a VRF
/// block's release right after its gateway's delete was `422 ... Cannot
/// delete with associated metal gateway`; Terraform's delete waits out
/// `deleting`) stays as an option, off by default.
#[tokio::test(start_paused = true)]
async fn the_old_gateway_deleting_lag_is_an_option() {
    let fake = Fake::builder()
        .token(TOKEN)
        .timings(Timings {
            gateway_deleting: Duration::from_secs(10),
            ..Timings::default()
        })
        .world(serde_json::from_value(world()).unwrap())
        .build();
    let (_, _, block, gateway) = metal_cli_vrf_gateway(&fake, OTHER_PROJECT).await;
    ok(&fake, "DELETE", &gateway, None, 202).await;
    assert_eq!(
        ok(&fake, "GET", &gateway, None, 200).await["state"],
        "deleting"
    );
    ok(&fake, "DELETE", &gateway, None, 202).await;
    let refused = ok(&fake, "DELETE", &block, None, 422).await;
    assert_eq!(
        refused["errors"][0],
        "IP Reservation \"10.10.1.0/24\" error: Cannot delete with associated metal gateway"
    );
    tokio::time::advance(Duration::from_secs(10)).await;
    ok(&fake, "GET", &gateway, None, 404).await;
    ok(&fake, "DELETE", &block, None, 204).await;
}

/// metal-cli's `TestBgpDynamicNeighbors_Create` checks the create's
/// output for `pending` or `ready` (`create_test.go:86`), and `_Get` the
/// same of a read right after the create (`get_test.go:41-45`); the SDK's
/// `BgpDynamicNeighborState` also has `active` and `deleting`. The fake's
/// neighbour is `pending`, then `ready` 10 s later, never `active`; a
/// saved `pending` one settles again after a load.
#[tokio::test(start_paused = true)]
async fn a_bgp_dynamic_neighbour_is_pending_after_its_create_then_ready() {
    let fake = fake();
    let (_, _, _, gateway) = metal_cli_vrf_gateway(&fake, PROJECT).await;
    let made = ok(
        &fake,
        "POST",
        &format!("{gateway}/bgp-dynamic-neighbors"),
        Some(json!({"bgp_neighbor_range": "10.10.1.0", "bgp_neighbor_asn": 65000})),
        201,
    )
    .await;
    assert_eq!(made["state"], "pending");
    let path = format!("/bgp-dynamic-neighbors/{}", id(&made));
    assert_eq!(ok(&fake, "GET", &path, None, 200).await["state"], "pending");
    let listed = ok(
        &fake,
        "GET",
        &format!("{gateway}/bgp-dynamic-neighbors"),
        None,
        200,
    )
    .await;
    assert_eq!(listed["bgp_dynamic_neighbors"][0]["state"], "pending");
    let saved = fake.world();
    tokio::time::advance(Duration::from_secs(10)).await;
    assert_eq!(ok(&fake, "GET", &path, None, 200).await["state"], "ready");
    // Saved pending, loaded pending, ready once the clock passes again.
    let again = Fake::builder().token(TOKEN).world(saved).build();
    assert_eq!(
        ok(&again, "GET", &path, None, 200).await["state"],
        "pending"
    );
    again.advance(Duration::from_secs(10)).unwrap();
    assert_eq!(ok(&again, "GET", &path, None, 200).await["state"], "ready");
}

/// metal-cli's `TestCli_Vrf_Route` update and get tests
/// (`test/e2e/vrfstest/vrf_route_test.go`) never delete their route
/// (`helper.CreateTestVrfRoute` registers a cleanup deleting an IP
/// reservation by the route's ID: a tolerated `404`); their cleanups then
/// delete the gateway, the block holding the route's next hop
/// (`10.10.1.2`), the VRF with the route still on it, the VLAN and the
/// project, each failing on any error but a `404`. The fake takes them
/// all: the route goes with the block of its next hop. A VRF with blocks
/// still refuses its delete (every client releases them first).
#[tokio::test(start_paused = true)]
async fn metal_cli_s_route_test_cleanups_pass_with_the_route_still_there() {
    let fake = fake();
    let (vlan, vrf, block, gateway) = metal_cli_vrf_gateway(&fake, OTHER_PROJECT).await;
    let route = ok(
        &fake,
        "POST",
        &format!("{vrf}/routes"),
        Some(json!({"prefix": "0.0.0.0/0", "next_hop": "10.10.1.2"})),
        200,
    )
    .await;
    ok(&fake, "DELETE", &format!("/ips/{}", id(&route)), None, 404).await;
    ok(&fake, "DELETE", &gateway, None, 202).await;
    let refused = ok(&fake, "DELETE", &vrf, None, 422).await;
    assert!(
        refused["errors"][0]
            .as_str()
            .unwrap()
            .contains("IP reservations"),
        "{refused}"
    );
    ok(&fake, "DELETE", &block, None, 204).await;
    ok(&fake, "GET", &format!("/routes/{}", id(&route)), None, 404).await;
    ok(&fake, "DELETE", &vrf, None, 204).await;
    ok(&fake, "DELETE", &vlan, None, 204).await;
    ok(
        &fake,
        "DELETE",
        &format!("/projects/{OTHER_PROJECT}"),
        None,
        204,
    )
    .await;

    // A VRF's delete takes a route whose block a world document let stay
    // (the loader keeps every route's next hop in a block, so the route
    // here goes with the VRF's last block, then the VRF).
    let (_, vrf, block, gateway) = metal_cli_vrf_gateway(&fake, PROJECT).await;
    let route = ok(
        &fake,
        "POST",
        &format!("{vrf}/routes"),
        Some(json!({"prefix": "10.0.0.0/8", "next_hop": "10.10.1.2"})),
        200,
    )
    .await;
    ok(&fake, "DELETE", &gateway, None, 202).await;
    ok(&fake, "DELETE", &block, None, 204).await;
    ok(&fake, "DELETE", &vrf, None, 204).await;
    ok(&fake, "GET", &format!("/routes/{}", id(&route)), None, 404).await;
}

/// A project's delete takes its VRFs (and their blocks and routes): no
/// client's cleanup deletes a project that still has one, so nothing
/// shows the real API refusing it, and the rule takes the input.
#[tokio::test(start_paused = true)]
async fn a_project_s_delete_takes_its_vrfs() {
    let fake = fake();
    let vrf = network::vrf(&fake, OTHER_PROJECT, "da", "vrf", json!(["10.10.1.0/24"])).await;
    let block = ok(
        &fake,
        "POST",
        &format!("/projects/{OTHER_PROJECT}/ips"),
        Some(json!({"type": "vrf", "vrf_id": vrf["id"], "network": "10.10.1.0", "cidr": 29})),
        201,
    )
    .await;
    ok(
        &fake,
        "DELETE",
        &format!("/projects/{OTHER_PROJECT}"),
        None,
        204,
    )
    .await;
    ok(&fake, "GET", &format!("/vrfs/{}", id(&vrf)), None, 404).await;
    ok(&fake, "GET", &format!("/ips/{}", id(&block)), None, 404).await;
    // The world saves and loads again.
    let saved = fake.world();
    assert!(saved.vrfs.is_empty());
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);
}

/// Both Terraform providers' dedicated connection tests create one at
/// `50Mbps` (terraform-provider-equinix v4.16.1
/// `internal/resources/metal/connection/resource_test.go`,
/// `testAccMetalConnectionConfig_dedicated` and `TestAccMetalConnection_tunnel`;
/// terraform-provider-metal `TestAccMetalConnection_Dedicated`), and the
/// older provider's speed table sends 50, 200, 500 Mbps, 1, 2, 5 or 10
/// Gbps for every type (`resource_metal_connection.go:15-26`); 100 Gbps
/// as the newer one's `speed_test.go`. Each is taken, as text or as bits
/// per second; a speed outside them is still refused.
#[tokio::test(start_paused = true)]
async fn a_dedicated_connection_takes_every_speed_the_providers_send() {
    let fake = fake();
    let path = format!("/organizations/{ORG}/connections");
    let body = |speed: Value, mode: &str| {
        json!({"name": "tfacc-conn", "type": "dedicated", "redundancy": "redundant",
               "metro": "sv", "speed": speed, "mode": mode})
    };
    let c = ok(
        &fake,
        "POST",
        &path,
        Some(body(json!("50Mbps"), "standard")),
        201,
    )
    .await;
    assert_eq!(c["speed"], 50_000_000u64);
    let c = ok(
        &fake,
        "POST",
        &path,
        Some(body(json!("50Mbps"), "tunnel")),
        201,
    )
    .await;
    assert_eq!(
        (&c["speed"], &c["mode"]),
        (&json!(50_000_000u64), &json!("tunnel"))
    );
    for speed in [
        "200Mbps", "500Mbps", "1Gbps", "2Gbps", "5Gbps", "10Gbps", "100Gbps",
    ] {
        ok(
            &fake,
            "POST",
            &path,
            Some(body(json!(speed), "standard")),
            201,
        )
        .await;
    }
    ok(
        &fake,
        "POST",
        &path,
        Some(body(json!(200_000_000u64), "standard")),
        201,
    )
    .await;
    let refused = ok(
        &fake,
        "POST",
        &path,
        Some(body(json!("3Gbps"), "standard")),
        422,
    )
    .await;
    assert!(
        refused["errors"][0]
            .as_str()
            .unwrap()
            .contains("not valid for a dedicated connection: one of 50Mbps"),
        "{refused}"
    );
}

/// terraform-provider-equinix v4.16.1's port resource
/// (`internal/resources/metal/port/resource.go:139-145`: `makeDisbond`,
/// then `convertToL2`) and metal-cli's `port convert --layer2
/// --bonded=false` (`internal/ports/convert.go`, tested in
/// `test/e2e/ports/convert_test.go`) disbond bond0 while it is still
/// layer 3, then convert it: `TestAccMetalPort_L2Individual` expects
/// `layer2-individual` on a fresh device. The intermediate state, layer 3
/// with every port out of the bond, reads `hybrid`; what the clients
/// refuse before asking is only that as an end state.
#[tokio::test(start_paused = true)]
async fn disbonding_a_layer_3_bond_then_converting_it_reaches_layer2_individual() {
    let fake = network::fake_of(network::world(
        &[PROJECT],
        &[(network::DEVICE, "c3.small.x86")],
    ));
    let bond0 = network::port(&fake, network::DEVICE, "bond0").await;
    // Terraform's disbond: the bond with bulk_disable.
    let p = ok(
        &fake,
        "POST",
        &format!("/ports/{bond0}/disbond"),
        Some(json!({"bulk_disable": true})),
        200,
    )
    .await;
    assert_eq!(p["network_type"], "hybrid");
    assert_eq!(p["data"]["bonded"], false);
    let p = ok(
        &fake,
        "POST",
        &format!("/ports/{bond0}/convert/layer-2"),
        None,
        200,
    )
    .await;
    assert_eq!(p["network_type"], "layer2-individual");
    let ports = network::ports(&fake, network::DEVICE).await;
    assert!(
        ports
            .iter()
            .filter(|p| p["name"] != "bond0")
            .all(|p| p["data"]["bonded"] == false),
        "{ports:?}"
    );
}

/// equinix-sdk-go's `VrfIpReservationCreateInput.cidr`: "IPv4: between 22
/// - 29 inclusive" (metal-cli issue 412 proposes `--cidr <cidr, 22-29>`;
/// its helper asks `/24`, Terraform's VRF tests `/29`).
#[tokio::test(start_paused = true)]
async fn a_vrf_ip_reservation_is_ipv4_22_to_29() {
    let fake = fake();
    let vrf = network::vrf(&fake, PROJECT, "da", "vrf", json!(["10.10.0.0/16"])).await;
    let request = |network: &str, cidr: u8| {
        let fake = fake.clone();
        let body = json!({"type": "vrf", "vrf_id": vrf["id"], "network": network, "cidr": cidr});
        async move {
            call(
                &fake,
                "POST",
                &format!("/projects/{PROJECT}/ips"),
                Some(body),
            )
            .await
        }
    };
    assert_eq!(request("10.10.0.0", 22).await.0, 201);
    assert_eq!(request("10.10.8.0", 29).await.0, 201);
    for (network, cidr) in [("10.10.16.0", 21), ("10.10.16.0", 30), ("10.10.16.0", 31)] {
        let (status, reply) = request(network, cidr).await;
        assert_eq!(status, 422, "/{cidr}: {reply}");
        assert!(
            reply["errors"][0].as_str().unwrap().contains("22 to 29"),
            "{reply}"
        );
    }
}

/// The Ansible collection's `metal_virtual_circuit` module waits for a
/// deleted circuit to go (`wait_for_resource_removal`, `timeout` default
/// 15 s, a read every 5 s), and its integration target
/// (`tests/integration/targets/metal_virtual_circuit/tasks/main.yml`)
/// then deletes the VRF, failing on any error. A read right after the
/// delete shows `deleting` (Terraform waits it out); 5 s on, the
/// module's second read, it is gone and the VRF goes.
#[tokio::test(start_paused = true)]
async fn a_virtual_circuit_s_delete_is_done_within_ansible_s_wait() {
    let fake = fake();
    let c = ok(
        &fake,
        "POST",
        &format!("/organizations/{ORG}/connections"),
        Some(
            json!({"name": "port", "type": "dedicated", "redundancy": "primary",
                    "metro": "da", "speed": "10Gbps"}),
        ),
        201,
    )
    .await;
    tokio::time::advance(Duration::from_secs(31)).await;
    let port = id(&c["ports"][0]);
    let vrf = network::vrf(&fake, PROJECT, "da", "vrf", json!(["192.168.151.0/25"])).await;
    let vc = ok(
        &fake,
        "POST",
        &format!("/connections/{}/ports/{port}/virtual-circuits", id(&c)),
        Some(
            json!({"project_id": PROJECT, "name": "test_virtual_circuit", "nni_vlan": 1056,
                    "peer_asn": 66000, "subnet": "192.168.151.126/31", "vrf": vrf["id"]}),
        ),
        201,
    )
    .await;
    let path = format!("/virtual-circuits/{}", id(&vc));
    ok(&fake, "DELETE", &path, None, 202).await;
    assert_eq!(
        ok(&fake, "GET", &path, None, 200).await["status"],
        "deleting"
    );
    tokio::time::advance(Duration::from_millis(4_900)).await;
    assert_eq!(
        ok(&fake, "GET", &path, None, 200).await["status"],
        "deleting"
    );
    tokio::time::advance(Duration::from_millis(100)).await;
    ok(&fake, "GET", &path, None, 404).await;
    ok(&fake, "DELETE", &format!("/vrfs/{}", id(&vrf)), None, 204).await;
}

/// The Ansible collection's `metal_project` target
/// (`tests/integration/targets/metal_project/tasks/main.yml:63-79`) lists
/// its second project by its full name (one result) and both by their
/// common prefix (two), through `find_projects_all_pages` with `name`
/// and no filter of its own; its teardowns delete every project their
/// prefix lists. `name` matches a part of the name, ASCII case ignored,
/// as the device list's `hostname` does.
#[tokio::test(start_paused = true)]
async fn projects_are_listed_by_a_part_of_their_name() {
    let fake = Fake::builder().token(TOKEN).build();
    let prefix = "ansible-integration-test-project-x1y2z3a4";
    let one = ok(
        &fake,
        "POST",
        "/projects",
        Some(json!({"name": format!("{prefix}-project1")})),
        201,
    )
    .await;
    ok(
        &fake,
        "POST",
        "/projects",
        Some(json!({"name": format!("{prefix}-project2")})),
        201,
    )
    .await;
    ok(
        &fake,
        "PUT",
        &format!("/projects/{}", id(&one)),
        Some(json!({"name": format!("{prefix}-project1_renamed")})),
        200,
    )
    .await;
    let names = |list: &Value| -> Vec<String> {
        list["projects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let second = ok(
        &fake,
        "GET",
        &format!("/projects?name={prefix}-project2"),
        None,
        200,
    )
    .await;
    assert_eq!(names(&second), [format!("{prefix}-project2")]);
    let both = ok(&fake, "GET", &format!("/projects?name={prefix}"), None, 200).await;
    assert_eq!(
        names(&both),
        [
            format!("{prefix}-project1_renamed"),
            format!("{prefix}-project2")
        ]
    );
    assert_eq!(both["meta"]["total"], 2);
    let upper = prefix.to_ascii_uppercase();
    let cased = ok(&fake, "GET", &format!("/projects?name={upper}"), None, 200).await;
    assert_eq!(names(&cased).len(), 2);
    let inner = ok(&fake, "GET", "/projects?name=project1_ren", None, 200).await;
    assert_eq!(names(&inner), [format!("{prefix}-project1_renamed")]);
    let none = ok(&fake, "GET", "/projects?name=no-such-project", None, 200).await;
    assert_eq!(none["projects"], json!([]));
}

/// terraform-provider-equinix v4.16.1's device tests
/// (`internal/acceptance/device_helpers.go`) pick a plan among
/// `PreferablePlans` listed in a `PreferableMetros` metro whose
/// `deployment_types` hold `on_demand` or `spot_market`, then a metro of
/// its `available_in_metros`, and create an hourly (on-demand) device
/// there with `ubuntu_24_04`. Every draw of the default catalog creates:
/// `c2.medium.x86`, listed in `am`, is sold on demand there.
#[tokio::test(start_paused = true)]
async fn every_plan_terraform_s_device_tests_can_draw_is_created_on_demand() {
    const PREFERABLE_PLANS: [&str; 6] = [
        "x1.small.x86",
        "t1.small.x86",
        "c2.medium.x86",
        "c3.small.x86",
        "c3.medium.x86",
        "m3.small.x86",
    ];
    const PREFERABLE_METROS: [&str; 5] = ["ch", "ny", "sv", "ty", "am"];
    let fake = Fake::builder().token(TOKEN).on_demand(100).build();
    let project = ok(&fake, "GET", "/projects", None, 200).await["projects"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let plans = ok(
        &fake,
        "GET",
        "/plans?include=available_in_metros",
        None,
        200,
    )
    .await;
    let mut drawn = Vec::new();
    for plan in plans["plans"].as_array().unwrap() {
        let slug = plan["slug"].as_str().unwrap();
        let metros: Vec<&str> = plan["available_in_metros"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["code"].as_str().unwrap())
            .collect();
        let sold = plan["deployment_types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "on_demand" || t == "spot_market");
        if !PREFERABLE_PLANS.contains(&slug)
            || !sold
            || !metros.iter().any(|m| PREFERABLE_METROS.contains(m))
        {
            continue;
        }
        for metro in metros {
            drawn.push((slug.to_string(), metro.to_string()));
        }
    }
    assert!(
        drawn.contains(&("c2.medium.x86".to_string(), "am".to_string())),
        "{drawn:?}"
    );
    for (plan, metro) in &drawn {
        let (status, reply) = call(
            &fake,
            "POST",
            &format!("/projects/{project}/devices"),
            Some(
                json!({"hostname": "tfacc-device", "plan": plan, "metro": metro,
                        "operating_system": "ubuntu_24_04", "billing_cycle": "hourly"}),
            ),
        )
        .await;
        assert_eq!(status, 201, "{plan} in {metro}: {reply}");
    }
}

/// metal-cli's route update test waits 5 minutes before it updates, as
/// "the API will reject any VRF route update request that comes in less
/// than 5 minutes after the VRF route was last updated" (metal-cli commit
/// ce58bea, `vrf_route_test.go:130-133`). No other client waits, and none
/// reads the refusal: the fake takes an update at once (every client
/// tolerates that), each settling as a new route does.
#[tokio::test(start_paused = true)]
async fn a_vrf_route_updated_twice_within_five_minutes_is_taken() {
    let fake = fake();
    let (_, vrf, _, _) = metal_cli_vrf_gateway(&fake, PROJECT).await;
    let route = ok(
        &fake,
        "POST",
        &format!("{vrf}/routes"),
        Some(json!({"prefix": "0.0.0.0/0", "next_hop": "10.10.1.2"})),
        200,
    )
    .await;
    let path = format!("/routes/{}", id(&route));
    let first = ok(&fake, "PUT", &path, Some(json!({"tags": ["a"]})), 202).await;
    assert_eq!(first["status"], "pending");
    tokio::time::advance(Duration::from_secs(10)).await;
    let second = ok(
        &fake,
        "PUT",
        &path,
        Some(json!({"next_hop": "10.10.1.3"})),
        202,
    )
    .await;
    assert_eq!(
        (&second["status"], &second["next_hop"]),
        (&json!("pending"), &json!("10.10.1.3"))
    );
}

/// terraform-provider-equinix v4.16.1's `TestAccMetalGateway_IPv6Vrf`
/// (`internal/resources/metal/gateway/resource_test.go:173-232`, added
/// with PR #713, 2024-06): a VRF in `sv` routing `2001:d78::/59`, a VRF
/// IP reservation `2001:d78::`/64 in it, and a Metal Gateway on that block
/// and a VLAN, its `ip_reservation_id` read back; equinix-sdk-go's
/// `VrfIpReservationCreateInput.cidr`: "IPv6: exactly 64".
#[tokio::test(start_paused = true)]
async fn an_ipv6_vrf_block_is_a_64_and_takes_a_gateway() {
    let fake = fake();
    let vlan = network::vlan(&fake, PROJECT, "sv").await;
    let vrf = network::vrf(&fake, PROJECT, "sv", "tfacc-vrf", json!(["2001:d78::/59"])).await;
    let request = |network: &str, cidr: u8| {
        let fake = fake.clone();
        let body = json!({"type": "vrf", "vrf_id": vrf["id"], "network": network,
                          "metro": "sv", "cidr": cidr});
        async move {
            call(
                &fake,
                "POST",
                &format!("/projects/{PROJECT}/ips"),
                Some(body),
            )
            .await
        }
    };
    let (status, block) = request("2001:d78::", 64).await;
    assert_eq!(status, 201, "{block}");
    assert_eq!(
        (
            &block["type"],
            &block["address_family"],
            &block["network"],
            &block["cidr"],
            &block["gateway"],
            &block["netmask"],
            &block["public"]
        ),
        (
            &json!("vrf"),
            &json!(6),
            &json!("2001:d78::"),
            &json!(64),
            &json!("2001:d78::1"),
            &json!("ffff:ffff:ffff:ffff::"),
            &json!(false)
        )
    );
    for ((network, cidr), why) in [
        (("2001:d78:0:1::", 63), "IPv6: 64"),
        (("2001:d78:0:1::", 65), "IPv6: 64"),
        (("2001:d78:0:1::1", 64), "not the network"),
        (("2001:d79::", 64), "not within"),
        (("2001:d78::", 64), "overlaps"),
    ] {
        let (status, reply) = request(network, cidr).await;
        assert_eq!(status, 422, "{network}/{cidr}: {reply}");
        assert!(
            reply["errors"][0].as_str().unwrap().contains(why),
            "{why}: {reply}"
        );
    }
    let (status, second) = request("2001:d78:0:1::", 64).await;
    assert_eq!(status, 201, "{second}");
    let gateway = ok(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/metal-gateways?include=ip_reservation,vrf"),
        Some(json!({"virtual_network_id": vlan["id"], "ip_reservation_id": block["id"]})),
        201,
    )
    .await;
    assert_eq!(gateway["ip_reservation"]["id"], block["id"]);
    assert_eq!(gateway["ip_reservation"]["address_family"], 6);
    assert_eq!(gateway["vrf"]["id"], vrf["id"]);
    let read = ok(&fake, "GET", &format!("/ips/{}", id(&block)), None, 200).await;
    assert_eq!(read["metal_gateway"]["gateway_address"], "2001:d78::1/64");
    // The VRF's ranges must keep holding it.
    let refused = ok(
        &fake,
        "PUT",
        &format!("/vrfs/{}", id(&vrf)),
        Some(json!({"ip_ranges": ["2001:d78:0:100::/59"]})),
        422,
    )
    .await;
    assert!(
        refused["errors"][0]
            .as_str()
            .unwrap()
            .contains("2001:d78::/64"),
        "{refused}"
    );
    // No IPv4 neighbour range fits it: the fake's neighbours are IPv4.
    let (status, _) = call(
        &fake,
        "POST",
        &format!("/metal-gateways/{}/bgp-dynamic-neighbors", id(&gateway)),
        Some(json!({"bgp_neighbor_range": "10.0.0.0/29", "bgp_neighbor_asn": 65000})),
    )
    .await;
    assert_eq!(status, 422);
    // It saves and loads again.
    let saved = fake.world();
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);
    // Torn down as Terraform does: gateway, block, VRF.
    ok(
        &fake,
        "DELETE",
        &format!("/metal-gateways/{}", id(&gateway)),
        None,
        202,
    )
    .await;
    ok(&fake, "DELETE", &format!("/ips/{}", id(&block)), None, 204).await;
    ok(&fake, "DELETE", &format!("/ips/{}", id(&second)), None, 204).await;
    ok(&fake, "DELETE", &format!("/vrfs/{}", id(&vrf)), None, 204).await;
}

/// `cidrsubnet(prefix, 8, n)` of an IPv6 /56 in text: its `n`th /64.
fn nth_64(block: &str, n: u128) -> String {
    let (network, _) = block.split_once('/').unwrap();
    let network: std::net::Ipv6Addr = network.parse().unwrap();
    let sub = std::net::Ipv6Addr::from(u128::from(network) + (n << 64));
    format!("{sub}/64")
}

/// terraform-provider-equinix v4.16.1's pre-created block tests, against
/// a device on demand: `equinix/data_source_metal_precreated_ip_block_acc_test.go`
/// finds the project's public IPv6 block by the device's
/// `deployed_facility` (`types=public_ipv6`, the first match of address
/// family 6, public, `facility.code`) and its private IPv4 block by the
/// device's metro (`types=private_ipv4,vrf`, `metro.code`), then attaches
/// `cidrsubnet(<the IPv6 block>, 8, 2)`; `data_source_metal_ip_block_ranges_acc_test.go`
/// reads the facility's `ipv6.0` from the list *without* `types` and
/// attaches its /64 the same way (`equinix_metal_ip_attachment`: a read
/// by ID whose `network`/`cidr` must give back the `cidr_notation`).
/// terraform-provider-packet issue 36: "the pre-created /56 blocks … find
/// out the available /64 subnets".
#[tokio::test(start_paused = true)]
async fn a_project_s_pre_created_blocks_come_with_its_first_device_and_a_64_attaches() {
    let fake = Fake::builder().token(TOKEN).build();
    let project = ok(&fake, "GET", "/projects", None, 200).await["projects"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ips = format!("/projects/{project}/ips");
    assert_eq!(
        ok(&fake, "GET", &ips, None, 200).await["ip_addresses"],
        json!([]),
        "none before a device"
    );
    let device = ok(
        &fake,
        "POST",
        &format!("/projects/{project}/devices"),
        Some(
            json!({"hostname": "tfacc-device-ip-test", "plan": "c3.small.x86", "metro": "ny",
                    "operating_system": "ubuntu_24_04", "billing_cycle": "hourly"}),
        ),
        201,
    )
    .await;
    tokio::time::advance(Duration::from_secs(3600)).await;
    let device = ok(
        &fake,
        "GET",
        &format!("/devices/{}", id(&device)),
        None,
        200,
    )
    .await;
    let (facility, metro) = (
        device["facility"]["code"].as_str().unwrap().to_string(),
        device["metro"]["code"].as_str().unwrap().to_string(),
    );

    // equinix_metal_precreated_ip_block, public IPv6 by facility.
    let listed = ok(
        &fake,
        "GET",
        &format!("{ips}?types=public_ipv6&include=facility,metro,project,vrf"),
        None,
        200,
    )
    .await;
    let v6 = listed["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| {
            b["public"] == true && b["address_family"] == 6 && b["facility"]["code"] == facility
        })
        .unwrap()
        .clone();
    assert_eq!(
        (&v6["type"], &v6["cidr"]),
        (&json!("public_ipv6"), &json!(56))
    );
    assert_eq!(v6["metro"]["code"], metro.as_str());
    // Private IPv4 by metro.
    let listed = ok(
        &fake,
        "GET",
        &format!("{ips}?types=private_ipv4,vrf&include=facility,metro,project,vrf"),
        None,
        200,
    )
    .await;
    let v4 = listed["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["public"] == false && b["address_family"] == 4 && b["metro"]["code"] == metro)
        .unwrap()
        .clone();
    assert_eq!(
        (&v4["type"], &v4["cidr"]),
        (&json!("private_ipv4"), &json!(25))
    );

    // equinix_metal_ip_block_ranges: the list without `types`.
    let all = ok(&fake, "GET", &ips, None, 200).await;
    let ranges: Vec<String> = all["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["address_family"] == 6 && b["facility"]["code"] == facility)
        .map(|b| format!("{}/{}", b["network"].as_str().unwrap(), b["cidr"]))
        .collect();
    let block = format!("{}/{}", v6["network"].as_str().unwrap(), v6["cidr"]);
    assert_eq!(ranges, std::slice::from_ref(&block));

    // equinix_metal_ip_attachment of cidrsubnet(block, 8, 2).
    let cidr_notation = nth_64(&block, 2);
    let attached = ok(
        &fake,
        "POST",
        &format!("/devices/{}/ips", id(&device)),
        Some(json!({"address": cidr_notation})),
        201,
    )
    .await;
    let read = ok(&fake, "GET", &format!("/ips/{}", id(&attached)), None, 200).await;
    assert_eq!(
        format!("{}/{}", read["network"].as_str().unwrap(), read["cidr"]),
        cidr_notation
    );
    assert_eq!(
        (&read["address_family"], &read["public"], &read["global_ip"]),
        (&json!(6), &json!(true), &json!(false))
    );
    assert_eq!(
        read["assigned_to"]["href"],
        format!("/metal/v1/devices/{}", id(&device))
    );
    assert_eq!(
        read["parent_block"]["href"],
        format!("/metal/v1/ips/{}", id(&v6))
    );
    let shown = ok(
        &fake,
        "GET",
        &format!("/devices/{}", id(&device)),
        None,
        200,
    )
    .await;
    assert!(
        shown["ip_addresses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == attached["id"]),
        "{shown}"
    );
    // Another /64 of it is listed free; the one attached is not.
    let free = ok(
        &fake,
        "GET",
        &format!("/ips/{}/available?cidr=64", id(&v6)),
        None,
        200,
    )
    .await;
    let free = free["available"].as_array().unwrap();
    assert_eq!(free.len(), 255);
    assert!(!free.contains(&json!(cidr_notation)));
    // Attached twice, or outside the project's blocks: refused.
    for address in [cidr_notation.clone(), "2001:db8::/64".to_string()] {
        ok(
            &fake,
            "POST",
            &format!("/devices/{}/ips", id(&device)),
            Some(json!({"address": address})),
            422,
        )
        .await;
    }
    // The world saves and loads again, the attachment with it.
    let saved = fake.world();
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);
    // Terraform's destroy: the attachment, then the device.
    ok(
        &fake,
        "DELETE",
        &format!("/ips/{}", id(&attached)),
        None,
        204,
    )
    .await;
    ok(&fake, "GET", &format!("/ips/{}", id(&attached)), None, 404).await;
    // A second device in the facility makes no second block.
    ok(
        &fake,
        "POST",
        &format!("/projects/{project}/devices"),
        Some(
            json!({"hostname": "second", "plan": "c3.small.x86", "facility": facility,
                    "operating_system": "ubuntu_24_04", "billing_cycle": "hourly"}),
        ),
        201,
    )
    .await;
    let all = ok(&fake, "GET", &ips, None, 200).await;
    assert_eq!(all["ip_addresses"].as_array().unwrap().len(), 2, "{all}");
}
