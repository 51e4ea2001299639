//! A small provisioning controller built on `metal-policy`, the way a user
//! would build one, and the tools to check what it did.
//!
//! # Module guide
//!
//! - [`controller`]: [`run`] lists a project's free hardware reservations,
//!   ensures an SSH key, creates one device per reservation through the
//!   [`metal_policy::Metal`] trait (moving on to another reservation when a
//!   race is lost, or a device fails to provision), and waits until each is
//!   active; [`cleanup`] deletes them, waiting while the API refuses to
//!   delete a device still provisioning.
//! - [`audit`](mod@audit): compares the server's devices with what the run knows:
//!   duplicates (a device created twice) and lost devices (on the server,
//!   unknown to the run); [`shortfall`] says why a run fell short, if it
//!   did.
//!
//! The runnable program is `examples/provision.rs`
//! (`cargo run --release --example provision`); the comparison benchmarks
//! are `benches/compare.rs` (`cargo bench -p metal-provision`).

pub mod audit;
pub mod controller;

pub use audit::{audit, shortfall, Audit};
pub use controller::{
    cleanup, run, FailedDevice, NoProgress, Outcome, Progress, RunConfig, RunError, SshKeySpec,
};
