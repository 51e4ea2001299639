//! The fake's one router, served over HTTP ([`crate::server`]) and called
//! in-process without sockets (the [`metal_api::Exchange`] of
//! [`crate::Fake`]).
//!
//! - `app`: the router, built from [`metal_api::operation::ALL`].
//! - `gate`: token, then rate limit, `X-RateLimit-*` headers, recording.
//! - `operation`: one call of one operation, from request to reply.
//! - `context`: what the handlers share.
//! - `reply`: replies as the API sends them.
//! - `limit`: the server-side rate limit.
//! - `kill`: the per-connection kill signal.
//! - `config`: [`ServerConfig`] and [`RecordedReply`].

mod app;
mod config;
mod context;
mod gate;
mod kill;
mod limit;
mod operation;
mod reply;

pub(crate) use app::{router, Recorded};
pub use config::{
    RecordedReply, ServerConfig, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
};
pub(crate) use kill::{ConnKill, Kill};
