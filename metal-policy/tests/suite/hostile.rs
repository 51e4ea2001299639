//! The policy client against a hostile server: a small HTTP/1.1 server on
//! loopback, written here, that answers each request with whatever the
//! test scripts (headers whose numbers overflow any clock, throttling that
//! asks for no delay, lists that never end or repeat themselves, error
//! bodies that echo the token). The client must not panic, must not spin,
//! must bound what it holds, and must not repeat the token.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use common::loopback::{serve, Reply, Request, Server};
use common::Fixed;
use metal_api::types;
use metal_policy::retry::MAX_THROTTLED_RETRIES;
use metal_policy::{AttemptError, CallOptions, Client, ClientBuilder, Error, Metal};
use uuid::Uuid;

const TOKEN: &str = "hostile-test-secret-token";

/// A policy client of `server`: no client-side rate limit, a fixed
/// `backoff`, a 10 s deadline so that a client that spins still ends.
fn client(server: &Server, backoff: Duration) -> ClientBuilder {
    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(&server.base_url)
        .build()
        .unwrap();
    Client::builder()
        .config(config)
        .api_rate(Duration::ZERO)
        .backoff(Arc::new(Fixed(backoff, None)))
        .deadline(Some(Duration::from_secs(10)))
}

fn project() -> types::Project {
    types::Project {
        id: Some(Uuid::new_v4()),
        ..Default::default()
    }
}

/// `X-RateLimit-Reset` values no clock holds, and negative ones.
const HOSTILE_NUMBERS: [&str; 5] = [
    "18446744073709551615", // u64::MAX
    "9223372036854775808",  // i64::MAX + 1
    "9223372036854775807",  // i64::MAX
    "-1",
    "-9223372036854775808",
];

#[tokio::test]
async fn rate_limit_headers_that_overflow_every_clock_panic_nothing() {
    for reset in HOSTILE_NUMBERS {
        for learn in [false, true] {
            let server = serve(move |_, _| {
                Reply::json(200, project())
                    .header("x-ratelimit-limit", "10")
                    .header("x-ratelimit-remaining", "1")
                    .header("x-ratelimit-reset", reset)
            })
            .await;
            let c = client(&server, Duration::ZERO)
                .learn_rate(learn)
                .build()
                .unwrap();
            // A request, the one after, and the one after that: each
            // reads the headers, and the learned pace of the ones before.
            // Without learning each goes at once; with it, one request left
            // until a readable reset that far away spaces them by the
            // longest learned spacing (5 min; tests/learn.rs), so a short
            // deadline of their own ends them. Only those that may wait
            // that long have one: a call that must succeed has the
            // client's 10 s, which no loaded machine's loopback reply
            // takes.
            c.get_project(Uuid::new_v4()).await.unwrap();
            let options = match learn {
                true => CallOptions::new().deadline(Some(Duration::from_millis(200))),
                false => CallOptions::new(),
            };
            for _ in 0..2 {
                let project = Uuid::new_v4();
                let call = c
                    .call_with(options, |api| api.find_project_by_id().id(project).send())
                    .await;
                match call {
                    Ok(_) => {}
                    Err(Error::DeadlineExceeded { last: None, .. }) if learn => {}
                    Err(e) => panic!("Reset: {reset}, learning {learn}: {e:?}"),
                }
            }
            if !learn {
                assert_eq!(server.served(), 3, "Reset: {reset}");
            }
        }
    }
}

#[tokio::test]
async fn a_429_whose_reset_overflows_every_clock_is_throttling_without_a_time() {
    // Each Reset at once: the test takes one deadline, not five.
    futures::future::join_all(HOSTILE_NUMBERS.map(a_429_whose_reset_is)).await;
}

async fn a_429_whose_reset_is(reset: &'static str) {
    let server = serve(move |n, _| match n {
        0 => Reply::json(429, serde_json::json!({"errors": ["slow down"]}))
            .header("x-ratelimit-reset", reset),
        _ => Reply::json(200, project()),
    })
    .await;
    // The 429 pauses the client (for the default 5 s when its Reset is
    // no readable time, else for the longest pause); a 2 s deadline
    // ends the call during the pause, and is long enough for the 429
    // to arrive first on a loaded machine.
    let c = client(&server, Duration::ZERO)
        .deadline(Some(Duration::from_secs(2)))
        .build()
        .unwrap();
    let err = c.get_project(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::DeadlineExceeded {
                last: Some(AttemptError::Throttled { status: 429, .. }),
                ..
            }
        ),
        "Reset: {reset}: {err:?}"
    );
    assert_eq!(server.served(), 1);
}

/// A throttling reply that asks for no delay, or one in the past.
fn no_delay(kind: usize) -> Reply {
    let past = httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(3600));
    let errors = serde_json::json!({"errors": ["slow down"]});
    match kind {
        0 => Reply::json(429, errors).header("retry-after", "0"),
        1 => Reply::json(429, errors).header("retry-after", &past),
        _ => Reply::json(503, errors).header("retry-after", "0"),
    }
}

