//! The world document: the shipped JSON Schema is the
//! one generated from the Rust types, the example world validates against
//! it and loads, and a world read back is the world sent.

use std::time::Duration;

use metal_fake::document::{schema, WorldDoc, WorldError};
use metal_fake::Fake;
use serde_json::Value;

const SCHEMA_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/world.schema.json");
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/world.json");

fn read_json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_shipped_schema_is_the_generated_one() {
    let shipped = std::fs::read_to_string(SCHEMA_FILE).unwrap();
    assert!(
        shipped == schema(),
        "metal-fake/world.schema.json is stale: regenerate it with \
         `cargo run -p metal-fake --features cli -- --world-schema > metal-fake/world.schema.json`"
    );
}

#[test]
fn the_example_world_validates_against_the_schema() {
    let validator = jsonschema::validator_for(&read_json(SCHEMA_FILE)).unwrap();
    let example = read_json(EXAMPLE);
    let errors: Vec<String> = validator
        .iter_errors(&example)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema refuses what the decoder refuses.
    let mut typo = example.clone();
    typo["projets"] = Value::Array(vec![]);
    assert!(!validator.is_valid(&typo));
    let mut no_id = example;
    no_id["projects"][0].as_object_mut().unwrap().remove("id");
    assert!(!validator.is_valid(&no_id));
    assert!(WorldDoc::from_json(no_id.to_string().as_bytes()).is_err());
}

#[tokio::test(start_paused = true)]
async fn the_example_world_loads_and_runs_on_the_clock() {
    let doc = WorldDoc::from_json(&std::fs::read(EXAMPLE).unwrap()).unwrap();
    let fake = Fake::builder().world(doc).try_build().unwrap();
    assert_eq!(
        fake.project().to_string(),
        "0b000000-0000-4000-8000-000000000001"
    );
    assert_eq!(fake.reservations().len(), 5);
    let state = |fake: &Fake, host: &str| {
        fake.devices()
            .into_iter()
            .find(|d| d.hostname.as_deref() == Some(host))
            .and_then(|d| d.state)
            .map(|s| s.to_string())
    };
    assert_eq!(state(&fake, "web-1").as_deref(), Some("provisioning"));
    assert_eq!(state(&fake, "globex-db").as_deref(), Some("active"));
    // Seeded 30 s into provisioning: active 35 s later (queued 5 s and
    // provisioning 60 s by default).
    tokio::time::advance(Duration::from_secs(34)).await;
    assert_eq!(state(&fake, "web-1").as_deref(), Some("provisioning"));
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(state(&fake, "web-1").as_deref(), Some("active"));
    // The released reservation comes free after its 240 s.
    let free = |fake: &Fake| fake.provisionable_reservations().len();
    assert_eq!(free(&fake), 1);
    fake.advance(Duration::from_secs(204)).unwrap();
    assert_eq!(free(&fake), 1);
    fake.advance(Duration::from_secs(1)).unwrap();
    assert_eq!(free(&fake), 2);
}

#[tokio::test(start_paused = true)]
async fn a_world_read_back_is_the_world_sent() {
    let doc = WorldDoc::from_json(&std::fs::read(EXAMPLE).unwrap()).unwrap();
    let fake = Fake::builder().world(doc).build();
    let saved = fake.world();
    let other = Fake::builder().world(saved.clone()).build();
    assert_eq!(other.world(), saved);
    // The builder's world, too, round-trips (with its generated IDs).
    let built = Fake::builder().reservations(4).build();
    let saved = built.world();
    built.load_world(&saved).unwrap();
    assert_eq!(built.world(), saved);
    assert_eq!(built.project(), saved.projects[0].id);
}

#[test]
fn inconsistent_worlds_are_refused_with_what_is_wrong() {
    let base = || read_json(EXAMPLE);
    let refuse = |v: Value| -> String {
        let doc: WorldDoc = serde_json::from_value(v).unwrap();
        let err = Fake::builder().world(doc).try_build().unwrap_err();
        match err {
            metal_fake::BuildError::World(e) => e.to_string(),
            other => panic!("{other:?}"),
        }
    };
    let mut v = base();
    v["devices"][0]["reservation"] = v["reservations"][4]["id"].clone();
    assert!(refuse(v).contains("is in another project"));
    let mut v = base();
    v["facilities"][0]["metro"] = "zz".into();
    assert!(refuse(v).contains("names metro zz"));
    let mut v = base();
    v["tokens"][1]["token"] = v["tokens"][0]["token"].clone();
    let msg = refuse(v);
    assert!(msg.contains("token") && msg.contains("twice"), "{msg}");
    assert!(!msg.contains("acme-token"), "the token is not shown: {msg}");
    let mut v = base();
    v["devices"][0]["state_elapsed_seconds"] = (-1.0).into();
    assert!(refuse(v).contains("not a number of seconds"));
    let mut v = base();
    v["ssh_keys"][0]["key"] = "ssh-ed25519 !!!".into();
    assert!(refuse(v).contains("not a valid public key"));
    assert!(matches!(
        WorldDoc::from_json(b"{\"projects\": 3}"),
        Err(WorldError::Decode(_))
    ));
}
