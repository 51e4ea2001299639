//! Metal Gateways, as metal-cli's gateway tests and Terraform's
//! `equinix_metal_gateway` use them: on a VLAN with a private IPv4 block
//! made for it (`private_ipv4_subnet_size`) or a reserved block named
//! (`ip_reservation_id`), read with `include=ip_reservation`, listed per
//! project, deleted (`202` with the gateway as it was, `deleting`, then
//! `404` at once; a block made with it goes too; the old `deleting` lag
//! is an option, in `evidence_decides.rs`).
//! In process, and over HTTP with every reply checked against the spec.

use crate::common::schema;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::{self, call, DEVICE, OTHER_PROJECT, PROJECT, TOKEN};

/// Two projects; the first with an active device in `da`.
fn world() -> WorldDoc {
    network::world(&[PROJECT, OTHER_PROJECT], &[(DEVICE, "c3.small.x86")])
}

fn fake() -> Fake {
    network::fake_of(world())
}

async fn vlan(fake: &Fake, project: &str, metro: &str) -> String {
    network::id(&network::vlan(fake, project, metro).await)
}

async fn create(fake: &Fake, body: Value) -> (u16, Value) {
    call(
        fake,
        "POST",
        &format!("/projects/{PROJECT}/metal-gateways?include=ip_reservation,virtual_network"),
        Some(body),
    )
    .await
}

#[tokio::test(start_paused = true)]
async fn a_gateway_with_a_private_block_shows_it_and_takes_it_when_deleted() {
    let fake = fake();
    let v = vlan(&fake, PROJECT, "da").await;
    // As Terraform creates it.
    let (status, g) = create(
        &fake,
        json!({"virtual_network_id": v, "private_ipv4_subnet_size": 8}),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    assert_eq!(g["state"], "ready");
    assert_eq!(g["virtual_network"]["id"], v.as_str());
    let block = &g["ip_reservation"];
    assert_eq!(block["type"], "private_ipv4");
    assert_eq!(block["public"], false);
    assert_eq!(block["cidr"], 29);
    assert!(
        block["network"].as_str().unwrap().starts_with("10."),
        "{block}"
    );
    assert_eq!(block["metal_gateway"]["id"], g["id"]);
    assert_eq!(block["metal_gateway"]["vlan"], 1000);
    let block_id = block["id"].as_str().unwrap().to_string();
    // The VLAN names its gateway; the project lists it.
    let (_, got) = call(&fake, "GET", &format!("/virtual-networks/{v}"), None).await;
    assert_eq!(got["metal_gateways"][0]["id"], g["id"]);
    let (_, list) = call(
        &fake,
        "GET",
        &format!("/projects/{PROJECT}/metal-gateways"),
        None,
    )
    .await;
    assert_eq!(list["metal_gateways"][0]["id"], g["id"]);
    assert_eq!(list["meta"]["total"], 1);
    let (_, blocks) = call(
        &fake,
        "GET",
        &format!("/projects/{PROJECT}/ips?types=private_ipv4"),
        None,
    )
    .await;
    // Beside the devices' own private blocks.
    assert!(blocks["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["id"] == block_id.as_str()));

    // What it holds stays while it does.
    let refused = |path: String| {
        let fake = fake.clone();
        async move {
            let (status, body) = call(&fake, "DELETE", &path, None).await;
            assert_eq!(status, 422, "{path}: {body}");
        }
    };
    refused(format!("/ips/{block_id}")).await;
    refused(format!("/projects/{PROJECT}")).await;
    // Its block's addresses do not go to devices.
    let address = block["address"].as_str().unwrap();
    let (status, _) = call(
        &fake,
        "POST",
        &format!("/devices/{DEVICE}/ips"),
        Some(json!({"address": address})),
    )
    .await;
    assert_eq!(status, 422);

    // One gateway a VLAN.
    let (status, _) = create(
        &fake,
        json!({"virtual_network_id": v, "private_ipv4_subnet_size": 8}),
    )
    .await;
    assert_eq!(status, 422);

    let path = format!("/metal-gateways/{}", g["id"].as_str().unwrap());
    let (status, gone) = call(
        &fake,
        "DELETE",
        &format!("{path}?include=ip_reservation"),
        None,
    )
    .await;
    assert_eq!((status, &gone["state"]), (202, &json!("deleting")));
    assert_eq!(gone["ip_reservation"]["id"], block_id.as_str());
    // Gone at once (metal-cli's `TestGateways_Delete` reads `404` right
    // after the delete), with the block made with it; a second delete is
    // `404`.
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
    assert_eq!(call(&fake, "DELETE", &path, None).await.0, 404);
    assert_eq!(
        call(&fake, "GET", &format!("/ips/{block_id}"), None)
            .await
            .0,
        404
    );
    assert_eq!(
        call(&fake, "DELETE", &format!("/virtual-networks/{v}"), None)
            .await
            .0,
        204
    );
}

#[tokio::test(start_paused = true)]
async fn a_gateway_on_a_reserved_block_leaves_it_and_refuses_what_does_not_fit() {
    let fake = fake();
    let da = vlan(&fake, PROJECT, "da").await;
    let (_, block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 2, "metro": "da"})),
    )
    .await;
    let (_, sv_block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 2, "metro": "sv"})),
    )
    .await;
    let other = vlan(&fake, OTHER_PROJECT, "da").await;
    for (body, why) in [
        (json!({"virtual_network_id": da}), "Either"),
        (
            json!({"virtual_network_id": da, "private_ipv4_subnet_size": 8, "ip_reservation_id": block["id"]}),
            "Either",
        ),
        (
            json!({"virtual_network_id": da, "private_ipv4_subnet_size": 4}),
            "one of",
        ),
        (
            json!({"virtual_network_id": da, "ip_reservation_id": sv_block["id"]}),
            "same metro",
        ),
        (
            json!({"virtual_network_id": other, "private_ipv4_subnet_size": 8}),
            "another project",
        ),
        (
            json!({"virtual_network_id": uuid::Uuid::new_v4(), "private_ipv4_subnet_size": 8}),
            "not found",
        ),
    ] {
        let (status, reply) = create(&fake, body.clone()).await;
        assert_eq!(status, 422, "{body}: {reply}");
        assert!(
            reply["errors"][0].as_str().unwrap().contains(why),
            "{body}: {reply}"
        );
    }
    // Nothing was made by the refusals.
    let (_, blocks) = call(&fake, "GET", &format!("/projects/{PROJECT}/ips"), None).await;
    assert_eq!(blocks["ip_addresses"].as_array().unwrap().len(), 2);

    let (status, g) = create(
        &fake,
        json!({"virtual_network_id": da, "ip_reservation_id": block["id"]}),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    assert_eq!(g["ip_reservation"]["public"], true);
    let saved = fake.world();
    assert_eq!(saved.metal_gateways.len(), 1);
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);

    let path = format!("/metal-gateways/{}", g["id"].as_str().unwrap());
    assert_eq!(call(&fake, "DELETE", &path, None).await.0, 202);
    // The block named stays, free at once: packngo's
    // TestAccMetalGatewayExistingReservation deletes it right after the
    // gateway.
    let block_path = format!("/ips/{}", block["id"].as_str().unwrap());
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
    let (status, kept) = call(&fake, "GET", &block_path, None).await;
    assert_eq!(status, 200);
    assert!(kept["metal_gateway"].is_null(), "{kept}");
    assert_eq!(call(&fake, "DELETE", &block_path, None).await.0, 204);
}

