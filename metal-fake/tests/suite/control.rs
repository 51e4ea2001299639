//! The control API over HTTP: every endpoint, with the bad
//! input each refuses; and the fake's clock (advance and time scale).

use crate::http;

use std::time::Duration;

use metal_fake::{Fake, ServerConfig, ServerHandle};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use uuid::Uuid;

const TOKEN: &str = "control-token-api";

async fn serve(fake: &Fake, config: ServerConfig) -> ServerHandle {
    crate::http::serve(fake, config).await
}

/// The server's root (without `/metal/v1`).
fn root(s: &ServerHandle) -> String {
    s.base_url().trim_end_matches("/metal/v1").to_string()
}

/// A control call: status and JSON body (every reply is JSON).
async fn control(s: &ServerHandle, method: Method, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut req = http::client().request(method, format!("{}{path}", root(s)));
    if let Some(b) = body {
        req = req
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string());
    assert_eq!(ct.as_deref(), Some("application/json"), "{path}");
    (status, resp.json().await.unwrap())
}

/// An API call with the server's token.
async fn api(s: &ServerHandle, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = http::client()
        .request(method, format!("{}{path}", s.base_url()))
        .header("x-auth-token", TOKEN);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn create_body(reservation: Uuid, hostname: &str) -> Value {
    json!({
        "metro": "da",
        "plan": "c3.small.x86",
        "operating_system": "ubuntu_22_04",
        "hostname": hostname,
        "hardware_reservation_id": reservation.to_string(),
    })
}

fn first_error(body: &Value) -> &str {
    body["errors"][0].as_str().unwrap_or_default()
}

#[tokio::test]
async fn control_reset_returns_to_the_seeded_world_and_forgets_calls() {
    let fake = Fake::builder().reservations(2).build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    let r = fake.provisionable_reservations()[0];
    let project = fake.project();
    let (st, _) = api(
        &s,
        Method::POST,
        &format!("/projects/{project}/devices"),
        Some(create_body(r, "before-reset")),
    )
    .await;
    assert_eq!(st, 201);
    assert_eq!(fake.devices().len(), 1);
    let (st, body) = control(&s, Method::POST, "/_fake/reset", None).await;
    assert_eq!(st, 200, "{body}");
    assert_eq!(body["devices"], 0);
    assert_eq!(body["reservations"], 2);
    assert_eq!(body["main_project"], project.to_string());
    assert!(fake.devices().is_empty());
    assert_eq!(fake.provisionable_reservations().len(), 2);
    assert!(fake.calls().is_empty(), "the call log is empty again");
    // A reset takes no body and no other method.
    let (st, body) = control(&s, Method::GET, "/_fake/reset", None).await;
    assert_eq!(st, 405, "{body}");
    s.shutdown().await;
}

#[tokio::test]
async fn control_world_round_trips_and_refuses_bad_documents() {
    let fake = Fake::builder().reservations(3).build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    let (st, saved) = control(&s, Method::GET, "/_fake/world", None).await;
    assert_eq!(st, 200);
    assert_eq!(saved["reservations"].as_array().unwrap().len(), 3);

    // Replace it with a world of one project and one reservation.
    let mut smaller = saved.clone();
    smaller["reservations"] = json!([saved["reservations"][0]]);
    let (st, body) = control(&s, Method::POST, "/_fake/world", Some(&smaller.to_string())).await;
    assert_eq!(st, 200, "{body}");
    assert_eq!(body["reservations"], 1);
    assert_eq!(fake.reservations().len(), 1);
    // What is read back is what was sent.
    let (_, now) = control(&s, Method::GET, "/_fake/world", None).await;
    assert_eq!(now, smaller);

    // Bad JSON: 400. An unknown field: 400. A dangling reference: 422.
    let (st, body) = control(&s, Method::POST, "/_fake/world", Some("{not json")).await;
    assert_eq!(st, 400, "{body}");
    let (st, body) = control(&s, Method::POST, "/_fake/world", Some(r#"{"projets": []}"#)).await;
    assert_eq!(st, 400, "{body}");
    assert!(
        first_error(&body).contains("unknown field `projets`"),
        "{body}"
    );
    let mut dangling = saved.clone();
    dangling["reservations"][0]["project"] = json!(Uuid::new_v4());
    let (st, body) = control(
        &s,
        Method::POST,
        "/_fake/world",
        Some(&dangling.to_string()),
    )
    .await;
    assert_eq!(st, 422, "{body}");
    assert!(
        first_error(&body).contains("which the world does not have"),
        "{body}"
    );
    let mut twice = saved.clone();
    twice["reservations"][1]["id"] = saved["reservations"][0]["id"].clone();
    let (st, body) = control(&s, Method::POST, "/_fake/world", Some(&twice.to_string())).await;
    assert_eq!(st, 422, "{body}");
    assert!(first_error(&body).contains("appears twice"), "{body}");
    // A refused document changed nothing.
    assert_eq!(fake.reservations().len(), 1);

    // Restore what was saved.
    let (st, _) = control(&s, Method::POST, "/_fake/world", Some(&saved.to_string())).await;
    assert_eq!(st, 200);
    assert_eq!(fake.reservations().len(), 3);
    s.shutdown().await;
}

#[tokio::test]
async fn control_faults_inject_a_lost_reply_and_clear() {
    let fake = Fake::builder().reservations(2).build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    let project = fake.project();
    let faults = json!({"faults": [{"operation": "createDevice", "kind": "drop_after"}]});
    let (st, body) = control(&s, Method::POST, "/_fake/faults", Some(&faults.to_string())).await;
    assert_eq!(st, 200, "{body}");
    assert_eq!(body["added"], 1);
    let r = fake.provisionable_reservations()[0];
    let lost = http::client()
        .post(format!("{}/projects/{project}/devices", s.base_url()))
        .header("x-auth-token", TOKEN)
        .json(&create_body(r, "lost"))
        .send()
        .await;
    assert!(lost.is_err(), "the reply is lost: {lost:?}");
    assert_eq!(fake.devices().len(), 1, "the change was applied");

    // Targeting: the 2nd findProjectById only, with a status.
    let faults = json!({"faults": [
        {"operation": "findProjectById", "nth": 2, "kind": "fail_before", "status": 503}
    ]});
    let (st, _) = control(&s, Method::POST, "/_fake/faults", Some(&faults.to_string())).await;
    assert_eq!(st, 200);
    let path = format!("/projects/{project}");
    assert_eq!(api(&s, Method::GET, &path, None).await.0, 200);
    assert_eq!(api(&s, Method::GET, &path, None).await.0, 503);
    assert_eq!(api(&s, Method::GET, &path, None).await.0, 200);

    // Targeting one ID: the project's second read is hit only when it
    // names the targeted project, so another project's read goes through
    // (404: it does not exist) and the fault waits for ours.
    let other = Uuid::new_v4();
    let faults = json!({"faults": [
        {"operation": "findProjectById", "target": project, "kind": "fail_before", "status": 500}
    ]});
    let (st, body) = control(&s, Method::POST, "/_fake/faults", Some(&faults.to_string())).await;
    assert_eq!(st, 200, "{body}");
    let other_path = format!("/projects/{other}");
    assert_eq!(api(&s, Method::GET, &other_path, None).await.0, 404);
    assert_eq!(api(&s, Method::GET, &path, None).await.0, 500);
    assert_eq!(api(&s, Method::GET, &path, None).await.0, 200, "used up");

    // DELETE clears scripted and random faults.
    let faults = json!({
        "faults": [{"operation": "findProjectById", "kind": "fail_before", "status": 500, "times": 5}],
        "random": {"rate": 1.0, "seed": 3, "kinds": [{"kind": "bad_gateway"}]}
    });
    let (st, body) = control(&s, Method::POST, "/_fake/faults", Some(&faults.to_string())).await;
    assert_eq!((st, body["random"].clone()), (200, json!(true)));
    assert_eq!(api(&s, Method::GET, &path, None).await.0, 500);
    let (st, body) = control(&s, Method::DELETE, "/_fake/faults", None).await;
    assert_eq!(st, 200, "{body}");
    assert_eq!(api(&s, Method::GET, &path, None).await.0, 200);

    // Bad input: every fault is checked, none is added.
    let bad = [
        (
            r#"{"faults": [{"operation": "createDevise", "kind": "hang"}]}"#,
            422,
            "not an operationId",
        ),
        (
            r#"{"faults": [{"kind": "fail_before"}]}"#,
            422,
            "need a status",
        ),
        (
            r#"{"faults": [{"kind": "fail_after", "status": 200}]}"#,
            422,
            "not an error status",
        ),
        (
            r#"{"faults": [{"kind": "hang", "status": 500}]}"#,
            422,
            "status applies to",
        ),
        (
            r#"{"faults": [{"kind": "latency", "seconds": -1}]}"#,
            422,
            "seconds",
        ),
        (
            r#"{"faults": [{"kind": "hang", "nth": 0}]}"#,
            422,
            "nth counts from 1",
        ),
        (
            r#"{"faults": [{"kind": "hang", "times": 0}]}"#,
            422,
            "times must be",
        ),
        (r#"{"random": {"rate": 1.5}}"#, 422, "not a probability"),
        (
            r#"{"random": {"rate": 0.5, "kinds": [{"kind": "hang", "nth": 1}]}}"#,
            422,
            "random kinds take no",
        ),
        (
            r#"{"faults": [{"kind": "explode"}]}"#,
            400,
            "unknown variant",
        ),
        (
            r#"{"faults": [{"kind": "hang", "opration": "x"}]}"#,
            400,
            "unknown field",
        ),
        ("[", 400, "Invalid JSON"),
        (
            r#"{"faults": [{"kind": "hang", "target": "not-a-uuid"}]}"#,
            400,
            "UUID parsing failed",
        ),
        (
            r#"{"random": {"rate": 0.5, "kinds": [{"kind": "hang", "target": "00000000-0000-4000-8000-000000000000"}]}}"#,
            422,
            "random kinds take no",
        ),
    ];
    for (body, status, says) in bad {
        let (st, reply) = control(&s, Method::POST, "/_fake/faults", Some(body)).await;
        assert_eq!(st, status, "{body}: {reply}");
        assert!(first_error(&reply).contains(says), "{body}: {reply}");
    }
    let partly =
        r#"{"faults": [{"operation": "findProjectById", "kind": "hang"}, {"kind": "nope"}]}"#;
    assert_eq!(
        control(&s, Method::POST, "/_fake/faults", Some(partly))
            .await
            .0,
        400
    );
    assert_eq!(
        api(&s, Method::GET, &path, None).await.0,
        200,
        "nothing was added"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn control_calls_are_filtered_by_operation_and_limited() {
    let fake = Fake::builder().reservations(1).build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    let project = fake.project();
    for _ in 0..3 {
        api(&s, Method::GET, &format!("/projects/{project}"), None).await;
    }
    let missing = Uuid::new_v4();
    api(
        &s,
        Method::GET,
        &format!("/devices/{missing}?include=project&exclude=plan"),
        None,
    )
    .await;
    let (st, body) = control(&s, Method::GET, "/_fake/calls", None).await;
    assert_eq!(st, 200);
    assert_eq!(body["total"], 4);
    let (_, body) = control(
        &s,
        Method::GET,
        "/_fake/calls?operation=findDeviceById",
        None,
    )
    .await;
    assert_eq!(body["total"], 1);
    let call = &body["calls"][0];
    assert_eq!(call["operation"], "findDeviceById");
    assert_eq!(call["method"], "GET");
    assert_eq!(call["path"], format!("/metal/v1/devices/{missing}"));
    assert_eq!(call["query"], "include=project&exclude=plan");
    assert_eq!(call["status"], 404);
    assert_eq!(call["error"], "Not found");
    assert_eq!(call["fault"], Value::Null);
    // The token travels in a header, and no header is logged.
    assert!(!body.to_string().contains(TOKEN), "{body}");
    let (_, all) = control(&s, Method::GET, "/_fake/calls", None).await;
    let ok = &all["calls"][0];
    assert_eq!(
        (&ok["query"], &ok["error"], &ok["status"]),
        (&Value::Null, &Value::Null, &json!(200)),
        "a success without a query: {ok}"
    );
    assert_eq!(call["seq"], 4);
    let at = call["at"].as_str().unwrap();
    assert!(chrono::DateTime::parse_from_rfc3339(at).is_ok(), "{at}");
    let (_, body) = control(
        &s,
        Method::GET,
        "/_fake/calls?operation=findProjectById&limit=2",
        None,
    )
    .await;
    assert_eq!(body["total"], 3);
    let seqs: Vec<&Value> = body["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["seq"])
        .collect();
    assert_eq!(seqs, [&json!(2), &json!(3)], "the last two, oldest first");
    for bad in [
        "/_fake/calls?operation=findDevise",
        "/_fake/calls?limit=0",
        "/_fake/calls?limit=many",
        "/_fake/calls?limit=100001",
        "/_fake/calls?op=findDeviceById",
    ] {
        let (st, body) = control(&s, Method::GET, bad, None).await;
        assert_eq!(st, 400, "{bad}: {body}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn control_clock_advances_provisioning_and_refuses_bad_amounts() {
    let fake = Fake::builder().reservations(1).build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    let project = fake.project();
    let r = fake.provisionable_reservations()[0];
    let (st, device) = api(
        &s,
        Method::POST,
        &format!("/projects/{project}/devices"),
        Some(create_body(r, "clocked")),
    )
    .await;
    assert_eq!(st, 201);
    let path = format!("/devices/{}", device["id"].as_str().unwrap());
    assert_eq!(api(&s, Method::GET, &path, None).await.1["state"], "queued");
    let (st, clock) = control(
        &s,
        Method::POST,
        "/_fake/clock",
        Some(r#"{"advance_seconds": 66}"#),
    )
    .await;
    assert_eq!(st, 200, "{clock}");
    // Queued 5 s, then provisioning 60 s (the default timings).
    assert_eq!(clock["advanced_seconds"], 66.0);
    assert_eq!(clock["time_scale"], 1.0);
    assert_eq!(api(&s, Method::GET, &path, None).await.1["state"], "active");
    let (st, read) = control(&s, Method::GET, "/_fake/clock", None).await;
    assert_eq!((st, read["advanced_seconds"].clone()), (200, json!(66.0)));
    for (body, status) in [
        (r#"{"advance_seconds": -1}"#, 422),
        (r#"{"advance_seconds": 604801}"#, 422),
        (r#"{"advance_seconds": "soon"}"#, 400),
        (r#"{"advance": 5}"#, 400),
        ("", 400),
    ] {
        let (st, reply) = control(&s, Method::POST, "/_fake/clock", Some(body)).await;
        assert_eq!(st, status, "{body}: {reply}");
    }
    assert_eq!(
        control(&s, Method::GET, "/_fake/clock", None).await.1["advanced_seconds"],
        66.0
    );
    s.shutdown().await;
}

#[tokio::test]
async fn control_token_guards_the_control_api_only() {
    let fake = Fake::builder().reservations(1).build();
    let config = ServerConfig::new(TOKEN).control_token(Some("ctl-secret".into()));
    let s = serve(&fake, config).await;
    let http = http::client();
    for path in ["/_fake/world", "/_fake/state", "/_fake/calls"] {
        let none = http
            .get(format!("{}{path}", root(&s)))
            .send()
            .await
            .unwrap();
        assert_eq!(none.status(), StatusCode::UNAUTHORIZED, "{path}");
        let body: Value = none.json().await.unwrap();
        assert_eq!(body["error"], "Invalid control token");
        let wrong = http
            .get(format!("{}{path}", root(&s)))
            .header("x-fake-control-token", "guess")
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "{path}");
        let right = http
            .get(format!("{}{path}", root(&s)))
            .header("x-fake-control-token", "ctl-secret")
            .send()
            .await
            .unwrap();
        assert_eq!(right.status(), StatusCode::OK, "{path}");
    }
    // The API token is no control token, nor the other way round.
    let api_token = http
        .get(format!("{}/_fake/world", root(&s)))
        .header("x-auth-token", TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(api_token.status(), StatusCode::UNAUTHORIZED);
    s.shutdown().await;
}

#[tokio::test]
async fn control_unknown_paths_and_methods_get_json_errors() {
    let fake = Fake::builder().build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    let (st, body) = control(&s, Method::GET, "/_fake/nothing", None).await;
    assert_eq!(st, 404, "{body}");
    let (st, body) = control(&s, Method::PUT, "/_fake/world", Some("{}")).await;
    assert_eq!(st, 405, "{body}");
    let (st, body) = control(&s, Method::PUT, "/_fake/faults", None).await;
    assert_eq!(st, 405, "{body}");
    let (st, body) = control(&s, Method::POST, "/_fake/devices", None).await;
    assert_eq!(st, 405, "{body}");
    s.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn the_clock_runs_faster_with_a_time_scale() {
    let fake = Fake::builder().reservations(1).time_scale(60.0).build();
    let r = fake.provisionable_reservations()[0];
    let device = fake
        .api_client()
        .create_device()
        .id(fake.project())
        .body(
            serde_json::from_value::<metal_api::types::CreateDeviceRequest>(create_body(r, "fast"))
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        device.state.map(|s| s.to_string()).as_deref(),
        Some("queued")
    );
    let start = fake.now();
    // One real second is a minute on the fake's clock: after two,
    // provisioning (65 s by default) is over.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(fake.now() - start, Duration::from_secs(60));
    let state = fake.devices()[0].state.clone();
    assert_eq!(state.as_deref(), Some("provisioning"));
    tokio::time::advance(Duration::from_secs(1)).await;
    let state = fake.devices()[0].state.clone();
    assert_eq!(state.as_deref(), Some("active"));
}

#[tokio::test(start_paused = true)]
async fn the_clock_is_tokio_s_own_at_scale_one() {
    let fake = Fake::builder().build();
    assert_eq!(fake.now(), tokio::time::Instant::now());
    tokio::time::advance(Duration::from_secs(5)).await;
    assert_eq!(fake.now(), tokio::time::Instant::now());
    fake.advance(Duration::from_secs(10)).unwrap();
    assert_eq!(
        fake.now(),
        tokio::time::Instant::now() + Duration::from_secs(10)
    );
    assert!(fake
        .advance(Duration::from_secs(11 * 365 * 24 * 3600))
        .is_err());
    assert!(matches!(
        Fake::builder().time_scale(f64::NAN).try_build(),
        Err(metal_fake::BuildError::TimeScale(_))
    ));
}

#[tokio::test]
async fn control_faults_are_bounded_in_body_and_in_number_pending() {
    let fake = Fake::builder().build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    // A body past 1 MiB is refused before it is decoded.
    let huge = format!(
        r#"{{"faults": [{}]}}"#,
        vec![r#"{"kind": "hang"}"#; 70_000].join(",")
    );
    let (status, body) = control(&s, Method::POST, "/_fake/faults", Some(&huge)).await;
    assert_eq!(status, 413, "{body}");
    // At most 10000 pending, across posts; a post past it adds nothing.
    let faults = |n: usize| {
        format!(
            r#"{{"faults": [{}]}}"#,
            vec![r#"{"operation": "findProjectById", "kind": "hang"}"#; n].join(",")
        )
    };
    let (status, body) = control(&s, Method::POST, "/_fake/faults", Some(&faults(9_999))).await;
    assert_eq!((status, body["added"].clone()), (200, json!(9_999)));
    let (status, body) = control(&s, Method::POST, "/_fake/faults", Some(&faults(2))).await;
    assert_eq!(status, 422, "{body}");
    assert!(first_error(&body).contains("10000"), "{body}");
    let (status, _) = control(&s, Method::POST, "/_fake/faults", Some(&faults(1))).await;
    assert_eq!(status, 200, "the last place is still free");
    let (status, _) = control(&s, Method::POST, "/_fake/faults", Some(&faults(1))).await;
    assert_eq!(status, 422);
    let (status, _) = control(&s, Method::DELETE, "/_fake/faults", None).await;
    assert_eq!(status, 200);
    let (status, _) = control(&s, Method::POST, "/_fake/faults", Some(&faults(1))).await;
    assert_eq!(status, 200, "cleared, there is room again");
    s.shutdown().await;
}

#[tokio::test]
async fn a_world_whose_records_are_too_large_is_refused_and_changes_nothing() {
    let fake = Fake::builder().reservations(1).build();
    let s = serve(&fake, ServerConfig::new(TOKEN)).await;
    let (_, world) = control(&s, Method::GET, "/_fake/world", None).await;
    let project = world["projects"][0]["id"].clone();
    let reservation = world["reservations"][0].clone();
    let device = |tags: Vec<String>, hostname: String| {
        json!({
            "organizations": world["organizations"],
            "projects": world["projects"],
            "plans": world["plans"],
            "metros": world["metros"],
            "facilities": world["facilities"],
            "reservations": [reservation],
            "devices": [{
                "id": Uuid::new_v4(), "project": project, "reservation": reservation["id"],
                "plan": reservation["plan"], "facility": reservation["facility"],
                "hostname": hostname, "tags": tags,
            }],
        })
        .to_string()
    };
    let many = (0..257).map(|i| format!("t{i}")).collect();
    for (doc, why) in [
        (device(many, "web".into()), "too many tags"),
        (
            device(vec!["a".repeat(256)], "web".into()),
            "a tag too long",
        ),
        (device(Vec::new(), "h".repeat(256)), "a hostname too long"),
    ] {
        let (status, body) = control(&s, Method::POST, "/_fake/world", Some(&doc)).await;
        assert_eq!(status, 422, "{why}: {body}");
        assert!(first_error(&body).contains("too"), "{why}: {body}");
    }
    let (status, _) = control(
        &s,
        Method::POST,
        "/_fake/world",
        Some(&device(vec!["ok".into()], "web".into())),
    )
    .await;
    assert_eq!(status, 200, "within the bounds");
    s.shutdown().await;
}

/// In process too, each call keeps what it asked and what it was told:
/// the `401`'s message, a refusal's messages, an injected status's.
#[tokio::test(start_paused = true)]
async fn the_call_log_keeps_each_request_and_the_error_it_was_answered() {
    let fake = Fake::builder().token(TOKEN).reservations(1).build();
    let project = fake.project();
    let (status, _) = http::in_process(&fake, "wrong-token", "GET", "/user", None).await;
    assert_eq!(status, 401);
    let (status, _) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{project}/ssh-keys"),
        Some(json!({"label": "k", "key": "not a key"})),
    )
    .await;
    assert_eq!(status, 422);
    fake.inject(metal_fake::Fault::on(
        "findProjectById",
        metal_fake::FaultKind::FailBefore { status: 503 },
    ))
    .unwrap();
    let (status, _) = http::in_process(
        &fake,
        TOKEN,
        "GET",
        &format!("/projects/{project}?page=2"),
        None,
    )
    .await;
    assert_eq!(status, 503);
    let calls = fake.calls();
    let seen: Vec<(&str, &str, Option<&str>, Option<u16>)> = calls
        .iter()
        .map(|c| (c.method.as_str(), c.operation, c.query.as_deref(), c.status))
        .collect();
    assert_eq!(
        seen,
        [
            ("GET", "findCurrentUser", None, Some(401)),
            ("POST", "createProjectSSHKey", None, Some(422)),
            ("GET", "findProjectById", Some("page=2"), Some(503)),
        ]
    );
    assert_eq!(
        calls[0].error.as_deref(),
        Some("Invalid authentication token")
    );
    let refused = calls[1].error.as_deref().unwrap_or_default();
    assert!(!refused.is_empty(), "the 422's message is kept");
    assert_eq!(
        calls[1].path,
        format!("/metal/v1/projects/{project}/ssh-keys")
    );
    assert_eq!(
        calls[2].error.as_deref(),
        Some("fake: injected server error")
    );
    assert!(calls.iter().all(|c| !c.to_string().contains(TOKEN)));
}
