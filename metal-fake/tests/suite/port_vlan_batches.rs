//! Port VLAN assignment batches, as metal-cli's `port vlan` sends them
//! (`--assign`, `--unassign`, `--native` by vxlan; the batch read with
//! `include=port`): queued, in progress, then applied on the fake's clock
//! through the port's own rules (restating the port's state is no
//! change), completed or failed with its messages; the port's VLAN
//! assignments; each refusal once; in process, and over HTTP with every
//! reply checked against the spec.

use std::time::Duration;

use crate::common::schema;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::{self, call, DEVICE, PROJECT};

/// A project with an active device in `da`.
fn world() -> WorldDoc {
    network::world(&[PROJECT], &[(DEVICE, "c3.small.x86")])
}

fn fake() -> Fake {
    network::fake_of(world())
}

/// The ID of the device's port `name`.
async fn port(fake: &Fake, name: &str) -> String {
    network::port(fake, DEVICE, name).await
}

/// A VLAN of the project in `metro`: its vxlan.
async fn vlan(fake: &Fake, metro: &str) -> u64 {
    network::vlan(fake, PROJECT, metro).await["vxlan"]
        .as_u64()
        .unwrap()
}

/// metal-cli's assignment: `vlan` as text.
fn assign(vlan: u64, state: &str, native: Option<bool>) -> Value {
    let mut a = json!({"vlan": vlan.to_string(), "state": state});
    if let Some(n) = native {
        a["native"] = json!(n);
    }
    a
}

/// Sends a batch, lets the clock run it out, and reads it back.
async fn run(fake: &Fake, port: &str, assignments: Vec<Value>) -> Value {
    let batches = format!("/ports/{port}/vlan-assignments/batches");
    let (status, b) = call(
        fake,
        "POST",
        &format!("{batches}?include=port"),
        Some(json!({ "vlan_assignments": assignments })),
    )
    .await;
    assert_eq!(status, 201, "{b}");
    assert_eq!(b["state"], "queued");
    assert_eq!(b["port"]["id"], port, "the port whole, included");
    let path = format!("{batches}/{}", b["id"].as_str().unwrap());
    tokio::time::advance(Duration::from_secs(6)).await;
    assert_eq!(
        call(fake, "GET", &path, None).await.1["state"],
        "in_progress"
    );
    tokio::time::advance(Duration::from_secs(6)).await;
    call(fake, "GET", &path, None).await.1
}

