//! A stateful in-memory Metal API with fault injection, served in-process
//! (as a [`metal_policy::Transport`] and [`metal_policy::Metal`]) or over
//! HTTP with the wire format of `openapi/metal.json`.
//!
//! # Module guide
//!
//! - [`model`]: the world (projects, reservations, devices, SSH keys) and
//!   device lifecycles on the fake's clock.
//! - [`render`]: `include`/`exclude`, href stubs, pagination.
//! - [`faults`]: [`Fault`] (scripted) and [`RandomFaults`] (seeded).
//! - [`fake`]: [`Fake`], its builder and the inspection API.
//! - [`state`]: the call log and counters ([`Snapshot`]).
//! - [`transport`]: the in-process [`metal_policy::Transport`].
//! - [`server`]: the axum server.
#![forbid(unsafe_code)]

pub mod fake;
pub mod faults;
pub mod model;
pub mod render;
pub mod server;
pub mod state;
pub mod transport;

pub use fake::{Fake, FakeBuilder};
pub use faults::{Fault, FaultKind, RandomFaults};
pub use model::{ApiError, Timings, WorldCounts};
pub use server::{bind, serve, RecordedReply, ServerConfig, ServerHandle};
pub use state::{CallRecord, Snapshot};
