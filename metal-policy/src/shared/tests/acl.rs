//! ACL users: the shared limits run as a user with exactly
//! [`SharedLimits::acl`]'s rules, over `redis://` and `rediss://`, through
//! every operation (turns, a dropped wait's give-back, learning with its
//! announcement, a pause, a slot held past a renewal), and Redis denies
//! nothing; a wrong password degrades without ever being logged.

use std::time::Duration;

use redis_harness::{or_skip, Certs, ClientCerts, Options, Server};

use super::*;

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
    acl_users(&[&server], &prefix).await;
    let plain = format!("redis://{USER}:{PASSWORD}@127.0.0.1:{}/", server.port());
    let tls = format!(
        "rediss://{USER}:{PASSWORD}@localhost:{}/",
        server.tls_port().unwrap()
    );
    every_operation(SharedLimits::redis(plain, prefix.clone())).await;
    every_operation(SharedLimits::redis(tls, prefix.clone()).ca_file(certs.ca())).await;
    no_denials(&[&server]).await;
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
    acl_users(&[&server], &prefix).await;
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
