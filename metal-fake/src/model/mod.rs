//! The in-memory Metal world: projects, plans, facilities, hardware
//! reservations, devices and SSH keys, with device lifecycles on the fake's
//! clock ([`tokio::time::Instant`], so paused-clock tests are deterministic).
//!
//! - `timings`: [`Timings`], how long each lifecycle phase lasts.
//! - `records`: what the world keeps of each thing.
//! - `world`: the world itself and how it is built.
//! - `rules` and `keys`: what each change checks and does (devices and
//!   reservations; SSH keys).
//! - `view` and `reads`: records rendered as the API's generated types.
//! - `access`: which token sees which project (`403` otherwise).
//! - `document`: the world to and from a [`crate::document::WorldDoc`].
//! - `inspect`: what tests and `/_fake/state` look at ([`WorldCounts`]).
//! - `dispatch`: the operations the model serves, keyed by the spec's
//!   operation; the one place a call acts on the model.

mod access;
mod dispatch;
mod document;
mod inspect;
mod keys;
mod reads;
mod records;
mod rules;
mod timings;
mod view;
mod world;

pub(crate) use access::{id_in_path, Access};
pub(crate) use dispatch::{Prepare, Prepared, ALSO_PATCH, MODELLED};
pub use inspect::WorldCounts;
pub use timings::Timings;
pub(crate) use world::{World, WorldSpec};
