//! Configuration and construction of the generated [`Client`](crate::Client):
//! credentials, base URL, user agent, timeouts, the bound on reply bodies,
//! and the reqwest client (never following redirects) that sends.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, USER_AGENT};
use url::Url;

use crate::exchange::{Exchange, HttpExchange, DEFAULT_MAX_BODY};

/// The Metal API's production endpoint, used when no base URL is given.
pub const DEFAULT_BASE_URL: &str = "https://api.equinix.com/metal/v1";
/// The environment variable holding the auth token (as the Equinix CLI and
/// Terraform provider read it).
pub const ENV_AUTH_TOKEN: &str = "METAL_AUTH_TOKEN";
/// The environment variable that overrides the base URL (ours).
pub const ENV_BASE_URL: &str = "METAL_API_URL";
/// The environment variable naming the project to work in (as metal-cli
/// reads it); `Config` does not read it, programs that take a project do.
pub const ENV_PROJECT_ID: &str = "METAL_PROJECT_ID";
/// The environment variable holding an optional consumer token.
pub const ENV_CONSUMER_TOKEN: &str = "METAL_CONSUMER_TOKEN";
/// The default connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default whole-request timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

const AUTH_HEADER: &str = "x-auth-token";
const CONSUMER_HEADER: &str = "x-consumer-token";

/// Why a [`Config`] or a [`Client`](crate::Client) could not be made.
///
/// No variant ever carries a token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No auth token was given, or it was empty.
    #[error("no Metal auth token: set {ENV_AUTH_TOKEN} or pass one to Config::builder")]
    MissingToken,
    /// A token holds bytes that cannot travel in an HTTP header.
    #[error("the {which} contains characters that are not allowed in an HTTP header")]
    InvalidToken {
        /// Which token: "auth token" or "consumer token".
        which: &'static str,
    },
    /// The base URL does not parse.
    #[error("invalid base URL {url:?}: {source}")]
    InvalidBaseUrl {
        /// The text that was given.
        url: String,
        /// Why it does not parse.
        #[source]
        source: url::ParseError,
    },
    /// The base URL is neither `http` nor `https`.
    #[error("base URL {url} must use http or https")]
    UnsupportedScheme {
        /// The offending URL.
        url: String,
    },
    /// The base URL has a query or a fragment, which would end up in front
    /// of every operation's path.
    #[error("base URL {url} must not have a query or a fragment")]
    QueryOrFragment {
        /// The offending URL.
        url: String,
    },
    /// Plain `http` to a host that is not loopback, without explicit consent.
    #[error(
        "base URL {url} sends the auth token unencrypted to a non-loopback host; \
         use https, or allow it with ConfigBuilder::allow_insecure_http"
    )]
    InsecureHttp {
        /// The offending URL.
        url: String,
    },
    /// The user agent holds bytes that cannot travel in an HTTP header.
    #[error("the user agent contains characters that are not allowed in an HTTP header")]
    InvalidUserAgent,
    /// reqwest could not build its client (TLS backend, resolver, ...).
    #[error("building the HTTP client: {0}")]
    Http(#[source] reqwest::Error),
    /// TLS could not be set up (the platform's certificate verifier did
    /// not load, say).
    #[error("setting up TLS: {0}")]
    Tls(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The reqwest client that [`Client::over`](crate::Client::over)
    /// builds its requests with could not be made (the TLS backend did not
    /// start); every such client of the process gets this error.
    #[error("building the request builder of an exchange client: {0}")]
    RequestBuilder(#[source] Arc<ConfigError>),
    /// The base URL uses `https`, but this build of metal-api has no TLS
    /// backend (see [`crate::tls`]).
    #[error(
        "base URL {url} uses https, but metal-api was built without a TLS backend \
         (features rustls-ring, rustls-aws-lc, native-tls)"
    )]
    NoTls {
        /// The offending URL.
        url: String,
    },
}

impl From<crate::tls::TlsError> for ConfigError {
    fn from(e: crate::tls::TlsError) -> Self {
        match e {
            crate::tls::TlsError::NoBackend { url } => ConfigError::NoTls { url },
            crate::tls::TlsError::Setup(source) => ConfigError::Tls(source),
            // The enum is non-exhaustive: a new way of failing keeps its
            // words as the source.
            other => ConfigError::Tls(Box::new(other)),
        }
    }
}

/// A secret token. Its `Debug` output is redacted and it has no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Wraps a token; empty or whitespace-only text is rejected.
    pub fn new(text: impl Into<String>) -> Option<Self> {
        let text = text.into();
        (!text.trim().is_empty()).then_some(Self(text))
    }

    /// The secret itself, for code that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// A validated client configuration. Make one with [`Config::builder`] or
