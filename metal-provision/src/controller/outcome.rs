//! What a run did ([`Outcome`]), why it could not ([`RunError`]), and the
//! [`Progress`] it reports as it goes.

use std::collections::{BTreeMap, HashSet};

use metal_api::types;
use metal_policy::{Error, WaitError};
use uuid::Uuid;

/// Receives progress as the run goes; the example draws bars from it.
pub trait Progress: Send + Sync {
    /// A device was asked for.
    fn requested(&self) {}
    /// A device was created.
    fn created(&self) {}
    /// A device an earlier run (or another run of the same name) made was
    /// found and kept for its hostname.
    fn adopted(&self) {}
    /// A device became active.
    fn active(&self) {}
    /// A reservation was lost to another API user; another one is tried.
    fn race_lost(&self) {}
    /// A device failed to provision; it is deleted and, retries allowing,
    /// another reservation is tried.
    fn failed(&self) {}
}

/// Progress that goes nowhere.
#[derive(Debug, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

/// Why a run could not start, or one device failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The project could not be read (bad endpoint, bad token, unknown ID).
    #[error("cannot read project {project}: {source}")]
    Project {
        /// The project.
        project: Uuid,
        /// Why.
        #[source]
        source: Error,
    },
    /// The SSH key could not be ensured.
    #[error("cannot ensure SSH key {label:?}: {source}")]
    SshKey {
        /// Its label.
        label: String,
        /// Why.
        #[source]
        source: Error,
    },
    /// The reservations could not be listed.
    #[error("cannot list the hardware reservations of project {project}: {source}")]
    Reservations {
        /// The project.
        project: Uuid,
        /// Why.
        #[source]
        source: Error,
    },
    /// The devices already carrying the run's tag could not be listed.
    #[error("cannot list the devices tagged {tag:?} in project {project}: {source}")]
    Existing {
        /// The project.
        project: Uuid,
        /// The run's tag.
        tag: String,
        /// Why.
        #[source]
        source: Error,
    },
    /// The run's watch of the project's devices could not start.
    #[error("cannot watch the devices of project {project}: {source}")]
    Watch {
        /// The project.
        project: Uuid,
        /// Why.
        #[source]
        source: metal_policy::WatchError,
    },
    /// Every free reservation was taken before this device got one.
    #[error("no provisionable hardware reservation left for {hostname}")]
    NoReservationLeft {
        /// The device that got none.
        hostname: String,
    },
    /// Creating a device failed.
    #[error("creating {hostname}: {source}")]
    Create {
        /// The device.
        hostname: String,
        /// Why.
        #[source]
        source: Error,
    },
    /// Every device tried for this hostname failed to provision (each is in
    /// [`Outcome::failed`]).
    #[error("{hostname}: {tries} devices failed to provision, the last {last}")]
    ProvisioningFailed {
        /// The device asked for.
        hostname: String,
        /// Devices tried, each on its own reservation.
        tries: usize,
        /// The last one.
        last: Uuid,
    },
    /// Waiting for a device failed.
    #[error("waiting for {hostname} to become active: {source}")]
    NotActive {
        /// The device's hostname.
        hostname: String,
        /// Why (a timeout, or an API error).
        #[source]
        source: WaitError,
    },
    /// Listing the devices of a hostname, to settle which one to keep,
    /// failed.
    #[error("listing the devices of {hostname}: {source}")]
    Settle {
        /// The hostname.
        hostname: String,
        /// Why.
        #[source]
        source: Error,
    },
    /// The API returned a device without an ID.
    #[error("{hostname}: the API returned a device without an ID")]
    NoId {
        /// The hostname.
        hostname: String,
    },
    /// The hostname's devices kept changing under the run (other runs of
    /// the same name deleting and creating them) for longer than it keeps
    /// trying.
    #[error("{hostname}: no device stayed the one to keep after {rounds} rounds")]
    Unsettled {
        /// The hostname.
        hostname: String,
        /// Rounds tried.
        rounds: usize,
    },
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Devices asked for.
    pub requested: usize,
    /// Devices this run created and keeps, as the API returned them (as
    /// the wait read them; one that never became active keeps only its ID,
    /// hostname, tags, state and times).
    pub created: Vec<types::Device>,
    /// Devices this run found on the server with its tag and a hostname of
    /// its own (left by an earlier run of the same name, or made by one
    /// running beside it) and keeps, as last read.
    pub adopted: Vec<types::Device>,
    /// How many of the kept devices became active.
    pub active: usize,
    /// Reservations lost to other API users along the way.
    pub race_lost: usize,
    /// Devices that failed to provision, not in [`Outcome::created`].
    pub failed: Vec<FailedDevice>,
    /// Devices deleted because another device of the same hostname was
    /// kept: duplicates, this run's or found.
    pub removed: Vec<Uuid>,
    /// What went wrong for devices that did not become active.
    pub failures: Vec<RunError>,
    /// Every device this run created, kept or not.
    pub created_ids: HashSet<Uuid>,
    /// Every hostname asked for, with the device that became active for
    /// it (`None`: the hostname fell short, see [`Outcome::failures`]).
    pub hostnames: BTreeMap<String, Option<Uuid>>,
}

/// A device that failed to provision, and what became of it.
#[derive(Debug)]
pub struct FailedDevice {
    /// Its hostname.
    pub hostname: String,
    /// The device.
    pub id: Uuid,
    /// The reservation it was on, when known.
    pub reservation: Option<Uuid>,
    /// `None` once it is gone (deleted by the run, or taken away by the API
    /// with a `403`); otherwise why it could not be removed (it may still
    /// hold its reservation).
    pub left_behind: Option<String>,
}

/// The devices a run knows, for [`crate::audit()`]: those it created,
/// those it found on the server, and its hostnames.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// Every device the run created (kept, failed or removed).
    pub created: HashSet<Uuid>,
    /// Every device the run found and did not create (adopted, or failed
    /// or removed as a duplicate).
    pub found: HashSet<Uuid>,
    /// Every hostname the run was asked for, with the device that became
    /// active for it, if one did ([`Outcome::hostnames`]).
    pub hostnames: BTreeMap<String, Option<Uuid>>,
}

impl Outcome {
    /// The IDs of the devices this run keeps, created or adopted (failed
    /// ones are in [`Outcome::failed`]).
    pub fn device_ids(&self) -> Vec<Uuid> {
        self.created
            .iter()
            .chain(&self.adopted)
            .filter_map(|d| d.id)
            .collect()
    }

    /// Every device this run dealt with, split into those it created and
    /// those it found: what an audit should know.
    pub fn known(&self) -> Known {
        let created = self.created_ids.clone();
        let found = self
            .adopted
            .iter()
            .filter_map(|d| d.id)
            .chain(self.failed.iter().map(|f| f.id))
            .chain(self.removed.iter().copied())
            .filter(|id| !created.contains(id))
            .collect();
        Known {
            created,
            found,
            hostnames: self.hostnames.clone(),
        }
    }
}
