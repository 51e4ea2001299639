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
//! - [`server`]: the axum server ([`bind`], [`serve`]) and its
//!   [`ServerHandle`].
//!
//! # In-process
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use metal_policy::Metal;
//! let fake = metal_fake::Fake::builder().reservations(2).build();
//! let reservations = fake.list_reservations(fake.project()).await.unwrap();
//! assert_eq!(reservations.len(), 2);
//! # }
//! ```
//!
//! # Over HTTP
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let fake = metal_fake::Fake::builder().build();
//! let config = metal_fake::ServerConfig::new("token").rate_limit(Some(50));
//! let server = metal_fake::bind(fake, "127.0.0.1:0", config).await.unwrap();
//! assert!(server.base_url().ends_with("/metal/v1"));
//! server.shutdown().await;
//! # }
//! ```
//!
//! The binary (`cargo run -p metal-fake -- --help`) serves one fake and
//! prints `metal-fake listening on http://HOST:PORT/metal/v1` first.
//!
//! # Faults
//!
//! Every exchange, in-process or over HTTP, goes through one place that
//! picks its fault ([`Fault`] scripted per operation and per call, or
//! [`RandomFaults`] from a seed), acts on the model or not, and records the
//! call. The in-process transport turns each fault into the
//! [`metal_policy::AttemptError`] the real HTTP transport gives for the
//! same wire failure (tested in `tests/server.rs`); the one exception is
//! [`FaultKind::NotSent`], which a live listener cannot express and the
//! server renders as a connection dropped before acting.
//!
//! # Conformance suite
//!
//! `tests/conformance.rs` runs the same scenarios against the in-process
//! fake, the policy client over HTTP against the fake server, and the real
//! API when `METAL_AUTH_TOKEN`, `METAL_PROJECT` and `METAL_RESERVATION` (a
//! provisionable reservation the suite may provision, reboot, power-cycle
//! and delete; optional `METAL_API_URL`, `METAL_OS`) are set; otherwise it
//! prints that the real run is skipped.

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
