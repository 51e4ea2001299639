//! What the fake keeps of a device: its description (also its entry in the
//! world document), and where it is in its lifecycle on the fake's clock.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;
use crate::model::Timings;

/// A device: what a world document seeds, and what the world keeps.
///
/// `state` and `state_elapsed_seconds` are the state a document seeds the
/// device in; while the fake runs, the device moves on from there on the
/// fake's clock, and a saved document (`Fake::world`, `GET /_fake/world`) shows where
/// it is then.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// The hardware reservation it runs on, one of `reservations` of the
    /// same project, held by no other device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation: Option<Uuid>,
    /// The plan's slug (the reservation's, when it has one).
    pub plan: String,
    /// The facility's code (the reservation's, when it has one).
    pub facility: String,
    /// Its hostname.
    pub hostname: String,
    /// The operating system's slug.
    #[serde(default = "default_os")]
    pub operating_system: String,
    /// Its state (default `active`).
    #[serde(default)]
    pub state: DeviceState,
    /// Seconds since its phase began: for `queued` and `provisioning`,
    /// since it was created; for the power states and `reinstalling`, since
    /// that action. Default: just entered the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_elapsed_seconds: Option<f64>,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Whether it is locked.
    #[serde(default)]
    pub locked: bool,
    /// Whether it boots from the network every time.
    #[serde(default)]
    pub always_pxe: bool,
    /// Its iPXE script URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipxe_script_url: Option<String>,
    /// Its billing cycle (`hourly`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_cycle: Option<String>,
    /// Its user data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub userdata: Option<String>,
    /// Its custom data.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub customdata: serde_json::Map<String, serde_json::Value>,
    /// How many times it was rebooted.
    #[serde(default)]
    pub reboots: u32,
    /// Booted into the rescue operating system (by the `rescue` action),
    /// until its next reboot, power off or reinstall.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rescue: bool,
    /// Placed by another API user (a competitor), not by the controller.
    #[serde(default)]
    pub competitor: bool,
    /// The addresses of its own it gets once provisioned, as its create's
    /// `ip_addresses` asked; absent: a public IPv4, a public IPv6 and a
    /// private IPv4, as the real API gave them by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_addresses: Option<Vec<OwnAddress>>,
    /// The prefix lengths of its own blocks (absent: /31, /127 and /31).
    #[serde(default, skip_serializing_if = "OwnCidrs::is_default")]
    pub own_cidrs: OwnCidrs,
    /// The assignment (of one of `ip_reservations`) its create asked for
    /// as its public IPv4: shown first among its addresses, as its
    /// management address, once provisioned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_ipv4_assignment: Option<Uuid>,
    /// Whether it is a spot market instance (made with `spot_instance`,
    /// or by a spot market request).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spot_instance: bool,
    /// The most a spot instance is bid at an hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_price_max: Option<f64>,
    /// When it is deleted on its own (its create's `termination_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_time: Option<chrono::DateTime<chrono::Utc>>,
}

/// The prefix lengths of a device's own blocks: as its create's
/// `ip_addresses` asked (`cidr`), else its operating system's smallest
/// public IPv4 subnet (Linux /31, Windows /30, VMware ESXi /29) and /127
/// and /31 for the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnCidrs {
    /// The public IPv4 block's (28 to 31).
    #[serde(default = "cidr_31")]
    pub public_ipv4: u8,
    /// The public IPv6 block's (124 to 127).
    #[serde(default = "cidr_127")]
    pub public_ipv6: u8,
    /// The private IPv4 block's (28 to 31).
    #[serde(default = "cidr_31")]
    pub private_ipv4: u8,
}

fn cidr_31() -> u8 {
    31
}

fn cidr_127() -> u8 {
    127
}

impl Default for OwnCidrs {
    fn default() -> Self {
        Self {
            public_ipv4: 31,
            public_ipv6: 127,
            private_ipv4: 31,
        }
    }
}

