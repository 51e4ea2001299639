//! The world: every record of the fake Metal API, how it is built, and the
//! fake's clock as the API's timestamps show it.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use tokio::time::Instant;
use uuid::Uuid;

use super::access::Access;
use super::records::{
    DeviceRec, FacilityRec, OrganizationRec, PlanRec, ProjectRec, ReservationRec, SshKeyRec,
    TokenRec,
};
use super::timings::Timings;
use crate::faults::FailurePlan;

/// What the world is built from (see [`crate::FakeBuilder`]).
#[derive(Clone, Debug)]
pub(crate) struct WorldSpec {
    pub projects: Vec<(Uuid, usize)>,
    pub plans: Vec<String>,
    pub facilities: Vec<(String, String)>,
    pub timings: Timings,
}

/// The state of the fake Metal API. The rules that change it are in
/// `rules`, its rendering as API types in `view` and `reads`, and what
/// tests inspect in `inspect`.
#[derive(Debug)]
pub(crate) struct World {
    pub(super) timings: Timings,
    pub(super) epoch: Instant,
    pub(super) epoch_wall: DateTime<Utc>,
    pub(super) user: Uuid,
    /// Organisations by ID; every project belongs to one.
    pub(super) organizations: BTreeMap<Uuid, OrganizationRec>,
    /// The world's own API tokens (besides the server's configured one,
    /// which sees everything).
    pub(super) tokens: Vec<TokenRec>,
    /// The project [`crate::Fake::project`] names: the first one seeded.
    pub(super) main_project: Option<Uuid>,
    /// What the call being served may see (set around each exchange).
    pub(crate) caller: Access,
    pub(super) plans: Vec<PlanRec>,
    pub(super) facilities: Vec<FacilityRec>,
    pub(super) projects: BTreeMap<Uuid, ProjectRec>,
    pub(super) reservations: HashMap<Uuid, ReservationRec>,
    pub(super) devices: HashMap<Uuid, DeviceRec>,
    pub(super) ssh_keys: HashMap<Uuid, SshKeyRec>,
    pub(super) seq: u64,
    /// Devices ever created through the API (not by a competitor).
    pub(super) devices_created: u64,
    /// Devices a competitor placed.
    pub(super) competitor_devices: u64,
    /// Which devices fail to provision.
    pub(super) failures: FailurePlan,
    /// The earliest instant a lifecycle change is due that `settle` makes
    /// (a deleted device disappearing, a failed device leaving the
    /// project); `None` when none is pending.
    pub(super) next_settle: Option<Instant>,
}

impl World {
    pub(crate) fn new(spec: &WorldSpec, now: Instant) -> Self {
        let plans: Vec<PlanRec> = if spec.plans.is_empty() {
            vec!["c3.small.x86".to_string()]
        } else {
            spec.plans.clone()
        }
        .into_iter()
        .map(|slug| PlanRec {
            id: Uuid::new_v4(),
            slug,
        })
        .collect();
        let mut metro_ids: HashMap<String, Uuid> = HashMap::new();
        let facilities: Vec<FacilityRec> = if spec.facilities.is_empty() {
            vec![("da11".to_string(), "da".to_string())]
        } else {
            spec.facilities.clone()
        }
        .into_iter()
        .map(|(code, metro)| FacilityRec {
            id: Uuid::new_v4(),
            metro_id: *metro_ids.entry(metro.clone()).or_insert_with(Uuid::new_v4),
            code,
            metro,
        })
        .collect();
        let epoch_wall = DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap_or_default();
        let organization = Uuid::new_v4();
        let mut world = Self {
            timings: spec.timings,
            epoch: now,
            epoch_wall,
            user: Uuid::new_v4(),
            organizations: BTreeMap::new(),
            tokens: Vec::new(),
            main_project: spec.projects.first().map(|(id, _)| *id),
            caller: Access::All,
            plans,
            facilities,
            projects: BTreeMap::new(),
            reservations: HashMap::new(),
            devices: HashMap::new(),
            ssh_keys: HashMap::new(),
            seq: 0,
            devices_created: 0,
            competitor_devices: 0,
            // None fail until the fake sets its plan (`World::set_failures`).
            failures: FailurePlan::default(),
            next_settle: None,
        };
        if !spec.projects.is_empty() {
            let seq = world.next_seq();
            world.organizations.insert(
                organization,
                OrganizationRec {
                    seq,
                    name: "fake organization".to_string(),
                },
            );
        }
        for (n, (project, count)) in spec.projects.iter().enumerate() {
            world.projects.insert(
                *project,
                ProjectRec {
                    name: format!("fake project {}", n + 1),
                    organization,
                    created: now,
                },
            );
            for i in 0..*count {
                let seq = world.next_seq();
                let id = Uuid::new_v4();
                world.reservations.insert(
                    id,
                    ReservationRec {
                        id,
                        seq,
                        project: *project,
                        plan: i % world.plans.len(),
                        facility: i % world.facilities.len(),
                        device: None,
                        released_at: None,
                        created: now,
                    },
                );
            }
        }
        world
    }

    /// The lifecycle timings.
    pub(crate) fn timings(&self) -> Timings {
        self.timings
    }

    /// The main project: the first one seeded.
    pub(crate) fn main_project(&self) -> Option<Uuid> {
        self.main_project
    }

    /// The next sequence number (creation order across all records).
    pub(super) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The wall-clock time the API shows for `at` on the fake's clock.
    pub(super) fn wall(&self, at: Instant) -> DateTime<Utc> {
        let since = at.saturating_duration_since(self.epoch);
        self.epoch_wall + chrono::Duration::from_std(since).unwrap_or_default()
    }

    /// Whether a create on `r` would succeed now (free and released).
    pub(super) fn provisionable(&self, r: &ReservationRec, now: Instant) -> bool {
        r.device.is_none() && r.released_at.is_none_or(|t| now >= t)
    }
}
