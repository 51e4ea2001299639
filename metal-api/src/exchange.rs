//! The hook point: the one place every request of every generated operation
//! passes, whatever sends it.
//!
//! The generated [`Client`] carries [`Hooks`]. For each request it adds the
//! configured headers (the auth token among them), then hands the request
//! and its [`Operation`] to an [`Exchange`], which makes one HTTP exchange.
//! The default exchange is [`HttpExchange`] (reqwest, no redirects, bounded
//! bodies); `metal-policy` wraps it with its limits and metrics, and
//! `metal-fake` answers in-process. This crate knows none of them.
//!
//! An exchange that fails on its own (a time limit, a body too large, a
//! connection an in-process server dropped) reports it as a
//! `reqwest::Error` whose source is an [`ExchangeError`]: see [`fail`] and
//! [`ExchangeError::find`].
//!
//! ```
//! use std::sync::Arc;
//! use metal_api::exchange::{BoxFuture, Exchange};
//! use metal_api::operation::Operation;
//!
//! /// Logs each operation, then sends it as the default exchange would.
//! struct Logged(Arc<dyn Exchange>);
//!
//! impl Exchange for Logged {
//!     fn exchange<'a>(
//!         &'a self,
//!         operation: &'static Operation,
//!         request: reqwest::Request,
//!     ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
//!         println!("{operation} {}", request.url().path());
//!         self.0.exchange(operation, request)
//!     }
//! }
//!
//! let config = metal_api::Config::builder().auth_token("t").build()?;
//! let client = config.client()?;
//! let logged = client.with_exchange(Arc::new(Logged(client.exchange().clone())));
//! # drop(logged);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use progenitor_client::{ClientHooks, ClientInfo, OperationInfo};
use reqwest::header::{HeaderMap, LOCATION};

use crate::config::ConfigError;
use crate::operation::{self, Method, Operation};
use crate::Client;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A boxed, sendable future (the return type of [`Exchange::exchange`]).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The default bound on a reply body: 32 MiB. A 1000-device page is a few
/// MiB.
pub const DEFAULT_MAX_BODY: u64 = 32 * 1024 * 1024;

/// Makes one HTTP exchange for one request of `operation`. Never retries.
pub trait Exchange: Send + Sync + 'static {
    /// Sends `request` once and returns the reply head (the body is read by
    /// the generated code afterwards).
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>>;
}

