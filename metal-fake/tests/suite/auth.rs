//! Auth and ownership: the real API's 401 body, the 403
//! for another organisation's resources (404 still for what does not
//! exist), `GET /ssh-keys` with the keys of the token's projects, and MD5
//! fingerprints as `ssh-keygen -l -E md5` prints them.

use crate::http;

use crate::common::schema;

use std::sync::Arc;

use metal_fake::document::WorldDoc;
use metal_fake::{Fake, ServerConfig, ServerHandle};
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

const TOKEN: &str = "operator-token";
const ORG_A: &str = "0a000000-0000-4000-8000-00000000000a";
const ORG_B: &str = "0a000000-0000-4000-8000-00000000000b";
const PROJECT_A: &str = "0b000000-0000-4000-8000-00000000000a";
const PROJECT_A2: &str = "0b000000-0000-4000-8000-0000000000a2";
const PROJECT_B: &str = "0b000000-0000-4000-8000-00000000000b";
const RES_A: &str = "0c000000-0000-4000-8000-00000000000a";
const RES_B: &str = "0c000000-0000-4000-8000-00000000000b";
const DEV_B: &str = "0d000000-0000-4000-8000-00000000000b";
const KEY_A: &str = "0e000000-0000-4000-8000-00000000000a";
const KEY_B: &str = "0e000000-0000-4000-8000-00000000000b";
const KEY_USER: &str = "0e000000-0000-4000-8000-0000000000ff";

/// Ed25519 public keys (their fingerprints checked against ssh-keygen in
/// `fingerprints_are_the_md5_of_the_key_as_ssh_keygen_prints_them`).
const PUBKEY_1: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB one";
const PUBKEY_2: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHJhbmRvbS1ieXRlcy1mb3ItYS10ZXN0LWtleS0wMDE two";

/// Two organisations: A with two projects, B with one; a token for each,
/// and one for A's second project only.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG_A, "name": "a"}, {"id": ORG_B, "name": "b"}],
        "projects": [
            {"id": PROJECT_A, "organization": ORG_A},
            {"id": PROJECT_A2, "organization": ORG_A},
            {"id": PROJECT_B, "organization": ORG_B}
        ],
        "tokens": [
            {"token": "token-a", "organizations": [ORG_A]},
            {"token": "token-a2", "projects": [PROJECT_A2]},
            {"token": "token-b", "organizations": [ORG_B]}
        ],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "plans": [{"slug": "c3.small.x86"}],
        "reservations": [
            {"id": RES_A, "project": PROJECT_A, "plan": "c3.small.x86", "facility": "da11"},
            {"id": RES_B, "project": PROJECT_B, "plan": "c3.small.x86", "facility": "da11"}
        ],
        "devices": [{
            "id": DEV_B, "project": PROJECT_B, "reservation": RES_B,
            "plan": "c3.small.x86", "facility": "da11", "hostname": "b-1"
        }],
        "ssh_keys": [
            {"id": KEY_USER, "label": "mine", "key": PUBKEY_1},
            {"id": KEY_A, "label": "a", "project": PROJECT_A, "key": PUBKEY_2},
            {"id": KEY_B, "label": "b", "project": PROJECT_B, "key": PUBKEY_1}
        ]
    }))
    .unwrap()
}

async fn serve(fake: &Fake) -> ServerHandle {
    let config = ServerConfig::new(TOKEN).record_replies(true);
    crate::http::serve(fake, config).await
}

