//! The Metal operations a provisioning controller programs against, and the
//! policy that makes them safe to call from a long-running process.
//!
//! # Module guide
//!
//! - [`metal`]: the [`Metal`] trait (use it as `Arc<dyn Metal>`), and
//!   [`Fields`] for `include`/`exclude`.
//! - [`error`]: [`Error`], what a call returns, and [`AttemptError`], the
//!   classified failure of one HTTP exchange.
//! - [`transport`]: [`Transport`], one exchange of one [`Request`], the seam
//!   between the policy and the wire.
#![forbid(unsafe_code)]

pub mod client;
pub mod error;
pub mod http;
mod limit;
pub mod metal;
mod metrics;
pub mod retry;
pub mod transport;

pub use client::{BuildError, Client, ClientBuilder};
pub use error::{AttemptError, BoxError, Error};
pub use http::HttpTransport;
pub use metal::{Fields, Metal};
#[cfg(feature = "backoff")]
pub use retry::backoff::BackoffCrate;
pub use retry::backoff::{Backoff, BackoffFactory, ExponentialBackoff};
pub use transport::{KeyOwner, Request, Response, Transport};
