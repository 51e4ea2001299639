//! The relations between records, as deletes keep them (see the fake's
//! `model::relations`): a project's IP reservations and keys go with it,
//! its devices and hardware reservations refuse its delete, a device's
//! assignments go when it does. Whatever the API leaves, the world
//! document saves, and the saved document loads again into the same
//! world: checked on the bug that broke it, and on random worlds made
//! through the API.

use crate::http;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use proptest::prelude::*;
use serde_json::{json, Value};

const TOKEN: &str = "relations-token";
const ORG: &str = "0a000000-0000-4000-8000-000000000001";
const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
const EMPTY_PROJECT: &str = "0b000000-0000-4000-8000-000000000002";
const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB k";

/// An organisation with two projects: the first with three active
/// devices (two in `da`, one in `sv`), the second empty.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": EMPTY_PROJECT, "organization": ORG}
        ],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}],
        "devices": [
            {"id": "0d000000-0000-4000-8000-000000000001", "project": PROJECT,
             "plan": "c3.small.x86", "facility": "da11", "hostname": "a"},
            {"id": "0d000000-0000-4000-8000-000000000002", "project": PROJECT,
             "plan": "c3.small.x86", "facility": "da11", "hostname": "b"},
            {"id": "0d000000-0000-4000-8000-000000000003", "project": PROJECT,
             "plan": "c3.small.x86", "facility": "sv15", "hostname": "c"}
        ]
    }))
    .unwrap()
}

fn fake() -> Fake {
    Fake::builder().token(TOKEN).world(world()).build()
}

/// One request in process: its status and JSON body (`null` when none).
async fn call(fake: &Fake, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    http::in_process(fake, TOKEN, method, path, body).await
}

/// The saved world loads into a fake that saves it the same again.
fn round_trips(doc: &WorldDoc) -> Result<(), String> {
    let again = Fake::builder()
        .token(TOKEN)
        .world(doc.clone())
        .try_build()
        .map_err(|e| format!("the saved world does not load: {e}"))?;
    let saved_again = again.world();
    if &saved_again != doc {
        return Err(format!(
            "saved, loaded and saved again, the world differs:\n{}\n---\n{}",
            serde_json::to_string_pretty(doc).unwrap(),
            serde_json::to_string_pretty(&saved_again).unwrap()
        ));
    }
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_deleted_project_takes_its_ip_reservations_and_keys_and_the_world_loads_again() {
    let fake = fake();
    let (status, block) = call(
        &fake,
        "POST",
        &format!("/projects/{EMPTY_PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 1, "metro": "da"})),
    )
    .await;
    assert_eq!(status, 201, "{block}");
    let block = block["id"].as_str().unwrap().to_string();
    let (status, key) = call(
        &fake,
        "POST",
        &format!("/projects/{EMPTY_PROJECT}/ssh-keys"),
        Some(json!({"label": "k", "key": KEY})),
    )
    .await;
    assert_eq!(status, 201, "{key}");
    let key = key["id"].as_str().unwrap().to_string();

    let (status, body) = call(&fake, "DELETE", &format!("/projects/{EMPTY_PROJECT}"), None).await;
    assert_eq!(status, 204, "{body}");
    for gone in [format!("/ips/{block}"), format!("/ssh-keys/{key}")] {
        assert_eq!(call(&fake, "GET", &gone, None).await.0, 404, "{gone}");
    }
    let saved = fake.world();
    assert!(saved.ip_reservations.is_empty(), "{saved:?}");
    round_trips(&saved).unwrap();
    // The control API takes it back too (it answered 422 before).
    fake.load_world(&saved).unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_project_with_devices_keeps_everything_and_a_device_s_assignments_go_with_it() {
    let fake = fake();
    let (_, block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 1, "metro": "da"})),
    )
    .await;
    let (block_id, address) = (
        block["id"].as_str().unwrap().to_string(),
        block["address"].as_str().unwrap().to_string(),
    );
    let device = fake.world().devices[0].id;
    let (status, assignment) = call(
        &fake,
        "POST",
        &format!("/devices/{device}/ips"),
        Some(json!({"address": address})),
    )
    .await;
    assert_eq!(status, 201, "{assignment}");
    let assignment = assignment["id"].as_str().unwrap().to_string();

    // Refused whole: nothing of the project is touched.
    let (status, body) = call(&fake, "DELETE", &format!("/projects/{PROJECT}"), None).await;
    assert_eq!(
        (status, body),
        (
            422,
            json!({"errors": ["Cannot delete a project that has devices"]})
        )
    );
    assert_eq!(
        call(&fake, "GET", &format!("/ips/{block_id}"), None)
            .await
            .0,
        200
    );
    // The block refuses its release while assigned.
    let (status, _) = call(&fake, "DELETE", &format!("/ips/{block_id}"), None).await;
    assert_eq!(status, 422);

    // The device goes (after its deprovisioning), and its assignment
    // with it: out of the table, not only out of sight.
    let (status, body) = call(&fake, "DELETE", &format!("/devices/{device}"), None).await;
    assert_eq!(status, 204, "{body}");
    tokio::time::advance(std::time::Duration::from_secs(3600)).await;
    assert_eq!(
        call(&fake, "GET", &format!("/devices/{device}"), None)
            .await
            .0,
        404
    );
    assert_eq!(
        call(&fake, "GET", &format!("/ips/{assignment}"), None)
            .await
            .0,
        404
    );
    let saved = fake.world();
    assert!(saved.ip_reservations[0].assignments.is_empty());
    round_trips(&saved).unwrap();
    let (status, _) = call(&fake, "DELETE", &format!("/ips/{block_id}"), None).await;
    assert_eq!(status, 204);
}

