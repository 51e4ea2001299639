//! The world's records: what the fake keeps of each plan, facility,
//! project, hardware reservation, device and SSH key, and the state a device
//! reports at a given instant.

use tokio::time::Instant;
use uuid::Uuid;

use super::timings::Timings;

/// Whose SSH key it is: the API user's, or a project's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyOwner {
    /// The current user's key (`/ssh-keys`).
    User,
    /// A project's key (`/projects/{id}/ssh-keys`).
    Project(Uuid),
}

#[derive(Clone, Debug)]
pub(super) struct PlanRec {
    pub(super) id: Uuid,
    pub(super) slug: String,
}

#[derive(Clone, Debug)]
pub(super) struct FacilityRec {
    pub(super) id: Uuid,
    pub(super) code: String,
    pub(super) metro_id: Uuid,
    pub(super) metro: String,
}

#[derive(Clone, Debug)]
pub(super) struct ProjectRec {
    pub(super) name: String,
    /// The organisation that owns the project.
    pub(super) organization: Uuid,
    pub(super) created: Instant,
}

/// An organisation: it owns projects, and a token of the organisation
/// sees them.
#[derive(Clone, Debug)]
pub(super) struct OrganizationRec {
    pub(super) seq: u64,
    pub(super) name: String,
}

/// An API token of the world and what it may see: every project of its
/// organisations, and the projects named. Its `Debug` never shows the
/// token.
#[derive(Clone)]
pub(super) struct TokenRec {
    pub(super) token: String,
    pub(super) organizations: Vec<Uuid>,
    pub(super) projects: Vec<Uuid>,
}

impl std::fmt::Debug for TokenRec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRec")
            .field("token", &"<redacted>")
            .field("organizations", &self.organizations)
            .field("projects", &self.projects)
            .finish()
    }
}

#[derive(Clone, Debug)]
pub(super) struct ReservationRec {
    pub(super) id: Uuid,
    pub(super) seq: u64,
    pub(super) project: Uuid,
    pub(super) plan: usize,
    pub(super) facility: usize,
    pub(super) device: Option<Uuid>,
    /// Not provisionable before this instant (set when a device is deleted).
    pub(super) released_at: Option<Instant>,
    pub(super) created: Instant,
}

/// The power/provisioning phase of a device and when it began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Provisioning,
    PoweringOn,
    PoweringOff,
    Reinstalling,
}

#[derive(Clone, Debug)]
pub(super) struct DeviceRec {
    pub(super) id: Uuid,
    pub(super) seq: u64,
    pub(super) project: Uuid,
    pub(super) reservation: Option<Uuid>,
    pub(super) plan: usize,
    pub(super) facility: usize,
    pub(super) os: String,
    pub(super) hostname: String,
    pub(super) description: Option<String>,
    pub(super) tags: Vec<String>,
    pub(super) locked: bool,
    pub(super) always_pxe: bool,
    pub(super) ipxe_script_url: Option<String>,
    pub(super) userdata: Option<String>,
    pub(super) customdata: serde_json::Map<String, serde_json::Value>,
    pub(super) billing_cycle: Option<String>,
    pub(super) phase: Phase,
    pub(super) since: Instant,
    pub(super) created: Instant,
    pub(super) updated: Instant,
    pub(super) reboots: u32,
    pub(super) competitor: bool,
}

#[derive(Clone, Debug)]
pub(super) struct SshKeyRec {
    pub(super) id: Uuid,
    pub(super) seq: u64,
    pub(super) owner: KeyOwner,
    pub(super) label: String,
    pub(super) key: String,
    pub(super) tags: Vec<String>,
    pub(super) created: Instant,
    pub(super) updated: Instant,
}

/// The state a device reports at `now`.
pub(super) fn state_of(d: &DeviceRec, t: &Timings, now: Instant) -> &'static str {
    let elapsed = now.saturating_duration_since(d.since);
    let settled = |d: std::time::Duration| elapsed >= d;
    match d.phase {
        Phase::Provisioning if !settled(t.queued) => "queued",
        Phase::Provisioning if !settled(t.queued + t.provisioning) => "provisioning",
        Phase::PoweringOn if !settled(t.power) => "powering_on",
        Phase::PoweringOff if !settled(t.power) => "powering_off",
        Phase::PoweringOff => "inactive",
        Phase::Reinstalling if !settled(t.reinstall) => "reinstalling",
        Phase::Provisioning | Phase::PoweringOn | Phase::Reinstalling => "active",
    }
}
