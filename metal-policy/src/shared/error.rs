//! Why shared limits cannot be set up ([`SharedLimitsError`], at build), and
//! why one Redis call failed (`SharedError`, which degrades the client).

use std::path::PathBuf;
use std::time::Duration;

/// Why the shared limits of a [`crate::SharedLimits`] cannot be used; the
/// client is not built ([`crate::BuildError::SharedLimits`]). No variant
/// holds a password.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SharedLimitsError {
    /// A Redis URL does not parse, or the settings do not fit together
    /// (e.g. cluster nodes with different credentials).
    #[error("redis settings: {0}")]
    Redis(#[source] redis::RedisError),
    /// A password would go unencrypted to a host that is not loopback.
    #[error(
        "a Redis URL sends its password unencrypted to {host}; use rediss://, \
         or allow it with SharedLimits::allow_plaintext_password"
    )]
    PlaintextPassword {
        /// The host (for a Sentinel: the master's name).
        host: String,
    },
    /// The prefix cannot be a Redis Cluster hash tag.
    #[error(
        "the key prefix {prefix:?} must be non-empty and without braces: the keys are \
         {{prefix}}:name, one hash slot"
    )]
    Prefix {
        /// The prefix given.
        prefix: String,
    },
    /// A CA file or client certificate was given for a plain `redis://` URL.
    #[error("a CA file or client certificate needs rediss:// URLs")]
    TlsWithoutRediss,
    /// No node (cluster) or no sentinel was given.
    #[error("no {0} URL given")]
    NoUrl(&'static str),
    /// The CA file holds no PEM certificate.
    #[error("no PEM certificate in {path}")]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// A certificate or key file could not be read.
    #[error("reading {path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Why a Redis call failed; each makes the client degraded (local limits)
/// until Redis answers again.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SharedError {
    #[error("redis: {0}")]
    Redis(#[source] redis::RedisError),
    #[error("redis did not answer within {0:?}")]
    Timeout(Duration),
    #[error("a script's reply has an unexpected shape: {0}")]
    Reply(String),
    /// The server may evict the limits' keys at any time.
    #[error(
        "redis has maxmemory-policy {0}, which can evict the limits' keys under memory \
         pressure; set noeviction (or a volatile-* policy: the limits' keys carry no TTL)"
    )]
    Evicting(String),
}
