//! [`Sentinel`]: a master, its replica and one sentinel watching them.

use std::time::Duration;

use tokio::time::{sleep, Instant};

use crate::server::{Options, Server};
use crate::{info_field, Error, START_TIMEOUT};

/// The name the sentinel knows the master by.
pub const MASTER_NAME: &str = "limits";

/// A master, one replica of it, and one sentinel (quorum 1) that fails
/// over to the replica when asked ([`Sentinel::failover`]) or when the
/// master stops answering for half a second.
#[derive(Debug)]
pub struct Sentinel {
    /// The nodes: the first master, then its replica.
    nodes: [Server; 2],
    sentinel: Server,
}

impl Sentinel {
    /// Starts them and waits until the sentinel knows the replica (so it
    /// can fail over) and the replica is in sync.
    pub async fn start() -> Result<Self, Error> {
        let master = Server::start(Options::new()).await?;
        let replica =
            Server::start(Options::new().arg("replicaof", &format!("127.0.0.1 {}", master.port())))
                .await?;
        let conf = format!(
            "sentinel monitor {MASTER_NAME} 127.0.0.1 {} 1\n\
             sentinel down-after-milliseconds {MASTER_NAME} 500\n\
             sentinel failover-timeout {MASTER_NAME} 5000\n\
             sentinel known-replica {MASTER_NAME} 127.0.0.1 {}\n",
            master.port(),
            replica.port()
        );
        let sentinel = Server::start(Options::new().conf(&conf).sentinel()).await?;
        let s = Self {
            nodes: [master, replica],
            sentinel,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let replicas: Vec<redis::Value> = s
                .sentinel
                .query(redis::cmd("SENTINEL").arg("REPLICAS").arg(MASTER_NAME))
                .await?;
            let replication: String = s.nodes[1]
                .query(redis::cmd("INFO").arg("replication"))
                .await?;
            if !replicas.is_empty() && info_field(&replication, "master_link_status") == Some("up")
            {
                return Ok(s);
            }
            if Instant::now() > deadline {
                return Err(Error::Setup(format!(
                    "the sentinel does not know the replica within {START_TIMEOUT:?}"
                )));
            }
            sleep(Duration::from_millis(50)).await;
        }
    }

    /// The sentinel's URL.
    pub fn sentinel_url(&self) -> String {
        self.sentinel.url()
    }

    /// The two data nodes: the first master, then its replica.
    pub fn nodes(&self) -> &[Server; 2] {
        &self.nodes
    }

    /// The port of the master the sentinel names now.
    pub async fn master_port(&self) -> Result<u16, Error> {
        let (_, port): (String, u16) = self
            .sentinel
            .query(
                redis::cmd("SENTINEL")
                    .arg("GET-MASTER-ADDR-BY-NAME")
                    .arg(MASTER_NAME),
            )
            .await?;
        Ok(port)
    }

    /// Asks the sentinel to fail over, and waits until it names the other
    /// node and that node says it is the master; returns its port.
    pub async fn failover(&self) -> Result<u16, Error> {
        let before = self.master_port().await?;
        let _: String = self
            .sentinel
            .query(redis::cmd("SENTINEL").arg("FAILOVER").arg(MASTER_NAME))
            .await?;
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let now = self.master_port().await?;
            if now != before
                && let Some(node) = self.nodes.iter().find(|s| s.port() == now)
            {
                let replication: String = node.query(redis::cmd("INFO").arg("replication")).await?;
                if info_field(&replication, "role") == Some("master") {
                    return Ok(now);
                }
            }
            if Instant::now() > deadline {
                return Err(Error::Setup(format!(
                    "the sentinel did not fail over within {START_TIMEOUT:?}"
                )));
            }
            sleep(Duration::from_millis(50)).await;
        }
    }
}
