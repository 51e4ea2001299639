//! [`SharedLimits`]: where and how the limits are shared.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// How long a process's place in the shared wait queue lasts without a
/// poll (a crashed waiter blocks the queue at most this long).
pub const WAITER_TTL: Duration = Duration::from_secs(1);
/// The default lease of a shared concurrency slot.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);
/// The default timeout of each Redis call (connecting included).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(250);
/// The default interval between attempts to return to Redis when degraded.
pub const DEFAULT_RETRY_INTERVAL: Duration = Duration::from_secs(1);

/// Where the limits are kept.
#[derive(Clone)]
pub(crate) enum Place {
    /// One node (or a proxy in front of several).
    Node(String),
    /// A Redis Cluster, found from these nodes.
    Cluster(Vec<String>),
    /// The master a Sentinel names: its URL (whose host is the master's
    /// name) and the sentinels'.
    Sentinel {
        master: String,
        sentinels: Vec<String>,
    },
}

/// Where and how the limits are shared: give it to
/// [`crate::ClientBuilder::shared_limits`]. Processes share limits when
/// they name the same Redis and prefix, and should configure the same
/// `api_rate`, `burst` and `parallelism` (each script uses its caller's).
///
/// The URLs are checked when the client is built
/// ([`crate::BuildError::SharedLimits`]); nothing connects until the first
/// call. See [`crate::shared`] for the modes, TLS, the ACL and eviction.
#[derive(Clone)]
pub struct SharedLimits {
    pub(crate) place: Place,
    pub(crate) prefix: String,
    pub(crate) processes: u32,
    pub(crate) lease: Duration,
    pub(crate) timeout: Duration,
    pub(crate) retry_interval: Duration,
    pub(crate) ca_file: Option<PathBuf>,
    pub(crate) client_cert: Option<(PathBuf, PathBuf)>,
    pub(crate) allow_plaintext_password: bool,
}

impl fmt::Debug for SharedLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URLs may carry a password: never printed.
        let mode = match &self.place {
            Place::Node(_) => "node",
            Place::Cluster(_) => "cluster",
            Place::Sentinel { .. } => "sentinel",
        };
        f.debug_struct("SharedLimits")
            .field("mode", &mode)
            .field("urls", &"<redacted>")
            .field("prefix", &self.prefix)
            .field("processes", &self.processes)
            .field("lease", &self.lease)
            .field("timeout", &self.timeout)
            .field("retry_interval", &self.retry_interval)
            .field("ca_file", &self.ca_file)
            .field("client_cert", &self.client_cert.as_ref().map(|(c, _)| c))
            .field("allow_plaintext_password", &self.allow_plaintext_password)
            .finish()
    }
}

impl SharedLimits {
    /// Limits kept in the Redis at `url` under keys starting with
    /// `{prefix}:`. `url` is `redis://[user:password@]host[:port][/db]`,
    /// `rediss://...` for TLS, or `unix:///path`.
    pub fn redis(url: impl Into<String>, prefix: impl Into<String>) -> Self {
        Self::at(Place::Node(url.into()), prefix.into())
    }

    /// Limits kept in a Redis Cluster, found from `urls` (some of its
    /// nodes, all with the same credentials and scheme). The keys share one
    /// hash slot; the client follows `MOVED` and `ASK` redirections.
    ///
    /// ```
    /// use metal_policy::SharedLimits;
    /// let shared = SharedLimits::redis_cluster(
    ///     ["rediss://limits:secret@10.0.0.1:6379", "rediss://limits:secret@10.0.0.2:6379"],
    ///     "metal",
    /// );
    /// # drop(shared);
    /// ```
    pub fn redis_cluster<U: Into<String>>(
        urls: impl IntoIterator<Item = U>,
        prefix: impl Into<String>,
    ) -> Self {
        Self::at(
            Place::Cluster(urls.into_iter().map(Into::into).collect()),
            prefix.into(),
        )
    }

    /// Limits kept on the master that the sentinels at `sentinel_urls` name.
    /// `master_url` is the master's URL with its name as the host:
    /// `redis[s]://[user:password@]<master name>[/db]` (its scheme,
    /// credentials and database are the master's; each sentinel URL
    /// carries its own). After a failover the next connection goes to the
    /// new master.
    ///
    /// ```
    /// use metal_policy::SharedLimits;
    /// let shared = SharedLimits::redis_sentinel(
    ///     "rediss://limits:secret@mymaster/0",
    ///     ["rediss://10.0.0.1:26379", "rediss://10.0.0.2:26379"],
    ///     "metal",
    /// );
    /// # drop(shared);
    /// ```
    pub fn redis_sentinel<U: Into<String>>(
        master_url: impl Into<String>,
        sentinel_urls: impl IntoIterator<Item = U>,
        prefix: impl Into<String>,
    ) -> Self {
        Self::at(
            Place::Sentinel {
                master: master_url.into(),
                sentinels: sentinel_urls.into_iter().map(Into::into).collect(),
            },
            prefix.into(),
        )
    }

