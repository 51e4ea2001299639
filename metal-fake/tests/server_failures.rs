//! Failures of the server are surfaced, not swallowed: a connection task
//! that panics (here, a test's handler that panics) is logged with
//! `tracing::error!` and counted, on the handle and in `/_fake/state`, and
//! the server goes on serving other connections. A binary of its own: it
//! reads the log of a thread's subscriber, which other tests' callsites,
//! registered with no subscriber, could switch off (see
//! metal-policy/tests/tracing.rs). (A server task that
//! panics is an `Err` from `ServerHandle::try_shutdown`: tested beside the
//! handle, in `src/server/handle.rs`, since only a broken accept loop
//! panics there.)

mod http;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use metal_fake::{ApiError, Call, Fake, ServerConfig};
use serde_json::Value;
use tokio::time::{sleep, timeout, Instant};

const TOKEN: &str = "failures-token";

/// Where the test's log subscriber writes.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// The current-thread runtime runs the server's tasks on this thread, under
// this thread's log subscriber.
#[tokio::test(flavor = "current_thread")]
async fn a_panicking_handler_is_logged_and_counted_and_the_server_goes_on() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let fake = Fake::builder()
        .reservations(2)
        .handler("findProjectById", |_: &Call| -> Result<Value, ApiError> {
            panic!("a test's handler broke")
        })
        .build();
    let server = http::serve(&fake, ServerConfig::new(TOKEN)).await;
    let http = http::client();
    let get = |path: String| {
        let http = http.clone();
        let url = format!("{}{path}", server.base_url());
        async move {
            timeout(
                Duration::from_secs(5),
                http.get(url).header("X-Auth-Token", TOKEN).send(),
            )
            .await
            .expect("an answer in time")
        }
    };

    // The panicking handler: the connection closes without a reply.
    let broken = get(format!("/projects/{}", fake.project())).await;
    assert!(broken.is_err(), "{broken:?}");

    // Counted and logged, soon.
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.connection_panics() == 0 && Instant::now() < deadline {
        sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(server.connection_panics(), 1);
    let logged = logs.text();
    assert!(logged.contains("ERROR"), "{logged}");
    assert!(logged.contains("panicked"), "{logged}");
    assert!(logged.contains("a test's handler broke"), "{logged}");

    // The server goes on: another operation, on a new connection, and the
    // count in the fake's state.
    let reservations = get(format!(
        "/projects/{}/hardware-reservations",
        fake.project()
    ))
    .await
    .unwrap();
    assert_eq!(reservations.status(), 200);
    let state: Value = http
        .get(server.base_url().replace("/metal/v1", "/_fake/state"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(state["connection_panics"], 1);
    assert_eq!(fake.snapshot().connection_panics, 1);

    // Panicking again is counted again.
    assert!(get(format!("/projects/{}", fake.project())).await.is_err());
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.connection_panics() < 2 && Instant::now() < deadline {
        sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(server.connection_panics(), 2);

    // The server task itself is fine: shutdown says so.
    server.try_shutdown().await.unwrap();
}