#[tokio::test]
async fn throttling_that_asks_for_no_delay_sleeps_the_backoff_and_gives_up() {
    let backoff = Duration::from_millis(20);
    for kind in 0..3 {
        let server = serve(move |_, _| no_delay(kind)).await;
        let c = client(&server, backoff).build().unwrap();
        let t0 = std::time::Instant::now();
        let err = c.get_project(Uuid::new_v4()).await.unwrap_err();
        let elapsed = t0.elapsed();
        let tries = MAX_THROTTLED_RETRIES as usize + 1;
        assert!(
            matches!(
                &err,
                Error::GaveUp {
                    attempts,
                    source: AttemptError::Throttled { .. },
                    ..
                } if *attempts as usize == tries
            ),
            "kind {kind}: {err:?}"
        );
        assert_eq!(server.served(), tries, "kind {kind}");
        // Every retry slept at least the backoff's delay.
        assert!(
            elapsed >= backoff * MAX_THROTTLED_RETRIES,
            "kind {kind}: {tries} requests in {elapsed:?}"
        );
    }
}

#[tokio::test]
async fn a_run_of_throttling_broken_by_another_failure_starts_again() {
    // 10 throttled, a 502, 10 throttled, then a success: no run is longer
    // than the bound, so the call succeeds.
    let max = MAX_THROTTLED_RETRIES as usize;
    let server = serve(move |n, _| match n {
        n if n == max => Reply::json(502, serde_json::json!({"errors": ["bad gateway"]})),
        n if n <= 2 * max => no_delay(0),
        _ => Reply::json(200, project()),
    })
    .await;
    let c = client(&server, Duration::from_millis(1)).build().unwrap();
    c.get_project(Uuid::new_v4()).await.unwrap();
    assert_eq!(server.served(), 2 * max + 2);
}

/// The page number a list request asked for.
fn page_of(r: &Request) -> i64 {
    r.query("page").and_then(|p| p.parse().ok()).unwrap_or(1)
}

fn device_page(ids: &[Uuid], page: i64, last_page: i64) -> Reply {
    Reply::json(
        200,
        types::DeviceList {
            devices: ids
                .iter()
                .map(|id| types::Device {
                    id: Some(*id),
                    ..Default::default()
                })
                .collect(),
            meta: Some(types::Meta {
                current_page: Some(page),
                last_page: Some(last_page),
                ..Default::default()
            }),
        },
    )
}

#[tokio::test]
async fn a_list_of_fresh_entries_that_never_ends_stops_at_the_entry_bound() {
    let server = serve(|_, r| {
        device_page(
            &[Uuid::new_v4(), Uuid::new_v4()],
            page_of(r),
            1_000_000_000_000,
        )
    })
    .await;
    let c = client(&server, Duration::ZERO)
        .per_page(2)
        .max_list_entries(20)
        .build()
        .unwrap();
    let err = c.list_devices(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::ListTooLong {
                operation: "findProjectDevices",
                limit: 20,
                page: 11
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.served(), 11);
    // Streamed page by page, the same bound.
    use futures::StreamExt;
    let pages: Vec<_> = c.device_pages(Uuid::new_v4()).collect().await;
    assert_eq!(pages.len(), 11);
    assert!(pages[..10]
        .iter()
        .all(|p| p.as_ref().is_ok_and(|d| d.len() == 2)));
    assert!(matches!(pages[10], Err(Error::ListTooLong { .. })));
}

#[tokio::test]
async fn a_list_whose_pages_repeat_one_entry_stops_at_the_first_repeat() {
    let one = Uuid::new_v4();
    let server = serve(move |_, r| device_page(&[one], page_of(r), i64::MAX)).await;
    let c = client(&server, Duration::ZERO).build().unwrap();
    let err = c.list_devices(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::PageRepeats {
                operation: "findProjectDevices",
                page: 2
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.served(), 2);
}

#[tokio::test]
async fn a_token_the_server_echoes_never_reaches_an_error() {
    for (status, body) in [
        (401, "errors"),
        (422, "error"),
        (500, "errors"),
        (200, "undecodable"),
    ] {
        let server = serve(move |_, r| {
            let said = format!("bad token {}", r.token);
            match body {
                "errors" => Reply::json(status, serde_json::json!({ "errors": [said] })),
                "error" => Reply::json(status, serde_json::json!({ "error": said })),
                _ => Reply {
                    status,
                    headers: vec![],
                    body: format!("[\"{said}\"]"),
                },
            }
        })
        .await;
        let c = client(&server, Duration::from_millis(1)).build().unwrap();
        let err = c
            .call_with(metal_policy::CallOptions::new().idempotent(false), |api| {
                api.find_project_by_id().id(Uuid::new_v4()).send()
            })
            .await
            .unwrap_err();
        let text = format!("{err} {err:?}");
        assert!(!text.contains(TOKEN), "HTTP {status}: {text}");
        assert!(
            text.contains("bad token <redacted>"),
            "HTTP {status}: {text}"
        );
    }
}
