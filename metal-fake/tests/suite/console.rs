//! The console (`/_fake/console`) and what it reads, over HTTP without a
//! browser: the control token's rules for the page and its files (the
//! query parameter `token` there alone), the policy header, and the
//! endpoints the page reads (`/_fake/calls?since=`, `/_fake/calls/{seq}`
//! with bodies bounded and redacted, `/_fake/faults`, `/_fake/devices`),
//! their replies checked against `control.schema.json`. The page in a
//! real browser is `tests/console.rs`.

use crate::http;

use metal_fake::{control_schema, Fake, ServerConfig, ServerHandle};
use reqwest::Method;
use serde_json::{json, Value};

const TOKEN: &str = "console-suite-token";
const CONTROL: &str = "ctl secret&";

fn root(s: &ServerHandle) -> String {
    s.base_url().trim_end_matches("/metal/v1").to_string()
}

/// A GET: status, `Content-Type`, `Content-Security-Policy` and body.
async fn get(url: &str, header: Option<&str>) -> (u16, String, Option<String>, String) {
    let mut req = http::client().get(url);
    if let Some(t) = header {
        req = req.header("x-fake-control-token", t);
    }
    let resp = req.send().await.unwrap();
    let header_of = |name: &str| {
        resp.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    let ct = header_of("content-type").unwrap_or_default();
    let csp = header_of("content-security-policy");
    (resp.status().as_u16(), ct, csp, resp.text().await.unwrap())
}

/// A control call with the token: status and JSON.
async fn control(
    s: &ServerHandle,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = http::client()
        .request(method, format!("{}{path}", root(s)))
        .header("x-fake-control-token", CONTROL);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

/// An API call with the server's token: status and JSON.
async fn api(s: &ServerHandle, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = http::client()
        .request(method, format!("{}{path}", s.base_url()))
        .header("x-auth-token", TOKEN);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

const FILES: [&str; 4] = [
    "/_fake/console",
    "/_fake/console/console.css",
    "/_fake/console/console.js",
    "/_fake/console/icon.svg",
];

#[tokio::test]
async fn the_console_answers_with_the_control_tokens_rules() {
    let fake = Fake::builder().reservations(1).build();
    let config = ServerConfig::new(TOKEN).control_token(Some(CONTROL.to_string()));
    let s = http::serve(&fake, config).await;
    let root = root(&s);
    // How the control API refuses a request without its token.
    let refused = get(&format!("{root}/_fake/calls"), None).await;
    assert_eq!(refused.0, 401);
    assert_eq!(refused.3, r#"{"error":"Invalid control token"}"#);
    let encoded = "ctl%20secret%26";
    for file in FILES.into_iter().chain(["/favicon.ico"]) {
        // Without the token, or with a wrong one: refused exactly so.
        for url in [
            format!("{root}{file}"),
            format!("{root}{file}?token=guess"),
            format!("{root}{file}?token="),
        ] {
            let (status, ct, csp, body) = get(&url, None).await;
            assert_eq!((status, &ct, &body), (401, &refused.1, &refused.3), "{url}");
            assert_eq!(csp, None);
        }
        let (status, _, _, _) = get(&format!("{root}{file}"), Some("guess")).await;
        assert_eq!(status, 401, "{file}");
        // With it, in the query or the header: served, under the policy.
        for (url, header) in [
            (format!("{root}{file}?token={encoded}"), None),
            (format!("{root}{file}"), Some(CONTROL)),
        ] {
            let (status, ct, csp, body) = get(&url, header).await;
            assert_eq!(status, 200, "{url}");
            assert_eq!(csp.as_deref(), Some("default-src 'self'"), "{url}");
            assert!(!ct.is_empty() && !body.is_empty());
        }
    }
    // The page's links carry the token query it was opened with, encoded.
    let (_, ct, _, page) = get(&format!("{root}/_fake/console?token={encoded}"), None).await;
    assert_eq!(ct, "text/html; charset=utf-8");
    for file in &FILES[1..] {
        assert!(
            page.contains(&format!("\"{file}?token={encoded}\"")),
            "{file}"
        );
    }
    let (_, _, _, page) = get(&format!("{root}/_fake/console"), Some(CONTROL)).await;
    assert!(page.contains("\"/_fake/console/console.js\""));
    // The query token is the console's alone: the data it reads takes the
    // header, as every other endpoint.
    for path in [
        "/_fake/calls",
        "/_fake/world",
        "/_fake/devices",
        "/_fake/faults",
        "/_fake/clock",
        "/_fake/state",
    ] {
        let (status, _, _, body) = get(&format!("{root}{path}?token={encoded}"), None).await;
        assert_eq!((status, body.as_str()), (401, refused.3.as_str()), "{path}");
        let (status, _, _, _) = get(&format!("{root}{path}"), Some(CONTROL)).await;
        assert_eq!(status, 200, "{path}");
    }
    // None of it reached the API: the log is empty (the browser's icon
    // request too).
    let (_, calls) = control(&s, Method::GET, "/_fake/calls", None).await;
    assert_eq!(calls["total"], 0, "{calls}");
    s.shutdown().await;

    // Without a control token, the console is open, as the control API.
    let s = http::serve(&fake, ServerConfig::new(TOKEN)).await;
    for file in FILES {
        let (status, _, csp, _) = get(&format!("{}{file}", self::root(&s)), None).await;
        assert_eq!(status, 200, "{file}");
        assert_eq!(csp.as_deref(), Some("default-src 'self'"));
    }
    s.shutdown().await;
}

/// A validator of the control schema at `pointer`.
fn assert_valid(pointer: &str, value: &Value) {
    let schema: Value = serde_json::from_str(&control_schema()).unwrap();
    let part = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"));
    let doc = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": schema["definitions"],
        "allOf": [part],
    });
    let validator = jsonschema::validator_for(&doc).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{pointer}: {value}: {errors:#?}");
}

fn reply_of(endpoint: &str) -> String {
    format!("/endpoints/{}/reply", endpoint.replace('/', "~1"))
}

#[tokio::test]
async fn the_calls_follow_by_seq_and_open_to_their_bodies_redacted() {
    let fake = Fake::builder().reservations(1).build();
    let config = ServerConfig::new(TOKEN).control_token(Some(CONTROL.to_string()));
    let s = http::serve(&fake, config).await;
    let reservation = fake.provisionable_reservations()[0];
    let (status, device) = api(
        &s,
        Method::POST,
        &format!("/projects/{}/devices", fake.project()),
        Some(json!({
            "hostname": "bodies-1",
            "plan": "c3.small.x86",
            "metro": "da",
            "operating_system": "ubuntu_22_04",
            "hardware_reservation_id": reservation,
            "customdata": {"password": "in-the-request", "note": "kept"},
        })),
    )
    .await;
    assert_eq!(status, 201);
    assert!(device["root_password"]
        .as_str()
        .is_some_and(|p| !p.is_empty()));
    let (status, key) = api(
        &s,
        Method::POST,
        "/user/api-keys",
        Some(json!({"description": "console"})),
    )
    .await;
    assert_eq!(status, 201);
    let api_key = key["token"].as_str().unwrap().to_string();
    let (status, _) = api(&s, Method::GET, "/nowhere", None).await;
    assert_eq!(status, 404);

    // Following the log: all, then nothing new, then the one new call.
    let (_, all) = control(&s, Method::GET, "/_fake/calls", None).await;
    assert_valid(&reply_of("GET /_fake/calls"), &all);
    assert_eq!(
        (all["total"].as_u64(), all["last_seq"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(all["resets"], 0);
    let (_, none) = control(&s, Method::GET, "/_fake/calls?since=3", None).await;
    assert_eq!(none["calls"], json!([]));
    assert_eq!(none["last_seq"], 3);
    api(&s, Method::GET, "/user", None).await;
    let (_, new) = control(&s, Method::GET, "/_fake/calls?since=3", None).await;
    assert_eq!(new["total"], 1);
    assert_eq!(new["calls"][0]["seq"], 4);
    assert_eq!(new["calls"][0]["operation"], "findCurrentUser");
    let (_, two) = control(&s, Method::GET, "/_fake/calls?since=1&limit=2", None).await;
    let seqs: Vec<u64> = two["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["seq"].as_u64().unwrap())
        .collect();
    assert_eq!((two["total"].as_u64(), seqs), (Some(3), vec![3, 4]));
    for bad in ["since=-1", "since=x"] {
        let (status, reply) = control(&s, Method::GET, &format!("/_fake/calls?{bad}"), None).await;
        assert_eq!(status, 400, "{bad}: {reply}");
    }

    // One call, with its bodies: the secrets redacted, the rest as sent.
    let (status, create) = control(&s, Method::GET, "/_fake/calls/1", None).await;
    assert_eq!(status, 200);
    assert_valid(&reply_of("GET /_fake/calls/{seq}"), &create);
    assert_eq!(create["operation"], "createDevice");
    assert_eq!(create["bodies_kept"], true);
    let request = create["request_body"].as_str().unwrap();
    assert!(!request.contains("in-the-request"), "{request}");
    let request: Value = serde_json::from_str(request).unwrap();
    assert_eq!(request["customdata"]["password"], "<redacted>");
    assert_eq!(request["customdata"]["note"], "kept");
    assert_eq!(request["hostname"], "bodies-1");
    let reply = create["reply_body"].as_str().unwrap();
    assert!(reply.len() <= 4096, "{}", reply.len());
    let root_password = device["root_password"].as_str().unwrap();
    assert!(!reply.contains(root_password));
    assert!(reply.contains(r#""root_password":"<redacted>""#));
    assert!(reply.contains(r#""hostname":"bodies-1""#));
    let (_, key_call) = control(&s, Method::GET, "/_fake/calls/2", None).await;
    let reply = key_call["reply_body"].as_str().unwrap();
    assert!(!reply.contains(&api_key), "{reply}");
    assert_eq!(
        serde_json::from_str::<Value>(reply).unwrap()["token"],
        "<redacted>"
    );
    let (_, missing) = control(&s, Method::GET, "/_fake/calls/3", None).await;
    assert_eq!(missing["request_body"], Value::Null);
    assert_eq!(missing["reply_body"], r#"{"errors":["Not found"]}"#);
    assert_eq!(missing["error"], "Not found");
    for (path, want) in [("/_fake/calls/99", 404), ("/_fake/calls/x", 400)] {
        let (status, reply) = control(&s, Method::GET, path, None).await;
        assert_eq!(status, want, "{path}: {reply}");
        assert_valid("/errors", &reply);
    }

    // A reset empties the log and says so.
    control(&s, Method::POST, "/_fake/reset", None).await;
    let (_, after) = control(&s, Method::GET, "/_fake/calls?since=4", None).await;
    assert_eq!(
        (after["last_seq"].as_u64(), after["resets"].as_u64()),
        (Some(0), Some(1))
    );
    let (status, _) = control(&s, Method::GET, "/_fake/calls/1", None).await;
    assert_eq!(status, 404);
    s.shutdown().await;
}

#[tokio::test]
async fn the_faults_armed_and_the_devices_read_as_the_page_shows_them() {
    let fake = Fake::builder().reservations(1).build();
    let s = http::serve(&fake, ServerConfig::new(TOKEN)).await;
    let (_, none) = control(&s, Method::GET, "/_fake/faults", None).await;
    assert_eq!(none, json!({"faults": [], "random": null}));
    let target = uuid::Uuid::new_v4();
    let (status, _) = control(
        &s,
        Method::POST,
        "/_fake/faults",
        Some(json!({
            "faults": [
                {"operation": "createDevice", "kind": "fail_after", "status": 502, "times": 2},
                {"kind": "throttle", "retry_after_seconds": 3.0, "nth": 7},
                {"operation": "findDeviceById", "kind": "latency", "seconds": 0.5, "target": target},
            ],
            "random": {"rate": 0.25, "seed": 1, "kinds": [{"kind": "bad_gateway"}]},
        })),
    )
    .await;
    assert_eq!(status, 200);
    let (_, armed) = control(&s, Method::GET, "/_fake/faults", None).await;
    assert_valid(&reply_of("GET /_fake/faults"), &armed);
    assert_eq!(
        armed,
        json!({
            "faults": [
                {"operation": "createDevice", "target": null, "nth": null, "times": 2, "kind": "fail_after", "status": 502},
                {"operation": null, "target": null, "nth": 7, "times": 1, "kind": "throttle", "retry_after_seconds": 3.0},
                {"operation": "findDeviceById", "target": target, "nth": null, "times": 1, "kind": "latency", "seconds": 0.5},
            ],
            "random": {"rate": 0.25, "kinds": [{"kind": "bad_gateway"}]},
        })
    );
    // A fault that strikes is used up: one of its two times left.
    let reservation = fake.provisionable_reservations()[0];
    let body = json!({
        "hostname": "armed-1", "plan": "c3.small.x86", "metro": "da",
        "operating_system": "ubuntu_22_04", "hardware_reservation_id": reservation,
    });
    let path = format!("/projects/{}/devices", fake.project());
    let (status, _) = api(&s, Method::POST, &path, Some(body)).await;
    assert_eq!(status, 502);
    let (_, armed) = control(&s, Method::GET, "/_fake/faults", None).await;
    assert_eq!(armed["faults"][0]["times"], 1, "{armed}");

    // The device the fail_after made, as the API renders it, with its
    // project and reservation.
    let (status, devices) = control(&s, Method::GET, "/_fake/devices", None).await;
    assert_eq!(status, 200);
    assert_valid(&reply_of("GET /_fake/devices"), &devices);
    let devices = devices.as_array().unwrap();
    assert_eq!(devices.len(), 1);
    assert_eq!(devices[0]["hostname"], "armed-1");
    assert_eq!(devices[0]["project"]["id"], fake.project().to_string());
    assert_eq!(
        devices[0]["hardware_reservation"]["id"],
        reservation.to_string()
    );
    assert!(devices[0]["network_ports"].is_array());
    assert_eq!(devices[0]["metro"]["code"], "da");

    control(&s, Method::DELETE, "/_fake/faults", None).await;
    let (_, cleared) = control(&s, Method::GET, "/_fake/faults", None).await;
    assert_eq!(cleared, json!({"faults": [], "random": null}));
    s.shutdown().await;
}
