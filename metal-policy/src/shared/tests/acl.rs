//! ACL users: the shared limits run as a user with exactly
//! [`SharedLimits::acl`]'s rules, over `redis://` and `rediss://`, through
//! every operation (turns, a dropped wait's give-back, learning with its
//! announcement, a pause, a slot held past a renewal), and Redis denies
//! nothing; a wrong password degrades without ever being logged.

use std::time::Duration;

use redis_harness::{or_skip, Certs, ClientCerts, Options, Server};
use tokio::time::sleep;

use super::*;
use crate::limit::pace::Reading;

const USER: &str = "limits";
const PASSWORD: &str = "acl-test-password";

/// Runs every operation of two learning processes through `config`'s
/// Redis, on one prefix.
async fn every_operation(config: SharedLimits) {
    let pace = Pace {
        base: Duration::from_millis(400),
        floor: Duration::ZERO,
        learn: true,
        share: 1,
    };
    let config = config.lease(Duration::from_millis(90));
    let a = Probe::new(config.clone(), pace, 1, 2);
    let b = Probe::new(config, pace, 1, 2);
    // Turns, and the subscription each learning process starts.
    a.shared.acquire_turn().await;
    b.shared.acquire_turn().await;
    // A wait dropped before its turn gives it back.
    assert!(
        tokio::time::timeout(Duration::from_millis(50), a.shared.acquire_turn())
            .await
            .is_err()
    );
    sleep(Duration::from_millis(50)).await;
    // B's next turn is ~400 ms away; A learns a much faster pace, which
    // pulls the schedule back and announces it.
    let waiting = tokio::spawn({
        let b = Arc::clone(&b.shared);
        async move { b.acquire_turn().await }
    });
    sleep(Duration::from_millis(100)).await;
    a.shared
        .learn(Reading {
            remaining: 100,
            until: Duration::from_secs(10),
        })
        .await;
    waiting.await.unwrap();
    // A pause, waited out (the turn asks for the pause left after it).
    a.shared.pause(Some(Duration::from_millis(100))).await;
    b.shared.acquire_turn().await;
    // A slot held past a renewal (a third of the lease), then released.
    let slot = a.shared.acquire_slot().await;
    assert!(matches!(slot, slots::SharedSlot::Lease(_)));
    sleep(Duration::from_millis(100)).await;
    drop(slot);
    sleep(Duration::from_millis(50)).await;
    for p in [&a, &b] {
        assert!(!p.shared.degraded(), "every operation went through Redis");
        assert_eq!(p.vanished.get(), 0);
    }
}

#[tokio::test]
async fn the_documented_acl_is_enough_for_every_operation_over_redis_and_rediss() {
    let name = "the_documented_acl_is_enough_for_every_operation_over_redis_and_rediss";
    let Some(certs) = or_skip(name, Certs::new()) else {
        return;
    };
    let Some(server) = or_skip(
        name,
        Server::start(Options::new().tls(&certs, ClientCerts::No)).await,
    ) else {
        return;
    };
    let prefix = prefix();
    let rules = SharedLimits::redis("redis://unused", prefix.clone()).acl();
    acl_user(&server, USER, PASSWORD, &rules).await;
    let plain = format!("redis://{USER}:{PASSWORD}@127.0.0.1:{}/", server.port());
    let tls = format!(
        "rediss://{USER}:{PASSWORD}@localhost:{}/",
        server.tls_port().unwrap()
    );
    every_operation(SharedLimits::redis(plain, prefix.clone())).await;
    every_operation(SharedLimits::redis(tls, prefix.clone()).ca_file(certs.ca())).await;
    assert_eq!(acl_denials(&server).await, Vec::<String>::new());
    // The rules really are narrow: another prefix's keys are refused.
    let other = format!("redis://{USER}:{PASSWORD}@127.0.0.1:{}/", server.port());
    let p = Probe::new(
        SharedLimits::redis(other, "another").retry_interval(Duration::from_secs(60)),
        Pace::fixed(Duration::from_millis(1)),
        1,
        1,
    );
    p.shared.acquire_turn().await;
    assert!(p.shared.degraded());
    assert!(!acl_denials(&server).await.is_empty());
}

#[tokio::test]
async fn a_wrong_password_degrades_once_and_is_never_logged() {
    let name = "a_wrong_password_degrades_once_and_is_never_logged";
    let Some(server) = or_skip(name, Server::start(Options::new()).await) else {
        return;
    };
    let prefix = prefix();
    let rules = SharedLimits::redis("redis://unused", prefix.clone()).acl();
    acl_user(&server, USER, PASSWORD, &rules).await;
    let (logs, _guard) = Logs::capture();
    let wrong = "not-the-password-1234";
    let url = format!("redis://{USER}:{wrong}@127.0.0.1:{}/", server.port());
    let p = Probe::new(
        SharedLimits::redis(url, prefix).retry_interval(Duration::from_millis(20)),
        Pace::fixed(Duration::from_millis(10)),
        1,
        1,
    );
    for _ in 0..5 {
        p.shared.acquire_turn().await;
    }
    assert!(p.shared.degraded());
    let text = logs.text();
    assert_eq!(logs.warnings("shared limits unavailable"), 1, "{text}");
    assert!(!text.contains(wrong), "{text}");
    assert!(!format!("{:?}", p.shared).contains(wrong));
}