#[tokio::test(start_paused = true)]
async fn a_batch_assigns_and_unassigns_through_the_port_rules_on_the_clock() {
    let fake = fake();
    let bond = port(&fake, "bond0").await;
    let (a, b) = (vlan(&fake, "da").await, vlan(&fake, "da").await);
    let done = run(
        &fake,
        &bond,
        vec![
            assign(a, "assigned", Some(false)),
            assign(b, "assigned", Some(true)),
        ],
    )
    .await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["quantity"], 2);
    assert_eq!(done["vlan_assignments"][1]["native"], true);
    let (_, p) = call(&fake, "GET", &format!("/ports/{bond}"), None).await;
    assert_eq!(p["virtual_networks"].as_array().unwrap().len(), 2);
    assert_eq!(p["network_type"], "hybrid-bonded");
    let (_, listed) = call(
        &fake,
        "GET",
        &format!("/ports/{bond}/vlan-assignments"),
        None,
    )
    .await;
    let on: Vec<(u64, bool)> = listed["vlan_assignments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["vlan"].as_u64().unwrap(), x["native"].as_bool().unwrap()))
        .collect();
    assert_eq!(on, [(a, false), (b, true)]);
    let one = listed["vlan_assignments"][1]["id"].as_str().unwrap();
    let (status, got) = call(
        &fake,
        "GET",
        &format!("/ports/{bond}/vlan-assignments/{one}"),
        None,
    )
    .await;
    assert_eq!((status, got["vlan"].as_u64()), (200, Some(b)));
    // Restating is no change; an unassign of the native VLAN is the
    // port's refusal, and the batch fails with it.
    let restated = run(
        &fake,
        &bond,
        vec![assign(a, "assigned", None), assign(a, "unassigned", None)],
    )
    .await;
    assert_eq!(restated["state"], "completed", "{restated}");
    let failed = run(&fake, &bond, vec![assign(b, "unassigned", None)]).await;
    assert_eq!(failed["state"], "failed");
    let message = failed["error_messages"][0].as_str().unwrap();
    assert!(message.contains("native VLAN"), "{message}");
    // `--assign` with native false turns the native VLAN tagged, and then
    // it may go.
    let untagged = run(
        &fake,
        &bond,
        vec![
            assign(b, "assigned", Some(false)),
            assign(b, "unassigned", None),
        ],
    )
    .await;
    assert_eq!(untagged["state"], "completed", "{untagged}");
    let (_, listed) = call(
        &fake,
        "GET",
        &format!("/ports/{bond}/vlan-assignments"),
        None,
    )
    .await;
    assert_eq!(listed["vlan_assignments"], json!([]));
    let (_, batches) = call(
        &fake,
        "GET",
        &format!("/ports/{bond}/vlan-assignments/batches"),
        None,
    )
    .await;
    let states: Vec<&Value> = batches["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["state"])
        .collect();
    assert_eq!(
        states,
        [
            &json!("completed"),
            &json!("completed"),
            &json!("failed"),
            &json!("completed")
        ]
    );
    // A device's batches go with it.
    let (status, _) = call(&fake, "DELETE", &format!("/devices/{DEVICE}"), None).await;
    assert_eq!(status, 204);
    assert!(fake.world().port_vlan_batches.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_batch_the_api_refused_is_refused() {
    let fake = fake();
    let bond = port(&fake, "bond0").await;
    let eth1 = port(&fake, "eth1").await;
    let a = vlan(&fake, "da").await;
    let batches = |p: &str| format!("/ports/{p}/vlan-assignments/batches");
    for (body, why) in [
        (json!({"vlan_assignments": []}), "can't be blank"),
        (
            json!({"vlan_assignments": [{"state": "assigned"}]}),
            "vlan can't",
        ),
        (
            json!({"vlan_assignments": [assign(3999, "assigned", None)]}),
            "device's project and metro",
        ),
        (
            json!({"vlan_assignments": [assign(a, "maybe", None)]}),
            "not valid",
        ),
        (
            json!({"vlan_assignments": [assign(a, "unassigned", Some(true))]}),
            "native",
        ),
        (
            json!({"vlan_assignments": vec![assign(a, "assigned", None); 101]}),
            "at most 100",
        ),
    ] {
        let (status, reply) = call(&fake, "POST", &batches(&bond), Some(body.clone())).await;
        assert_eq!(status, 422, "{reply}");
        assert!(
            reply["errors"][0].as_str().unwrap().contains(why),
            "{why}: {reply}"
        );
    }
    let unknown = uuid::Uuid::new_v4();
    let (status, _) = call(
        &fake,
        "POST",
        &batches(&unknown.to_string()),
        Some(json!({"vlan_assignments": [assign(a, "assigned", None)]})),
    )
    .await;
    assert_eq!(status, 404);
    // One batch at a time on a port.
    let body = json!({"vlan_assignments": [assign(a, "assigned", None)]});
    assert_eq!(
        call(&fake, "POST", &batches(&eth1), Some(body.clone()))
            .await
            .0,
        201
    );
    let (status, reply) = call(&fake, "POST", &batches(&eth1), Some(body)).await;
    assert_eq!(status, 422, "{reply}");
    // The port's own refusal: eth1 is in its bond.
    tokio::time::advance(Duration::from_secs(12)).await;
    let (_, listed) = call(&fake, "GET", &batches(&eth1), None).await;
    assert_eq!(listed["batches"][0]["state"], "failed");
    assert!(listed["batches"][0]["error_messages"][0]
        .as_str()
        .unwrap()
        .contains("bonded port"));
    let missing = format!("{}/{}", batches(&eth1), uuid::Uuid::new_v4());
    assert_eq!(call(&fake, "GET", &missing, None).await.0, 404);
}

#[tokio::test]
async fn over_http_every_batch_reply_matches_the_spec() {
    let fake = fake();
    let server = schema::Checked::serve(fake.clone()).await;
    let send =
        |method: &'static str, path: String, body: Option<Value>| server.send(method, path, body);
    let bond = port(&fake, "bond0").await;
    let (_, v) = send(
        "POST",
        format!("/projects/{PROJECT}/virtual-networks"),
        Some(json!({"metro": "da"})),
    )
    .await;
    let vxlan = v["vxlan"].as_u64().unwrap();
    let batches = format!("/ports/{bond}/vlan-assignments/batches");
    let (status, b) = send(
        "POST",
        format!("{batches}?include=port"),
        Some(json!({"vlan_assignments": [assign(vxlan, "assigned", Some(true))]})),
    )
    .await;
    assert_eq!(status, 201, "{b}");
    fake.advance(Duration::from_secs(12)).unwrap();
    let (_, listed) = send("GET", format!("/ports/{bond}/vlan-assignments"), None).await;
    let one = listed["vlan_assignments"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for p in [
        format!("{batches}/{}?include=port", b["id"].as_str().unwrap()),
        batches.clone(),
        format!("/ports/{bond}/vlan-assignments/{one}"),
    ] {
        let (status, reply) = send("GET", p.clone(), None).await;
        assert_eq!(status, 200, "{p}: {reply}");
    }
    server.check_and_stop().await;
}
