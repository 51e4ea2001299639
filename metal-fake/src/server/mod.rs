//! The fake served over HTTP: its router (module `router`) on a TCP
//! listener at `/metal/v1/...`, with the wire format of
//! `openapi/metal.json`, `X-Auth-Token` checked, server-side rate limiting
//! with `X-RateLimit-*` headers, and wire-level faults (a dropped
//! connection, a reply that never comes, an HTML 502, a body cut short).
//!
//! `GET /_fake/state` (outside the API prefix, no token) returns the
//! [`crate::Snapshot`] as JSON.
//!
//! - `listen`: [`bind`] and [`serve`], and the accept loop.
//! - `handle`: [`ServerHandle`].

mod handle;
mod listen;
mod timed;

pub use handle::ServerHandle;
pub use listen::{bind, serve};
