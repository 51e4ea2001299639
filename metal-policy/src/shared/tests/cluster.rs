//! Redis Cluster: a real three-master cluster (one replica each) on
//! loopback. The limits' keys share one slot, so every script runs (no
//! `CROSSSLOT`) on that slot's master alone, as the documented ACL user;
//! when that master is killed the client runs degraded until its replica
//! takes over, then shares the same schedule again.

use std::time::Duration;

use redis_harness::{or_skip, Cluster, Server};
use tokio::time::Instant;

use super::*;

#[tokio::test]
#[ignore = "needs redis-server"]
async fn the_limits_live_in_one_slot_and_survive_a_master_failover() {
    let name = "the_limits_live_in_one_slot_and_survive_a_master_failover";
    let Some(mut cluster) = or_skip(name, Cluster::start(3, 1).await) else {
        return;
    };
    let prefix = prefix();
    let nodes: Vec<&Server> = cluster.nodes().iter().collect();
    acl_users(&nodes, &prefix).await;
    let seeds: Vec<String> = cluster
        .nodes()
        .iter()
        .map(|n| format!("redis://{USER}:{PASSWORD}@127.0.0.1:{}/", n.port()))
        .collect();
    let config = SharedLimits::redis_cluster(seeds, prefix.clone())
        .timeout(Duration::from_millis(500))
        .retry_interval(Duration::from_millis(100));
    every_operation(config.clone()).await;
    no_denials(&nodes).await;
    // Every key is on the slot's master (and its replica), none elsewhere.
    let keys = super::super::keys::Keys::new(&prefix);
    let home = cluster.master_of(&keys.tat).await.unwrap();
    for (i, node) in cluster.nodes().iter().enumerate() {
        let found: Vec<String> = node
            .query(redis::cmd("KEYS").arg(format!("{{{prefix}}}:*")))
            .await
            .unwrap();
        let role: String = node
            .query(redis::cmd("INFO").arg("replication"))
            .await
            .unwrap();
        let replica_of_home =
            role.contains(&format!("master_port:{}", cluster.nodes()[home].port()));
        if i == home || replica_of_home {
            assert!(found.contains(&keys.tat), "node {i}: {found:?}");
        } else {
            assert!(found.is_empty(), "node {i} holds {found:?}");
        }
    }

    // One process on the cluster, 50 ms apart.
    let p = Probe::new(config, Pace::fixed(Duration::from_millis(50)), 1, 1);
    p.shared.acquire_turn().await;
    let before = p.shared.reserve_turn().await.unwrap();
    cluster.kill(home).await;
    let killed = Instant::now();
    // While no master serves the slot the client degrades to local turns.
    while !p.shared.degraded() {
        assert!(killed.elapsed() < Duration::from_secs(5), "never degraded");
        p.shared.acquire_turn().await;
    }
    assert_eq!(p.degraded.get(), 1);
    let promoted = cluster
        .wait_for_master_of(&keys.tat, Duration::from_secs(15))
        .await
        .unwrap();
    assert_ne!(promoted, home);
    // Its next probe finds the new master, which has the schedule.
    let back = Instant::now();
    while p.shared.degraded() {
        assert!(
            back.elapsed() < Duration::from_secs(5),
            "never shared again"
        );
        p.shared.acquire_turn().await;
    }
    println!(
        "{name}: the replica took over {:?} after the kill",
        back - killed
    );
    let after = p.shared.reserve_turn().await.unwrap();
    assert_eq!(after.born, before.born, "the same schedule, replicated");
    assert_eq!(p.vanished.get(), 0);
    // And it paces again: five turns 50 ms apart.
    let t0 = Instant::now();
    for _ in 0..5 {
        p.shared.acquire_turn().await;
    }
    assert!(
        t0.elapsed() >= Duration::from_millis(190),
        "{:?}",
        t0.elapsed()
    );
    assert!(!p.shared.degraded());
}