/// What the generated client carries: the headers every request gets and
/// the exchange that sends it.
#[derive(Clone)]
pub struct Hooks {
    headers: HeaderMap,
    exchange: Arc<dyn Exchange>,
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values may be tokens: list the names only.
        f.debug_struct("Hooks")
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Hooks {
    /// Every request gets `headers` (already marked sensitive where they
    /// are secrets) and goes through `exchange`.
    pub fn new(headers: HeaderMap, exchange: Arc<dyn Exchange>) -> Self {
        Self { headers, exchange }
    }
}

/// The operation progenitor names `method`; an operation the table lacks
/// (impossible: both come from one spec, checked by build.rs) is reported
/// as a `POST`, so nothing treats it as safe to repeat.
fn operation_of(method: &'static str) -> &'static Operation {
    operation::by_method(method).unwrap_or(&UNLISTED)
}

static UNLISTED: Operation = Operation {
    id: "unlisted",
    method: Method::Post,
    path: "",
    success: 200,
    lists: &[],
};

impl ClientHooks<Hooks> for Client {
    async fn pre<E>(
        &self,
        request: &mut reqwest::Request,
        _info: &OperationInfo,
    ) -> Result<(), progenitor_client::Error<E>> {
        for (name, value) in &self.inner().headers {
            request.headers_mut().insert(name, value.clone());
        }
        Ok(())
    }

    async fn exec(
        &self,
        request: reqwest::Request,
        info: &OperationInfo,
    ) -> reqwest::Result<reqwest::Response> {
        let operation = operation_of(info.operation_id);
        self.inner().exchange.exchange(operation, request).await
    }
}

impl Client {
    /// A client whose requests go through `exchange` (with this client's
    /// base URL and headers).
    ///
    /// The generated code still builds its requests with a reqwest client,
    /// which the exchange never sends through; one is built per process,
    /// with the chosen TLS backend ([`crate::tls`]), and shared. Building it
    /// fails only where the backend cannot start (the platform's TLS
    /// library, the platform's certificate verifier): then every call
    /// fails with the same [`ConfigError::RequestBuilder`], and nothing
    /// panics.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// use metal_api::exchange::{BoxFuture, Exchange};
    /// struct Nowhere;
    /// impl Exchange for Nowhere {
    ///     fn exchange<'a>(
    ///         &'a self,
    ///         _: &'static metal_api::Operation,
    ///         _: reqwest::Request,
    ///     ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
    ///         Box::pin(async { Ok(http::Response::new("{}").into()) })
    ///     }
    /// }
    /// let client = metal_api::Client::over(
    ///     "http://in-process/metal/v1",
    ///     reqwest::header::HeaderMap::new(),
    ///     Arc::new(Nowhere),
    /// )
    /// .expect("the TLS backend starts");
    /// # use metal_api::ClientInfo;
    /// assert_eq!(client.baseurl(), "http://in-process/metal/v1");
    /// ```
    pub fn over(
        base_url: &str,
        headers: HeaderMap,
        exchange: Arc<dyn Exchange>,
    ) -> Result<Self, ConfigError> {
        // Making one loads the platform's root certificates (tens of
        // milliseconds), so it is made once; its outcome, a failure too, is
        // kept, so a backend that cannot start is not retried on every call.
        static BUILDER: std::sync::OnceLock<Result<reqwest::Client, Arc<ConfigError>>> =
            std::sync::OnceLock::new();
        let builder = BUILDER.get_or_init(|| {
            crate::tls::configure(reqwest::Client::builder())
                .map_err(ConfigError::from)
                .and_then(|b| b.build().map_err(ConfigError::Http))
                .map_err(Arc::new)
        });
        match builder {
            Ok(client) => Ok(Self::new_with_client(
                base_url,
                client.clone(),
                Hooks::new(headers, exchange),
            )),
            Err(e) => Err(ConfigError::RequestBuilder(e.clone())),
        }
    }

    /// The headers every request of this client gets (the tokens among
    /// them, marked sensitive).
    pub fn headers(&self) -> &HeaderMap {
        &self.inner().headers
    }

    /// The exchange this client's requests go through.
    pub fn exchange(&self) -> &Arc<dyn Exchange> {
        &self.inner().exchange
    }

    /// The same client (base URL, headers) over another exchange; wrap
    /// [`Client::exchange`] to add a layer.
    pub fn with_exchange(&self, exchange: Arc<dyn Exchange>) -> Self {
        Self::new_with_client(
            self.baseurl(),
            self.client().clone(),
            Hooks::new(self.inner().headers.clone(), exchange),
        )
    }
}

/// The default exchange: one request with reqwest, which must not follow
/// redirects (the token would go along; [`crate::Config`] builds it so),
/// and a reply body bounded by `max_body` bytes.
#[derive(Clone, Debug)]
pub struct HttpExchange {
    client: reqwest::Client,
    max_body: u64,
}

impl HttpExchange {
    /// Sends with `client`, reading at most `max_body` bytes of a reply.
    pub fn new(client: reqwest::Client, max_body: u64) -> Self {
        Self { client, max_body }
    }
}

impl Exchange for HttpExchange {
    fn exchange<'a>(
        &'a self,
        _operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        Box::pin(async move {
            let response = self.client.execute(request).await?;
            if response.status().is_redirection() {
                let location = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_string();
                return fail(ExchangeError::Redirect {
                    status: response.status().as_u16(),
                    location,
                })
                .await;
            }
            limit_body(response, self.max_body).await
        })
    }
}

/// The same reply with a body that fails with
/// [`ExchangeError::BodyTooLarge`] past `max` bytes; a `Content-Length`
/// over `max` fails at once, before any of the body is read.
pub async fn limit_body(
    response: reqwest::Response,
    max: u64,
) -> reqwest::Result<reqwest::Response> {
    let status = response.status().as_u16();
    let announced = response
        .headers()
        .get(reqwest::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok())
        .or(response.content_length());
    if announced.is_some_and(|n| n > max) {
        return fail(ExchangeError::BodyTooLarge { status, limit: max }).await;
    }
    let mut head = http::Response::new(());
    *head.status_mut() = response.status();
    *head.version_mut() = response.version();
    *head.headers_mut() = response.headers().clone();
    let mut seen: u64 = 0;
    let limited = response
        .bytes_stream()
        .map(move |chunk| -> Result<Bytes, BoxError> {
            let chunk = chunk?;
            seen = seen.saturating_add(chunk.len() as u64);
            if seen > max {
                return Err(Box::new(ExchangeError::BodyTooLarge { status, limit: max }));
            }
            Ok(chunk)
        });
    let (parts, ()) = head.into_parts();
    Ok(reqwest::Response::from(http::Response::from_parts(
        parts,
        reqwest::Body::wrap_stream(limited),
    )))
}

/// Why an exchange failed on its own, rather than with reqwest's error.
/// Found in a `reqwest::Error`'s source chain with [`ExchangeError::find`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExchangeError {
    /// The request never left: the server cannot have acted.
    #[error("request not sent: {0}")]
    NotSent(String),
    /// The request was sent and no reply came back (connection dropped, a
    /// time limit): the server may have acted.
    #[error("no reply: {0}")]
    NoReply(String),
    /// The reply body is larger than the configured bound.
    #[error("HTTP {status} reply body is larger than {limit} bytes")]
    BodyTooLarge {
        /// The reply's status.
        status: u16,
        /// The bound, in bytes.
        limit: u64,
    },
    /// The server answered with a redirect, which is never followed (the
    /// token would go along).
    #[error("HTTP {status} redirect to {location:?} not followed")]
    Redirect {
        /// The 3xx status.
        status: u16,
        /// Where it pointed.
        location: String,
    },
}