    fn at(place: Place, prefix: String) -> Self {
        Self {
            place,
            prefix,
            processes: 1,
            lease: DEFAULT_LEASE,
            timeout: DEFAULT_TIMEOUT,
            retry_interval: DEFAULT_RETRY_INTERVAL,
            ca_file: None,
            client_cert: None,
            allow_plaintext_password: false,
        }
    }

    /// How many processes share the limits (default 1; 0 counts as 1):
    /// while Redis is unreachable each process keeps to `1/n` of the rate
    /// and of the parallelism.
    pub fn processes(mut self, n: u32) -> Self {
        self.processes = n.max(1);
        self
    }

    /// How long a concurrency slot stays taken after its process stops
    /// renewing it (default 10 s; at least 30 ms).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(30));
        self
    }

    /// The timeout of each Redis call (default 250 ms).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// How often a degraded client tries Redis again (default 1 s).
    pub fn retry_interval(mut self, t: Duration) -> Self {
        self.retry_interval = t;
        self
    }

    /// Trusts the CA certificates in this PEM file, instead of the system's
    /// roots, for `rediss://` connections (read when the client is built).
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.ca_file = Some(path.into());
        self
    }

    /// Presents this client certificate (PEM, with its chain) and private
    /// key (PEM) on `rediss://` connections, for servers that ask for one
    /// (`tls-auth-clients yes`).
    pub fn client_cert(mut self, cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        self.client_cert = Some((cert.into(), key.into()));
        self
    }

    /// Allows a password over plain `redis://` to hosts other than
    /// loopback (and through a Sentinel, whose masters are only known at
    /// connect time). Off by default: such a URL fails the build, as a
    /// plain-`http` API URL does.
    pub fn allow_plaintext_password(mut self, allow: bool) -> Self {
        self.allow_plaintext_password = allow;
        self
    }

    /// The smallest ACL rules that let a user run the shared limits under
    /// this prefix: its keys and channel only, and the commands the client
    /// and its scripts send. Give them to
    /// `ACL SETUSER <user> on ><password> <rules>` (or a `user` line of an
    /// ACL file).
    ///
    /// ```
    /// use metal_policy::SharedLimits;
    /// let rules = SharedLimits::redis("rediss://cache:6379", "metal").acl();
    /// assert_eq!(
    ///     rules,
    ///     "resetkeys ~{metal}:* resetchannels &{metal}:rebuilt -@all \
    ///      +evalsha +script|load +time +get +set +del +incr +zadd +zrem \
    ///      +zscore +zrank +zcard +zpopmin +zrangebyscore +zremrangebyscore \
    ///      +publish +subscribe +info +ping +cluster|slots +asking +role"
    /// );
    /// ```
    pub fn acl(&self) -> String {
        // ACL patterns are globs: the prefix's own glob characters are
        // escaped, so the pattern names exactly its keys.
        let mut escaped = String::with_capacity(self.prefix.len());
        for c in self.prefix.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                escaped.push('\\');
            }
            escaped.push(c);
        }
        format!(
            "resetkeys ~{{{escaped}}}:* resetchannels &{{{escaped}}}:rebuilt -@all {}",
            ACL_COMMANDS.join(" ")
        )
    }
}

/// The commands of [`SharedLimits::acl`]: the scripts' (by SHA, loaded on
/// `NOSCRIPT`) and what they call; `INFO` (the eviction policy); the
/// announcements' `SUBSCRIBE`; `PING` (the cluster client's check of a new
/// connection); `CLUSTER SLOTS` and `ASKING` (the cluster client); `ROLE`
/// (Sentinel: the master is asked whether it is one). Not `CLIENT
/// SETINFO`, which the redis crate sends on connect and ignores a refusal
/// of: Redis before 7.2 does not know it, so naming it would fail there.
const ACL_COMMANDS: &[&str] = &[
    "+evalsha",
    "+script|load",
    "+time",
    "+get",
    "+set",
    "+del",
    "+incr",
    "+zadd",
    "+zrem",
    "+zscore",
    "+zrank",
    "+zcard",
    "+zpopmin",
    "+zrangebyscore",
    "+zremrangebyscore",
    "+publish",
    "+subscribe",
    "+info",
    "+ping",
    "+cluster|slots",
    "+asking",
    "+role",
];
