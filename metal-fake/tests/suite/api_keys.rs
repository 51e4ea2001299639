//! API keys made through the fake work against it: a user key is its
//! user, a project key sees its project alone, a read-only key is refused
//! writes, and a deleted key's token is `401`. Keys seed from the world
//! document, and each world token is a user of its own.

use metal_fake::Fake;
use serde_json::{json, Value};

use crate::example_world::{self, call, fake, ACME, ACME_ORG, ACME_PROJECT, ACME_STAGING, GLOBEX};

fn project_ids(list: &Value) -> Vec<String> {
    list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_project_key_sees_its_project_alone_and_stops_working_when_deleted() {
    let fake = fake();
    let (status, key) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_PROJECT}/api-keys"),
        json!({"description": "ci"}),
    )
    .await;
    assert_eq!(status, 201, "{key}");
    assert_eq!(key["description"], "ci");
    assert_eq!(key["read_only"], false);
    assert!(key["project"]["href"]
        .as_str()
        .unwrap()
        .ends_with(ACME_PROJECT));
    let token = key["token"].as_str().unwrap().to_string();
    let (status, projects) = call(&fake, &token, "GET", "/projects", Value::Null).await;
    assert_eq!(status, 200, "{projects}");
    assert_eq!(project_ids(&projects), [ACME_PROJECT]);
    // Its organisation's other project is another's.
    let (status, _) = call(
        &fake,
        &token,
        "GET",
        &format!("/projects/{ACME_STAGING}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 403);
    // It writes in its project.
    let (status, body) = call(
        &fake,
        &token,
        "PUT",
        &format!("/projects/{ACME_PROJECT}"),
        json!({"name": "renamed"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // It is no user.
    let (status, _) = call(&fake, &token, "GET", "/user", Value::Null).await;
    assert_eq!(status, 403);
    // Listed with its project, then deleted: its token is refused.
    let (_, list) = call(
        &fake,
        ACME,
        "GET",
        &format!("/projects/{ACME_PROJECT}/api-keys"),
        Value::Null,
    )
    .await;
    assert_eq!(list["api_keys"].as_array().unwrap().len(), 1, "{list}");
    let id = key["id"].as_str().unwrap();
    // Another organisation cannot delete it.
    let (status, _) = call(
        &fake,
        GLOBEX,
        "DELETE",
        &format!("/api-keys/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = call(
        &fake,
        ACME,
        "DELETE",
        &format!("/api-keys/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 204);
    let (status, body) = call(&fake, &token, "GET", "/projects", Value::Null).await;
    assert_eq!(status, 401, "{body}");
    let (status, _) = call(
        &fake,
        ACME,
        "DELETE",
        &format!("/api-keys/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 404);
}

#[tokio::test(start_paused = true)]
async fn a_read_only_key_reads_and_is_refused_every_write() {
    let fake = fake();
    let (status, key) = call(
        &fake,
        ACME,
        "POST",
        "/user/api-keys",
        json!({"description": "ro", "read_only": true}),
    )
    .await;
    assert_eq!(status, 201, "{key}");
    assert_eq!(key["read_only"], true);
    let token = key["token"].as_str().unwrap().to_string();
    // It reads what its user sees: acme's projects, none of globex's.
    let (status, projects) = call(&fake, &token, "GET", "/projects", Value::Null).await;
    assert_eq!(status, 200);
    let mut ids = project_ids(&projects);
    ids.sort();
    assert_eq!(ids, [ACME_PROJECT, ACME_STAGING]);
    for (method, path, body) in [
        ("POST", "/projects".to_string(), json!({"name": "x"})),
        (
            "PUT",
            format!("/projects/{ACME_PROJECT}"),
            json!({"name": "x"}),
        ),
        ("DELETE", format!("/projects/{ACME_STAGING}"), Value::Null),
        (
            "POST",
            "/user/api-keys".to_string(),
            json!({"description": "more"}),
        ),
    ] {
        let (status, body) = call(&fake, &token, method, &path, body).await;
        assert_eq!(status, 403, "{method} {path}: {body}");
    }
    // Nothing changed.
    let (_, after) = call(&fake, ACME, "GET", "/projects", Value::Null).await;
    assert_eq!(project_ids(&after).len(), 2);
    // The user's own keys list it; another user's do not.
    let (_, mine) = call(&fake, ACME, "GET", "/user/api-keys", Value::Null).await;
    assert_eq!(mine["api_keys"][0]["id"], key["id"], "{mine}");
    let (_, theirs) = call(&fake, GLOBEX, "GET", "/user/api-keys", Value::Null).await;
    assert_eq!(theirs["api_keys"], json!([]), "{theirs}");
    // Only its user deletes it as a user key.
    let id = key["id"].as_str().unwrap();
    let (status, _) = call(
        &fake,
        GLOBEX,
        "DELETE",
        &format!("/user/api-keys/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = call(
        &fake,
        ACME,
        "DELETE",
        &format!("/user/api-keys/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 204);
    let (status, _) = call(&fake, &token, "GET", "/projects", Value::Null).await;
    assert_eq!(status, 401);
}

#[tokio::test(start_paused = true)]
async fn keys_seed_from_the_world_document_and_round_trip() {
    let mut doc = example_world::doc();
    let user = uuid::Uuid::new_v4();
    doc.users.push(metal_fake::document::User {
        id: user,
        first_name: "Wile".into(),
        last_name: "Coyote".into(),
        email: "wile@acme.example".into(),
        phone_number: None,
        timezone: None,
        customdata: Default::default(),
        two_factor: false,
    });
    doc.tokens[0].user = Some(user);
    doc.api_keys.push(metal_fake::document::ApiKey {
        id: uuid::Uuid::new_v4(),
        token: "seeded-project-key".into(),
        description: "seeded".into(),
        read_only: true,
        project: Some(ACME_PROJECT.parse().unwrap()),
        user: None,
    });
    let fake = Fake::builder().world(doc).build();
    let (status, projects) =
        call(&fake, "seeded-project-key", "GET", "/projects", Value::Null).await;
    assert_eq!(status, 200);
    assert_eq!(project_ids(&projects), [ACME_PROJECT]);
    let (status, _) = call(
        &fake,
        "seeded-project-key",
        "POST",
        &format!("/projects/{ACME_PROJECT}/ssh-keys"),
        json!({"label": "x", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB x"}),
    )
    .await;
    assert_eq!(status, 403);
    // The token named its user: `GET /user` is that user, with acme's
    // defaults.
    let (_, me) = call(&fake, ACME, "GET", "/user", Value::Null).await;
    assert_eq!(me["id"], user.to_string(), "{me}");
    assert_eq!(me["email"], "wile@acme.example");
    assert_eq!(me["default_organization_id"], ACME_ORG);
    // The other tokens are users of their own, each another.
    let (_, globex) = call(&fake, GLOBEX, "GET", "/user", Value::Null).await;
    let (_, staging) = call(&fake, "acme-staging-token", "GET", "/user", Value::Null).await;
    assert_ne!(globex["id"], me["id"]);
    assert_ne!(globex["id"], staging["id"]);
    assert_eq!(staging["default_project_id"], ACME_STAGING, "{staging}");
    // Saved and loaded again, the world is the same.
    let saved = fake.world();
    assert!(saved.tokens.iter().all(|t| t.user.is_some()));
    let other = Fake::builder().world(saved.clone()).build();
    assert_eq!(other.world(), saved);
    let (_, again) = call(&other, GLOBEX, "GET", "/user", Value::Null).await;
    assert_eq!(again["id"], globex["id"]);
}

#[tokio::test(start_paused = true)]
async fn a_user_s_key_goes_with_its_user_s_rights_and_a_project_s_keys_with_the_project() {
    let fake = fake();
    // A new project of acme's, with a key; deleting the project deletes
    // the key.
    let (status, project) = call(&fake, ACME, "POST", "/projects", json!({"name": "tmp"})).await;
    assert_eq!(status, 201, "{project}");
    let id = project["id"].as_str().unwrap().to_string();
    let (_, key) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{id}/api-keys"),
        json!({}),
    )
    .await;
    let token = key["token"].as_str().unwrap().to_string();
    assert_eq!(
        call(
            &fake,
            &token,
            "GET",
            &format!("/projects/{id}"),
            Value::Null
        )
        .await
        .0,
        200
    );
    assert_eq!(
        call(
            &fake,
            ACME,
            "DELETE",
            &format!("/projects/{id}"),
            Value::Null
        )
        .await
        .0,
        204
    );
    assert_eq!(
        call(&fake, &token, "GET", "/projects", Value::Null).await.0,
        401
    );
    assert!(fake.world().api_keys.is_empty());
}

/// packngo's `APIKeys.Delete` sends every key's delete to
/// `/user/api-keys/{id}`, a project's key too ("The API key can be either
/// an User API key or a Project API key"), and its
/// `TestAccAPIKeyCreateProject` deleted one so: the real API took it from
/// a token that sees the project; another's token cannot.
#[tokio::test(start_paused = true)]
async fn a_project_key_is_deleted_through_the_user_s_path_as_packngo_sends_it() {
    let fake = fake();
    let (status, key) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_PROJECT}/api-keys"),
        json!({"description": "packngo", "read_only": true}),
    )
    .await;
    assert_eq!(status, 201, "{key}");
    let path = format!("/user/api-keys/{}", key["id"].as_str().unwrap());
    let (status, _) = call(&fake, GLOBEX, "DELETE", &path, Value::Null).await;
    assert!(status == 403 || status == 404, "{status}");
    let (status, body) = call(&fake, ACME, "DELETE", &path, Value::Null).await;
    assert_eq!(status, 204, "{body}");
    let (_, listed) = call(
        &fake,
        ACME,
        "GET",
        &format!("/projects/{ACME_PROJECT}/api-keys"),
        Value::Null,
    )
    .await;
    assert!(
        listed["api_keys"]
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k["id"] != key["id"]),
        "{listed}"
    );
}
