//! The Redis the controllers share limits through: a `redis-server` the
//! soak starts on a free loopback port (as the shared-limits tests do),
//! kills and starts again on the same port.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

/// How long a started server may take to answer `PING`.
const START_TIMEOUT: Duration = Duration::from_secs(5);

/// Why Redis could not be started.
#[derive(Debug, thiserror::Error)]
pub enum RedisError {
    /// `redis-server` could not be run.
    #[error("cannot run redis-server (is it installed?): {0}")]
    Spawn(#[source] std::io::Error),
    /// It ran but did not answer.
    #[error("redis-server on port {0} does not answer PING")]
    NoAnswer(u16),
    /// No free port.
    #[error("no free port: {0}")]
    Port(#[source] std::io::Error),
}

/// A `redis-server` child on one port.
pub struct Redis {
    port: u16,
    child: Option<Child>,
}

impl Redis {
    /// Starts one on a free port.
    pub async fn start() -> Result<Self, RedisError> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(RedisError::Port)?
            .port();
        let mut r = Self { port, child: None };
        r.up().await?;
        Ok(r)
    }

    /// The URL clients use.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts the server (again) on its port and waits for `PING`.
    pub async fn up(&mut self) -> Result<(), RedisError> {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(RedisError::Spawn)?;
        self.child = Some(child);
        let deadline = tokio::time::Instant::now() + START_TIMEOUT;
        while tokio::time::Instant::now() < deadline {
            if ping(self.port).await {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Err(RedisError::NoAnswer(self.port))
    }

    /// Kills the server (SIGKILL: it forgets everything) and waits for it.
    pub async fn down(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill().await;
        }
    }
}

async fn ping(port: u16) -> bool {
    let attempt = async {
        let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        s.write_all(b"PING\r\n").await?;
        let mut buf = [0u8; 7];
        s.read_exact(&mut buf).await?;
        Ok::<bool, std::io::Error>(&buf == b"+PONG\r\n")
    };
    matches!(
        tokio::time::timeout(Duration::from_millis(500), attempt).await,
        Ok(Ok(true))
    )
}
