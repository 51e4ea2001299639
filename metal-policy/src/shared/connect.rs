//! [`Connector`]: the checked Redis settings of a [`SharedLimits`] (one
//! node, a cluster, or a Sentinel's master; TLS material read once) and
//! the connections it makes ([`Conn`]).

use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use redis::aio::{ConnectionLike, MultiplexedConnection, PubSub};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::sentinel::{SentinelClient, SentinelClientBuilder, SentinelServerType};
use redis::{
    AsyncConnectionConfig, ClientTlsConfig, Cmd, ConnectionAddr, ConnectionInfo,
    IntoConnectionInfo, Pipeline, RedisError, RedisFuture, TlsCertificates, TlsMode, Value,
};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

use super::config::{Place, SharedLimits};
use super::error::SharedLimitsError;

/// How many times the cluster client itself retries a call (a `MOVED`
/// or `ASK` redirection is followed within a try); the client's own
/// timeout bounds them all.
const CLUSTER_RETRIES: u32 = 2;

/// Makes connections to where the limits are kept.
pub(crate) enum Connector {
    Node(redis::Client),
    /// The cluster, and a client for each seed node (the announcements'
    /// subscription goes to any one of them: a cluster forwards every
    /// `PUBLISH` to all its nodes).
    Cluster {
        client: ClusterClient,
        seeds: Vec<redis::Client>,
    },
    /// The sentinels' client, and the master's name.
    Sentinel(tokio::sync::Mutex<SentinelClient>, String),
}

