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

pub mod error;
pub mod metal;
pub mod transport;

pub use error::{AttemptError, BoxError, Error};
pub use metal::{Fields, Metal};
pub use transport::{KeyOwner, Request, Response, Transport};
