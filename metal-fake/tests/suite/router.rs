//! The router: every operation of the spec is routed, one the model does
//! not serve answers 501 (in-process and over HTTP), a test's handler
//! serves one, a method a path does not serve is 405 with `Allow`, IDs are
//! canonical UUIDs, the token is checked in-process too, and each wire
//! fault reaches the generated client the same way in-process and over
//! HTTP.

use crate::http;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use metal_api::operation::{self, Operation};
use metal_api::{types, Exchange, ExchangeError};
use metal_fake::{ApiError, Call, Fake, Fault, FaultKind, ServerConfig, IN_PROCESS_BASE_URL};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::common::schema;

const TOKEN: &str = "router-token";

/// A raw request to the in-process fake (the same router the server
/// serves) for `path` below the host: status, `Allow`, JSON body (`Null`
/// when none).
async fn raw(
    fake: &Fake,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, Option<String>, Value) {
    let mut r = http::client().request(
        reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
        format!("http://metal-fake.invalid{path}"),
    );
    if let Some(t) = token {
        r = r.header("x-auth-token", t);
    }
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    // The operation argument is what the generated client would pass; the
    // router routes by method and path alone.
    let resp = fake
        .exchange(&operation::FIND_PROJECT_BY_ID, r.build().unwrap())
        .await
        .unwrap();
    split(resp).await
}

async fn split(resp: reqwest::Response) -> (u16, Option<String>, Value) {
    let status = resp.status().as_u16();
    let allow = resp
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_string());
    let text = resp.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    (status, allow, body)
}

/// `path` with every `{param}` replaced by a fresh UUID.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            if seg.starts_with('{') && seg.ends_with('}') {
                Uuid::new_v4().to_string()
            } else {
                seg.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test(start_paused = true)]
