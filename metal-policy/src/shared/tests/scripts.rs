//! The Lua scripts against a real Redis, one backend or several (as
//! several processes would be) on one prefix.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::limit::pace::{Pace, Reading};
use crate::shared::slots::SharedSlot;

#[tokio::test]
#[ignore = "needs redis-server"]
async fn gcra_spaces_reservations_after_the_burst() {
    let Some(r) = Plain::get("gcra_spaces_reservations_after_the_burst").await else {
        return;
    };
    let s = backend(&r.url, Duration::from_millis(200), 2, 1);
    let t0 = Instant::now();
    let mut waits = Vec::new();
    for want in [0, 0, 200, 400] {
        let wait = reserve(&s).await;
        let elapsed = t0.elapsed();
        waits.push(wait);
        assert!(
            near(wait, Duration::from_millis(want), elapsed),
            "burst of 2, then 200 ms apart: {waits:?} after {elapsed:?}"
        );
    }
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_pause_delays_every_turn_and_is_never_shortened() {
    let Some(r) = Plain::get("a_pause_delays_every_turn_and_is_never_shortened").await else {
        return;
    };
    let s = backend(&r.url, Duration::from_millis(10), 1, 1);
    let t0 = Instant::now();
    s.pause(Some(Duration::from_millis(600))).await;
    s.pause(Some(Duration::from_millis(100))).await;
    let left = s
        .run::<u64>(s.scripts.pause_left.key(&s.keys.pause))
        .await
        .unwrap();
    assert!(
        near(
            Duration::from_micros(left),
            Duration::from_millis(600),
            t0.elapsed()
        ),
        "{left} µs"
    );
    // A second backend on the same prefix (another process) waits too.
    let other = Probe::new(s.config.clone(), s.pace, 1, 1).shared;
    let wait = reserve(&other).await;
    assert!(
        near(wait, Duration::from_millis(600), t0.elapsed()),
        "{wait:?}"
    );
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn slots_are_served_in_arrival_order_and_leases_expire() {
    let Some(r) = Plain::get("slots_are_served_in_arrival_order_and_leases_expire").await else {
        return;
    };
    let s = backend(&r.url, Duration::ZERO, 1, 2);
    let ttl = Duration::from_secs(5);
    assert!(acquire(&s, "a", ttl).await);
    assert!(acquire(&s, "b", ttl).await);
    assert!(!acquire(&s, "c", ttl).await, "the limit is 2");
    assert!(!acquire(&s, "d", ttl).await);
    release(&s, "a").await;
    // d polls first, but c queued first: c is served.
    assert!(!acquire(&s, "d", ttl).await, "d is behind c");
    assert!(acquire(&s, "c", ttl).await);
    assert!(!acquire(&s, "d", ttl).await, "b and c hold both slots");
    // b and c stop renewing (a crashed process): after the lease (1 s)
    // their slots are free again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert!(acquire(&s, "d", ttl).await);
    assert!(acquire(&s, "e", ttl).await);
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_waiter_is_told_its_place_in_line() {
    let Some(r) = Plain::get("a_waiter_is_told_its_place_in_line").await else {
        return;
    };
    let s = backend(&r.url, Duration::ZERO, 1, 1);
    let ttl = Duration::from_secs(5);
    assert_eq!(acquire_reply(&s, "a", ttl).await, 1);
    assert_eq!(acquire_reply(&s, "b", ttl).await, -1, "next");
    assert_eq!(acquire_reply(&s, "c", ttl).await, -2);
    assert_eq!(acquire_reply(&s, "d", ttl).await, -3);
    release(&s, "a").await;
    assert_eq!(
        acquire_reply(&s, "c", ttl).await,
        -1,
        "b's slot is free, b is ahead"
    );
    assert_eq!(acquire_reply(&s, "b", ttl).await, 1);
    assert_eq!(acquire_reply(&s, "d", ttl).await, -2);
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_waiter_that_stops_polling_leaves_the_queue() {
    let Some(r) = Plain::get("a_waiter_that_stops_polling_leaves_the_queue").await else {
        return;
    };
    let s = backend(&r.url, Duration::ZERO, 1, 1);
    assert!(acquire(&s, "holder", Duration::from_secs(5)).await);
    assert!(!acquire(&s, "ghost", Duration::from_millis(100)).await);
    assert!(!acquire(&s, "live", Duration::from_secs(5)).await);
    release(&s, "holder").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        acquire(&s, "live", Duration::from_secs(5)).await,
        "the ghost expired"
    );
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn shared_slots_through_the_backend_api_release_on_drop() {
    let Some(r) = Plain::get("shared_slots_through_the_backend_api_release_on_drop").await else {
        return;
    };
    let s = backend(&r.url, Duration::ZERO, 1, 1);
    let slot = s.acquire_slot().await;
    assert!(matches!(slot, SharedSlot::Lease(_)));
    let second = tokio::time::timeout(Duration::from_millis(200), s.acquire_slot()).await;
    assert!(second.is_err(), "the one slot is held");
    drop(slot);
    let third = tokio::time::timeout(Duration::from_millis(200), s.acquire_slot()).await;
    assert!(
        matches!(third, Ok(SharedSlot::Lease(_))),
        "released on drop"
    );
    assert!(!s.degraded());
}

#[tokio::test]
async fn unreachable_redis_degrades_to_local_limits_at_rate_over_n() {
    // A port nothing listens on.
    let url = format!("redis://127.0.0.1:{}/", redis_harness::free_port().unwrap());
    let config = SharedLimits::redis(url, "x")
        .processes(2)
        .timeout(Duration::from_millis(100))
        .retry_interval(Duration::from_secs(60));
    let probe = Probe::new(config, Pace::fixed(Duration::from_millis(50)), 1, 4);
    let (s, gauge) = (probe.shared, probe.degraded);
    let t0 = Instant::now();
    for _ in 0..3 {
        s.acquire_turn().await;
    }
    assert!(s.degraded());
    assert_eq!(gauge.get(), 1);
    // Local turns at twice the spacing: 0, 100, 200 ms.
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(200), "{took:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    // Local slots: 4 / 2 processes.
    let a = s.acquire_slot().await;
    let b = s.acquire_slot().await;
    assert!(matches!(
        (&a, &b),
        (SharedSlot::Local(_), SharedSlot::Local(_))
    ));
    let c = tokio::time::timeout(Duration::from_millis(100), s.acquire_slot()).await;
    assert!(c.is_err(), "degraded: 2 local slots");
}

/// Backends of `n` processes sharing one prefix, learning the pace from
/// replies, with a 2 s spacing until they do.
fn learning_processes(url: &str, n: usize) -> Vec<Arc<Shared>> {
    let prefix = prefix();
    let pace = Pace {
        base: Duration::from_secs(2),
        floor: Duration::ZERO,
        learn: true,
        share: 1,
    };
    (0..n)
        .map(|_| {
            let config = SharedLimits::redis(url, prefix.clone())
                .processes(n as u32)
                .timeout(Duration::from_millis(500));
            Probe::new(config, pace, 1, 1).shared
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_pace_learned_by_one_process_paces_them_all_through_one_budget() {
    let Some(r) =
        Plain::get("a_pace_learned_by_one_process_paces_them_all_through_one_budget").await
    else {
        return;
    };
    let p = learning_processes(&r.url, 3);
    // Process 0 saw a reply: 10 left in the next second, 100 ms apart.
    p[0].learn(Reading {
        remaining: 10,
        until: Duration::from_secs(1),
    })
    .await;
    // Processes 1 and 2 saw none, yet pace by it (not their 2 s default),
    // and all three together take one schedule: six turns, 0 to 500 ms,
    // not each process its own 100 ms spacing (which would end at 100 ms).
    let t0 = Instant::now();
    for i in 0..6 {
        p[i % 3].acquire_turn().await;
    }
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(490), "{took:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    assert!(p.iter().all(|s| !s.degraded()));
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_much_faster_learned_pace_pulls_back_turns_already_waiting() {
    let Some(r) = Plain::get("a_much_faster_learned_pace_pulls_back_turns_already_waiting").await
    else {
        return;
    };
    let p = learning_processes(&r.url, 1).remove(0);
    let t0 = Instant::now();
    p.acquire_turn().await;
    // The next turn is 2 s away at the default spacing.
    let waiting = tokio::spawn({
        let p = Arc::clone(&p);
        async move {
            p.acquire_turn().await;
            t0.elapsed()
        }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    p.learn(Reading {
        remaining: 100,
        until: Duration::from_secs(10),
    })
    .await;
    let took = waiting.await.unwrap();
    assert!(took < Duration::from_millis(1000), "{took:?}");
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn none_remaining_holds_every_process_until_the_reset() {
    let Some(r) = Plain::get("none_remaining_holds_every_process_until_the_reset").await else {
        return;
    };
    let p = learning_processes(&r.url, 2);
    p[0].learn(Reading {
        remaining: 0,
        until: Duration::from_millis(600),
    })
    .await;
    let t0 = Instant::now();
    p[1].acquire_turn().await;
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(550), "{took:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_dropped_wait_gives_its_shared_turn_back() {
    let Some(r) = Plain::get("a_dropped_wait_gives_its_shared_turn_back").await else {
        return;
    };
    let s = backend(&r.url, Duration::from_millis(400), 1, 1);
    let t0 = Instant::now();
    s.acquire_turn().await; // the next turn is 400 ms away
    for _ in 0..4 {
        // Each wait is dropped after 50 ms, before its turn.
        let dropped = tokio::time::timeout(Duration::from_millis(50), s.acquire_turn()).await;
        assert!(dropped.is_err());
        // The give-back runs in the background.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    s.acquire_turn().await;
    let took = t0.elapsed();
    // At 400 ms, not behind four burnt turns (2 s).
    assert!(took >= Duration::from_millis(390), "{took:?}");
    assert!(took < Duration::from_millis(1200), "{took:?}");
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_shared_turn_given_back_twice_is_never_handed_to_two_requests() {
    let Some(r) =
        Plain::get("a_shared_turn_given_back_twice_is_never_handed_to_two_requests").await
    else {
        return;
    };
    let s = backend(&r.url, Duration::from_secs(10), 1, 1);
    let first = s.reserve_turn().await.unwrap(); // now
    let a = s.reserve_turn().await.unwrap(); // +10 s
    let b = s.reserve_turn().await.unwrap(); // +20 s
    assert_eq!((a.at - first.at, b.at - first.at), (10_000_000, 20_000_000));
    // A is dropped while B waits: A's instant is kept.
    assert_eq!(s.give_back(a).await.unwrap(), 2);
    // C is handed A's instant, and is dropped too: kept again, not a step
    // back of the schedule (which would hand out B's instant).
    let c = s.reserve_turn().await.unwrap();
    assert_eq!((c.at, c.reused), (a.at, true));
    assert_eq!(s.give_back(c).await.unwrap(), 2);
    let d = s.reserve_turn().await.unwrap();
    let e = s.reserve_turn().await.unwrap();
    assert_eq!(d.at, a.at);
    assert_eq!(e.at - first.at, 30_000_000, "not B's instant");
    // The last turn reserved, given back, moves the schedule back a step.
    assert_eq!(s.give_back(e).await.unwrap(), 1);
    assert_eq!(s.reserve_turn().await.unwrap().at, e.at);
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_faster_pace_learned_by_another_process_reschedules_waiting_turns() {
    let Some(r) =
        Plain::get("a_faster_pace_learned_by_another_process_reschedules_waiting_turns").await
    else {
        return;
    };
    let p = learning_processes(&r.url, 2);
    let t0 = Instant::now();
    p[1].acquire_turn().await;
    // Process 1's next turn is 2 s away at the default spacing.
    let waiting = tokio::spawn({
        let p1 = Arc::clone(&p[1]);
        async move {
            p1.acquire_turn().await;
            t0.elapsed()
        }
    });
    // Let process 1 subscribe to the announcements.
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Process 0 learns: 100 left in the next 10 s, 100 ms apart.
    p[0].learn(Reading {
        remaining: 100,
        until: Duration::from_secs(10),
    })
    .await;
    let took = waiting.await.unwrap();
    assert!(took < Duration::from_millis(1000), "{took:?}");
    assert!(p.iter().all(|s| !s.degraded()));
}
