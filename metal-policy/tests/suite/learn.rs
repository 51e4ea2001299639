//! The pace learned from the server's `X-RateLimit-Remaining` and
//! `X-RateLimit-Reset`, on a scripted exchange and tokio's paused clock:
//! the spacing spreads `Remaining` until `Reset` (in seconds or as a Unix
//! time), never faster than a configured `api_rate` nor slower than 5 min,
//! for the whole client; without headers the configured or default spacing
//! holds.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{client, Reply, Script};
use metal_api::types;
use metal_policy::client::DEFAULT_API_RATE;
use metal_policy::{Client, ClientBuilder, Error};
use tokio::time::Instant;
use uuid::Uuid;

/// A project, with the budget `remaining` until `reset` (a header value).
fn project(op: &metal_api::Operation, remaining: u64, reset: &str) -> Reply {
    Reply::ok(op, types::Project::default())
        .header("x-ratelimit-limit", "1000")
        .header("x-ratelimit-remaining", &remaining.to_string())
        .header("x-ratelimit-reset", reset)
}

/// Always the same budget: `remaining` left, reset in `seconds`.
fn announcing(remaining: u64, seconds: u64) -> Arc<Script> {
    Script::new(Duration::ZERO, move |op, _, _| {
        project(op, remaining, &seconds.to_string())
    })
}

/// A learning client over `t`, with no `api_rate` of its own.
fn learning(t: &Arc<Script>) -> ClientBuilder {
    Client::builder().api(t.api()).learn_rate(true)
}

async fn get(c: &Client) -> Result<types::Project, Error> {
    c.call(|api| api.find_project_by_id().id(Uuid::nil()).send())
        .await
}

/// The gaps between the requests the script saw.
fn gaps(t: &Script) -> Vec<Duration> {
    t.times().windows(2).map(|w| w[1] - w[0]).collect()
}

fn ms(v: &[u64]) -> Vec<Duration> {
    v.iter().map(|m| Duration::from_millis(*m)).collect()
}

#[tokio::test(start_paused = true)]
async fn remaining_is_spread_until_a_reset_in_seconds() {
    // 10 left in the next 2 s: 200 ms apart, not the default 2 s.
    let t = announcing(10, 2);
    let c = learning(&t).build().unwrap();
    let t0 = Instant::now();
    for _ in 0..4 {
        get(&c).await.unwrap();
    }
    assert_eq!(gaps(&t), ms(&[200, 200, 200]));
    assert_eq!(t0.elapsed(), Duration::from_millis(600));
}

#[tokio::test(start_paused = true)]
async fn remaining_is_spread_until_a_reset_given_as_a_unix_time() {
    // 50 left until a Unix time 10 s ahead (whole seconds, so 9 to 10 s
    // from the reply, by the wall clock): 180 to 200 ms apart.
    let t = Script::new(Duration::ZERO, |op, _, _| {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        project(op, 50, &(now.as_secs() + 10).to_string())
    });
    let c = learning(&t).build().unwrap();
    for _ in 0..4 {
        get(&c).await.unwrap();
    }
    for gap in gaps(&t) {
        assert!(
            gap >= Duration::from_millis(179) && gap <= Duration::from_millis(200),
            "{:?}",
            gaps(&t)
        );
    }
}

#[tokio::test(start_paused = true)]
async fn the_learned_pace_is_never_faster_than_a_configured_api_rate() {
    // The server would take 1000 in the next second; the user said 500 ms.
    let t = announcing(1000, 1);
    let c = learning(&t)
        .api_rate(Duration::from_millis(500))
        .build()
        .unwrap();
    for _ in 0..3 {
        get(&c).await.unwrap();
    }
    assert_eq!(gaps(&t), ms(&[500, 500]));

    // A server with less to give slows a configured rate down: 2 left in
    // the next 6 s.
    let t = announcing(2, 6);
    let c = learning(&t)
        .api_rate(Duration::from_millis(500))
        .build()
        .unwrap();
    for _ in 0..3 {
        get(&c).await.unwrap();
    }
    // The first gap is the configured spacing (its turn was reserved before
    // the first reply); then 3 s.
    assert_eq!(gaps(&t), ms(&[500, 3000]));
}

