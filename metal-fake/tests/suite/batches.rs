//! Device batches: each entry a `createDevice` body with `quantity` or
//! `hostnames`, made through the device create path; a batch whose
//! devices cannot all be made is `failed` with its reasons; read by
//! project and by ID (`include=devices`), deleted with or without its
//! devices. In process and over HTTP; time on tokio's paused clock.

use crate::http;
use crate::via::{errors, Via};

use std::time::Duration;

use metal_fake::document::WorldDoc;
use metal_fake::{Fake, DEFAULT_TOKEN};
use serde_json::{json, Value};

const PROJECT: &str = "0c000000-0000-4000-8000-000000000001";
const OTHER: &str = "0c000000-0000-4000-8000-000000000002";
const ORG: &str = "0c000000-0000-4000-8000-0000000000f1";

/// Three `c3.small.x86` machines in `da11`.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": OTHER, "organization": ORG}
        ],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "capacity": [{"facility": "da11", "plan": "c3.small.x86", "available": 3}]
    }))
    .unwrap()
}

fn batch_path() -> String {
    format!("/projects/{PROJECT}/devices/batch")
}

/// Two batches: two named devices in metro `da`, then two more in `da11`,
/// of which only one machine is left.
fn two_batches() -> Value {
    json!({"batches": [
        {"hostnames": ["a", "b"], "metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"},
        {"quantity": 2, "hostname": "c", "facility": "da11", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}
    ]})
}

