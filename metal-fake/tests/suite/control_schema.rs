//! The control API's JSON Schema: the shipped `control.schema.json` is the
//! one generated from the Rust types, every endpoint of the crate docs'
//! table is in it, and the replies the server sends validate against it,
//! refusals included.

use crate::http;

use metal_fake::{control_schema, Fake, ServerConfig, ServerHandle};
use reqwest::Method;
use serde_json::{json, Value};

const SCHEMA_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/control.schema.json");
const TOKEN: &str = "control-schema-token";

fn schema() -> Value {
    serde_json::from_str(&control_schema()).unwrap()
}

#[test]
fn the_shipped_control_schema_is_the_generated_one() {
    let shipped = std::fs::read_to_string(SCHEMA_FILE).unwrap();
    assert!(
        shipped == control_schema(),
        "metal-fake/control.schema.json is stale: regenerate it with \
         `cargo run -p metal-fake --features cli -- --control-schema > metal-fake/control.schema.json`"
    );
}

#[test]
fn every_endpoint_is_in_the_schema() {
    let schema = schema();
    let mut listed: Vec<&str> = schema["endpoints"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    listed.sort_unstable();
    let mut want = vec![
        "POST /_fake/reset",
        "GET /_fake/world",
        "POST /_fake/world",
        "POST /_fake/faults",
        "DELETE /_fake/faults",
        "GET /_fake/calls",
        "GET /_fake/calls/{seq}",
        "GET /_fake/faults",
        "GET /_fake/devices",
        "GET /_fake/clock",
        "POST /_fake/clock",
        "GET /_fake/state",
    ];
    want.sort_unstable();
    assert_eq!(listed, want);
}

/// A validator of the schema at `pointer` (an endpoint's `request` or
/// `reply`, or `errors`), with the schema's definitions beside it.
fn validator(schema: &Value, pointer: &str) -> jsonschema::Validator {
    let part = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("the control schema has no {pointer}"));
    let doc = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": schema["definitions"],
        "allOf": [part],
    });
    jsonschema::validator_for(&doc).unwrap()
}

fn assert_valid(schema: &Value, pointer: &str, value: &Value) {
    let errors: Vec<String> = validator(schema, pointer)
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{pointer}: {value}: {errors:#?}");
}

async fn control(
    s: &ServerHandle,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let root = s.base_url().trim_end_matches("/metal/v1").to_string();
    let mut req = http::client().request(method, format!("{root}{path}"));
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

/// The pointer of an endpoint's part: `/endpoints/POST ~1_fake~1faults/reply`.
fn part(endpoint: &str, which: &str) -> String {
    format!("/endpoints/{}/{which}", endpoint.replace('/', "~1"))
}

#[tokio::test]
async fn the_servers_replies_validate_against_the_schema() {
    let schema = schema();
    let fake = Fake::builder().reservations(2).build();
    let s = crate::http::serve(&fake, ServerConfig::new(TOKEN)).await;
    let faults = json!({
        "faults": [
            {"operation": "createDevice", "kind": "drop_after", "times": 2},
            {"operation": "findDeviceById", "kind": "fail_before", "status": 503, "nth": 1},
            {"kind": "throttle", "retry_after_seconds": 2.0},
            {"kind": "latency", "seconds": 0.5, "target": fake.project()},
        ],
        "random": {"rate": 0.0, "seed": 7, "kinds": [{"kind": "bad_gateway"}]},
    });
    assert_valid(&schema, &part("POST /_fake/faults", "request"), &faults);
    let clock = json!({"advance_seconds": 60});
    assert_valid(&schema, &part("POST /_fake/clock", "request"), &clock);
    let calls: [(Method, &str, &str, Option<Value>); 8] = [
        (Method::POST, "/_fake/reset", "POST /_fake/reset", None),
        (
            Method::POST,
            "/_fake/faults",
            "POST /_fake/faults",
            Some(faults),
        ),
        (
            Method::DELETE,
            "/_fake/faults",
            "DELETE /_fake/faults",
            None,
        ),
        (
            Method::GET,
            "/_fake/calls?limit=5",
            "GET /_fake/calls",
            None,
        ),
        (Method::GET, "/_fake/clock", "GET /_fake/clock", None),
        (
            Method::POST,
            "/_fake/clock",
            "POST /_fake/clock",
            Some(clock),
        ),
        (Method::GET, "/_fake/state", "GET /_fake/state", None),
        (Method::POST, "/_fake/reset", "POST /_fake/reset", None),
    ];
    // A call of the API first, so the call list and counters are not empty.
    let listed = http::client()
        .get(format!(
            "{}/projects/{}/hardware-reservations",
            s.base_url(),
            fake.project()
        ))
        .header("x-auth-token", TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status().as_u16(), 200);
    for (method, path, endpoint, body) in calls {
        let (status, reply) = control(&s, method, path, body).await;
        assert_eq!(status, 200, "{endpoint}: {reply}");
        assert_valid(&schema, &part(endpoint, "reply"), &reply);
    }
    // The calls' reply lists the API call, with every field.
    let (_, calls) = control(&s, Method::GET, "/_fake/calls", None).await;
    assert_valid(&schema, &part("GET /_fake/calls", "reply"), &calls);
    // Refusals are `errors`.
    for (method, path, body) in [
        (
            Method::POST,
            "/_fake/faults",
            json!({"faults": [{"kind": "nope"}]}),
        ),
        (Method::POST, "/_fake/clock", json!({"advance_seconds": -1})),
        (Method::GET, "/_fake/nowhere", Value::Null),
    ] {
        let body = (!body.is_null()).then_some(body);
        let (status, reply) = control(&s, method, path, body).await;
        assert!(status >= 400, "{path}: {status}");
        assert_valid(&schema, "/errors", &reply);
    }
    // The schema refuses what the server refuses: a misspelt field.
    let typo = json!({"faults": [{"operation": "createDevice", "knd": "hang"}]});
    assert!(!validator(&schema, &part("POST /_fake/faults", "request")).is_valid(&typo));
    let (status, _) = control(&s, Method::POST, "/_fake/faults", Some(typo)).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn a_refused_control_token_is_token_refused() {
    let schema = schema();
    let fake = Fake::builder().build();
    let config = ServerConfig::new(TOKEN).control_token(Some("guard".to_string()));
    let s = crate::http::serve(&fake, config).await;
    let (status, reply) = control(&s, Method::GET, "/_fake/state", None).await;
    assert_eq!(status, 401);
    assert_valid(&schema, "/token_refused", &reply);
}