/// One step of a random walk through the API.
#[derive(Clone, Debug)]
enum Step {
    NewProject,
    Reserve { project: usize, global: bool },
    AddKey { project: usize },
    Assign { device: usize, block: usize },
    Unassign(usize),
    Release(usize),
    DeleteDevice(usize),
    DeleteProject(usize),
    Wait(u16),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::NewProject),
        (any::<usize>(), any::<bool>())
            .prop_map(|(project, global)| Step::Reserve { project, global }),
        any::<usize>().prop_map(|project| Step::AddKey { project }),
        (any::<usize>(), any::<usize>()).prop_map(|(device, block)| Step::Assign { device, block }),
        any::<usize>().prop_map(Step::Unassign),
        any::<usize>().prop_map(Step::Release),
        any::<usize>().prop_map(Step::DeleteDevice),
        any::<usize>().prop_map(Step::DeleteProject),
        (1u16..900).prop_map(Step::Wait),
    ]
}

fn pick(ids: &[String], i: usize) -> Option<&String> {
    (!ids.is_empty()).then(|| &ids[i % ids.len()])
}

/// Runs `steps` on a fresh fake: every reply is 2xx or a 4xx refusal
/// (never 5xx), and the world saves and loads again at the end.
async fn walk(steps: Vec<Step>) -> Result<(), String> {
    let fake = fake();
    let doc = fake.world();
    let mut projects: Vec<String> = vec![PROJECT.into(), EMPTY_PROJECT.into()];
    let devices: Vec<String> = doc.devices.iter().map(|d| d.id.to_string()).collect();
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut assignments: Vec<String> = Vec::new();
    for (n, step) in steps.into_iter().enumerate() {
        let (method, path, body) = match &step {
            Step::NewProject => (
                "POST",
                "/projects".to_string(),
                Some(json!({"name": format!("p{n}"), "organization_id": ORG})),
            ),
            Step::Reserve { project, global } => {
                let Some(p) = pick(&projects, *project) else {
                    continue;
                };
                let body = if *global {
                    json!({"type": "global_ipv4", "quantity": 1})
                } else {
                    json!({"type": "public_ipv4", "quantity": 1, "metro": "da"})
                };
                ("POST", format!("/projects/{p}/ips"), Some(body))
            }
            Step::AddKey { project } => {
                let Some(p) = pick(&projects, *project) else {
                    continue;
                };
                let body = json!({"label": format!("k{n}"), "key": KEY});
                ("POST", format!("/projects/{p}/ssh-keys"), Some(body))
            }
            Step::Assign { device, block } => {
                let (Some(d), Some((_, address))) = (
                    pick(&devices, *device),
                    (!blocks.is_empty()).then(|| &blocks[block % blocks.len()]),
                ) else {
                    continue;
                };
                let body = json!({"address": address});
                ("POST", format!("/devices/{d}/ips"), Some(body))
            }
            Step::Unassign(i) => {
                let Some(a) = pick(&assignments, *i) else {
                    continue;
                };
                ("DELETE", format!("/ips/{a}"), None)
            }
            Step::Release(i) => {
                let Some((b, _)) = (!blocks.is_empty()).then(|| &blocks[i % blocks.len()]) else {
                    continue;
                };
                ("DELETE", format!("/ips/{b}"), None)
            }
            Step::DeleteDevice(i) => {
                let Some(d) = pick(&devices, *i) else {
                    continue;
                };
                ("DELETE", format!("/devices/{d}"), None)
            }
            Step::DeleteProject(i) => {
                let Some(p) = pick(&projects, *i) else {
                    continue;
                };
                ("DELETE", format!("/projects/{p}"), None)
            }
            Step::Wait(secs) => {
                tokio::time::advance(std::time::Duration::from_secs(u64::from(*secs))).await;
                continue;
            }
        };
        let (status, reply) = call(&fake, method, &path, body).await;
        if !(200..500).contains(&status) {
            return Err(format!(
                "{step:?}: {method} {path} answered {status}: {reply}"
            ));
        }
        if status >= 300 {
            continue;
        }
        let id = || reply["id"].as_str().unwrap_or_default().to_string();
        match step {
            Step::NewProject => projects.push(id()),
            Step::Reserve { .. } => blocks.push((
                id(),
                reply["address"].as_str().unwrap_or_default().to_string(),
            )),
            Step::Assign { .. } => assignments.push(id()),
            // A deleted device, project or block stays in its list: later
            // steps may still name it, and get their 404 or 422.
            _ => {}
        }
    }
    round_trips(&fake.world())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_worlds_made_through_the_api_save_and_load_again(
        steps in proptest::collection::vec(step(), 1..40)
    ) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        if let Err(e) = rt.block_on(walk(steps)) {
            return Err(TestCaseError::fail(e));
        }
    }
}
