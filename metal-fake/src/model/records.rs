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

/// The project a device whose provisioning failed moves to when
/// [`Timings::failed_moved_after`] is set: not one of the world's, so the
/// token cannot see it (`403`), and it is not in any listed project.
pub(super) const FAILED_PROVISIONING_PROJECT: Uuid =
    Uuid::from_u128(0xfa11_ed00_0000_4000_8000_0000_0000_0000);

/// The power/provisioning phase of a device and when it began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Provisioning,
    PoweringOn,
    PoweringOff,
    Reinstalling,
    /// Deleted; gone after [`Timings::deprovisioning`].
    Deprovisioning,
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
    /// Its provisioning ends in `failed` instead of `active`.
    pub(super) fails: bool,
    /// The SSH keys attached at create (the project's and the user's).
    pub(super) ssh_keys: Vec<Uuid>,
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
        Phase::Provisioning if d.fails => "failed",
        Phase::Deprovisioning => "deprovisioning",
        Phase::PoweringOn if !settled(t.power) => "powering_on",
        Phase::PoweringOff if !settled(t.power) => "powering_off",
        Phase::PoweringOff => "inactive",
        Phase::Reinstalling if !settled(t.reinstall) => "reinstalling",
        Phase::Provisioning | Phase::PoweringOn | Phase::Reinstalling => "active",
    }
}

/// When a device that fails provisioning reports `failed` (`None` for a
/// device that does not fail, or was deleted).
pub(super) fn failed_at(d: &DeviceRec, t: &Timings) -> Option<Instant> {
    (d.fails && d.phase == Phase::Provisioning).then(|| d.since + t.queued + t.provisioning)
}

/// When the device's state last changed on its own, or a request changed
/// it: what `updated_at` shows.
pub(super) fn last_change(d: &DeviceRec, t: &Timings, now: Instant) -> Instant {
    let steps: &[std::time::Duration] = match d.phase {
        Phase::Provisioning => &[t.queued, t.queued + t.provisioning],
        Phase::PoweringOn | Phase::PoweringOff => &[t.power],
        Phase::Reinstalling => &[t.reinstall],
        Phase::Deprovisioning => &[],
    };
    steps
        .iter()
        .map(|s| d.since + *s)
        .filter(|at| *at <= now)
        .fold(d.updated, Instant::max)
}

/// How far provisioning (or reinstalling) has come, in percent: 0 while
/// queued, rising while provisioning, 100 once done; `None` for a device
/// that failed or is being deleted.
pub(super) fn provisioning_percentage(d: &DeviceRec, t: &Timings, now: Instant) -> Option<f32> {
    let elapsed = now.saturating_duration_since(d.since);
    let (before, length) = match d.phase {
        Phase::Deprovisioning => return None,
        Phase::Provisioning if d.fails && elapsed >= t.queued + t.provisioning => return None,
        Phase::Provisioning => (t.queued, t.provisioning),
        Phase::Reinstalling => (std::time::Duration::ZERO, t.reinstall),
        Phase::PoweringOn | Phase::PoweringOff => return Some(100.0),
    };
    if elapsed < before {
        return Some(0.0);
    }
    if length.is_zero() || elapsed >= before + length {
        return Some(100.0);
    }
    let done = (elapsed - before).as_secs_f64() / length.as_secs_f64();
    // In [0, 100], to a tenth: no precision lost that the API shows.
    Some(((done * 1000.0).round() / 10.0) as f32)
}
