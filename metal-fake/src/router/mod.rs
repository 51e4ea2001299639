//! The fake's one router, served over HTTP ([`crate::server`]) and called
//! in-process without sockets (the [`metal_api::Exchange`] of
//! [`crate::Fake`]).
//!
//! - `app`: the router, built from [`metal_api::operation::ALL`]; each
//!   route hands its operation to the pipeline ([`crate::pipeline`]).
//! - `reply`: replies as the API sends them.
//! - `kill`: the per-connection kill signal.
//! - `config`: [`ServerConfig`] and [`RecordedReply`].

mod app;
mod config;
mod kill;
pub(crate) mod reply;

pub(crate) use app::router;
pub use config::{
    RecordedReply, ServerConfig, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_WRITE_TIMEOUT,
};
pub(crate) use kill::{ConnKill, Kill};
