//! Virtual networks (VLANs), as metal-cli's test helper and Terraform's
//! `equinix_metal_vlan` use them: made in a metro with or without a
//! `vxlan` (or in a facility), listed per project with the metro filter,
//! read, updated and deleted; a duplicate `vxlan` in a metro refused, a
//! delete refused while a port is on the VLAN. In process, and over HTTP
//! with every reply checked against the spec.

use crate::common::schema;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::network::DEVICE as DA_DEVICE;
use crate::network::{self, call, OTHER_PROJECT, PROJECT, TOKEN};

/// Two projects; the first with an active device in `da`.
fn world() -> WorldDoc {
    network::world(&[PROJECT, OTHER_PROJECT], &[(DA_DEVICE, "c3.small.x86")])
}

fn fake() -> Fake {
    network::fake_of(world())
}

/// Makes a VLAN of `project` from `body`; its reply.
async fn create(fake: &Fake, project: &str, body: Value) -> Value {
    let (status, vlan) = call(
        fake,
        "POST",
        &format!("/projects/{project}/virtual-networks"),
        Some(body),
    )
    .await;
    assert_eq!(status, 201, "{vlan}");
    vlan
}

/// The refusal of a create from `body`: its status and first message.
async fn refused(fake: &Fake, body: Value) -> (u16, String) {
    let (status, reply) = call(
        fake,
        "POST",
        &format!("/projects/{PROJECT}/virtual-networks"),
        Some(body),
    )
    .await;
    (
        status,
        reply["errors"][0].as_str().unwrap_or("").to_string(),
    )
}