/// [`Config::from_env`], then call [`Config::client`].
///
/// ```
/// let config = metal_api::Config::builder()
///     .auth_token("example-token")
///     .base_url("http://127.0.0.1:8080/metal/v1")
///     .build()?;
/// let client = config.client()?;
/// assert_eq!(config.base_url(), "http://127.0.0.1:8080/metal/v1");
/// assert!(!format!("{config:?}{client:?}").contains("example-token"));
/// # Ok::<(), metal_api::ConfigError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    auth_token: Token,
    /// The headers every request gets: the tokens (built once from the
    /// validated tokens and marked sensitive) and the user agent.
    headers: HeaderMap,
    base_url: String,
    user_agent: String,
    connect_timeout: Duration,
    request_timeout: Option<Duration>,
    max_body: u64,
    /// The caller's own reqwest client, if one was given.
    http: Option<reqwest::Client>,
}

/// Builds a [`Config`]; every setting but the auth token has a default.
/// Its `Debug` output shows whether tokens are set, never the tokens.
#[derive(Clone, Default)]
pub struct ConfigBuilder {
    auth_token: Option<String>,
    consumer_token: Option<String>,
    base_url: Option<String>,
    user_agent: Option<String>,
    connect_timeout: Option<Duration>,
    request_timeout: Option<Option<Duration>>,
    allow_insecure_http: bool,
    max_body: Option<u64>,
    http: Option<reqwest::Client>,
}

impl fmt::Debug for ConfigBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redacted = |t: &Option<String>| t.as_ref().map(|_| "<redacted>");
        f.debug_struct("ConfigBuilder")
            .field("auth_token", &redacted(&self.auth_token))
            .field("consumer_token", &redacted(&self.consumer_token))
            .field("base_url", &self.base_url.as_deref().map(without_userinfo))
            .field("user_agent", &self.user_agent)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("max_body", &self.max_body)
            .field("http", &self.http.is_some())
            .finish()
    }
}

impl ConfigBuilder {
    /// The API token, sent as `X-Auth-Token`. Required.
    pub fn auth_token(mut self, token: impl Into<String>) -> Self {
        self.auth_token = Some(token.into());
        self
    }

    /// An optional consumer token, sent as `X-Consumer-Token`.
    pub fn consumer_token(mut self, token: impl Into<String>) -> Self {
        self.consumer_token = Some(token.into());
        self
    }

    /// The API root, e.g. `https://api.equinix.com/metal/v1` (the default).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Replaces the `User-Agent` (default: `metal-api/<version>`).
    pub fn user_agent(mut self, agent: impl Into<String>) -> Self {
        self.user_agent = Some(agent.into());
        self
    }

    /// The TCP/TLS connect timeout (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// The whole-request timeout (default 60 s); `None` disables it.
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// Allows plain `http://` to hosts other than loopback. Off by default,
    /// since the token would travel unencrypted.
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.allow_insecure_http = allow;
        self
    }

    /// The most bytes of a reply body that are read (default
    /// [`DEFAULT_MAX_BODY`], 32 MiB); a larger reply fails with
    /// [`crate::exchange::ExchangeError::BodyTooLarge`].
    pub fn max_body(mut self, bytes: u64) -> Self {
        self.max_body = Some(bytes);
        self
    }

    /// Sends with the caller's own reqwest client (for a proxy, custom
    /// roots or middleware) instead of one built from the timeouts here.
    /// Build it with `redirect(reqwest::redirect::Policy::none())`: a
    /// redirect is answered with an error either way, but a client that
    /// follows redirects itself would send the token along first.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Validates the settings.
    pub fn build(self) -> Result<Config, ConfigError> {
        // A program's first metal-api step: from here on, reqwest clients
        // of its own build under rustls-ring too (crate::tls).
        crate::tls::install_default_provider();
        let auth_token = self
            .auth_token
            .and_then(Token::new)
            .ok_or(ConfigError::MissingToken)?;
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static(AUTH_HEADER),
            sensitive_header(&auth_token, "auth token")?,
        );
        if let Some(t) = self.consumer_token.and_then(Token::new) {
            headers.insert(
                HeaderName::from_static(CONSUMER_HEADER),
                sensitive_header(&t, "consumer token")?,
            );
        }
        let base_url = normalize_base_url(
            self.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL),
            self.allow_insecure_http,
        )?;
        // A caller's own client may bring its own TLS; ours needs a backend.
        if self.http.is_none() {
            crate::tls::check_url(&base_url)?;
        }
        let user_agent = self
            .user_agent
            .unwrap_or_else(|| concat!("metal-api/", env!("CARGO_PKG_VERSION")).to_string());
        headers.insert(
            USER_AGENT,
            HeaderValue::from_str(&user_agent).map_err(|_| ConfigError::InvalidUserAgent)?,
        );
        Ok(Config {
            auth_token,
            headers,
            base_url,
            user_agent,
            connect_timeout: self.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT),
            request_timeout: self
                .request_timeout
                .unwrap_or(Some(DEFAULT_REQUEST_TIMEOUT)),
            max_body: self.max_body.unwrap_or(DEFAULT_MAX_BODY),
            http: self.http,
        })
    }
}

