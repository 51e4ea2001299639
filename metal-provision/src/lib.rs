//! A small provisioning controller built on `metal-policy`, the way a user
//! would build one, and the tools to check what it did.
//!
//! # Module guide
//!
//! - [`controller`]: [`run`] lists a project's free hardware reservations
//!   and the devices an earlier run of the same name left, ensures an SSH
//!   key, keeps or creates one device per hostname through the
//!   [`metal_policy::Metal`] trait (moving on to another reservation when a
//!   race is lost, or a device fails to provision), and waits until each is
//!   active; several runs of one name at once end with one device per
//!   hostname (the controller's docs say how, and what a race costs);
//!   [`remove_duplicates`] deletes what another run made after this one
//!   settled; [`cleanup`] deletes them, waiting while the API refuses to
//!   delete a device still provisioning.
//! - [`audit`](mod@audit): compares the server's devices with what the run
//!   knows: duplicates (devices beyond one for a hostname), adopted devices
//!   (found and kept), lost hostnames (made active, ending with no device)
//!   and unknown devices (of the run's tag, under a hostname it was not
//!   asked for); [`shortfall`] says why a run fell short, if it did.
//! - [`report`]: the run's output for people, a table of its requests.
//!
//! The runnable program is `src/bin/provision.rs`
//! (`cargo run --release --bin provision`); the comparison benchmarks
//! are `benches/compare.rs` (`cargo bench -p metal-provision`).

pub mod audit;
pub mod controller;
pub mod report;

pub use audit::{audit, shortfall, Audit};
pub use controller::{
    cleanup, remove_duplicates, run, run_tag, FailedDevice, InvalidName, Known, NoProgress,
    Outcome, Progress, RunConfig, RunError, SshKeySpec,
};

// The README's and the crates' READMEs' examples, compiled and run as
// doctests (this crate's dev-dependencies hold every crate they use).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct WorkspaceReadme;
#[cfg(doctest)]
#[doc = include_str!("../../metal-fake/README.md")]
struct MetalFakeReadme;
#[cfg(doctest)]
#[doc = include_str!("../../metal-policy/README.md")]
struct MetalPolicyReadme;
#[cfg(doctest)]
#[doc = include_str!("../../metal-api/README.md")]
struct MetalApiReadme;