impl OwnCidrs {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The prefix length of `kind`'s block.
    pub(crate) fn of(&self, kind: OwnAddress) -> u8 {
        match kind {
            OwnAddress::PublicIpv4 => self.public_ipv4,
            OwnAddress::PublicIpv6 => self.public_ipv6,
            OwnAddress::PrivateIpv4 => self.private_ipv4,
        }
    }

    /// Whether each is in its family's range (28 to 31 for IPv4, 124 to
    /// 127 for IPv6: the spec's `IPAddress.cidr`, a single address aside).
    pub(crate) fn valid(&self) -> bool {
        (28..=31).contains(&self.public_ipv4)
            && (124..=127).contains(&self.public_ipv6)
            && (28..=31).contains(&self.private_ipv4)
    }
}

/// The smallest public IPv4 subnet a device of `os` takes (Equinix's
/// "Subnets and IP Addresses": Linux /31, Windows Server /30, VMware ESXi
/// /29).
pub(crate) fn smallest_public_ipv4(os: &str) -> u8 {
    if os.starts_with("windows") {
        30
    } else if os.starts_with("vmware") || os.contains("esxi") {
        29
    } else {
        31
    }
}

/// One of the addresses a device gets of its own.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OwnAddress {
    /// A public IPv4 address (/31).
    PublicIpv4,
    /// A public IPv6 address (/127).
    PublicIpv6,
    /// A private IPv4 address (/31).
    PrivateIpv4,
}

impl Device {
    /// A device just created on `reservation` (none: on demand), with
    /// `(plan, facility)` (the reservation's, when it has one), `hostname`
    /// and `operating_system`; nothing else set.
    pub(crate) fn queued(
        id: Uuid,
        project: Uuid,
        reservation: Option<Uuid>,
        (plan, facility): (String, String),
        hostname: String,
        operating_system: String,
    ) -> Self {
        Self {
            id,
            project,
            reservation,
            plan,
            facility,
            hostname,
            operating_system,
            state: DeviceState::Queued,
            state_elapsed_seconds: None,
            description: None,
            tags: Vec::new(),
            locked: false,
            always_pxe: false,
            ipxe_script_url: None,
            billing_cycle: None,
            spot_instance: false,
            spot_price_max: None,
            termination_time: None,
            userdata: None,
            customdata: serde_json::Map::new(),
            reboots: 0,
            rescue: false,
            competitor: false,
            own_addresses: None,
            own_cidrs: OwnCidrs::default(),
            public_ipv4_assignment: None,
        }
    }
}

fn default_os() -> String {
    "ubuntu_22_04".to_string()
}

/// The state a device is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceState {
    /// Just created; provisioning next.
    Queued,
    /// Provisioning; active next.
    Provisioning,
    /// Running.
    #[default]
    Active,
    /// Powering on; active next.
    PoweringOn,
    /// Powering off; inactive next.
    PoweringOff,
    /// Powered off.
    Inactive,
    /// Reinstalling; active next.
    Reinstalling,
    /// Its provisioning failed; it stays until deleted.
    Failed,
    /// Being deleted; gone next.
    Deprovisioning,
}

impl DeviceState {
    /// The state's name in the API (`powering_off`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Provisioning => "provisioning",
            Self::Active => "active",
            Self::PoweringOn => "powering_on",
            Self::PoweringOff => "powering_off",
            Self::Inactive => "inactive",
            Self::Reinstalling => "reinstalling",
            Self::Failed => "failed",
            Self::Deprovisioning => "deprovisioning",
        }
    }

    /// Whether a device in this state has its addresses: from the end of a
    /// successful provisioning on.
    pub(crate) fn has_addresses(self) -> bool {
        !matches!(self, Self::Queued | Self::Provisioning | Self::Failed)
    }
}

/// The power/provisioning phase of a device: what the last request (or
/// its creation) started. Its steps ([`Kept::steps`]) come from the
/// world's due-queue, each when it is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Provisioning,
    PoweringOn,
    PoweringOff,
    Reinstalling,
    /// Deleted; gone after [`Timings::deprovisioning`].
    Deprovisioning,
}