/// The token as a header value marked sensitive, so reqwest never prints it.
fn sensitive_header(token: &Token, which: &'static str) -> Result<HeaderValue, ConfigError> {
    let mut value =
        HeaderValue::from_str(token.expose()).map_err(|_| ConfigError::InvalidToken { which })?;
    value.set_sensitive(true);
    Ok(value)
}

/// Parses and checks a base URL; returns it without a trailing slash, the
/// form the generated client appends paths to.
fn normalize_base_url(text: &str, allow_insecure_http: bool) -> Result<String, ConfigError> {
    let url = Url::parse(text.trim()).map_err(|source| ConfigError::InvalidBaseUrl {
        url: without_userinfo(text),
        source,
    })?;
    match url.scheme() {
        "https" => {}
        "http" if allow_insecure_http || is_loopback(&url) => {}
        "http" => {
            return Err(ConfigError::InsecureHttp {
                url: without_userinfo(url.as_str()),
            })
        }
        _ => {
            return Err(ConfigError::UnsupportedScheme {
                url: without_userinfo(url.as_str()),
            })
        }
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ConfigError::QueryOrFragment {
            url: without_userinfo(url.as_str()),
        });
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// `text` without the userinfo (`user:password@`) of its authority, so a
/// URL's credentials never reach an error or `Debug` output. Works on text
/// that does not parse as a URL too.
fn without_userinfo(text: &str) -> String {
    let start = text.find("://").map_or(0, |i| i + 3);
    let authority_end = text[start..]
        .find(['/', '?', '#'])
        .map_or(text.len(), |i| start + i);
    match text[start..authority_end].rfind('@') {
        Some(at) => format!("{}{}", &text[..start], &text[start + at + 1..]),
        None => text.to_string(),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

impl Config {
    /// A builder with every default set and no token.
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder::default()
    }

    /// A builder filled from the process environment: the token from
    /// `METAL_AUTH_TOKEN`, the base URL from `METAL_API_URL` and the consumer
    /// token from `METAL_CONSUMER_TOKEN` when they are set. Call
    /// [`ConfigBuilder::build`] to validate; a missing token fails there.
    pub fn from_env() -> ConfigBuilder {
        Self::from_lookup(|key| std::env::var(key).ok())
    }

    /// Like [`Config::from_env`], with the environment given as a function
    /// (for tests, or for configuration read from elsewhere).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> ConfigBuilder {
        let mut builder = ConfigBuilder::default();
        if let Some(t) = lookup(ENV_AUTH_TOKEN) {
            builder = builder.auth_token(t);
        }
        if let Some(u) = lookup(ENV_BASE_URL).filter(|u| !u.trim().is_empty()) {
            builder = builder.base_url(u);
        }
        if let Some(t) = lookup(ENV_CONSUMER_TOKEN) {
            builder = builder.consumer_token(t);
        }
        builder
    }

    /// The API root, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The `User-Agent` every request carries.
    pub fn user_agent(&self) -> &str {
        &self.user_agent
    }

    /// The auth token (redacted in `Debug`).
    pub fn auth_token(&self) -> &Token {
        &self.auth_token
    }

    /// The headers every request carries: auth token (marked sensitive, so
    /// reqwest never prints it), consumer token and user agent.
    pub fn default_headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The most bytes of a reply body that are read.
    pub fn max_body(&self) -> u64 {
        self.max_body
    }

    /// The reqwest client that sends: the caller's (see
    /// [`ConfigBuilder::http_client`]), or one with this configuration's
    /// timeouts, the TLS backend the features chose ([`crate::tls`]), and
    /// no redirects followed.
    pub fn http_client(&self) -> Result<reqwest::Client, ConfigError> {
        if let Some(client) = &self.http {
            return Ok(client.clone());
        }
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(self.user_agent.clone())
            .connect_timeout(self.connect_timeout);
        if let Some(t) = self.request_timeout {
            builder = builder.timeout(t);
        }
        crate::tls::configure(builder)?
            .build()
            .map_err(ConfigError::Http)
    }

    /// The generated API client, sending through [`HttpExchange`] over
    /// [`Config::http_client`].
    pub fn client(&self) -> Result<crate::Client, ConfigError> {
        let http = self.http_client()?;
        Ok(crate::Client::new_with_client(
            &self.base_url,
            http.clone(),
            crate::exchange::Hooks::new(
                self.headers.clone(),
                Arc::new(HttpExchange::new(http, self.max_body)),
            ),
        ))
    }

    /// The generated API client, sending through `exchange` instead of
    /// HTTP (an in-process server, a recording, a test double), with this
    /// configuration's base URL and headers.
    ///
    /// Fails as [`Client::over`](crate::Client::over) fails.
    pub fn client_over(&self, exchange: Arc<dyn Exchange>) -> Result<crate::Client, ConfigError> {
        crate::Client::over(&self.base_url, self.headers.clone(), exchange)
    }
}
