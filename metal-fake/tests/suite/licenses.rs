//! Licenses of projects: create, list, read, update and delete, each
//! refusal once, in process and over HTTP; seeded from the world
//! document and saved back; gone with their project.

use crate::http;
use crate::via::{errors, Via};

use metal_fake::document::WorldDoc;
use metal_fake::{Fake, DEFAULT_TOKEN};
use serde_json::json;

const PROJECT: &str = "0c000000-0000-4000-8000-000000000001";
const EMPTY: &str = "0c000000-0000-4000-8000-000000000002";
const ORG: &str = "0c000000-0000-4000-8000-0000000000f1";
const SEEDED: &str = "0c000000-0000-4000-8000-00000000001a";

fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": EMPTY, "organization": ORG}
        ],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "licenses": [{
            "id": SEEDED,
            "project": PROJECT,
            "licensee_product_id": "windows-server",
            "size": 4.0,
            "license_key": "SEEDED-KEY"
        }]
    }))
    .unwrap()
}

#[tokio::test]
async fn a_license_is_made_listed_read_updated_and_deleted_both_ways() {
    for via in Via::both(world).await {
        let (status, made) = via
            .call(
                "POST",
                &format!("/projects/{PROJECT}/licenses"),
                Some(json!({"licensee_product_id": "rhel", "size": 2, "description": "db"})),
            )
            .await;
        assert_eq!(status, 201, "{made}");
        let id = made["id"].as_str().unwrap().to_string();
        assert_eq!(made["size"], 2.0);
        assert_eq!(made["description"], "db");
        assert_eq!(
            made["licensee_product"]["href"],
            "/metal/v1/licensee-products/rhel"
        );
        assert_eq!(
            made["project"]["href"],
            format!("/metal/v1/projects/{PROJECT}")
        );
        let key = made["license_key"].as_str().unwrap();
        assert!(!key.is_empty() && key != "SEEDED-KEY", "{key}");

        let (status, list) = via
            .call("GET", &format!("/projects/{PROJECT}/licenses"), None)
            .await;
        assert_eq!(status, 200);
        let ids: Vec<&str> = list["licenses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [SEEDED, id.as_str()], "oldest first");
        let (_, other) = via
            .call("GET", &format!("/projects/{EMPTY}/licenses"), None)
            .await;
        assert_eq!(other["licenses"], json!([]));

        let (status, updated) = via
            .call(
                "PUT",
                &format!("/licenses/{id}"),
                Some(json!({"size": 8, "description": "bigger"})),
            )
            .await;
        assert_eq!(status, 200, "{updated}");
        assert_eq!(updated["size"], 8.0);
        assert_eq!(updated["license_key"], made["license_key"], "the key stays");
        let (_, read) = via.call("GET", &format!("/licenses/{id}"), None).await;
        assert_eq!(read["description"], "bigger");

        let (status, _) = via.call("DELETE", &format!("/licenses/{id}"), None).await;
        assert_eq!(status, 204);
        let (status, _) = via.call("GET", &format!("/licenses/{id}"), None).await;
        assert_eq!(status, 404);
    }
}

#[tokio::test]
async fn each_refusal_of_a_license_once() {
    let [via, _] = Via::both(world).await;
    let licenses = format!("/projects/{PROJECT}/licenses");
    let (status, body) = via.call("POST", &licenses, Some(json!({"size": 1}))).await;
    assert_eq!(status, 422);
    assert!(
        errors(&body).contains("licensee_product_id is required"),
        "{body}"
    );
    let (status, body) = via
        .call(
            "POST",
            &licenses,
            Some(json!({"licensee_product_id": "rhel", "size": 0})),
        )
        .await;
    assert_eq!(status, 422);
    assert!(
        errors(&body).contains("size must be greater than 0"),
        "{body}"
    );
    let (status, body) = via
        .call(
            "PUT",
            &format!("/licenses/{SEEDED}"),
            Some(json!({"size": -1})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let missing = "0c000000-0000-4000-8000-0000000000ee";
    let (status, _) = via
        .call(
            "POST",
            &format!("/projects/{missing}/licenses"),
            Some(json!({"licensee_product_id": "x"})),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = via
        .call("DELETE", &format!("/licenses/{missing}"), None)
        .await;
    assert_eq!(status, 404);
    // Nothing refused was made or changed.
    let (_, list) = via.call("GET", &licenses, None).await;
    assert_eq!(list["licenses"].as_array().unwrap().len(), 1);
    assert_eq!(list["licenses"][0]["size"], 4.0);
}

#[tokio::test]
async fn licenses_are_seeded_saved_and_go_with_their_project() {
    let fake = Fake::builder().world(world()).build();
    let saved = fake.world();
    assert_eq!(saved.licenses, world().licenses, "saved as seeded");
    // A license of a project the world lacks is refused.
    let mut bad = world();
    bad.licenses[0].project = "0c000000-0000-4000-8000-0000000000ee".parse().unwrap();
    assert!(Fake::builder().world(bad).try_build().is_err());
    let mut bad = world();
    bad.licenses[0].size = f64::NAN;
    assert!(Fake::builder().world(bad).try_build().is_err());
    // Deleting the project deletes its licenses (a cascade).
    let (status, body) = http::in_process(
        &fake,
        DEFAULT_TOKEN,
        "DELETE",
        &format!("/projects/{PROJECT}"),
        None,
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let (status, _) = http::in_process(
        &fake,
        DEFAULT_TOKEN,
        "GET",
        &format!("/licenses/{SEEDED}"),
        None,
    )
    .await;
    assert_eq!(status, 404);
    assert!(fake.world().licenses.is_empty());
}
