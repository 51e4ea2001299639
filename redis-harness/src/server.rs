//! [`Server`]: one `redis-server` process.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, FromRedisValue};
use tokio::process::{Child, Command};
use tokio::time::{sleep, timeout, Instant};

use crate::certs::Certs;
use crate::dir::Dir;
use crate::{free_port, Error, START_TIMEOUT};

/// Whether TLS clients must present a certificate (`tls-auth-clients`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientCerts {
    /// None is asked for.
    No,
    /// Each client must present one the CA signed.
    Required,
}

/// How to start a [`Server`]: `redis-server` with no persistence, bound to
/// loopback, plus these settings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    args: Vec<String>,
    tls: Option<(String, String, String, ClientCerts)>,
    conf: Option<String>,
    sentinel: bool,
}

impl Options {
    /// No settings beyond the defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the setting `--name value...` (e.g. `("maxmemory-policy",
    /// "allkeys-lru")`; several words for a setting that takes them).
    pub fn arg(mut self, name: &str, value: &str) -> Self {
        self.args.push(format!("--{name}"));
        self.args.extend(value.split(' ').map(str::to_string));
        self
    }

    /// Also listens with TLS (on [`Server::tls_port`]) with these
    /// certificates. The plain port stays open for the harness's own
    /// commands ([`Server::query`]).
    pub fn tls(mut self, certs: &Certs, clients: ClientCerts) -> Self {
        let (cert, key) = certs.server();
        self.tls = Some((path(&cert), path(&key), path(&certs.ca()), clients));
        self
    }

    /// Starts from this configuration file's text (written in the
    /// server's directory), before the other settings.
    pub fn conf(mut self, text: &str) -> Self {
        self.conf = Some(text.to_string());
        self
    }

    /// Runs as a sentinel (`--sentinel`; needs [`Self::conf`]).
    pub fn sentinel(mut self) -> Self {
        self.sentinel = true;
        self
    }
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A `redis-server` process on free loopback ports, in a directory of its
/// own; killed when dropped.
#[derive(Debug)]
pub struct Server {
    port: u16,
    tls_port: Option<u16>,
    args: Vec<String>,
    child: Option<Child>,
    dir: Dir,
}

impl Server {
    /// Starts one and waits until it answers `PING` on its plain port.
    pub async fn start(options: Options) -> Result<Self, Error> {
        let dir = Dir::new()?;
        let port = free_port()?;
        let mut args = Vec::new();
        if let Some(text) = &options.conf {
            let conf = dir.path().join("redis.conf");
            std::fs::write(&conf, text)?;
            args.push(path(&conf));
        }
        if options.sentinel {
            args.push("--sentinel".into());
        }
        for (k, v) in [
            ("--port", port.to_string()),
            ("--bind", "127.0.0.1".into()),
            ("--dir", path(dir.path())),
        ] {
            args.extend([k.to_string(), v]);
        }
        if !options.sentinel {
            // No persistence; a replica's first sync at once (not after
            // the 5 s a master waits by default for more replicas).
            args.extend(
                [
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--repl-diskless-sync-delay",
                    "0",
                ]
                .map(String::from),
            );
        }
        let mut tls_port = None;
        if let Some((cert, key, ca, clients)) = &options.tls {
            let p = free_port()?;
            tls_port = Some(p);
            let auth = match clients {
                ClientCerts::No => "no",
                ClientCerts::Required => "yes",
            };
            for (k, v) in [
                ("--tls-port", p.to_string()),
                ("--tls-cert-file", cert.clone()),
                ("--tls-key-file", key.clone()),
                ("--tls-ca-cert-file", ca.clone()),
                ("--tls-auth-clients", auth.into()),
            ] {
                args.extend([k.to_string(), v]);
            }
        }
        args.extend(options.args.iter().cloned());
        let mut server = Self {
            port,
            tls_port,
            args,
            child: None,
            dir,
        };
        server.up().await?;
        Ok(server)
    }

    /// Runs the process (again, on the same ports) and waits for `PING`.
    async fn up(&mut self) -> Result<(), Error> {
        let log = std::fs::File::create(self.dir.path().join("redis.log"))?;
        let child = Command::new("redis-server")
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| Error::Spawn {
                program: "redis-server",
                source,
            })?;
        self.child = Some(child);
        if answers(&self.url(), START_TIMEOUT).await {
            return Ok(());
        }
        let log = std::fs::read_to_string(self.dir.path().join("redis.log")).unwrap_or_default();
        Err(Error::Setup(format!(
            "redis-server on port {} does not answer within {START_TIMEOUT:?}; its log:\n{log}",
            self.port
        )))
    }

    /// Its plain port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its TLS port, when started with [`Options::tls`].
    pub fn tls_port(&self) -> Option<u16> {
        self.tls_port
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// `rediss://localhost:<tls port>/`, when started with TLS.
    pub fn tls_url(&self) -> Option<String> {
        self.tls_port.map(|p| format!("rediss://localhost:{p}/"))
    }

    /// Its directory (its log is `redis.log` there).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A connection to its plain port, as the default user.
    pub async fn admin(&self) -> Result<MultiplexedConnection, Error> {
        connect(&self.url(), Duration::from_secs(2)).await
    }

    /// Runs `cmd` on its plain port.
    pub async fn query<T: FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, Error> {
        let mut c = self.admin().await?;
        Ok(cmd.query_async(&mut c).await?)
    }

    /// Whether the process is running.
    pub fn running(&self) -> bool {
        self.child.is_some()
    }

    /// Kills it (SIGKILL: it forgets everything) and waits for it to end.
    pub async fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill().await;
        }
    }

    /// Starts it again, empty, on the same ports.
    pub async fn restart(&mut self) -> Result<(), Error> {
        self.stop().await;
        self.up().await
    }
}

async fn connect(url: &str, within: Duration) -> Result<MultiplexedConnection, Error> {
    let client = redis::Client::open(url)?;
    let config = AsyncConnectionConfig::new()
        .set_connection_timeout(Some(within))
        .set_response_timeout(Some(within));
    Ok(client
        .get_multiplexed_async_connection_with_config(&config)
        .await?)
}

/// Whether the node at `url` answers `PING` within `within`.
pub(crate) async fn answers(url: &str, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        let ping = async {
            let mut c = connect(url, Duration::from_millis(500)).await?;
            let pong: String = redis::cmd("PING").query_async(&mut c).await?;
            Ok::<_, Error>(pong)
        };
        if let Ok(Ok(_)) = timeout(Duration::from_secs(1), ping).await {
            return true;
        }
        sleep(Duration::from_millis(20)).await;
    }
    false
}
