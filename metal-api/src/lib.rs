//! The raw, typed Equinix Metal API client: every operation of the Metal
//! API v1.
//!
//! # Module guide
//!
//! - The generated client (re-exported here): [`Client`], one builder per
//!   operation (`client.find_device_by_id().id(..).send()`), each documented
//!   with our one-line summary, the request and response [`types`], and the
//!   [`Error`] every call returns. Progenitor generates it from
//!   `openapi/metal.json` with `cargo xtask generate`, into
//!   `src/generated/`, which is committed: building this crate runs no code
//!   generator. How the spec is derived from upstream, its patches and how
//!   to regenerate: `openapi/README.md` in the repository.
//! - [`config`]: credentials, base URL, user agent, timeouts and the bound
//!   on reply bodies; builds a [`Client`] and fails early on a missing token
//!   or a bad URL.
//! - [`operation`]: every operation's facts (operationId, method, path,
//!   success status), generated from the spec.
//! - [`exchange`]: the hook point every request passes ([`Exchange`]),
//!   its default over reqwest ([`exchange::HttpExchange`]: no redirects,
//!   bounded bodies), and [`exchange::ExchangeError`].
//! - [`variants`]: the response unions (an IP address that is an assignment
//!   or a reservation, a plain or a VRF gateway, ...), each decoded to the
//!   variant it is.
//! - [`known`]: typed readings of open enumerations ([`DeviceState`]) and the
//!   comma-join helper for `include`/`exclude` ([`csv`]).
//! - [`tls`]: the TLS backend, chosen by features (the `metal-tls` crate,
//!   where every line that differs by backend is).
//! - `mock` (feature `mock`): progenitor's typed httpmock extension.
//! - `samples` (feature `samples`): one sample call of every operation, for
//!   tests that walk the whole API.
//!
//! # Features
//!
//! | feature | what it does |
//! | --- | --- |
//! | `rustls-ring` (default) | TLS by rustls with *ring* |
//! | `rustls-aws-lc` | TLS by rustls with aws-lc-rs |
//! | `native-tls` | TLS by the platform's library (OpenSSL on Linux) |
//! | `mock` | `metal_api::mock`, with httpmock |
//! | `samples` | `metal_api::samples` |
//!
//! This crate knows nothing of retries, rate limits or idempotency; that is
//! `metal-policy`'s work, plugged in at [`exchange`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let client = metal_api::Config::from_env().build()?.client()?;
//! let device = client
//!     .find_device_by_id()
//!     .id(uuid::Uuid::nil())
//!     .include(metal_api::csv(["project"]))
//!     .send()
//!     .await?;
//! println!("{:?}", device.state_kind());
//! # Ok(()) }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod config;
pub mod exchange;
pub mod known;
pub mod operation;
#[cfg(feature = "samples")]
#[cfg_attr(docsrs, doc(cfg(feature = "samples")))]
pub mod samples;
pub mod shape;
/// The TLS backend, chosen by this crate's features, which forward to
/// the `metal-tls` crate's: see there.
#[doc(inline)]
pub use metal_tls as tls;
pub mod variants;

#[allow(
    clippy::all,
    clippy::pedantic,
    missing_docs,
    unused,
    rustdoc::all,
    irrefutable_let_patterns
)]
mod generated {
    include!("generated/client.rs");
}

pub use config::{Config, ConfigBuilder, ConfigError, Token};
pub use exchange::{Exchange, ExchangeError};
pub use generated::*;
pub use known::{csv, DeviceState};
pub use operation::Operation;

/// Progenitor's typed extension of [`httpmock::MockServer`] for every
/// operation: `server.find_device_by_id(|when, then| ...)`.
#[cfg(feature = "mock")]
#[cfg_attr(docsrs, doc(cfg(feature = "mock")))]
#[allow(clippy::all, missing_docs, unused, rustdoc::all)]
pub mod mock {
    include!("generated/mock.rs");
}
