//! Deletes with dependents, each decided from what the real API answered
//! (`model::relations`; the evidence in `metal_fake::fidelity`, "Deletes
//! with dependents"): a VLAN on a port and a block bound to a gateway are
//! refused with the real API's messages; a VLAN's delete takes its
//! gateway, an organisation's its empty projects, a project's its devices
//! already deleted (metal-cli's and packngo's test cleanups, which the
//! real API let pass). One test a rule; the gateway's own delete (`202`,
//! `deleting`, then `404`) is in `metal_gateways.rs`, a device's refusal
//! while provisioning in `lifecycle.rs`.

use std::time::Duration;

use metal_fake::{Fake, Timings};
use serde_json::{json, Value};

use crate::network::{self, call, port, DEVICE, OTHER_PROJECT, PROJECT, TOKEN};

fn world() -> metal_fake::document::WorldDoc {
    network::world(&[PROJECT, OTHER_PROJECT], &[(DEVICE, "c3.small.x86")])
}

/// `DELETE path`: status and reply.
async fn delete(fake: &Fake, path: &str) -> (u16, Value) {
    call(fake, "DELETE", path, None).await
}

/// `GET path`: the status.
async fn status(fake: &Fake, path: &str) -> u16 {
    call(fake, "GET", path, None).await.0
}

/// The saved world loads into a fake that saves it the same again.
fn round_trips(fake: &Fake) {
    let saved = fake.world();
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);
}