async fn every_operation_of_the_spec_is_routed() {
    let fake = Fake::builder().token(TOKEN).build();
    for op in operation::ALL {
        let path = format!("/metal/v1{}", concrete(op.path));
        let body = (op.method != operation::Method::Get).then_some("{}");
        let (status, _, reply) = raw(&fake, op.method.as_str(), &path, Some(TOKEN), body).await;
        let last = fake.calls().pop().unwrap();
        assert_eq!(
            last.operation, op.id,
            "{} {path} reached {} ({status} {reply})",
            op.method, last.operation
        );
        assert_ne!(status, 405, "{}", op.id);
        // Modelled, or the fake says it does not model it (an operation
        // added to the spec before the model serves it).
        if status == 501 {
            assert!(
                reply
                    .to_string()
                    .contains(&format!("metal-fake does not model {}", op.id)),
                "{}: {reply}",
                op.id
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn an_unmodelled_operation_answers_501_in_process() {
    let fake = Fake::builder().unmodelled("findSSHKeys").build();
    // Nothing is drawn for it: a scripted fault waits for a modelled call.
    fake.inject(Fault::any(FaultKind::FailBefore { status: 500 }))
        .unwrap();
    match fake.api_client().find_ssh_keys().send().await {
        Err(metal_api::Error::UnexpectedResponse(resp)) => {
            assert_eq!(resp.status().as_u16(), 501);
            assert_eq!(
                resp.headers()["content-type"].to_str().unwrap(),
                "application/json; charset=utf-8"
            );
            assert_eq!(
                resp.text().await.unwrap(),
                r#"{"errors":["metal-fake does not model findSSHKeys"]}"#
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.snapshot().requests["findSSHKeys"]["501"], 1);
    let project = fake
        .api_client()
        .find_project_by_id()
        .id(fake.project())
        .send()
        .await;
    assert_eq!(project.unwrap_err().status().unwrap().as_u16(), 500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unmodelled_operation_answers_501_over_http() {
    let fake = Fake::builder().unmodelled("findProjectSSHKeys").build();
    let server = crate::http::serve(&fake, ServerConfig::new(TOKEN)).await;
    let resp = http::client()
        .get(format!(
            "{}/projects/{}/ssh-keys",
            server.base_url(),
            fake.project()
        ))
        .header("x-auth-token", TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 501);
    assert_eq!(
        resp.text().await.unwrap(),
        r#"{"errors":["metal-fake does not model findProjectSSHKeys"]}"#
    );
    // The generated client over HTTP meets the same reply.
    let client = crate::http::api(&server, TOKEN);
    let err = client
        .find_project_ssh_keys()
        .id(fake.project())
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.status().unwrap().as_u16(), 501);
    server.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_handler_serves_an_operation_the_model_does_not() {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let key = Uuid::new_v4();
    let fake = Fake::builder()
        .unmodelled("findSSHKeys")
        .handler("findSSHKeys", move |call: &Call| {
            counter.fetch_add(1, Ordering::SeqCst);
            if call.query("include").is_some() {
                return Err(ApiError::unprocessable("include is not served here"));
            }
            Ok(types::SshKeyList {
                ssh_keys: vec![types::SshKey {
                    id: Some(key),
                    label: Some("from the test".to_string()),
                    ..Default::default()
                }],
            })
        })
        .build();
    let api = fake.api_client();
    let list = api.find_ssh_keys().send().await.unwrap();
    assert_eq!(list.status().as_u16(), 200, "the spec's success status");
    assert_eq!(list.into_inner().ssh_keys[0].id, Some(key));
    // Its refusals are the API's error body.
    let refused = api.find_ssh_keys().include("x").send().await.unwrap_err();
    assert_eq!(refused.status().unwrap().as_u16(), 422);
    // Faults apply to it as to any operation: after acting, it has run.
    fake.inject(Fault::on(
        "findSSHKeys",
        FaultKind::FailAfter { status: 503 },
    ))
    .unwrap();
    let failed = api.find_ssh_keys().send().await.unwrap_err();
    assert_eq!(failed.status().unwrap().as_u16(), 503);
    fake.inject(Fault::on("findSSHKeys", FaultKind::NotSent))
        .unwrap();
    match api.find_ssh_keys().send().await.unwrap_err() {
        metal_api::Error::CommunicationError(e) => assert!(matches!(
            ExchangeError::find(&e),
            Some(ExchangeError::NotSent(_))
        )),
        other => panic!("{other:?}"),
    }
    assert_eq!(seen.load(Ordering::SeqCst), 3, "not run for NotSent");
    assert_eq!(fake.call_count("findSSHKeys"), 4);
}

#[tokio::test(start_paused = true)]
async fn a_handler_with_no_body_answers_the_spec_status_without_one() {
    let fake = Fake::builder()
        .handler("deleteSSHKey", |call: &Call| call.id("id").map(|_| ()))
        .build();
    let id = Uuid::new_v4();
    let (status, _, body) = raw(
        &fake,
        "DELETE",
        &format!("/metal/v1/ssh-keys/{id}"),
        Some(metal_fake::DEFAULT_TOKEN),
        None,
    )
    .await;
    assert_eq!((status, body), (204, Value::Null));
    let (status, _, body) = raw(
        &fake,
        "DELETE",
        "/metal/v1/ssh-keys/not-a-uuid",
        Some(metal_fake::DEFAULT_TOKEN),
        None,
    )
    .await;
    assert_eq!((status, body), (404, json!({"errors": ["Not found"]})));
}

#[test]
fn a_handler_for_an_operation_outside_the_spec_is_refused() {
    let err = Fake::builder()
        .handler("noSuchOperation", |_: &Call| Ok(()))
        .unmodelled("findDeviceById")
        .try_build()
        .unwrap_err();
    assert!(
        matches!(&err, metal_fake::BuildError::UnknownOperation(op) if op == "noSuchOperation"),
        "{err}"
    );
    let err = Fake::builder()
        .unmodelled("alsoNoSuchOperation")
        .try_build()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("\"alsoNoSuchOperation\" is not an operationId"),
        "{err}"
    );
}

#[test]
fn more_faults_than_the_control_api_keeps_are_refused_in_process_too() {
    use metal_fake::{Fault, FaultKind, MAX_PENDING_FAULTS};
    let fault = || Fault::on("findDeviceById", FaultKind::BadGateway);
    // At the builder: refused whole.
    let err = (0..=MAX_PENDING_FAULTS)
        .fold(Fake::builder(), |b, _| b.fault(fault()))
        .try_build()
        .unwrap_err();
    assert!(matches!(err, metal_fake::BuildError::Faults(_)), "{err}");
    // Through inject: the last that fits is taken, the next refused,
    // saying how many fit.
    let fake = Fake::builder().fault(fault()).build();
    for _ in 1..MAX_PENDING_FAULTS {
        fake.inject(fault()).unwrap();
    }
    let refused = fake.inject(fault()).unwrap_err();
    assert_eq!((refused.added, refused.room), (1, 0));
    assert!(
        refused.to_string().contains("clear some first"),
        "{refused}"
    );
    // A fault for no calls takes no room.
    fake.inject(fault().times(0)).unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_method_the_path_does_not_serve_is_405_with_allow() {
    let fake = Fake::builder().token(TOKEN).build();
    let path = format!("/metal/v1/devices/{}", Uuid::new_v4());
    let (status, allow, body) = raw(&fake, "POST", &path, Some(TOKEN), None).await;
    assert_eq!(status, 405);
    let allow = allow.expect("Allow");
    let mut methods: Vec<&str> = allow.split(',').map(str::trim).collect();
    methods.sort_unstable();
    // PATCH as packngo sends it for lock and unlock (`ALSO_PATCH`).
    assert_eq!(
        methods,
        ["DELETE", "GET", "HEAD", "PATCH", "PUT"],
        "{allow}"
    );
    assert!(body["errors"][0].is_string(), "{body}");
    // The gate still comes first: no token, 401.
    let (status, _, _) = raw(&fake, "POST", &path, None, None).await;
    assert_eq!(status, 401);
    assert_eq!(fake.snapshot().requests["unknown"]["405"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_405_over_http_has_allow_and_an_error_body() {
    let fake = Fake::builder().build();
    let server = crate::http::serve(&fake, ServerConfig::new(TOKEN).record_replies(true)).await;
    let resp = http::client()
        .post(format!("{}/ssh-keys/{}", server.base_url(), Uuid::new_v4()))
        .header("x-auth-token", TOKEN)
        .send()
        .await
        .unwrap();
    let (status, allow, body) = split(resp).await;
    assert_eq!(status, 405);
    let allow = allow.expect("Allow");
    for m in ["GET", "PUT", "DELETE"] {
        assert!(allow.contains(m), "{allow}");
    }
    assert_eq!(body, json!({"errors": ["Method not allowed"]}));
    let replies = server.recorded_replies();
    assert_eq!(
        (replies[0].operation.as_str(), replies[0].status),
        ("unknown", 405)
    );
}

#[tokio::test(start_paused = true)]
async fn ids_are_canonical_hyphenated_uuids() {
    let fake = Fake::builder().token(TOKEN).build();
    let p = fake.project();
    let get = |id: String| {
        let fake = fake.clone();
        async move {
            raw(
                &fake,
                "GET",
                &format!("/metal/v1/projects/{id}"),
                Some(TOKEN),
                None,
            )
            .await
            .0
        }
    };
    assert_eq!(get(p.to_string()).await, 200);
    assert_eq!(get(p.to_string().to_uppercase()).await, 200);
    assert_eq!(get(p.simple().to_string()).await, 404);
    assert_eq!(get(p.braced().to_string()).await, 404);
    assert_eq!(get(p.urn().to_string()).await, 404);
    assert_eq!(get("not-a-uuid".to_string()).await, 404);
    let (status, _, body) = raw(&fake, "GET", "/metal/v1/nowhere", Some(TOKEN), None).await;
    assert_eq!((status, body), (404, json!({"errors": ["Not found"]})));
}

#[tokio::test(start_paused = true)]
async fn the_token_is_checked_in_process() {
    let fake = Fake::builder().token(TOKEN).build();
    let anonymous = metal_api::Client::over(
        IN_PROCESS_BASE_URL,
        Default::default(),
        Arc::new(fake.clone()),
    )
    .unwrap();
    let err = anonymous
        .find_project_by_id()
        .id(fake.project())
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.status().unwrap().as_u16(), 401);
    let ok = fake
        .api_client()
        .find_project_by_id()
        .id(fake.project())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.into_inner().id, Some(fake.project()));
    assert_eq!(fake.snapshot().requests["findProjectById"]["401"], 1);
    // `/_fake/state` is served in-process too, without a token.
    let (status, _, state) = raw(&fake, "GET", "/_fake/state", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(state["requests"]["findProjectById"]["200"], 1);
}

/// What the generated client met, in terms both transports share.
fn shape<T: std::fmt::Debug>(
    r: &Result<metal_api::ResponseValue<T>, metal_api::Error<types::Error>>,
) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(metal_api::Error::CommunicationError(e)) => match ExchangeError::find(e) {
            Some(ExchangeError::NotSent(_)) => "not sent".into(),
            // A connection closed or timed out with no reply.
            Some(ExchangeError::NoReply(_)) | None => "no reply".into(),
            Some(other) => format!("{other:?}"),
        },
        Err(metal_api::Error::ResponseBodyError(_)) => "body cut".into(),
        Err(metal_api::Error::UnexpectedResponse(resp)) => format!(
            "status {} {:?} retry-after {:?}",
            resp.status().as_u16(),
            resp.headers().get("content-type"),
            resp.headers().get("retry-after")
        ),
        Err(metal_api::Error::ErrorResponse(rv)) => format!("status {}", rv.status().as_u16()),
        Err(other) => format!("{other:?}"),
    }
}

/// Each wire fault reaches the generated client the same way over HTTP
/// (reqwest, a real socket) and in-process; "not sent" is the one fault
/// the wire cannot express on a live listener.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wire_faults_reach_the_client_as_in_process() {
    for kind in FaultKind::all() {
        // Only a hung reply needs the caller's timeout to end it; every
        // other kind answers (or drops) at once, and a loaded machine must
        // not turn its reply into a timeout: the wall clock is real here.
        let timeout = if kind == FaultKind::Hang {
            Duration::from_millis(300)
        } else {
            Duration::from_secs(30)
        };
        let wire_fake = Fake::builder().reservations(3).build();
        let server =
            crate::http::serve(&wire_fake, ServerConfig::new(TOKEN).record_replies(true)).await;
        let wire = metal_api::Config::builder()
            .auth_token(TOKEN)
            .base_url(server.base_url())
            .request_timeout(Some(timeout))
            .build()
            .unwrap()
            .client()
            .unwrap();
        let local_fake = Fake::builder().reservations(3).build();
        let local = local_fake.api_client();
        let op: &Operation = &operation::FIND_PROJECT_HARDWARE_RESERVATIONS;
        for fake in [&wire_fake, &local_fake] {
            fake.inject(Fault::on(op.id, kind.clone())).unwrap();
        }
        let over_wire = shape(
            &wire
                .find_project_hardware_reservations()
                .id(wire_fake.project())
                .include("device")
                .send()
                .await,
        );
        let in_process = match tokio::time::timeout(
            timeout,
            local
                .find_project_hardware_reservations()
                .id(local_fake.project())
                .include("device")
                .send(),
        )
        .await
        {
            Ok(r) => shape(&r),
            // In-process, only the caller's timeout ends a hung reply.
            Err(_) => "no reply".to_string(),
        };
        if kind == FaultKind::NotSent {
            assert_eq!(in_process, "not sent");
            assert_eq!(over_wire, "no reply", "the connection is dropped instead");
        } else {
            assert_eq!(over_wire, in_process, "{kind:?}");
        }
        let expected_status = |f: &Fake| f.snapshot().requests[op.id].clone();
        assert_eq!(
            expected_status(&wire_fake),
            expected_status(&local_fake),
            "{kind:?}: both record the same status"
        );
        schema::check_all(&server.recorded_replies());
        server.shutdown().await;
    }
}
