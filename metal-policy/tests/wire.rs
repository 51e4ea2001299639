//! The HTTP transport's classification and the client's requests on the
//! wire, against httpmock (real time; no timing assertions here).

use std::sync::Arc;
use std::time::Duration;

use httpmock::prelude::*;
use metal_api::types;
use metal_policy::{
    AttemptError, Backoff, BackoffFactory, Client, Error, Fields, HttpTransport, KeyOwner, Metal,
    Request, Transport,
};
use uuid::Uuid;

const TOKEN: &str = "wire-test-secret-token";

fn config(server: &MockServer) -> metal_api::Config {
    metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.base_url())
        .build()
        .unwrap()
}

fn transport(server: &MockServer) -> HttpTransport {
    HttpTransport::new(&config(server)).unwrap()
}

struct Quick;
impl BackoffFactory for Quick {
    fn start(&self) -> Box<dyn Backoff> {
        struct S(u32);
        impl Backoff for S {
            fn next_delay(&mut self) -> Option<Duration> {
                self.0 += 1;
                (self.0 <= 5).then_some(Duration::from_millis(10))
            }
        }
        Box::new(S(0))
    }
}

fn client(server: &MockServer) -> Client {
    Client::builder()
        .config(config(server))
        .api_rate(Duration::ZERO)
        .backoff(Arc::new(Quick))
        .build()
        .unwrap()
}

fn get_device(id: Uuid) -> Request {
    Request::GetDevice {
        id,
        include: None,
        exclude: None,
    }
}

#[tokio::test]
async fn status_429_with_retry_after_is_throttled() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(429).header("Retry-After", "17");
        })
        .await;
    let err = transport(&server).send(get_device(id)).await.unwrap_err();
    assert!(
        matches!(err, AttemptError::Throttled { status: 429, retry_after: Some(d) } if d == Duration::from_secs(17)),
        "{err:?}"
    );
}

#[tokio::test]
async fn status_429_with_rate_limit_reset_is_throttled() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(429).header("X-RateLimit-Reset", "9");
        })
        .await;
    let err = transport(&server).send(get_device(id)).await.unwrap_err();
    assert!(
        matches!(err, AttemptError::Throttled { retry_after: Some(d), .. } if d == Duration::from_secs(9)),
        "{err:?}"
    );
}

#[tokio::test]
async fn status_503_is_throttled_only_with_retry_after() {
    let server = MockServer::start_async().await;
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{a}"));
            then.status(503).header("Retry-After", "3");
        })
        .await;
    server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{b}"));
            then.status(503).body("overloaded");
        })
        .await;
    let t = transport(&server);
    assert!(matches!(
        t.send(get_device(a)).await.unwrap_err(),
        AttemptError::Throttled { status: 503, .. }
    ));
    assert!(matches!(
        t.send(get_device(b)).await.unwrap_err(),
        AttemptError::Unknown {
            status: Some(503),
            ..
        }
    ));
}

#[tokio::test]
async fn html_502_from_a_proxy_is_an_unknown_outcome() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    server
        .mock_async(|when, then| {
            when.method(POST).path(format!("/devices/{id}/actions"));
            then.status(502)
                .header("content-type", "text/html")
                .body("<html><body>Bad Gateway</body></html>");
        })
        .await;
    let request = Request::DeviceAction {
        id,
        action: types::DeviceActionInputType::Reboot,
    };
    let err = transport(&server).send(request).await.unwrap_err();
    assert!(
        matches!(
            err,
            AttemptError::Unknown {
                status: Some(502),
                ..
            }
        ),
        "{err:?}"
    );
    // Through the client: a reboot is not repeated.
    let err = client(&server).reboot_device(id).await.unwrap_err();
    assert!(
        matches!(err, Error::OutcomeUnknown { attempts: 1, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn documented_404_is_rejected_with_the_server_messages() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let m = server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(404)
                .json_body(serde_json::json!({"errors": ["Not found"], "error": "nope"}));
        })
        .await;
    let err = client(&server)
        .get_device(id, &Fields::default())
        .await
        .unwrap_err();
    match err {
        Error::Rejected {
            status: 404,
            messages,
            ..
        } => assert_eq!(messages, ["Not found", "nope"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.calls_async().await, 1, "not retried");
}

#[tokio::test]
async fn undocumented_400_and_409_are_rejected_not_retried() {
    let server = MockServer::start_async().await;
    for status in [400u16, 409] {
        let id = Uuid::new_v4();
        let m = server
            .mock_async(|when, then| {
                when.method(GET).path(format!("/devices/{id}"));
                then.status(status)
                    .json_body(serde_json::json!({"errors": ["bad input"]}));
            })
            .await;
        let err = client(&server)
            .get_device(id, &Fields::default())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Rejected { status: s, messages, .. } if *s == status && messages == &["bad input"]),
            "{err:?}"
        );
        assert_eq!(m.calls_async().await, 1);
    }
}

#[tokio::test]
async fn success_with_a_body_that_does_not_decode_is_permanent() {
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let m = server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(200).body("not json");
        })
        .await;
    let err = client(&server)
        .get_device(id, &Fields::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert_eq!(m.calls_async().await, 1);
}