/// A connection to one node or to the cluster.
#[derive(Clone)]
pub(crate) enum Conn {
    Node(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Node(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Node(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Node(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

impl Conn {
    /// `INFO memory` of the node that holds `key` (in a cluster, its
    /// slot's master).
    pub(crate) async fn info_memory(&mut self, key: &str) -> Result<String, RedisError> {
        let mut cmd = redis::cmd("INFO");
        cmd.arg("memory");
        match self {
            Conn::Node(c) => cmd.query_async(c).await,
            Conn::Cluster(c) => {
                let route = Route::with_key(key.as_bytes(), SlotAddr::Master);
                let routing = RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(route));
                let value = c.route_command(cmd, routing).await?;
                redis::from_redis_value(value).map_err(RedisError::from)
            }
        }
    }
}

impl Connector {
    /// Checks the settings and reads the TLS files; connects to nothing.
    pub(crate) fn new(config: &SharedLimits) -> Result<Self, SharedLimitsError> {
        if config.prefix.is_empty() || config.prefix.contains(['{', '}']) {
            return Err(SharedLimitsError::Prefix {
                prefix: config.prefix.clone(),
            });
        }
        let wants_certs = config.ca_file.is_some() || config.client_cert.is_some();
        let allow = config.allow_plaintext_password;
        match &config.place {
            Place::Node(url) => {
                let info = parse(url)?;
                check(&info, wants_certs, allow)?;
                let certs = certificates(config)?;
                let client = node_client(info, certs.as_ref())?;
                Ok(Self::Node(client))
            }
            Place::Cluster(urls) => {
                if urls.is_empty() {
                    return Err(SharedLimitsError::NoUrl("cluster node"));
                }
                let infos = urls
                    .iter()
                    .map(|u| parse(u))
                    .collect::<Result<Vec<_>, _>>()?;
                for info in &infos {
                    check(info, wants_certs, allow)?;
                }
                let certs = certificates(config)?;
                let seeds = infos
                    .iter()
                    .map(|i| node_client(i.clone(), certs.as_ref()))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut builder = ClusterClientBuilder::new(infos)
                    .connection_timeout(config.timeout)
                    .response_timeout(config.timeout)
                    .retries(CLUSTER_RETRIES);
                if let Some(c) = certs {
                    builder = builder.certs(c);
                }
                let client = builder.build().map_err(SharedLimitsError::Redis)?;
                Ok(Self::Cluster { client, seeds })
            }
            Place::Sentinel { master, sentinels } => {
                if sentinels.is_empty() {
                    return Err(SharedLimitsError::NoUrl("sentinel"));
                }
                let master = parse(master)?;
                let sentinels = sentinels
                    .iter()
                    .map(|u| parse(u))
                    .collect::<Result<Vec<_>, _>>()?;
                for info in &sentinels {
                    check(info, false, allow)?;
                }
                let (name, master_tls) = match master.addr() {
                    ConnectionAddr::Tcp(host, _) => (host.clone(), false),
                    ConnectionAddr::TcpTls { host, .. } => (host.clone(), true),
                    _ => {
                        return Err(SharedLimitsError::Redis(RedisError::from((
                            redis::ErrorKind::InvalidClientConfig,
                            "a Sentinel master URL names the master: redis[s]://[user:password@]<name>[/db]",
                        ))))
                    }
                };
                // The master's address is only known at connect time, and
                // the redis crate authenticates while it checks the master's
                // role: a plaintext password is refused whatever the hosts.
                if !master_tls && master.redis_settings().password().is_some() && !allow {
                    return Err(SharedLimitsError::PlaintextPassword { host: name });
                }
                if wants_certs && !master_tls {
                    return Err(SharedLimitsError::TlsWithoutRediss);
                }
                let certs = certificates(config)?;
                let client = sentinel_client(&master, &name, master_tls, &sentinels, certs)?;
                Ok(Self::Sentinel(tokio::sync::Mutex::new(client), name))
            }
        }
    }

    /// A new connection (not yet checked for its eviction policy).
    pub(crate) async fn connect(&self, timeout: Duration) -> Result<Conn, RedisError> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout));
        match self {
            Self::Node(client) => Ok(Conn::Node(
                client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await?,
            )),
            Self::Cluster { client, .. } => Ok(Conn::Cluster(client.get_async_connection().await?)),
            Self::Sentinel(sentinel, _) => {
                let client = sentinel.lock().await.async_get_client().await?;
                Ok(Conn::Node(
                    client
                        .get_multiplexed_async_connection_with_config(&config)
                        .await?,
                ))
            }
        }
    }

    /// A subscription connection: to the node, to the first seed of the
    /// cluster that answers, or to the Sentinel's master.
    pub(crate) async fn pubsub(&self) -> Result<PubSub, RedisError> {
        match self {
            Self::Node(client) => client.get_async_pubsub().await,
            Self::Cluster { seeds, .. } => {
                let mut last = None;
                for seed in seeds {
                    match seed.get_async_pubsub().await {
                        Ok(ps) => return Ok(ps),
                        Err(e) => last = Some(e),
                    }
                }
                Err(last.unwrap_or_else(|| {
                    RedisError::from((redis::ErrorKind::InvalidClientConfig, "no cluster node"))
                }))
            }
            Self::Sentinel(sentinel, _) => {
                let client = sentinel.lock().await.async_get_client().await?;
                client.get_async_pubsub().await
            }
        }
    }

    /// With Sentinel, the master's name.
    pub(crate) fn sentinel_master(&self) -> Option<&str> {
        match self {
            Self::Sentinel(_, name) => Some(name),
            _ => None,
        }
    }

    /// With Sentinel: a subscription to a sentinel's `+switch-master`
    /// announcements (a failover's new master).
    pub(crate) async fn master_switches(&self) -> Result<PubSub, RedisError> {
        let Self::Sentinel(sentinel, _) = self else {
            return Err(RedisError::from((
                redis::ErrorKind::InvalidClientConfig,
                "not a Sentinel",
            )));
        };
        let client = sentinel.lock().await.async_get_sentinel_client().await?;
        let mut ps = client.get_async_pubsub().await?;
        ps.subscribe("+switch-master").await?;
        Ok(ps)
    }
}

fn parse(url: &str) -> Result<ConnectionInfo, SharedLimitsError> {
    url.into_connection_info().map_err(SharedLimitsError::Redis)
}

/// Refuses a password over plain TCP to a host that is not loopback
/// (unless allowed), and TLS material for a plain URL.
fn check(info: &ConnectionInfo, certs: bool, allow: bool) -> Result<(), SharedLimitsError> {
    match info.addr() {
        ConnectionAddr::Tcp(host, _) => {
            if info.redis_settings().password().is_some() && !allow && !loopback(host) {
                return Err(SharedLimitsError::PlaintextPassword { host: host.clone() });
            }
            if certs {
                return Err(SharedLimitsError::TlsWithoutRediss);
            }
            Ok(())
        }
        ConnectionAddr::TcpTls { .. } => Ok(()),
        // A unix socket: local.
        _ if certs => Err(SharedLimitsError::TlsWithoutRediss),
        _ => Ok(()),
    }
}

/// `localhost` or a loopback address (with or without IPv6 brackets).
fn loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn node_client(
    info: ConnectionInfo,
    certs: Option<&TlsCertificates>,
) -> Result<redis::Client, SharedLimitsError> {
    let tls = matches!(info.addr(), ConnectionAddr::TcpTls { .. });
    match certs {
        Some(c) if tls => redis::Client::build_with_tls(info, c.clone()),
        _ => redis::Client::open(info),
    }
    .map_err(SharedLimitsError::Redis)
}

fn sentinel_client(
    master: &ConnectionInfo,
    name: &str,
    master_tls: bool,
    sentinels: &[ConnectionInfo],
    certs: Option<TlsCertificates>,
) -> Result<SentinelClient, SharedLimitsError> {
    let redis = master.redis_settings();
    let mut b = SentinelClientBuilder::new(
        sentinels.iter().map(|s| s.addr().clone()),
        name,
        SentinelServerType::Master,
    )
    .map_err(SharedLimitsError::Redis)?
    .set_client_to_redis_db(redis.db());
    if let Some(u) = redis.username() {
        b = b.set_client_to_redis_username(u);
    }
    if let Some(p) = redis.password() {
        b = b.set_client_to_redis_password(p);
    }
    if master_tls {
        b = b.set_client_to_redis_tls_mode(TlsMode::Secure);
        if let Some(c) = &certs {
            b = b.set_client_to_redis_certificates(c.clone());
        }
    }
    // The sentinels share the first one's credentials.
    if let Some(first) = sentinels.first() {
        let s = first.redis_settings();
        if let Some(u) = s.username() {
            b = b.set_client_to_sentinel_username(u);
        }
        if let Some(p) = s.password() {
            b = b.set_client_to_sentinel_password(p);
        }
        if matches!(first.addr(), ConnectionAddr::TcpTls { .. })
            && let Some(c) = certs
        {
            b = b.set_client_to_sentinel_certificates(c);
        }
    }
    b.build().map_err(SharedLimitsError::Redis)
}

/// The TLS material of `config`, read from its files; installs the crypto
/// provider when any URL uses TLS.
fn certificates(config: &SharedLimits) -> Result<Option<TlsCertificates>, SharedLimitsError> {
    let urls: Vec<&String> = match &config.place {
        Place::Node(u) => vec![u],
        Place::Cluster(us) => us.iter().collect(),
        Place::Sentinel { master, sentinels } => {
            std::iter::once(master).chain(sentinels.iter()).collect()
        }
    };
    if urls.iter().any(|u| u.starts_with("rediss:")) {
        crypto_provider();
    }
    if config.ca_file.is_none() && config.client_cert.is_none() {
        return Ok(None);
    }
    let root_cert = match config.ca_file.as_deref() {
        Some(path) => {
            let pem = read(path)?;
            // A file without a certificate would trust nothing, silently.
            let found = CertificateDer::pem_slice_iter(&pem)
                .filter(Result::is_ok)
                .count();
            if found == 0 {
                return Err(SharedLimitsError::NoCertificate {
                    path: path.to_path_buf(),
                });
            }
            Some(pem)
        }
        None => None,
    };
    let client_tls = match &config.client_cert {
        Some((cert, key)) => Some(ClientTlsConfig {
            client_cert: read(cert)?,
            client_key: read(key)?,
        }),
        None => None,
    };
    Ok(Some(TlsCertificates {
        client_tls,
        root_cert,
    }))
}

fn read(path: &Path) -> Result<Vec<u8>, SharedLimitsError> {
    std::fs::read(path).map_err(|source| SharedLimitsError::File {
        path: path.to_path_buf(),
        source,
    })
}

/// Makes ring the process's rustls crypto provider unless one is already
/// installed. The redis crate's TLS takes the process default, which rustls
/// cannot pick by itself when more than one backend is compiled in (the
/// HTTP client may bring another): without this, the first `rediss://`
/// connection would panic. An application that installs its own provider
/// before building the client keeps it (and so does the HTTP client, which
/// also takes the installed default).
fn crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Fails only if another thread installed one meanwhile: that one
        // is used, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(s: SharedLimits) -> Result<Connector, SharedLimitsError> {
        Connector::new(&s)
    }

    #[test]
    fn a_plaintext_password_to_another_host_is_refused_unless_allowed() {
        for url in [
            "redis://:secret@cache.example.com:6379/",
            "redis://limits:secret@10.0.0.5/",
        ] {
            let e = build(SharedLimits::redis(url, "m")).err();
            assert!(
                matches!(&e, Some(SharedLimitsError::PlaintextPassword { host }) if !host.contains("secret")),
                "{url}: {e:?}"
            );
            assert!(!e.unwrap().to_string().contains("secret"));
            assert!(build(SharedLimits::redis(url, "m").allow_plaintext_password(true)).is_ok());
        }
        for url in [
            "redis://:secret@127.0.0.1:6379/",
            "redis://:secret@localhost/",
            "redis://:secret@[::1]:6379/",
            "rediss://:secret@cache.example.com/",
            "redis://cache.example.com/",
        ] {
            assert!(build(SharedLimits::redis(url, "m")).is_ok(), "{url}");
        }
        let cluster = SharedLimits::redis_cluster(
            ["redis://:pw@127.0.0.1:7000", "redis://:pw@10.1.1.1:7000"],
            "m",
        );
        assert!(matches!(
            build(cluster),
            Err(SharedLimitsError::PlaintextPassword { host }) if host == "10.1.1.1"
        ));
        let sentinel =
            SharedLimits::redis_sentinel("redis://:pw@mymaster", ["redis://127.0.0.1:26379"], "m");
        assert!(matches!(
            build(sentinel),
            Err(SharedLimitsError::PlaintextPassword { host }) if host == "mymaster"
        ));
    }

    #[test]
    fn the_prefix_must_make_one_hash_tag() {
        for prefix in ["", "a{b", "a}b", "{x}"] {
            assert!(
                matches!(
                    build(SharedLimits::redis("redis://127.0.0.1/", prefix)),
                    Err(SharedLimitsError::Prefix { .. })
                ),
                "{prefix:?}"
            );
        }
        assert!(build(SharedLimits::redis("redis://127.0.0.1/", "metal-provision")).is_ok());
    }

    #[test]
    fn tls_files_need_rediss_and_must_be_readable() {
        let e =
            build(SharedLimits::redis("rediss://localhost/", "m").ca_file("/nonexistent/ca.pem"));
        assert!(
            matches!(e, Err(SharedLimitsError::File { .. })),
            "{:?}",
            e.err()
        );
        let dir = std::env::temp_dir().join(format!("metal-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = dir.join("ca.pem");
        std::fs::write(&ca, "not a certificate").unwrap();
        let plain = build(SharedLimits::redis("redis://127.0.0.1/", "m").ca_file(&ca));
        assert!(matches!(plain, Err(SharedLimitsError::TlsWithoutRediss)));
        let bad = build(SharedLimits::redis("rediss://localhost/", "m").ca_file(&ca));
        assert!(
            matches!(bad, Err(SharedLimitsError::NoCertificate { .. })),
            "{:?}",
            bad.err()
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert!(matches!(
            build(SharedLimits::redis_cluster(Vec::<String>::new(), "m")),
            Err(SharedLimitsError::NoUrl(_))
        ));
    }
}