#[tokio::test(start_paused = true)]
async fn without_headers_the_default_or_configured_spacing_holds() {
    let plain = || {
        Script::new(Duration::ZERO, |op, _, _| {
            Reply::ok(op, types::Project::default())
        })
    };
    let t = plain();
    let c = learning(&t).build().unwrap();
    for _ in 0..3 {
        get(&c).await.unwrap();
    }
    assert_eq!(gaps(&t), vec![DEFAULT_API_RATE; 2]);

    let t = plain();
    let c = learning(&t)
        .api_rate(Duration::from_secs(1))
        .build()
        .unwrap();
    for _ in 0..3 {
        get(&c).await.unwrap();
    }
    assert_eq!(gaps(&t), ms(&[1000, 1000]));

    // Half the headers are no reading.
    let t = Script::new(Duration::ZERO, |op, _, _| {
        Reply::ok(op, types::Project::default()).header("x-ratelimit-remaining", "1000")
    });
    let c = learning(&t)
        .api_rate(Duration::from_secs(1))
        .build()
        .unwrap();
    for _ in 0..3 {
        get(&c).await.unwrap();
    }
    assert_eq!(gaps(&t), ms(&[1000, 1000]));
}

#[tokio::test(start_paused = true)]
async fn learning_is_off_unless_asked_for() {
    let t = announcing(1000, 1);
    let c = client(t.clone())
        .api_rate(Duration::from_secs(1))
        .build()
        .unwrap();
    for _ in 0..3 {
        get(&c).await.unwrap();
    }
    assert_eq!(gaps(&t), ms(&[1000, 1000]));
}

#[tokio::test(start_paused = true)]
async fn the_learned_pace_is_client_wide_and_reaches_requests_already_waiting() {
    // Each exchange takes 50 ms; 100 left in the next 10 s: 100 ms apart.
    let t = Script::new(Duration::from_millis(50), |op, _, _| project(op, 100, "10"));
    let c = learning(&t).parallelism(4).build().unwrap();
    let t0 = Instant::now();
    // Eight calls at once, from clones of the client. Before the first
    // reply the default 2 s spacing holds, so three of them wait for turns
    // at 2, 4 and 6 s; the first reply (at 50 ms) reschedules them.
    let calls = (0..8).map(|_| {
        let c = c.clone();
        async move { get(&c).await }
    });
    for r in futures::future::join_all(calls).await {
        r.unwrap();
    }
    let at: Vec<Duration> = t.times().into_iter().map(|i| i - t0).collect();
    assert_eq!(at, ms(&[0, 100, 200, 300, 400, 500, 600, 700]));
}

#[tokio::test(start_paused = true)]
async fn none_remaining_holds_every_request_until_the_reset() {
    // The first reply says none is left for 30 s; the next say plenty.
    let t = Script::new(Duration::ZERO, |op, _, n| match n {
        0 => project(op, 0, "30"),
        _ => project(op, 100, "10"),
    });
    let c = learning(&t).build().unwrap();
    let t0 = Instant::now();
    for _ in 0..3 {
        get(&c).await.unwrap();
    }
    let at: Vec<Duration> = t.times().into_iter().map(|i| i - t0).collect();
    // Nothing before the reset (the second request's turn, reserved at the
    // default spacing, is moved to it); then 100 ms apart.
    assert_eq!(at, ms(&[0, 30_000, 30_100]));
}

#[tokio::test(start_paused = true)]
async fn a_reset_however_far_spaces_requests_by_five_minutes_at_most() {
    // One left until a year from now, in seconds; then as a Unix time the
    // clock barely holds (i64::MAX seconds): neither holds a request past
    // the longest learned spacing, nor panics.
    for reset in ["31536000", "9223372036854775807"] {
        let t = Script::new(Duration::ZERO, move |op, _, _| project(op, 1, reset));
        let c = learning(&t).build().unwrap();
        for _ in 0..4 {
            get(&c).await.unwrap();
        }
        // The first gap is the default spacing (its turn was reserved
        // before the first reply); then 5 min.
        assert_eq!(
            gaps(&t),
            vec![
                DEFAULT_API_RATE,
                Duration::from_secs(300),
                Duration::from_secs(300)
            ],
            "Reset: {reset}"
        );
    }
}
