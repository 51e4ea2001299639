//! What the client bounds, over real loopback HTTP: the token never follows
//! a redirect (to another host or another port), a reply body larger than
//! the configured bound is a typed error read no further, and the token
//! travels on every request through the hook point.

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use httpmock::{Method, MockServer};
use metal_api::ExchangeError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A server that records the head of every request it receives and
/// answers 200 `{}`.
async fn recorder(host: &str) -> Option<(String, Arc<Mutex<Vec<String>>>)> {
    let listener = TcpListener::bind((host, 0)).await.ok()?;
    let addr = listener.local_addr().ok()?;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buf = vec![0u8; 8192];
            let n = stream.read(&mut buf).await.unwrap_or(0);
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n{}")
                .await;
        }
    });
    Some((format!("http://{addr}"), seen))
}

async fn redirect_is_refused(target_host: &str) {
    let Some((target, seen)) = recorder(target_host).await else {
        panic!("cannot bind a loopback address {target_host}");
    };
    let server = MockServer::start_async().await;
    let location = format!("{target}/metal/v1/projects/{PROJECT}");
    server.mock(|when, then| {
        api(when, Method::GET, &format!("/projects/{PROJECT}"), None);
        then.status(302).header("location", &location);
    });
    let err = client(&server)
        .find_project_by_id()
        .id(uuid(PROJECT))
        .send()
        .await
        .expect_err("a redirect is an error");
    let metal_api::Error::CommunicationError(e) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        ExchangeError::find(e),
        Some(&ExchangeError::Redirect {
            status: 302,
            location: location.clone()
        })
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "the redirect target was contacted: {:?}",
        seen.lock().unwrap()
    );
}

#[tokio::test]
async fn the_token_never_follows_a_redirect_to_another_port() {
    redirect_is_refused("127.0.0.1").await;
}

#[tokio::test]
async fn the_token_never_follows_a_redirect_to_another_host() {
    redirect_is_refused("127.0.0.2").await;
}

#[tokio::test]
async fn a_reply_larger_than_the_bound_is_a_typed_error() {
    let server = MockServer::start_async().await;
    let big = format!(
        "{{\"id\":\"{PROJECT}\",\"name\":\"{}\"}}",
        "x".repeat(64 * 1024)
    );
    server.mock(|when, then| {
        api(when, Method::GET, &format!("/projects/{PROJECT}"), None);
        then.status(200)
            .header("content-type", "application/json")
            .body(&big);
    });
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.url(PREFIX))
        .max_body(16 * 1024)
        .build()
        .unwrap();
    let err = config
        .client()
        .unwrap()
        .find_project_by_id()
        .id(uuid(PROJECT))
        .send()
        .await
        .expect_err("over the bound");
    let cause = match &err {
        metal_api::Error::CommunicationError(e) | metal_api::Error::ResponseBodyError(e) => {
            ExchangeError::find(e).cloned()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        cause,
        Some(ExchangeError::BodyTooLarge {
            status: 200,
            limit: 16 * 1024
        })
    );
    // The same reply within a larger bound decodes.
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.url(PREFIX))
        .max_body(1024 * 1024)
        .build()
        .unwrap();
    let project = config
        .client()
        .unwrap()
        .find_project_by_id()
        .id(uuid(PROJECT))
        .send()
        .await
        .unwrap();
    assert_eq!(project.name.as_deref().map(str::len), Some(64 * 1024));
}

#[tokio::test]
async fn every_exchange_gets_the_token_and_user_agent() {
    let Some((base, seen)) = recorder("127.0.0.1").await else {
        panic!("cannot bind loopback");
    };
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .user_agent("bounds-test/1")
        .base_url(format!("{base}/metal/v1"))
        .build()
        .unwrap();
    // A caller's own reqwest client: the hooks still add the headers.
    let own = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(format!("{base}/metal/v1"))
        .http_client(reqwest::Client::new())
        .build()
        .unwrap();
    for c in [config.client().unwrap(), own.client().unwrap()] {
        let _ = c.find_project_by_id().id(uuid(PROJECT)).send().await;
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    for head in seen.iter() {
        let head = head.to_ascii_lowercase();
        assert!(
            head.contains(&format!("x-auth-token: {}", TOKEN.to_ascii_lowercase())),
            "{head}"
        );
    }
    assert!(seen[0]
        .to_ascii_lowercase()
        .contains("user-agent: bounds-test/1"));
}