#[tokio::test(start_paused = true)]
async fn vlans_are_numbered_from_1000_or_as_asked_and_unique_in_a_metro() {
    let fake = fake();
    // metal-cli's helper: the metro alone.
    let first = create(&fake, PROJECT, json!({"metro": "sv"})).await;
    assert_eq!(first["vxlan"], 1000);
    assert_eq!(first["metro_code"], "sv");
    assert_eq!(first["metro"]["code"], "sv");
    assert_eq!(
        first["assigned_to"]["href"],
        format!("/metal/v1/projects/{PROJECT}")
    );
    assert_eq!(first["instances"], json!([]));
    let second = create(&fake, PROJECT, json!({"metro": "sv"})).await;
    assert_eq!(second["vxlan"], 1001);
    // And with a vxlan and a description, as its other helper sends.
    let asked = create(
        &fake,
        PROJECT,
        json!({"metro": "da", "vxlan": 1999, "description": "for tests", "tags": ["t"]}),
    )
    .await;
    assert_eq!(
        (&asked["vxlan"], &asked["description"], &asked["tags"]),
        (&json!(1999), &json!("for tests"), &json!(["t"]))
    );
    // The same number again in that metro is refused; in another metro,
    // or in another project, it is free.
    let (status, message) = refused(&fake, json!({"metro": "da", "vxlan": 1999})).await;
    assert_eq!(status, 422);
    assert!(message.contains("1999"), "{message}");
    create(&fake, PROJECT, json!({"metro": "sv", "vxlan": 1999})).await;
    create(&fake, OTHER_PROJECT, json!({"metro": "da", "vxlan": 1999})).await;
    // An auto-numbered VLAN skips a taken number.
    create(&fake, PROJECT, json!({"metro": "da", "vxlan": 1000})).await;
    assert_eq!(
        create(&fake, PROJECT, json!({"metro": "da"})).await["vxlan"],
        1001
    );
    // In a facility: its metro, and no vxlan of the caller's.
    let in_facility = create(&fake, PROJECT, json!({"facility": "sv15"})).await;
    assert_eq!(in_facility["metro_code"], "sv");
    // Its facility's code beside it, beyond the spec, and `null` for a
    // metro's (terraform-provider-metal's TestAccMetalVlan_Basic and
    // _metro: `facility` from packngo's `FacilityCode`, "ny5" and "").
    assert_eq!(in_facility["facility_code"], "sv15", "{in_facility}");
    let in_metro = create(&fake, PROJECT, json!({"metro": "sv"})).await;
    assert!(
        in_metro.get("facility_code") == Some(&Value::Null),
        "{in_metro}"
    );
    // Its facility by ID, and no metro (packngo's
    // TestAccVirtualNetworksFacility: "Metro should be null in
    // facility-enabled VLAN").
    let (_, facilities) = call(&fake, "GET", "/facilities", None).await;
    let sv15 = facilities["facilities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "sv15")
        .unwrap()["id"]
        .clone();
    assert_eq!(
        in_facility["facility"]["href"],
        format!("/metal/v1/facilities/{}", sv15.as_str().unwrap())
    );
    assert!(in_facility.get("metro").is_none(), "{in_facility}");
    for (body, why) in [
        (json!({"facility": "sv15", "vxlan": 5}), "vxlan"),
        (json!({"metro": "da", "vxlan": 4000}), "between"),
        (json!({"metro": "da", "vxlan": 1}), "between"),
        (json!({}), "Metro or facility"),
        (json!({"metro": "zz"}), "zz"),
        (json!({"metro": "da", "tags": vec!["t"; 257]}), "Tags"),
    ] {
        let (status, message) = refused(&fake, body.clone()).await;
        assert_eq!(status, 422, "{body}");
        assert!(message.contains(why), "{body}: {message}");
    }
}

#[tokio::test(start_paused = true)]
async fn vlans_are_listed_by_metro_read_updated_and_deleted() {
    let fake = fake();
    let sv = create(&fake, PROJECT, json!({"metro": "sv"})).await;
    let da = create(&fake, PROJECT, json!({"metro": "da", "tags": ["a"]})).await;
    create(&fake, OTHER_PROJECT, json!({"metro": "da"})).await;
    let list = |q: &'static str| {
        let fake = fake.clone();
        async move {
            let (status, body) = call(
                &fake,
                "GET",
                &format!("/projects/{PROJECT}/virtual-networks{q}"),
                None,
            )
            .await;
            assert_eq!(status, 200, "{body}");
            body["virtual_networks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["id"].clone())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(list("").await, [sv["id"].clone(), da["id"].clone()]);
    assert_eq!(list("?metro=da").await, [da["id"].clone()]);
    assert_eq!(list("?metro=DA").await, [da["id"].clone()]);
    assert!(list("?metro=fr").await.is_empty());

    let path = format!("/virtual-networks/{}", da["id"].as_str().unwrap());
    let (status, got) = call(&fake, "GET", &format!("{path}?include=assigned_to"), None).await;
    assert_eq!(status, 200);
    assert_eq!(got["assigned_to"]["id"], PROJECT);
    // An update changes what it names: the tags stay without `tags`.
    let (status, updated) = call(&fake, "PUT", &path, Some(json!({"description": "d"}))).await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(
        (&updated["description"], &updated["tags"]),
        (&json!("d"), &json!(["a"]))
    );
    let (_, updated) = call(&fake, "PUT", &path, Some(json!({"tags": []}))).await;
    assert_eq!(
        (&updated["description"], &updated["tags"]),
        (&json!("d"), &json!([]))
    );

    let (status, _) = call(&fake, "DELETE", &path, None).await;
    assert_eq!(status, 204);
    for method in ["GET", "DELETE"] {
        assert_eq!(call(&fake, method, &path, None).await.0, 404, "{method}");
    }
    assert_eq!(list("").await, [sv["id"].clone()]);
}

/// The ID of the device's port `name`.
async fn port(fake: &Fake, name: &str) -> String {
    network::port(fake, DA_DEVICE, name).await
}

#[tokio::test(start_paused = true)]
async fn a_vlan_on_a_port_is_not_deleted_and_shows_its_device() {
    let fake = fake();
    let vlan = create(&fake, PROJECT, json!({"metro": "da"})).await;
    let id = vlan["id"].as_str().unwrap().to_string();
    let bond0 = port(&fake, "bond0").await;
    let (status, body) = call(
        &fake,
        "POST",
        &format!("/ports/{bond0}/assign"),
        Some(json!({"vnid": id})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = call(&fake, "DELETE", &format!("/virtual-networks/{id}"), None).await;
    assert_eq!(
        (status, body),
        (
            422,
            json!({"errors": ["Cannot delete Virtual Network when port is assigned"]})
        )
    );
    // Terraform's delete reads the instances and their ports first.
    let (_, got) = call(
        &fake,
        "GET",
        &format!("/virtual-networks/{id}?include=instances"),
        None,
    )
    .await;
    let instances = got["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 1);
    assert_eq!(instances[0]["id"], DA_DEVICE);
    let bond = &instances[0]["network_ports"][0];
    assert_eq!(
        bond["virtual_networks"][0]["href"],
        format!("/metal/v1/virtual-networks/{id}")
    );
    // The project refuses its delete while it has the device.
    assert_eq!(
        call(&fake, "DELETE", &format!("/projects/{PROJECT}"), None)
            .await
            .0,
        422
    );

    let (status, _) = call(
        &fake,
        "POST",
        &format!("/ports/{bond0}/unassign"),
        Some(json!({"vnid": id})),
    )
    .await;
    assert_eq!(status, 200);
    let (_, got) = call(&fake, "GET", &format!("/virtual-networks/{id}"), None).await;
    assert_eq!(got["instances"], json!([]));
    assert_eq!(
        call(&fake, "DELETE", &format!("/virtual-networks/{id}"), None)
            .await
            .0,
        204
    );
}

#[tokio::test(start_paused = true)]
async fn a_project_takes_its_vlans_and_vlans_round_trip_through_the_world_document() {
    let fake = fake();
    let kept = create(
        &fake,
        PROJECT,
        json!({"metro": "da", "vxlan": 7, "description": "x"}),
    )
    .await;
    let gone = create(&fake, OTHER_PROJECT, json!({"metro": "sv"})).await;
    let (status, _) = call(&fake, "DELETE", &format!("/projects/{OTHER_PROJECT}"), None).await;
    assert_eq!(status, 204);
    let path = format!("/virtual-networks/{}", gone["id"].as_str().unwrap());
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);

    let saved = fake.world();
    assert_eq!(saved.virtual_networks.len(), 1);
    assert_eq!(saved.virtual_networks[0].vxlan, 7);
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world(), saved);
    let (status, got) = call(
        &again,
        "GET",
        &format!("/virtual-networks/{}", kept["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!((status, &got["description"]), (200, &json!("x")));

    // A document with a vxlan twice in a metro, or outside the range, or
    // in a metro the world lacks, is refused.
    for (vxlan, metro, why) in [(7, "da", "taken"), (4000, "da", "outside"), (8, "zz", "zz")] {
        let mut doc = saved.clone();
        let mut twin = doc.virtual_networks[0].clone();
        twin.id = uuid::Uuid::new_v4();
        twin.vxlan = vxlan;
        twin.metro = metro.to_string();
        doc.virtual_networks.push(twin);
        let err = Fake::builder()
            .world(doc)
            .try_build()
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{err}");
    }
}

/// Over HTTP: the whole walk, every reply checked against the spec.
#[tokio::test]
async fn over_http_every_vlan_reply_matches_the_spec() {
    let fake = fake();
    let server = schema::Checked::serve(fake.clone()).await;
    let send =
        |method: &'static str, path: String, body: Option<Value>| server.send(method, path, body);
    let (status, vlan) = send(
        "POST",
        format!("/projects/{PROJECT}/virtual-networks"),
        Some(json!({"metro": "da", "vxlan": 1999, "description": "d"})),
    )
    .await;
    assert_eq!(status, 201);
    let id = vlan["id"].as_str().unwrap().to_string();
    let refused = send(
        "POST",
        format!("/projects/{PROJECT}/virtual-networks"),
        Some(json!({"metro": "da", "vxlan": 1999})),
    )
    .await;
    assert_eq!(refused.0, 422);
    for q in ["", "?metro=da", "?include=assigned_to", "?exclude=metro"] {
        assert_eq!(
            send(
                "GET",
                format!("/projects/{PROJECT}/virtual-networks{q}"),
                None
            )
            .await
            .0,
            200
        );
    }
    let (_, device) = send("GET", format!("/devices/{DA_DEVICE}"), None).await;
    let bond0 = device["network_ports"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let assigned = send(
        "POST",
        format!("/ports/{bond0}/assign"),
        Some(json!({"vnid": id})),
    )
    .await;
    assert_eq!(assigned.0, 200, "{}", assigned.1);
    assert_eq!(
        send(
            "GET",
            format!("/virtual-networks/{id}?include=instances"),
            None
        )
        .await
        .0,
        200
    );
    assert_eq!(
        send("DELETE", format!("/virtual-networks/{id}"), None)
            .await
            .0,
        422
    );
    send(
        "POST",
        format!("/ports/{bond0}/unassign"),
        Some(json!({"vnid": id})),
    )
    .await;
    assert_eq!(
        send(
            "PUT",
            format!("/virtual-networks/{id}"),
            Some(json!({"tags": ["x"]}))
        )
        .await
        .0,
        200
    );
    assert_eq!(
        send("DELETE", format!("/virtual-networks/{id}"), None)
            .await
            .0,
        204
    );
    assert_eq!(
        send("GET", format!("/virtual-networks/{id}"), None).await.0,
        404
    );
    assert!(server.replies() >= 14, "{}", server.replies());
    server.check_and_stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_state_counts_every_table_a_vlan_among_them() {
    let fake = fake();
    let records = |fake: &Fake| fake.snapshot().world.records;
    let before = records(&fake);
    assert_eq!(before.get("project"), Some(&2), "{before:?}");
    assert_eq!(before.get("device"), Some(&1), "{before:?}");
    assert_eq!(before.get("virtual_network"), None, "{before:?}");
    let vlan = create(&fake, PROJECT, json!({"metro": "sv"})).await;
    let made = records(&fake);
    assert_eq!(made.get("virtual_network"), Some(&1), "{made:?}");
    let (status, _) = call(
        &fake,
        "DELETE",
        &format!("/virtual-networks/{}", vlan["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(records(&fake), before, "the delete is counted too");
    // Every kind the saved world lists is counted, as many as it lists.
    let doc = fake.world();
    let listed = [
        ("organization", doc.organizations.len()),
        ("project", doc.projects.len()),
        ("device", doc.devices.len()),
        ("hardware_reservation", doc.reservations.len()),
        ("ip_reservation", doc.ip_reservations.len()),
    ];
    for (kind, n) in listed {
        assert_eq!(
            before.get(kind).copied().unwrap_or(0),
            n as u64,
            "{kind}: {before:?}"
        );
    }
}