async fn call(s: &ServerHandle, token: Option<&str>, method: Method, path: &str) -> (u16, Value) {
    let mut req = http::client().request(method, format!("{}{path}", s.base_url()));
    if let Some(t) = token {
        req = req.header("x-auth-token", t);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_bad_token_gets_the_real_api_s_single_error_string() {
    let fake = Fake::builder().world(world()).build();
    let s = serve(&fake).await;
    for token in [None, Some("nope"), Some("")] {
        let (status, body) = call(&s, token, Method::GET, &format!("/projects/{PROJECT_A}")).await;
        assert_eq!(status, 401, "{token:?}");
        assert_eq!(body, json!({"error": "Invalid authentication token"}));
    }
    // The body is the spec's Error schema.
    schema::check_all(&s.recorded_replies());
    s.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn the_policy_client_takes_a_401_as_a_rejection_without_retrying() {
    let fake = Fake::builder().token("right").build();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-auth-token", "wrong".parse().unwrap());
    let api = metal_api::Client::over(
        metal_fake::IN_PROCESS_BASE_URL,
        headers,
        Arc::new(fake.clone()),
    )
    .unwrap();
    let client = fake.client_with(|b| b.api(api)).unwrap();
    let err = metal_policy::Metal::get_project(&client, fake.project())
        .await
        .unwrap_err();
    match &err {
        metal_policy::Error::Rejected {
            status, messages, ..
        } => {
            assert_eq!(*status, 401);
            assert_eq!(messages, &["Invalid authentication token".to_string()]);
        }
        other => panic!("expected a rejection, got {other:?}"),
    }
    assert!(!err.to_string().contains("wrong"), "no token in {err}");
    assert!(!format!("{err:?}").contains("wrong"), "no token in {err:?}");
    assert_eq!(fake.call_count("findProjectById"), 1, "not retried");
}

#[tokio::test]
async fn another_organisation_s_resources_are_forbidden_and_unknown_ids_not_found() {
    let fake = Fake::builder().world(world()).build();
    let s = serve(&fake).await;
    let forbidden = [
        (Method::GET, format!("/projects/{PROJECT_B}")),
        (Method::GET, format!("/projects/{PROJECT_B}/devices")),
        (
            Method::GET,
            format!("/projects/{PROJECT_B}/hardware-reservations"),
        ),
        (Method::GET, format!("/devices/{DEV_B}")),
        (Method::DELETE, format!("/devices/{DEV_B}")),
        (Method::GET, format!("/hardware-reservations/{RES_B}")),
        (Method::GET, format!("/ssh-keys/{KEY_B}")),
    ];
    for (method, path) in &forbidden {
        let (status, body) = call(&s, Some("token-a"), method.clone(), path).await;
        assert_eq!(status, 403, "{method} {path}");
        assert_eq!(
            body,
            json!({"errors": ["Access denied for the current authentication token"]})
        );
        // The owner's token and the server's own get through.
        if *method == Method::GET {
            assert_eq!(
                call(&s, Some("token-b"), Method::GET, path).await.0,
                200,
                "{path}"
            );
            assert_eq!(
                call(&s, Some(TOKEN), Method::GET, path).await.0,
                200,
                "{path}"
            );
        }
    }
    assert_eq!(
        fake.devices().len(),
        1,
        "the forbidden delete changed nothing"
    );
    // What does not exist is 404 for every token.
    for path in [
        format!("/projects/{}", Uuid::new_v4()),
        format!("/devices/{}", Uuid::new_v4()),
        format!("/hardware-reservations/{}", Uuid::new_v4()),
    ] {
        assert_eq!(
            call(&s, Some("token-a"), Method::GET, &path).await.0,
            404,
            "{path}"
        );
    }
    // A token of one project sees that project, not its organisation's others.
    let a2 = call(
        &s,
        Some("token-a2"),
        Method::GET,
        &format!("/projects/{PROJECT_A2}"),
    )
    .await;
    assert_eq!(a2.0, 200);
    let a = call(
        &s,
        Some("token-a2"),
        Method::GET,
        &format!("/projects/{PROJECT_A}"),
    )
    .await;
    assert_eq!(a.0, 403);
    assert_eq!(fake.snapshot().requests["findProjectById"]["403"], 2);
    schema::check_all(&s.recorded_replies());
    s.shutdown().await;
}

#[tokio::test]
async fn ownership_holds_in_process_too() {
    let fake = Fake::builder().world(world()).build();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-auth-token", "token-a".parse().unwrap());
    let client = metal_api::Client::over(
        metal_fake::IN_PROCESS_BASE_URL,
        headers,
        Arc::new(fake.clone()),
    )
    .unwrap();
    let b: Uuid = PROJECT_B.parse().unwrap();
    let err = client.find_project_by_id().id(b).send().await.unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(403));
    let a: Uuid = PROJECT_A.parse().unwrap();
    assert!(client.find_project_by_id().id(a).send().await.is_ok());
}

#[tokio::test]
async fn ssh_keys_lists_the_user_s_keys_and_those_of_the_token_s_projects() {
    let fake = Fake::builder().world(world()).build();
    let s = serve(&fake).await;
    let ids = |body: &Value| -> Vec<String> {
        let mut ids: Vec<String> = body["ssh_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    let (_, a) = call(&s, Some("token-a"), Method::GET, "/ssh-keys").await;
    assert_eq!(ids(&a), [KEY_A, KEY_USER]);
    let (_, b) = call(&s, Some("token-b"), Method::GET, "/ssh-keys").await;
    assert_eq!(ids(&b), [KEY_B, KEY_USER]);
    let (_, all) = call(&s, Some(TOKEN), Method::GET, "/ssh-keys").await;
    assert_eq!(ids(&all), [KEY_A, KEY_B, KEY_USER]);
    // A project's own list is still its keys only.
    let (_, project) = call(
        &s,
        Some(TOKEN),
        Method::GET,
        &format!("/projects/{PROJECT_A}/ssh-keys"),
    )
    .await;
    assert_eq!(ids(&project), [KEY_A]);
    schema::check_all(&s.recorded_replies());
    s.shutdown().await;
}

#[tokio::test]
#[ignore = "needs ssh-keygen (OpenSSH)"]
async fn fingerprints_are_the_md5_of_the_key_as_ssh_keygen_prints_them() {
    let dir = std::env::temp_dir().join(format!("metal-fake-key-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("id");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "fp@test", "-f"])
        .arg(&file)
        .status();
    let made = made.unwrap_or_else(|e| panic!("ssh-keygen cannot be run: {e}"));
    assert!(made.success());
    let public = std::fs::read_to_string(dir.join("id.pub")).unwrap();
    let printed = std::process::Command::new("ssh-keygen")
        .args(["-l", "-E", "md5", "-f"])
        .arg(dir.join("id.pub"))
        .output()
        .unwrap();
    let printed = String::from_utf8(printed.stdout).unwrap();
    // "256 MD5:aa:bb:... fp@test (ED25519)"
    let expected = printed
        .split_whitespace()
        .nth(1)
        .and_then(|f| f.strip_prefix("MD5:"))
        .unwrap()
        .to_string();
    std::fs::remove_dir_all(&dir).unwrap();

    let fake = Fake::builder().build();
    let s = crate::http::serve(&fake, ServerConfig::new(TOKEN)).await;
    let http = http::client();
    let created = http
        .post(format!("{}/ssh-keys", s.base_url()))
        .header("x-auth-token", TOKEN)
        .json(&json!({"label": "fp", "key": public.trim()}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let key: Value = created.json().await.unwrap();
    assert_eq!(key["fingerprint"], expected.as_str());
    // A key whose body is not base64 is refused.
    let bad = http
        .post(format!("{}/ssh-keys", s.base_url()))
        .header("x-auth-token", TOKEN)
        .json(&json!({"label": "bad", "key": "ssh-ed25519 not-base64!"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);
    let body: Value = bad.json().await.unwrap();
    assert_eq!(body["errors"][0], "Key is not a valid public key");
    s.shutdown().await;
}

/// `GET /ssh-keys` lists the project's keys too, so the policy's idempotent
/// user-key create must not take a project key with the same label for
/// the user's own (it would return it, or report a label conflict).
#[tokio::test(start_paused = true)]
async fn a_project_key_with_the_label_is_not_the_user_s_key() {
    use metal_policy::{KeyOwner, Metal};
    let fake = Fake::builder().build();
    let client = fake.client();
    let input = |key: &str| metal_api::types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some(key.to_string()),
        label: Some("deploy".to_string()),
        tags: vec![],
    };
    let project_key = client
        .create_ssh_key(KeyOwner::Project(fake.project()), &input(PUBKEY_1))
        .await
        .unwrap();
    let user_key = client
        .create_ssh_key(KeyOwner::User, &input(PUBKEY_2))
        .await
        .unwrap();
    assert_ne!(user_key.id, project_key.id);
    let entity = user_key.entity.map(|e| e.href).unwrap_or_default();
    assert!(entity.contains("/users/"), "{entity}");
    // And the same create again finds the user's key, not the project's.
    let again = client
        .create_ssh_key(KeyOwner::User, &input(PUBKEY_2))
        .await
        .unwrap();
    assert_eq!(again.id, user_key.id);
}
