//! [`Cluster`]: a Redis Cluster of masters and replicas on loopback.

use std::time::Duration;

use tokio::process::Command;
use tokio::time::{sleep, Instant};

use crate::server::{Options, Server};
use crate::{info_field, Error, START_TIMEOUT};

/// How long a node may be unreachable before the others count it failed
/// (`cluster-node-timeout`): short, so a killed master's replica takes
/// over within about two seconds.
pub const NODE_TIMEOUT: Duration = Duration::from_millis(500);

/// A Redis Cluster: `masters` masters splitting the 16384 slots, each
/// with `replicas` replicas, made by `redis-cli --cluster create`.
#[derive(Debug)]
pub struct Cluster {
    nodes: Vec<Server>,
}

impl Cluster {
    /// Starts the nodes, joins them, and waits until every node sees the
    /// cluster `ok` and every replica is in sync with its master.
    pub async fn start(masters: usize, replicas: usize) -> Result<Self, Error> {
        let n = masters * (1 + replicas);
        let mut nodes = Vec::with_capacity(n);
        for _ in 0..n {
            nodes.push(
                Server::start(
                    Options::new()
                        .arg("cluster-enabled", "yes")
                        .arg("cluster-config-file", "nodes.conf")
                        .arg(
                            "cluster-node-timeout",
                            &NODE_TIMEOUT.as_millis().to_string(),
                        )
                        // A replica may take over however long its link was down.
                        .arg("cluster-replica-validity-factor", "0"),
                )
                .await?,
            );
        }
        let addrs: Vec<String> = nodes
            .iter()
            .map(|s| format!("127.0.0.1:{}", s.port()))
            .collect();
        let out = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addrs)
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .output()
            .await
            .map_err(|source| Error::Spawn {
                program: "redis-cli",
                source,
            })?;
        if !out.status.success() {
            return Err(Error::Setup(format!(
                "redis-cli --cluster create failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        let cluster = Self { nodes };
        cluster.settle(n).await?;
        Ok(cluster)
    }

    /// Waits until every running node sees `known` nodes and the cluster
    /// `ok`, and every running replica's link to its master is up.
    async fn settle(&self, known: usize) -> Result<(), Error> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let mut ready = true;
            for node in self.nodes.iter().filter(|s| s.running()) {
                let info: String = node.query(redis::cmd("CLUSTER").arg("INFO")).await?;
                let replication: String = node.query(redis::cmd("INFO").arg("replication")).await?;
                ready &= info_field(&info, "cluster_state") == Some("ok")
                    && info_field(&info, "cluster_known_nodes") == Some(&known.to_string())
                    && (info_field(&replication, "role") == Some("master")
                        || info_field(&replication, "master_link_status") == Some("up"));
            }
            if ready {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Error::Setup(format!(
                    "the cluster is not ok within {START_TIMEOUT:?}"
                )));
            }
            sleep(Duration::from_millis(50)).await;
        }
    }

    /// Every node's URL (the seeds a cluster client is given).
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(Server::url).collect()
    }

    /// The nodes, in the order they were started.
    pub fn nodes(&self) -> &[Server] {
        &self.nodes
    }

    /// The index of the running master that serves `key`'s slot.
    pub async fn master_of(&self, key: &str) -> Result<usize, Error> {
        let asked = self.any()?;
        let slot: u16 = asked
            .query(redis::cmd("CLUSTER").arg("KEYSLOT").arg(key))
            .await?;
        for (i, node) in self.nodes.iter().enumerate().filter(|(_, s)| s.running()) {
            let replication: String = node.query(redis::cmd("INFO").arg("replication")).await?;
            if info_field(&replication, "role") != Some("master") {
                continue;
            }
            let shards: String = node.query(redis::cmd("CLUSTER").arg("NODES")).await?;
            let owns = shards
                .lines()
                .find(|l| l.split(' ').nth(2).is_some_and(|f| f.contains("myself")))
                .is_some_and(|l| {
                    l.split(' ').skip(8).any(|range| {
                        let (a, b) = range.split_once('-').unwrap_or((range, range));
                        match (a.parse::<u16>(), b.parse::<u16>()) {
                            (Ok(a), Ok(b)) => (a..=b).contains(&slot),
                            _ => false,
                        }
                    })
                });
            if owns {
                return Ok(i);
            }
        }
        Err(Error::Setup(format!(
            "no running master serves slot {slot}"
        )))
    }

    /// Kills node `i` (SIGKILL).
    pub async fn kill(&mut self, i: usize) {
        if let Some(node) = self.nodes.get_mut(i) {
            node.stop().await;
        }
    }

    /// Waits until a running master serves `key`'s slot again (after the
    /// master serving it was killed, its replica's promotion) and the
    /// running nodes see the cluster `ok`; returns that master's index.
    pub async fn wait_for_master_of(&self, key: &str, within: Duration) -> Result<usize, Error> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(i) = self.master_of(key).await {
                let mut ok = true;
                for node in self.nodes.iter().filter(|s| s.running()) {
                    let info: String = node.query(redis::cmd("CLUSTER").arg("INFO")).await?;
                    ok &= info_field(&info, "cluster_state") == Some("ok");
                }
                if ok {
                    return Ok(i);
                }
            }
            if Instant::now() > deadline {
                return Err(Error::Setup(format!(
                    "no master serves {key:?} within {within:?}"
                )));
            }
            sleep(Duration::from_millis(50)).await;
        }
    }

    fn any(&self) -> Result<&Server, Error> {
        self.nodes
            .iter()
            .find(|s| s.running())
            .ok_or_else(|| Error::Setup("no node of the cluster is running".into()))
    }
}