impl Phase {
    /// The state a device reports as the phase begins.
    pub(crate) fn first_state(self) -> DeviceState {
        match self {
            Self::Provisioning => DeviceState::Queued,
            Self::PoweringOn => DeviceState::PoweringOn,
            Self::PoweringOff => DeviceState::PoweringOff,
            Self::Reinstalling => DeviceState::Reinstalling,
            Self::Deprovisioning => DeviceState::Deprovisioning,
        }
    }
}

/// One timed step of a device's phase, queued on the world's due-queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// It reports this state from now on.
    Enter(DeviceState),
    /// It reports this step of its provisioning (an event).
    Report(super::provisioning::Report),
    /// Its provisioning failed a while ago: it leaves the project (see
    /// [`Timings::failed_moved_after`]), and its reservation is released.
    LeaveProject,
    /// It is gone (deprovisioned, or failed and moved away long enough).
    Remove,
}

/// What the world keeps of a device besides its description.
#[derive(Clone, Debug)]
pub(crate) struct Live {
    pub(crate) phase: Phase,
    /// When the phase began.
    pub(crate) since: Instant,
    /// How many phases it has begun: a queued step of an earlier phase is
    /// stale.
    pub(crate) phase_no: u64,
    /// The state it reports, moved on by the due-queue.
    pub(crate) state: DeviceState,
    /// Its provisioning ends in `failed` instead of `active`.
    pub(crate) fails: bool,
    /// The SSH keys attached at create (the project's and the user's).
    pub(crate) ssh_keys: Vec<Uuid>,
    /// The provisioning steps it reported, oldest first, with their
    /// events' IDs (at most one of each step).
    pub(crate) reports: Vec<super::provisioning::Reported>,
}

impl Live {
    /// A device beginning to provision at `since`.
    pub(crate) fn provisioning(since: Instant, fails: bool, ssh_keys: Vec<Uuid>) -> Self {
        Self {
            phase: Phase::Provisioning,
            since,
            phase_no: 1,
            state: DeviceState::Queued,
            fails,
            ssh_keys,
            reports: Vec::new(),
        }
    }
}

/// A device as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Device,
    pub(crate) meta: Meta,
    pub(crate) live: Live,
}

record!(
    Kept,
    Kind::Device,
    |k| Scope {
        project: Some(k.rec.project),
        organization: None,
        device: Some(k.rec.id),
    },
    label | k | Some(format!("\"{}\" ({})", k.rec.hostname, k.rec.plan))
);

/// The project a device whose provisioning failed moves to (at once for
/// an on-demand device, [`Timings::failed_on_demand_moved_after`]; when
/// [`Timings::failed_moved_after`] is set for a reservation's): not one of
/// the world's, so the token cannot see it (`403`), and it is not in any
/// listed project.
pub(crate) const FAILED_PROVISIONING_PROJECT: Uuid =
    Uuid::from_u128(0xfa11_ed00_0000_4000_8000_0000_0000_0000);

impl Kept {
    /// The state the device reports.
    pub(crate) fn state(&self) -> DeviceState {
        self.live.state
    }

    /// Begins `phase` at `since` (its steps are the world's to queue:
    /// [`Kept::steps`]).
    pub(crate) fn begin(&mut self, phase: Phase, since: Instant) {
        self.live.phase = phase;
        self.live.since = since;
        self.live.phase_no += 1;
        self.live.state = phase.first_state();
    }

