//! The provisioning controller: one device per hostname, each on a free
//! hardware reservation, created through [`Metal`](metal_policy::Metal) and
//! waited on until active.
//!
//! A run has a stable identity, its name ([`RunConfig::named`]): its
//! hostnames are `<name>-<n>` and every device it creates carries the tag
//! [`run_tag`]`(name)`. A run started again under the same name (after a
//! crash, say) adopts the devices it finds with that tag and hostname
//! instead of creating new ones, and two runs of one name working at the
//! same time end with one device per hostname: where several live devices
//! carry one hostname, the earliest created (then the smallest ID) is kept
//! and the others are deleted, by whichever run sees them; each run checks
//! once more, after its device is active, that it is still the one kept.
//!
//! A device whose provisioning fails (it reads `failed`, or the API stops
//! showing it to us with a `403` as it moves failed devices away) is a
//! failure of its reservation, not of the hostname: the run deletes it,
//! waits until it is gone, reports it ([`Outcome::failed`],
//! [`Progress::failed`]) and tries the hostname on another free reservation,
//! at most [`RunConfig::failed_retries`] times.
//!
//! - `config`: [`RunConfig`] and [`SshKeySpec`].
//! - `outcome`: what a run did ([`Outcome`], [`Known`], [`FailedDevice`]),
//!   why it could not ([`RunError`]), and [`Progress`].
//! - `run`: [`run`], one hostname after the other's worker, and
//!   [`create_request`].
//! - `delete`: removing failed and duplicate devices, and [`cleanup`].

mod config;
mod delete;
mod outcome;
mod run;
mod survivor;

pub use config::{run_tag, InvalidName, RunConfig, SshKeySpec, MAX_NAME_LEN};
pub use delete::{cleanup, remove_duplicates};
pub use outcome::{FailedDevice, Known, NoProgress, Outcome, Progress, RunError};
pub use run::{create_request, is_free, run};
