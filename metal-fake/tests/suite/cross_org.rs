//! Another organisation's token reaches nothing of acme's: every operation
//! of the spec, with each path parameter naming one of acme's things,
//! answers globex's token `403` or `404` (or the fake's `501`, or a `422`
//! that names nothing), never 2xx; and what globex may list (its projects,
//! organisations, keys, the current user) holds none of acme's IDs.

use metal_api::operation;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::example_world::{call, fake, ACME, ACME_ORG, ACME_PROJECT, GLOBEX, GLOBEX_PROJECT};

/// Acme's things, by the first segment of the paths that name them.
async fn acme_things(fake: &Fake) -> Vec<(&'static str, String)> {
    let doc = fake.world();
    let (status, block) = call(
        fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_PROJECT}/ips"),
        json!({"type": "public_ipv4", "quantity": 1, "metro": "da"}),
    )
    .await;
    assert_eq!(status, 201, "{block}");
    let project_key = doc
        .ssh_keys
        .iter()
        .find(|k| k.project.is_some_and(|p| p.to_string() == ACME_PROJECT))
        .expect("acme has a project key in examples/world.json");
    let device = doc
        .devices
        .iter()
        .find(|d| d.project.to_string() == ACME_PROJECT)
        .expect("acme has a device in examples/world.json");
    let reservation = doc
        .reservations
        .iter()
        .find(|r| r.project.to_string() == ACME_PROJECT)
        .expect("acme has a hardware reservation in examples/world.json");
    // A VLAN, a port with it, and a BGP session of acme's.
    let (status, vlan) = call(
        fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_PROJECT}/virtual-networks"),
        json!({"metro": "da"}),
    )
    .await;
    assert_eq!(status, 201, "{vlan}");
    let vlan = vlan["id"].as_str().unwrap().to_string();
    let (_, d) = call(
        fake,
        ACME,
        "GET",
        &format!("/devices/{}", device.id),
        json!({}),
    )
    .await;
    let bond0 = d["network_ports"][0]["id"].as_str().unwrap().to_string();
    let (status, body) = call(
        fake,
        ACME,
        "POST",
        &format!("/ports/{bond0}/assign"),
        json!({ "vnid": vlan }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = call(
        fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_PROJECT}/bgp-configs"),
        json!({"deployment_type": "local", "asn": 65000}),
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let (status, session) = call(
        fake,
        ACME,
        "POST",
        &format!("/devices/{}/bgp/sessions", device.id),
        json!({"address_family": "ipv4"}),
    )
    .await;
    assert_eq!(status, 201, "{session}");
    vec![
        ("virtual-networks", vlan),
        ("ports", bond0),
        ("bgp", session["id"].as_str().unwrap().to_string()),
        ("organizations", ACME_ORG.to_string()),
        ("projects", ACME_PROJECT.to_string()),
        ("devices", device.id.to_string()),
        ("hardware-reservations", reservation.id.to_string()),
        ("ssh-keys", project_key.id.to_string()),
        ("ips", block["id"].as_str().unwrap().to_string()),
    ]
}

#[tokio::test(start_paused = true)]
async fn another_organisation_s_token_reaches_nothing_of_acme_s() {
    let fake = fake();
    let things = acme_things(&fake).await;
    let mut refused = 0;
    for op in operation::ALL {
        let first = op.path.trim_start_matches('/').split('/').next().unwrap();
        let Some((_, id)) = things.iter().find(|(c, _)| *c == first) else {
            continue;
        };
        if !op.path.contains('{') {
            continue;
        }
        // Every parameter of the path names acme's thing (the first is
        // the one access reads; the others, where any, the same ID).
        let mut path = op.path.to_string();
        while let Some(start) = path.find('{') {
            let end = start + path[start..].find('}').unwrap();
            path.replace_range(start..=end, id);
        }
        let (status, body) = call(&fake, GLOBEX, op.method.as_str(), &path, json!({})).await;
        assert!(
            !(200..300).contains(&status),
            "{} {} {path} answered globex {status}: {body}",
            op.id,
            op.method
        );
        if status == 403 || status == 404 {
            refused += 1;
        }
        // A refusal says nothing of acme's things either.
        let text = body.to_string();
        for (_, other) in &things {
            assert!(
                !text.contains(other.as_str()),
                "{} named {other}: {text}",
                op.id
            );
        }
    }
    // The modelled operations that name acme's things, at least.
    assert!(refused >= 25, "only {refused} refusals");
}

#[tokio::test(start_paused = true)]
async fn what_another_organisation_lists_holds_none_of_acme_s_ids() {
    let fake = fake();
    let things = acme_things(&fake).await;
    for path in [
        "/projects".to_string(),
        "/organizations".to_string(),
        "/ssh-keys".to_string(),
        "/user".to_string(),
        format!("/projects/{GLOBEX_PROJECT}/devices"),
        format!("/projects/{GLOBEX_PROJECT}/ips"),
        format!("/projects/{GLOBEX_PROJECT}/hardware-reservations"),
    ] {
        let (status, body) = call(&fake, GLOBEX, "GET", &path, Value::Null).await;
        assert_eq!(status, 200, "{path}: {body}");
        let text = body.to_string();
        for (kind, id) in &things {
            assert!(
                !text.contains(id.as_str()),
                "{path} shows acme's {kind} {id}: {text}"
            );
        }
    }
    // The current user's defaults are globex's own.
    let (_, user) = call(&fake, GLOBEX, "GET", "/user", Value::Null).await;
    assert_eq!(user["default_project_id"], GLOBEX_PROJECT, "{user}");
    let (_, acme_user) = call(&fake, ACME, "GET", "/user", Value::Null).await;
    assert_eq!(acme_user["default_project_id"], ACME_PROJECT, "{acme_user}");
}

#[tokio::test(start_paused = true)]
async fn a_target_a_body_names_is_checked_as_a_path_s_would_be() {
    use crate::example_world::GLOBEX_ORG;
    const GLOBEX_RESERVATION: &str = "0c000000-0000-4000-8000-000000000005";
    let fake = fake();
    // A project in acme's organisation, asked for by globex's token.
    let (status, body) = call(
        &fake,
        GLOBEX,
        "POST",
        "/projects",
        json!({"name": "intruder", "organization_id": ACME_ORG}),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = call(
        &fake,
        GLOBEX,
        "POST",
        "/projects",
        json!({"name": "own", "organization_id": GLOBEX_ORG}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    // Globex's reservation moved into acme's project.
    let path = format!("/hardware-reservations/{GLOBEX_RESERVATION}/move");
    let (status, body) = call(
        &fake,
        GLOBEX,
        "POST",
        &path,
        json!({"project_id": ACME_PROJECT}),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    let doc = fake.world();
    let r = doc
        .reservations
        .iter()
        .find(|r| r.id.to_string() == GLOBEX_RESERVATION)
        .unwrap();
    assert_eq!(r.project.to_string(), GLOBEX_PROJECT, "nothing moved");
    assert!(!doc
        .projects
        .iter()
        .any(|p| p.name.as_deref() == Some("intruder")));
    // Within its own organisation access passes, and the move's own rule
    // answers (the reservation holds globex's device).
    let own: Value = body_id(&fake).await;
    let (status, body) = call(&fake, GLOBEX, "POST", &path, json!({"project_id": own})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        body["errors"][0],
        "Cannot move a hardware reservation that has a device"
    );
}

/// The ID of globex's project named `own`.
async fn body_id(fake: &Fake) -> Value {
    let (_, list) = call(fake, GLOBEX, "GET", "/projects", Value::Null).await;
    list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "own")
        .map(|p| p["id"].clone())
        .unwrap()
}