fn ids(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_batch_makes_its_devices_and_reports_those_it_could_not_make_both_ways() {
    for via in Via::both(world).await {
        let (status, made) = via.call("POST", &batch_path(), Some(two_batches())).await;
        assert_eq!(status, 201, "{made}");
        let batches = made["batches"].as_array().unwrap();
        assert_eq!(batches.len(), 2);
        let (full, short) = (&batches[0], &batches[1]);
        assert_eq!(full["state"], "completed");
        assert_eq!(full["quantity"], 2);
        assert_eq!(full["error_messages"], json!([]));
        assert_eq!(full["devices"].as_array().unwrap().len(), 2);
        assert_eq!(
            full["project"]["href"],
            format!("/metal/v1/projects/{PROJECT}")
        );
        // One machine left for two: one made, and why the other was not.
        assert_eq!(short["state"], "failed");
        assert_eq!(short["quantity"], 2);
        assert_eq!(short["devices"].as_array().unwrap().len(), 1);
        assert_eq!(
            short["error_messages"].as_array().unwrap().len(),
            1,
            "{short}"
        );
        assert_eq!(via.fake().devices().len(), 3);

        let id = full["id"].as_str().unwrap();
        let (status, read) = via
            .call("GET", &format!("/batches/{id}?include=devices"), None)
            .await;
        assert_eq!(status, 200);
        let hostnames: Vec<&str> = read["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["hostname"].as_str().unwrap())
            .collect();
        assert_eq!(hostnames, ["a", "b"], "each its own of `hostnames`");
        let (_, plain) = via.call("GET", &format!("/batches/{id}"), None).await;
        assert!(plain["devices"][0]["href"]
            .as_str()
            .unwrap()
            .starts_with("/metal/v1/devices/"));
        assert!(plain["devices"][0].get("hostname").is_none());

        let (status, list) = via
            .call("GET", &format!("/projects/{PROJECT}/batches"), None)
            .await;
        assert_eq!(status, 200);
        assert_eq!(ids(&list, "batches"), ids(&made, "batches"), "oldest first");
        let (_, other) = via
            .call("GET", &format!("/projects/{OTHER}/batches"), None)
            .await;
        assert_eq!(other["batches"], json!([]));
    }
}

#[tokio::test]
async fn each_refusal_of_a_batch_once_and_nothing_is_made() {
    let fake = Fake::builder().world(world()).build();
    let entry = json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"});
    let with = |extra: Value| {
        let mut e = entry.clone();
        for (k, v) in extra.as_object().unwrap() {
            e[k] = v.clone();
        }
        json!({"batches": [e]})
    };
    let cases = [
        (json!({}), "batches is required"),
        (json!({"batches": []}), "batches must hold 1 to 100 entries"),
        (with(json!({"quantity": 0})), "quantity must be 1 to 100"),
        (
            with(json!({"quantity": "two"})),
            "quantity is not a whole number",
        ),
        (
            with(json!({"quantity": 1, "hostnames": ["a", "b"]})),
            "more hostnames than its quantity",
        ),
        (
            with(json!({"hostnames": "a"})),
            "hostnames is not a list of strings",
        ),
    ];
    for (body, refusal) in cases {
        let (status, reply) =
            http::in_process(&fake, DEFAULT_TOKEN, "POST", &batch_path(), Some(body)).await;
        assert_eq!(status, 422, "{refusal}: {reply}");
        assert!(errors(&reply).contains(refusal), "{refusal}: {reply}");
    }
    assert!(fake.devices().is_empty());
    assert!(fake.world().batches.is_empty());
    let missing = "0c000000-0000-4000-8000-0000000000ee";
    let (status, _) = http::in_process(
        &fake,
        DEFAULT_TOKEN,
        "POST",
        &format!("/projects/{missing}/devices/batch"),
        Some(with(json!({}))),
    )
    .await;
    assert_eq!(status, 404);
}

#[tokio::test(start_paused = true)]
async fn a_delete_keeps_the_devices_unless_asked_to_remove_them() {
    let fake = Fake::builder().world(world()).build();
    let call = |method: &'static str, path: String| {
        let fake = fake.clone();
        async move { http::in_process(&fake, DEFAULT_TOKEN, method, &path, None).await }
    };
    let (_, made) = http::in_process(
        &fake,
        DEFAULT_TOKEN,
        "POST",
        &batch_path(),
        Some(two_batches()),
    )
    .await;
    let (kept, removed) = (
        made["batches"][0]["id"].as_str().unwrap().to_string(),
        made["batches"][1]["id"].as_str().unwrap().to_string(),
    );
    fake.advance(Duration::from_secs(3600)).unwrap();
    let (status, _) = call("DELETE", format!("/batches/{kept}")).await;
    assert_eq!(status, 204);
    assert_eq!(fake.devices().len(), 3, "the devices stay");
    let (status, _) = call(
        "DELETE",
        format!("/batches/{removed}?remove_associated_instances=yes"),
    )
    .await;
    assert_eq!(status, 422);
    let (status, _) = call(
        "DELETE",
        format!("/batches/{removed}?remove_associated_instances=true"),
    )
    .await;
    assert_eq!(status, 204);
    fake.advance(Duration::from_secs(3600)).unwrap();
    assert_eq!(fake.devices().len(), 2, "its one device went with it");
    let (status, _) = call("GET", format!("/batches/{removed}")).await;
    assert_eq!(status, 404);
    let (status, _) = call("GET", format!("/batches/{kept}")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn batches_are_saved_and_seeded_and_refused_when_inconsistent() {
    let fake = Fake::builder().world(world()).build();
    http::in_process(
        &fake,
        DEFAULT_TOKEN,
        "POST",
        &batch_path(),
        Some(two_batches()),
    )
    .await;
    let saved = fake.world();
    assert_eq!(saved.batches.len(), 2);
    assert_eq!(saved.batches[1].error_messages.len(), 1);
    let again = Fake::builder().world(saved.clone()).build();
    assert_eq!(again.world().batches, saved.batches);
    let mut bad = saved.clone();
    bad.batches[0].project = OTHER.parse().unwrap();
    assert!(
        Fake::builder().world(bad).try_build().is_err(),
        "another project's devices"
    );
    let mut bad = saved;
    bad.batches[0].quantity = 1;
    assert!(
        Fake::builder().world(bad).try_build().is_err(),
        "more devices than its quantity"
    );
}
