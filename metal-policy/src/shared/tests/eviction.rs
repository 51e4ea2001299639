//! Eviction, against real servers configured to evict: an `allkeys-*`
//! policy is refused at connect; a schedule evicted or deleted under a
//! running client is counted, logged once, and sends the client to read
//! the policy again.

use std::time::Duration;

use redis_harness::{or_skip, Options, Server};
use tokio::time::Instant;

use super::*;

/// A server started with these settings, or the skip.
async fn server(test: &str, settings: &[(&str, &str)]) -> Option<Server> {
    let options = settings
        .iter()
        .fold(Options::new(), |o, (k, v)| o.arg(k, v));
    or_skip(test, Server::start(options).await)
}

/// Writes 100 kB values under other keys until `key` is gone (evicted).
async fn fill_until_evicted(server: &Server, key: &str) {
    let filler = "x".repeat(100_000);
    for i in 0..2000 {
        let _: () = server
            .query(redis::cmd("SET").arg(format!("filler:{i}")).arg(&filler))
            .await
            .unwrap();
        let exists: u8 = server.query(redis::cmd("EXISTS").arg(key)).await.unwrap();
        if exists == 0 {
            return;
        }
    }
    panic!("{key} was not evicted by 200 MB of other keys");
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn an_allkeys_policy_is_refused_at_connect_and_the_rate_still_holds() {
    let name = "an_allkeys_policy_is_refused_at_connect_and_the_rate_still_holds";
    let Some(server) = server(
        name,
        &[("maxmemory", "2mb"), ("maxmemory-policy", "allkeys-lru")],
    )
    .await
    else {
        return;
    };
    let (logs, _guard) = Logs::capture();
    let config =
        SharedLimits::redis(server.url(), prefix()).retry_interval(Duration::from_secs(60));
    let p = Probe::new(config, Pace::fixed(Duration::from_millis(50)), 1, 1);
    let t0 = Instant::now();
    for _ in 0..10 {
        p.shared.acquire_turn().await;
    }
    let took = t0.elapsed();
    assert!(p.shared.degraded());
    assert_eq!(p.degraded.get(), 1);
    // Locally, at the configured rate (the evicting server would have let
    // them all through at once): 10 turns 50 ms apart.
    assert!(took >= Duration::from_millis(440), "{took:?}");
    assert_eq!(
        logs.warnings("maxmemory-policy allkeys-lru"),
        1,
        "one warning names the policy: {}",
        logs.text()
    );
    // Nothing of the limits was written there.
    let keys: Vec<String> = server.query(redis::cmd("KEYS").arg("*")).await.unwrap();
    assert!(keys.is_empty(), "{keys:?}");
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_schedule_evicted_under_a_running_client_is_counted_logged_and_then_refused() {
    let name = "a_schedule_evicted_under_a_running_client_is_counted_logged_and_then_refused";
    let Some(server) = server(name, &[("maxmemory-policy", "noeviction")]).await else {
        return;
    };
    let (logs, _guard) = Logs::capture();
    let config =
        SharedLimits::redis(server.url(), prefix()).retry_interval(Duration::from_secs(60));
    let p = Probe::new(config, Pace::fixed(Duration::from_millis(1)), 1, 1);
    for _ in 0..3 {
        p.shared.reserve_turn().await.unwrap();
    }
    assert_eq!(p.vanished.get(), 0, "noeviction: nothing vanished");
    // The operator switches the server to evict, and memory fills up
    // until the schedule is evicted.
    for (k, v) in [("maxmemory-policy", "allkeys-lru"), ("maxmemory", "4mb")] {
        let _: () = server
            .query(redis::cmd("CONFIG").arg("SET").arg(k).arg(v))
            .await
            .unwrap();
    }
    fill_until_evicted(&server, &p.shared.keys.tat).await;
    let turn = p.shared.reserve_turn().await.unwrap();
    assert_eq!(p.vanished.get(), 1, "the vanished schedule is counted");
    assert_eq!(
        logs.warnings("schedule vanished"),
        1,
        "and logged: {}",
        logs.text()
    );
    assert!(turn.tat_after > 0);
    // The next call connects again, reads the policy, and stops sharing.
    p.shared.acquire_turn().await;
    assert!(p.shared.degraded());
    assert_eq!(logs.warnings("maxmemory-policy allkeys-lru"), 1);
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_deleted_schedule_is_counted_each_time_and_logged_once() {
    let name = "a_deleted_schedule_is_counted_each_time_and_logged_once";
    let Some(server) = server(name, &[]).await else {
        return;
    };
    let (logs, _guard) = Logs::capture();
    let prefix = prefix();
    let config = |p: &str| SharedLimits::redis(server.url(), p).timeout(Duration::from_secs(2));
    // Two processes on one schedule, 100 ms apart.
    let pace = Pace::fixed(Duration::from_millis(100));
    let a = Probe::new(config(&prefix), pace, 1, 1);
    let b = Probe::new(config(&prefix), pace, 1, 1);
    let first = a.shared.reserve_turn().await.unwrap();
    let second = b.shared.reserve_turn().await.unwrap();
    assert_eq!(second.at - first.at, 100_000);
    // The whole schedule is deleted (FLUSHALL, or a restart empty): A
    // rebuilds it from the latest turn it saw, so B's turn is not handed
    // out again; B then sees a schedule made again.
    let _: () = server.query(&redis::cmd("FLUSHALL")).await.unwrap();
    let third = a.shared.reserve_turn().await.unwrap();
    assert!(
        third.at >= first.at + 100_000,
        "rebuilt from A's own turn: {} after the first",
        third.at - first.at
    );
    b.shared.reserve_turn().await.unwrap();
    assert_eq!((a.vanished.get(), b.vanished.get()), (1, 1));
    // Only the tat goes (a key evicted alone): half of it is gone.
    let _: () = server
        .query(redis::cmd("DEL").arg(&a.shared.keys.tat))
        .await
        .unwrap();
    a.shared.reserve_turn().await.unwrap();
    assert_eq!(a.vanished.get(), 2);
    // Each process logged the first one only.
    assert_eq!(logs.warnings("schedule vanished"), 2, "{}", logs.text());
    assert!(!a.shared.degraded() && !b.shared.degraded());
}
