//! The provisioning controller: one device per hostname, each on a free
//! hardware reservation, created through [`Metal`](metal_policy::Metal) and
//! waited on until active.
//!
//! A run has a stable identity, its name ([`RunConfig::named`]): its
//! hostnames are `<name>-<n>` and every device it creates carries the tag
//! [`run_tag`]`(name)`. A run started again under the same name (after a
//! crash, say) adopts the devices it finds with that tag and hostname
//! instead of creating new ones.
//!
//! # Several runs of one name at once
//!
//! Runs of one name working at the same time, in as many processes, end
//! with one device per hostname, without talking to each other: each
//! decides from what it observes, by one rule (the `survivor` module), as
//! a level-triggered Kubernetes controller decides from observed state with
//! a deterministic tie-break, and as "lowest key wins" elects a leader:
//!
//! - **The survivor** of a hostname is its earliest created live device
//!   (`created_at`, then the smallest ID); a failed device never is, and is
//!   deleted by whichever run sees it. Every run that sees both of two
//!   devices picks the same one.
//! - **Deletes go only behind a survivor seen active.** A run waits for
//!   its view's survivor; once it is active, a view listed after that (the
//!   run's watch, or one list of the hostname) must still show it first,
//!   and only then are the others deleted. A survivor that is still
//!   provisioning may fail: a run that deleted the rest behind it could
//!   delete the device every other run keeps, and a hostname would end with
//!   none. As it is, the earliest device that ever becomes active is
//!   deleted by nobody, and is the one every run keeps.
//! - **A lost race looks first.** A create refused on a reservation someone
//!   took ([`metal_policy::Error::RaceLost`], or a refusal on a reservation
//!   that no longer reads free) lists the hostname before taking the next
//!   reservation: when another run of the name took it for this hostname,
//!   its device is adopted instead of a second one made. Runs that list
//!   the same free reservations in the same order mostly meet this way, so
//!   a reservation decides most races without a duplicate.
//! - **A refusal whose cause is gone is not an outcome.** A create refused
//!   on a reservation that reads free again by the time the run looks (its
//!   holder, another run's duplicate or failed device, was deleted between
//!   the refusal and the look) lists the hostname too: a live device of it,
//!   by any run of the name, is adopted; with none, the same reservation is
//!   tried again (up to three times a hostname, after which the refusal is
//!   the request's own). A conflict is a requeue, as in a Kubernetes
//!   controller, never a final answer while the name's state can still
//!   settle it.
//!
//! What a race costs, in requests beyond one run's own: a hostname whose
//! two creates meet on one reservation costs the loser a refused create,
//! one reservation read and one listing of the hostname (3 requests, no
//! device made twice). A duplicate made on another reservation costs its
//! create, and its delete once the survivor is active (one request, plus a
//! read each [`RunConfig::poll_interval`] while the API refuses to delete
//! it because it is still provisioning); the run that made it lists the
//! hostname once when its device goes, and waits for the survivor through
//! its watch. Each run waits for its hostname's survivor, so a run adopting
//! a device that is still provisioning finishes when that device does.
//!
//! What remains:
//! - A run that ends while another is still at work can meet, in its
//!   audit, a device that other run made for a hostname after this run
//!   settled it (its view of the hostname predated the survivor, and its
//!   create came late, after retries). [`remove_duplicates`] deletes such
//!   devices behind the run's active device, as the other run would; a
//!   device made after a run's last look is removed by the run that made
//!   it, so when every run of the name has ended, one device per hostname
//!   remains.
//! - The rule reads `created_at` and lists as the API serves them: it
//!   holds when a list begun after a device was created shows it. A list
//!   that lagged creations could let two runs keep different devices for a
//!   time; neither deletes without an active survivor, so the hostname
//!   keeps one, and the later run's check settles it.
//! - `create_device` with `next-available` (which this controller does not
//!   use) can create twice when an attempt timed out before the server
//!   acted (see `metal-policy`'s guarantee 4): that second device carries
//!   the run's tag and hostname, and is a duplicate this rule removes.
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
//! - `survivor`: which device of a hostname is kept, and what may be
//!   deleted behind it.
//! - `delete`: removing failed and duplicate devices, [`remove_duplicates`]
//!   after a run, and [`cleanup`].

mod config;
mod delete;
mod outcome;
mod run;
mod survivor;

pub use config::{run_tag, InvalidName, RunConfig, SshKeySpec, MAX_NAME_LEN};
pub use delete::{cleanup, remove_duplicates};
pub use outcome::{FailedDevice, Known, NoProgress, Outcome, Progress, RunError};
pub use run::{create_request, is_free, run};