impl ExchangeError {
    /// The `ExchangeError` in `error`'s source chain, if any.
    pub fn find<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a ExchangeError> {
        let mut next = Some(error);
        while let Some(e) = next {
            if let Some(found) = e.downcast_ref::<ExchangeError>() {
                return Some(found);
            }
            next = e.source();
        }
        None
    }
}

/// Fails an exchange with `cause`, as a `reqwest::Error` whose source chain
/// holds it.
///
/// reqwest's errors have no public constructor; a body read that fails
/// keeps its cause as the error's source, so this makes one from a body
/// whose only frame is `cause`.
pub async fn fail(cause: ExchangeError) -> reqwest::Result<reqwest::Response> {
    let text = cause.to_string();
    let body = reqwest::Body::wrap_stream(futures::stream::once(async move {
        Err::<Bytes, BoxError>(Box::new(cause))
    }));
    match reqwest::Response::from(http::Response::new(body))
        .bytes()
        .await
    {
        Err(e) => Err(e),
        // A body whose only frame is an error cannot be read whole; should
        // reqwest ever manage it, answer a 502 carrying the cause, which
        // every caller treats as an unknown outcome.
        Ok(_) => {
            let mut reply = http::Response::new(reqwest::Body::from(
                serde_json::json!({ "errors": [text] }).to_string(),
            ));
            *reply.status_mut() = http::StatusCode::BAD_GATEWAY;
            Ok(reqwest::Response::from(reply))
        }
    }
}
