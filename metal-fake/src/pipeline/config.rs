//! How the router serves: the token it accepts, its rate limit, whether it
//! keeps a copy of each reply, and the bounds of the server (body size,
//! timeouts, connections).

use std::fmt;
use std::time::Duration;

use axum::body::Bytes;

/// The largest request body the server reads by default (2 MiB); a larger
/// one gets `413`.
pub const DEFAULT_BODY_LIMIT: usize = 2 * 1024 * 1024;

/// How long the server waits for a whole request body by default (10 s);
/// slower, it answers `408` and closes the connection.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the server waits by default for a request's head: on a new
/// connection, and on a kept-alive one between requests (10 s). Slower, or
/// idle for longer, the connection is closed.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection's write may wait for the client to read by
/// default (30 s); longer, the connection is closed.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// How many connections the server serves at once by default (1024).
/// Beyond it, new connections wait in the listener's backlog, unaccepted,
/// until one closes.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// How the fake serves requests: the token it accepts and its rate limit
/// (over HTTP, see [`crate::bind`]; in-process, the fake's own token and no
/// rate limit), and the server's bounds.
///
/// Every request passes, in this order: the token (`401` without a valid
/// one, before the body is read: this token, which sees every project, or
/// one of the world's tokens), then the rate limit (`429`; requests without
/// a valid token spend nothing), then ownership (`403` for a project,
/// device, reservation or SSH key the token does not see), then the body,
/// read only now: larger than [`ServerConfig::body_limit`] is `413`, slower
/// than [`ServerConfig::body_timeout`] is `408` (and the connection
/// closes). Each refusal has the API's error body, `{"errors": [...]}`,
/// but the `401`, which has the real API's `{"error": "..."}`.
///
/// Over HTTP, a connection that does not send a request's head within
/// [`ServerConfig::header_timeout`] is closed, and at most
/// [`ServerConfig::max_connections`] are served at once.
#[derive(Clone)]
pub struct ServerConfig {
    pub(crate) token: String,
    pub(crate) rate_limit: Option<u32>,
    pub(crate) record_replies: bool,
    pub(crate) body_limit: usize,
    pub(crate) body_timeout: Duration,
    pub(crate) header_timeout: Duration,
    pub(crate) write_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) control_token: Option<String>,
    pub(crate) log_calls: bool,
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("token", &"<redacted>")
            .field("rate_limit", &self.rate_limit)
            .field("record_replies", &self.record_replies)
            .field("body_limit", &self.body_limit)
            .field("body_timeout", &self.body_timeout)
            .field("header_timeout", &self.header_timeout)
            .field("write_timeout", &self.write_timeout)
            .field("max_connections", &self.max_connections)
            .field(
                "control_token",
                &self.control_token.as_ref().map(|_| "<redacted>"),
            )
            .field("log_calls", &self.log_calls)
            .finish()
    }
}

impl ServerConfig {
    /// Accepts requests whose `X-Auth-Token` is `token`; no rate limit; the
    /// default bounds ([`DEFAULT_BODY_LIMIT`], [`DEFAULT_BODY_TIMEOUT`],
    /// [`DEFAULT_HEADER_TIMEOUT`], [`DEFAULT_MAX_CONNECTIONS`]).
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            rate_limit: None,
            record_replies: false,
            body_limit: DEFAULT_BODY_LIMIT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            control_token: None,
            log_calls: false,
        }
    }

    /// Prints one line a call to stderr as it is logged (method, path and
    /// query, operation, status, fault, the error message answered; never
    /// a header or a body), as the binary's `--log-calls` does. Off by
    /// default.
    pub fn log_calls(mut self, on: bool) -> Self {
        self.log_calls = on;
        self
    }

    /// Guards the control API (`/_fake/...`) with its own token: requests
    /// without `X-Fake-Control-Token: <token>` get `401`. Without it (the
    /// default) the control API needs no token.
    pub fn control_token(mut self, token: Option<String>) -> Self {
        self.control_token = token;
        self
    }

    /// At most `per_second` API requests per second, with bursts of up to one
    /// second's worth (a token bucket; `None` or 0:
    /// no limit and no `X-RateLimit-*` headers). Every reply carries
    /// `X-RateLimit-Limit` (`per_second`), `-Remaining` (the tokens left)
    /// and `-Reset` (the Unix time, in whole seconds rounded up, when the
    /// bucket is full again; on a 429, when a token is back). Over the
    /// limit, 429 with `Retry-After`. Only requests with a valid token are
    /// counted.
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

    /// The largest request body read, in bytes (default
    /// [`DEFAULT_BODY_LIMIT`]); a larger one is refused with `413`, without
    /// reading past the limit.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// How long reading a whole request body may take, from when the
    /// request is let through (default [`DEFAULT_BODY_TIMEOUT`]); slower is
    /// `408`, and the connection closes.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How long a connection may take to send a request's head, counted
    /// from when it is accepted or from its previous reply (default
    /// [`DEFAULT_HEADER_TIMEOUT`]); slower, or idle for longer, it is
    /// closed. Over HTTP only (hyper's `header_read_timeout`).
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// How long a write to a connection may wait for the client to read
    /// (default [`DEFAULT_WRITE_TIMEOUT`]): a client that sends requests
    /// and never reads the replies is closed after it, freeing the replies
    /// queued for it and its connection permit. Over HTTP only.
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// How many connections are served at once (default
    /// [`DEFAULT_MAX_CONNECTIONS`], at least 1). Beyond it the server
    /// accepts no new connection until one closes: they wait in the
    /// listener's backlog. Over HTTP only.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
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
