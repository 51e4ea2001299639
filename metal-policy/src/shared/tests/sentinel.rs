//! Sentinel: a master, its replica and a sentinel, real, on loopback. The
//! limits run on the master the sentinel names, as the documented ACL
//! user; after a failover the client moves to the new master (told by the
//! sentinel's `+switch-master`, or refused by the demoted one), which
//! holds the same schedule.

use std::time::Duration;

use redis_harness::{or_skip, Sentinel, Server, SENTINEL_MASTER};
use tokio::time::Instant;

use super::*;
use crate::shared::SharedLimitsError;

#[tokio::test]
#[ignore = "needs redis-server"]
async fn the_limits_follow_the_master_a_sentinel_names() {
    let name = "the_limits_follow_the_master_a_sentinel_names";
    let Some(sentinel) = or_skip(name, Sentinel::start().await) else {
        return;
    };
    let prefix = prefix();
    let nodes: Vec<&Server> = sentinel.nodes().iter().collect();
    acl_users(&nodes, &prefix).await;
    let master = format!("redis://{USER}:{PASSWORD}@{SENTINEL_MASTER}/");
    let config = SharedLimits::redis_sentinel(&master, [sentinel.sentinel_url()], prefix)
        .timeout(Duration::from_millis(500))
        .retry_interval(Duration::from_millis(100));
    // Its master is only known at connect time: a plaintext password must
    // be allowed explicitly.
    assert!(matches!(
        super::super::connect::Connector::new(&config),
        Err(SharedLimitsError::PlaintextPassword { .. })
    ));
    let config = config.allow_plaintext_password(true);
    every_operation(config.clone()).await;
    no_denials(&nodes).await;

    let p = Probe::new(config, Pace::fixed(Duration::from_millis(50)), 1, 1);
    p.shared.acquire_turn().await;
    let before = p.shared.reserve_turn().await.unwrap();
    let new_port = sentinel.failover().await.unwrap();
    let new_master = sentinel
        .nodes()
        .iter()
        .find(|n| n.port() == new_port)
        .unwrap();
    let failed_over = Instant::now();
    // The client's turns move to the new master: the schedule there is
    // the one the client's turns move on.
    let mut degraded_seen = false;
    loop {
        p.shared.acquire_turn().await;
        degraded_seen |= p.shared.degraded();
        let turn = p.shared.reserve_turn().await;
        let tat: Option<u64> = new_master
            .query(redis::cmd("GET").arg(&p.shared.keys.tat))
            .await
            .unwrap();
        if let (Ok(turn), Some(tat)) = (turn, tat)
            && turn.tat_after == tat
        {
            assert_eq!(turn.born, before.born, "the same schedule, replicated");
            break;
        }
        assert!(
            failed_over.elapsed() < Duration::from_secs(10),
            "the client never moved to the new master"
        );
    }
    println!(
        "{name}: on the new master {:?} after the failover (degraded meanwhile: {degraded_seen})",
        failed_over.elapsed()
    );
    assert_eq!(p.vanished.get(), 0);
    assert!(!p.shared.degraded());
}
