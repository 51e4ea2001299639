//! How the router serves: the token it accepts, its rate limit, and whether
//! it keeps a copy of each reply.

use std::fmt;

use axum::body::Bytes;

/// How the fake serves requests: the token it accepts and its rate limit
/// (over HTTP, see [`crate::bind`]; in-process, the fake's own token and no
/// rate limit).
#[derive(Clone)]
pub struct ServerConfig {
    pub(crate) token: String,
    pub(crate) rate_limit: Option<u32>,
    pub(crate) record_replies: bool,
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("token", &"<redacted>")
            .field("rate_limit", &self.rate_limit)
            .field("record_replies", &self.record_replies)
            .finish()
    }
}

impl ServerConfig {
    /// Accepts requests whose `X-Auth-Token` is `token`; no rate limit.
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            rate_limit: None,
            record_replies: false,
        }
    }

    /// At most `per_second` API requests per second, with bursts of up to one
    /// second's worth (a token bucket; `None` or 0:
    /// no limit and no `X-RateLimit-*` headers). Every reply carries
    /// `X-RateLimit-Limit` (`per_second`), `-Remaining` (the tokens left)
    /// and `-Reset` (the Unix time, in whole seconds rounded up, when the
    /// bucket is full again; on a 429, when a token is back). Over the
    /// limit, 429 with `Retry-After`.
    pub fn rate_limit(mut self, per_second: Option<u32>) -> Self {
        self.rate_limit = per_second.filter(|n| *n > 0);
        self
    }

    /// Keeps a copy of every complete reply (see
    /// [`crate::ServerHandle::recorded_replies`]), for tests that check
    /// bodies against the spec.
    pub fn record_replies(mut self, on: bool) -> Self {
        self.record_replies = on;
        self
    }
}

/// One complete reply the server sent (recorded when
/// [`ServerConfig::record_replies`] is on).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedReply {
    /// The operationId, or `"unknown"`.
    pub operation: String,
    /// The status.
    pub status: u16,
    /// The `Content-Type`, if any.
    pub content_type: Option<String>,
    /// The body.
    pub body: Bytes,
}