/// A gateway with a private block on a new VLAN of `project` in `da`:
/// the VLAN's, the gateway's and the block's IDs.
async fn gateway(fake: &Fake, project: &str) -> (String, String, String) {
    let v = network::id(&network::vlan(fake, project, "da").await);
    let (status, g) = call(
        fake,
        "POST",
        &format!("/projects/{project}/metal-gateways?include=ip_reservation"),
        Some(json!({"virtual_network_id": v, "private_ipv4_subnet_size": 8})),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let block = network::id(&g["ip_reservation"]);
    (v, network::id(&g), block)
}

#[tokio::test(start_paused = true)]
async fn a_vlan_on_a_port_is_refused_with_the_real_api_s_message() {
    let fake = network::fake_of(world());
    let v = network::id(&network::vlan(&fake, PROJECT, "da").await);
    let bond0 = port(&fake, DEVICE, "bond0").await;
    let (status, _) = call(
        &fake,
        "POST",
        &format!("/ports/{bond0}/assign"),
        Some(json!({ "vnid": v })),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        delete(&fake, &format!("/virtual-networks/{v}")).await,
        (
            422,
            json!({"errors": ["Cannot delete Virtual Network when port is assigned"]})
        )
    );
    call(
        &fake,
        "POST",
        &format!("/ports/{bond0}/unassign"),
        Some(json!({ "vnid": v })),
    )
    .await;
    assert_eq!(
        delete(&fake, &format!("/virtual-networks/{v}")).await.0,
        204
    );
}

#[tokio::test(start_paused = true)]
async fn a_block_bound_to_a_gateway_is_refused_with_the_real_api_s_message() {
    let fake = network::fake_of(world());
    let (_, _, block) = gateway(&fake, PROJECT).await;
    let (_, b) = call(&fake, "GET", &format!("/ips/{block}"), None).await;
    let cidr = format!("{}/{}", b["network"].as_str().unwrap(), b["cidr"]);
    assert_eq!(
        delete(&fake, &format!("/ips/{block}")).await,
        (
            422,
            json!({"errors": [format!(
                "IP Reservation \"{cidr}\" error: Cannot delete with associated metal gateway"
            )]})
        )
    );
    assert_eq!(status(&fake, &format!("/ips/{block}")).await, 200);
}

#[tokio::test(start_paused = true)]
async fn a_vlan_s_delete_takes_its_gateway_and_the_block_made_with_it() {
    // metal-cli's TestGateways_Retrieve: a project, a VLAN, a gateway with
    // a private /29 never deleted; the cleanups delete the VLAN, then the
    // project, and stop on any error but a 404.
    let fake = network::fake_of(world());
    let (v, g, block) = gateway(&fake, OTHER_PROJECT).await;
    assert_eq!(
        delete(&fake, &format!("/virtual-networks/{v}")).await.0,
        204
    );
    for gone in [
        format!("/virtual-networks/{v}"),
        format!("/metal-gateways/{g}"),
        format!("/ips/{block}"),
    ] {
        assert_eq!(status(&fake, &gone).await, 404, "{gone}");
    }
    assert_eq!(
        delete(&fake, &format!("/projects/{OTHER_PROJECT}")).await.0,
        204
    );
    round_trips(&fake);
}

#[tokio::test(start_paused = true)]
async fn a_project_whose_devices_were_just_deleted_is_deleted_at_once() {
    // packngo's test teardown deletes its device and at once its project,
    // failing on any error; with the old deprovisioning lag the device
    // still reads `deprovisioning` then.
    let fake = Fake::builder()
        .token(TOKEN)
        .world(world())
        .timings(Timings {
            deprovisioning: Duration::from_secs(60),
            ..Timings::default()
        })
        .build();
    // A device still running holds the project.
    assert_eq!(
        delete(&fake, &format!("/projects/{PROJECT}")).await,
        (
            422,
            json!({"errors": ["Cannot delete a project that has devices"]})
        )
    );
    assert_eq!(delete(&fake, &format!("/devices/{DEVICE}")).await.0, 204);
    let (_, d) = call(&fake, "GET", &format!("/devices/{DEVICE}"), None).await;
    assert_eq!(d["state"], "deprovisioning");
    assert_eq!(delete(&fake, &format!("/projects/{PROJECT}")).await.0, 204);
    assert_eq!(status(&fake, &format!("/devices/{DEVICE}")).await, 404);
    round_trips(&fake);
    // Its removal, due later, finds nothing to do.
    tokio::time::advance(Duration::from_secs(61)).await;
    assert_eq!(
        status(&fake, &format!("/projects/{OTHER_PROJECT}")).await,
        200
    );
    round_trips(&fake);
}

#[tokio::test(start_paused = true)]
async fn an_organisation_s_delete_takes_its_empty_projects_and_refuses_one_in_use() {
    // metal-cli's project-create-test makes an organisation and a project
    // in it, and its cleanup deletes the organisation only.
    let org = "0a000000-0000-4000-8000-0000000000aa";
    let mut doc = world();
    doc.organizations = vec![serde_json::from_value(json!({ "id": org })).unwrap()];
    for p in &mut doc.projects {
        p.organization = Some(org.parse().unwrap());
    }
    let fake = network::fake_of(doc);
    let v = network::id(&network::vlan(&fake, OTHER_PROJECT, "da").await);
    // One project has a device: refused whole, with the project's refusal.
    assert_eq!(
        delete(&fake, &format!("/organizations/{org}")).await,
        (
            422,
            json!({"errors": ["Cannot delete a project that has devices"]})
        )
    );
    assert_eq!(
        status(&fake, &format!("/projects/{OTHER_PROJECT}")).await,
        200
    );
    assert_eq!(status(&fake, &format!("/virtual-networks/{v}")).await, 200);
    assert_eq!(delete(&fake, &format!("/devices/{DEVICE}")).await.0, 204);
    assert_eq!(delete(&fake, &format!("/organizations/{org}")).await.0, 204);
    for gone in [
        format!("/organizations/{org}"),
        format!("/projects/{PROJECT}"),
        format!("/projects/{OTHER_PROJECT}"),
        format!("/virtual-networks/{v}"),
    ] {
        assert_eq!(status(&fake, &gone).await, 404, "{gone}");
    }
    round_trips(&fake);
}