/// Over HTTP: every reply checked against the spec (always with
/// `include=ip_reservation`, which tells the spec's two gateway forms
/// apart, as Terraform sends it).
#[tokio::test]
async fn over_http_every_gateway_reply_matches_the_spec() {
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
    let v = v["id"].as_str().unwrap().to_string();
    let include = "include=project,ip_reservation,virtual_network";
    let (status, g) = send(
        "POST",
        format!("/projects/{PROJECT}/metal-gateways?{include}"),
        Some(json!({"virtual_network_id": v, "private_ipv4_subnet_size": 16})),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let path = format!("/metal-gateways/{}", g["id"].as_str().unwrap());
    let block = format!("/ips/{}", g["ip_reservation"]["id"].as_str().unwrap());
    for (method, p, want) in [
        ("GET", format!("{path}?{include}"), 200),
        (
            "GET",
            format!("/projects/{PROJECT}/metal-gateways?include=ip_reservation"),
            200,
        ),
        ("GET", format!("/virtual-networks/{v}"), 200),
        (
            "GET",
            format!("/projects/{PROJECT}/ips?types=private_ipv4"),
            200,
        ),
        ("DELETE", block.clone(), 422),
        ("DELETE", format!("{path}?{include}"), 202),
        // Gone at once, with its block.
        ("GET", format!("{path}?{include}"), 404),
        ("GET", block, 404),
        ("DELETE", format!("/virtual-networks/{v}"), 204),
    ] {
        let (status, reply) = send(method, p.clone(), None).await;
        assert_eq!(status, want, "{method} {p}: {reply}");
    }
    server.check_and_stop().await;
}