    /// The steps of its phase, each with when it is due after the phase
    /// began.
    pub(crate) fn steps(&self, t: &Timings) -> Vec<(Duration, Step)> {
        use DeviceState as S;
        match self.live.phase {
            Phase::Provisioning => {
                use super::provisioning::{due, BEFORE_FAILING, DURING, QUEUED};
                let done = t.queued + t.provisioning;
                let reported = if self.live.fails {
                    &DURING[..BEFORE_FAILING]
                } else {
                    DURING
                };
                let mut steps = vec![
                    (Duration::ZERO, Step::Report(QUEUED)),
                    (t.queued, Step::Enter(S::Provisioning)),
                ];
                steps.extend(
                    reported.iter().map(|(share, r)| {
                        (due(t.queued, t.provisioning, *share), Step::Report(*r))
                    }),
                );
                if !self.live.fails {
                    steps.push((done, Step::Enter(S::Active)));
                    return steps;
                }
                steps.push((done, Step::Enter(S::Failed)));
                let moved_after = if self.rec.reservation.is_some() {
                    t.failed_moved_after
                } else {
                    t.failed_on_demand_moved_after
                };
                if let Some(after) = moved_after {
                    steps.push((done + after, Step::LeaveProject));
                    steps.push((done + after + t.failed_forbidden_for, Step::Remove));
                }
                steps
            }
            Phase::PoweringOn => vec![(t.power, Step::Enter(S::Active))],
            Phase::PoweringOff => vec![(t.power, Step::Enter(S::Inactive))],
            Phase::Reinstalling => vec![(t.reinstall, Step::Enter(S::Active))],
            Phase::Deprovisioning => vec![(t.deprovisioning, Step::Remove)],
        }
    }

    /// How far provisioning (or reinstalling) has come, in percent: 0 while
    /// queued, rising while provisioning, 100 once done; `None` for a
    /// device that failed or is being deleted.
    pub(crate) fn provisioning_percentage(&self, t: &Timings, now: Instant) -> Option<f32> {
        if matches!(
            self.live.state,
            DeviceState::Failed | DeviceState::Deprovisioning
        ) {
            return None;
        }
        let elapsed = now.saturating_duration_since(self.live.since);
        let (before, length) = match self.live.phase {
            Phase::Deprovisioning => return None,
            Phase::Provisioning => (t.queued, t.provisioning),
            Phase::Reinstalling => (Duration::ZERO, t.reinstall),
            Phase::PoweringOn | Phase::PoweringOff => return Some(100.0),
        };
        if self.live.state == DeviceState::Queued || elapsed < before {
            return Some(0.0);
        }
        if self.live.state == DeviceState::Active || length.is_zero() || elapsed >= before + length
        {
            return Some(100.0);
        }
        let done = (elapsed - before).as_secs_f64() / length.as_secs_f64();
        // In [0, 100], to a tenth: no precision lost that the API shows.
        Some(((done * 1000.0).round() / 10.0) as f32)
    }

    /// The phase, and how long before `now` it began, that reports the
    /// document's `state` (and `state_elapsed_seconds`) at `now`.
    pub(crate) fn phase_of(
        state: DeviceState,
        elapsed: Option<Duration>,
        t: &Timings,
    ) -> (Phase, Duration) {
        use DeviceState as S;
        let (phase, at_least) = match state {
            S::Queued => (Phase::Provisioning, Duration::ZERO),
            S::Provisioning => (Phase::Provisioning, t.queued),
            S::Active => (Phase::Provisioning, t.queued + t.provisioning),
            S::PoweringOn => (Phase::PoweringOn, Duration::ZERO),
            S::PoweringOff => (Phase::PoweringOff, Duration::ZERO),
            S::Inactive => (Phase::PoweringOff, t.power),
            S::Reinstalling => (Phase::Reinstalling, Duration::ZERO),
            S::Failed => (Phase::Provisioning, t.queued + t.provisioning),
            S::Deprovisioning => (Phase::Deprovisioning, Duration::ZERO),
        };
        let settled = matches!(state, S::Active | S::Inactive | S::Failed);
        let elapsed = match elapsed {
            // A settled state stays settled whatever the timings say.
            Some(e) if settled => e.max(at_least),
            Some(e) => e,
            None => at_least,
        };
        (phase, elapsed)
    }
}

/// One device's entry in a world document at `now`: the state it reports
/// and the time since its phase began.
pub(crate) fn entry(d: &Kept, now: Instant) -> Device {
    Device {
        state: d.state(),
        state_elapsed_seconds: Some(now.saturating_duration_since(d.live.since).as_secs_f64()),
        ..d.rec.clone()
    }
}