#[tokio::test]
async fn documented_404_with_a_non_json_body_stays_permanent() {
    // The generated client reports this without its status (see http.rs):
    // it must not be retried as if the server might have acted.
    let server = MockServer::start_async().await;
    let id = Uuid::new_v4();
    let m = server
        .mock_async(|when, then| {
            when.method(GET).path(format!("/devices/{id}"));
            then.status(404).body("<html>not here</html>");
        })
        .await;
    let err = client(&server)
        .get_device(id, &Fields::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Decode { status: 0, .. }), "{err:?}");
    assert_eq!(m.calls_async().await, 1);
}

#[tokio::test]
async fn connection_refused_is_not_sent() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(format!("http://127.0.0.1:{port}"))
        .build()
        .unwrap();
    let t = HttpTransport::new(&config).unwrap();
    let err = t.send(get_device(Uuid::new_v4())).await.unwrap_err();
    assert!(matches!(err, AttemptError::NotSent { .. }), "{err:?}");
    // Even a reboot is retried when nothing was sent; the backoff then
    // gives up, and nothing shows the token.
    let c = Client::builder()
        .config(config)
        .api_rate(Duration::ZERO)
        .backoff(Arc::new(Quick))
        .build()
        .unwrap();
    let err = c.reboot_device(Uuid::new_v4()).await.unwrap_err();
    assert!(matches!(err, Error::GaveUp { attempts: 6, .. }), "{err:?}");
    let shown = format!("{err} {err:?} {c:?}");
    assert!(!shown.contains(TOKEN), "{shown}");
}

#[tokio::test]
async fn create_device_on_the_wire_reads_the_reservation_with_its_device_then_creates_once() {
    let server = MockServer::start_async().await;
    let (project, reservation, device) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    let lookup = server
        .mock_async(|when, then| {
            when.method(GET)
                .path(format!("/hardware-reservations/{reservation}"))
                .query_param("include", "device")
                .header("x-auth-token", TOKEN);
            then.status(200)
                .json_body(serde_json::json!({"id": reservation.to_string()}));
        })
        .await;
    let create = server
        .mock_async(|when, then| {
            when.method(POST)
                .path(format!("/projects/{project}/devices"))
                .body_includes("wrapngo-idempotency-")
                .body_includes("caller-tag")
                .body_includes(reservation.to_string());
            then.status(201)
                .json_body(serde_json::json!({"id": device.to_string(), "state": "queued"}));
        })
        .await;
    let request = types::CreateDeviceRequest::MetroInput(
        serde_json::from_value(serde_json::json!({
            "metro": "am",
            "plan": "m3.small.x86",
            "operating_system": "custom_ipxe",
            "hardware_reservation_id": reservation.to_string(),
            "tags": ["caller-tag"],
        }))
        .unwrap(),
    );
    let d = client(&server)
        .create_device(project, &request)
        .await
        .unwrap();
    assert_eq!(d.id, Some(device));
    assert_eq!(lookup.calls_async().await, 1);
    assert_eq!(create.calls_async().await, 1);
}

#[tokio::test]
async fn lists_on_the_wire_follow_pages_with_per_page() {
    let server = MockServer::start_async().await;
    let project = Uuid::new_v4();
    let ids: Vec<Uuid> = (0..3).map(|_| Uuid::new_v4()).collect();
    for page in 1..=3u32 {
        let id = ids[page as usize - 1];
        server
            .mock_async(|when, then| {
                when.method(GET)
                    .path(format!("/projects/{project}/hardware-reservations"))
                    .query_param("page", page.to_string())
                    .query_param("per_page", "1")
                    .query_param("include", "facility,device");
                then.status(200).json_body(serde_json::json!({
                    "hardware_reservations": [{"id": id.to_string()}],
                    "meta": {"current_page": page, "last_page": 3, "total": 3},
                }));
            })
            .await;
    }
    let c = Client::builder()
        .config(config(&server))
        .api_rate(Duration::ZERO)
        .per_page(1)
        .build()
        .unwrap();
    let got: Vec<Uuid> = c
        .list_reservations(project)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id.unwrap())
        .collect();
    assert_eq!(got, ids);
}

#[tokio::test]
async fn ssh_key_create_on_the_wire_lists_first() {
    let server = MockServer::start_async().await;
    let existing = Uuid::new_v4();
    let list = server
        .mock_async(|when, then| {
            when.method(GET).path("/ssh-keys");
            then.status(200).json_body(serde_json::json!({"ssh_keys": [
                {"id": existing.to_string(), "label": "deploy", "key": "ssh-ed25519 AAAA"}
            ]}));
        })
        .await;
    let create = server
        .mock_async(|when, then| {
            when.method(POST).path("/ssh-keys");
            then.status(201).json_body(serde_json::json!({}));
        })
        .await;
    let input = types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some("ssh-ed25519 AAAA".into()),
        label: Some("deploy".into()),
        tags: vec![],
    };
    let k = client(&server)
        .create_ssh_key(KeyOwner::User, &input)
        .await
        .unwrap();
    assert_eq!(k.id, Some(existing));
    assert_eq!(list.calls_async().await, 1);
    assert_eq!(create.calls_async().await, 0);
}
