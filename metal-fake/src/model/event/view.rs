//! An event as the API sends it, rendered from one journal entry (its text
//! from `kinds`, the names it interpolates read from the entry and the
//! world), and who may see it.

use std::borrow::Cow;

use serde::Serialize;
use uuid::Uuid;

use super::kinds::{describe, BOT, BOT_NAME};
use super::COLLECTION;
use crate::model::access::Owner;
use crate::model::journal::{Cause, Entry};
use crate::model::relations::Kind;
use crate::model::render::{Href, Stamp, Stub};
use crate::model::resource::Scope;
use crate::model::user::Avatar;
use crate::model::World;
use crate::model::{
    bgp_session, device, hardware_reservation, ip_reservation, metal_gateway, organization, port,
    project, ssh_key, vlan,
};

/// One event. What the real API sent as `null` (a planned step's ID,
/// href and time, a system event's `state` and `ip`) is `null` here too
/// (see "Replies whole" in `metal_fake::fidelity`).
#[derive(Serialize)]
pub(crate) struct EventView {
    id: Option<Uuid>,
    href: Option<Href>,
    #[serde(rename = "type")]
    kind: Cow<'static, str>,
    body: Cow<'static, str>,
    interpolated: Cow<'static, str>,
    /// `null` in the real API's own events, but for a seeded event that
    /// says one.
    state: Option<Cow<'static, str>>,
    created_at: Option<Stamp>,
    /// The thing that changed, and the device and project it concerned
    /// (left out with `exclude=relationships`).
    #[serde(skip_serializing_if = "Option::is_none")]
    relationships: Option<Vec<Relationship>>,
    /// Who made it: the calling user, or the provisioning bot; left out
    /// with `exclude=modified_by`, and where the real API sent `null` (a
    /// step to come, a project's API key), which the spec's object (and
    /// a strict client) refuses.
    #[serde(skip_serializing_if = "Option::is_none")]
    modified_by: Option<ModifiedBy>,
    /// Where it came from: `null` (the fake does not know; the real
    /// API's was an address or `null`) but for a seeded event that says.
    ip: Option<String>,
}

/// A relationship: an `{"href": ...}` of the fake's, or a seeded event's
/// own.
#[derive(Serialize)]
#[serde(untagged)]
enum Relationship {
    Stub(Stub),
    Given { href: String },
}

/// The user an event names as its maker, as the real API showed one.
#[derive(Serialize)]
pub(crate) struct ModifiedBy {
    id: Uuid,
    full_name: Cow<'static, str>,
    avatar_url: Avatar,
    avatar_thumb_url: Avatar,
}

/// The collection of a kind's hrefs (`None`: it has none).
fn collection(kind: Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Organization => organization::COLLECTION,
        Kind::Project => project::COLLECTION,
        Kind::Device => device::COLLECTION,
        Kind::HardwareReservation => hardware_reservation::COLLECTION,
        Kind::SshKey => ssh_key::COLLECTION,
        Kind::License => crate::model::license::COLLECTION,
        Kind::Batch => crate::model::compute::batch::COLLECTION,
        Kind::SpotMarketRequest => crate::model::compute::spot_market::request::COLLECTION,
        // An assignment is read at `/ips/{id}` too.
        Kind::IpReservation | Kind::IpAssignment => ip_reservation::COLLECTION,
        Kind::VirtualNetwork => vlan::COLLECTION,
        Kind::Port => port::COLLECTION,
        Kind::BgpSession => bgp_session::COLLECTION,
        Kind::MetalGateway => metal_gateway::COLLECTION,
        Kind::Vrf => crate::model::vrf::COLLECTION,
        Kind::VrfRoute => crate::model::vrf_route::COLLECTION,
        Kind::BgpDynamicNeighbor => crate::model::bgp_dynamic_neighbor::COLLECTION,
        Kind::Interconnection => crate::model::interconnection::COLLECTION,
        Kind::VirtualCircuit => "virtual-circuits",
        Kind::ApiKey => "api-keys",
        Kind::Membership => "memberships",
        Kind::User => crate::model::user::COLLECTION,
        // Seeded only: its changes are no events.
        Kind::GlobalBgpRange | Kind::ElasticIp => return None,
        Kind::PortVlanBatch
        | Kind::Token
        | Kind::Invitation
        | Kind::Transfer
        | Kind::Email
        | Kind::PaymentMethod
        // Read under their project's path only.
        | Kind::SelfServiceReservation => return None,
    })
}

/// Who owns the change `e`, for access: its project's, else its
/// organisation's, else its maker's (a user's own SSH and API keys),
/// else everyone's.
pub(crate) fn owner_of(e: &Entry) -> Owner {
    match (e.scope.project, e.scope.organization, e.by) {
        (Some(p), _, _) if e.kind != Kind::Organization => Owner::Project(p),
        (_, Some(o), _) => Owner::Organization(o),
        (_, _, Some(u)) => Owner::User(u),
        _ => Owner::Everyone,
    }
}

impl World {
    /// Whether `caller` sees the change `e`.
    pub(crate) fn sees_event(&self, e: &Entry, caller: &Scope) -> bool {
        self.check_access(caller, Some(owner_of(e))).is_ok()
    }

    /// `e` as an event (see [`is_event`]), with `expand`'s `exclude`.
    pub(crate) fn event_view(&self, e: &Entry) -> EventView {
        let (kind, body, state, ip) = match &e.seeded {
            Some(s) => (
                Cow::Owned(s.kind.clone()),
                Cow::Owned(s.body.clone()),
                s.state.clone().map(Cow::Owned),
                s.ip.map(|ip| ip.to_string()),
            ),
            None => {
                let (kind, template) = describe(e).unwrap_or(("change", "Changed"));
                (
                    Cow::Borrowed(kind),
                    self.interpolate(e, template),
                    None,
                    None,
                )
            }
        };
        let interpolated = match e.seeded.as_ref().and_then(|s| s.interpolated.clone()) {
            Some(text) => Cow::Owned(text),
            None => body.clone(),
        };
        EventView {
            id: Some(e.id),
            href: Some(Href::new(COLLECTION, e.id)),
            kind,
            body,
            interpolated,
            state,
            created_at: Some(Stamp(match &e.seeded {
                Some(s) => s.created_at,
                None => self.clock.wall(e.at),
            })),
            relationships: Some(relationships(e)),
            modified_by: self.modified_by(e),
            ip,
        }
    }

    /// The user who made `e`, as its event shows: the caller's user, the
    /// provisioning bot for the fake's own transitions, `null` for a
    /// project's API key (no user).
    fn modified_by(&self, e: &Entry) -> Option<ModifiedBy> {
        match (e.by, e.cause) {
            (Some(u), _) => Some(ModifiedBy {
                id: u,
                full_name: Cow::Owned(self.full_name(u)),
                avatar_url: Avatar(u),
                avatar_thumb_url: Avatar(u),
            }),
            (None, Cause::Operation(_)) if e.seeded.is_none() => None,
            (None, _) => Some(ModifiedBy {
                id: BOT,
                full_name: Cow::Borrowed(BOT_NAME),
                avatar_url: Avatar(BOT),
                avatar_thumb_url: Avatar(BOT),
            }),
        }
    }

    /// A user's full name, as events name their maker.
    fn full_name(&self, user: Uuid) -> String {
        match self.users.get(&user) {
            Some(u) => format!("{} {}", u.rec.first_name, u.rec.last_name),
            None => "a former user".to_string(),
        }
    }

    /// `template` with `{label}` (how the entry names its record),
    /// `{project}` (its project's name now) and `{user}` (its maker)
    /// filled in.
    fn interpolate(&self, e: &Entry, template: &'static str) -> Cow<'static, str> {
        if !template.contains('{') {
            return Cow::Borrowed(template);
        }
        let mut text = template.replace("{label}", e.label.as_deref().unwrap_or("it"));
        if text.contains("{project}") {
            let project = match e.scope.project.and_then(|p| self.projects.get(&p)) {
                Some(p) => format!("\"{}\"", p.name()),
                None => format!("\"{}\"", e.scope.project.unwrap_or_default()),
            };
            text = text.replace("{project}", &project);
        }
        if text.contains("{user}") {
            let user = match (e.by, e.cause) {
                (Some(u), _) => self.full_name(u),
                (None, Cause::Operation(_)) => "a project API key".to_string(),
                (None, _) => BOT_NAME.to_string(),
            };
            text = text.replace("{user}", &user);
        }
        Cow::Owned(text)
    }
}

/// The hrefs of what `e` changed and concerned: the thing itself, its
/// device and its project (a seeded event's own, as given).
fn relationships(e: &Entry) -> Vec<Relationship> {
    if let Some(s) = &e.seeded {
        return s
            .relationships
            .iter()
            .map(|href| Relationship::Given { href: href.clone() })
            .collect();
    }
    let mut out = Vec::with_capacity(3);
    if let Some(c) = collection(e.kind) {
        out.push(Relationship::Stub(Stub::new(c, e.record)));
    }
    if let Some(d) = e.scope.device.filter(|d| *d != e.record) {
        out.push(Relationship::Stub(Stub::new(device::COLLECTION, d)));
    }
    if let Some(p) = e.scope.project.filter(|p| *p != e.record)
        && p != device::FAILED_PROVISIONING_PROJECT
    {
        out.push(Relationship::Stub(Stub::new(project::COLLECTION, p)));
    }
    out
}

/// Whether the change `e` is an event.
pub(crate) fn is_event(e: &Entry) -> bool {
    e.seeded.is_some() || describe(e).is_some()
}

impl EventView {
    /// Its type, body and relationships' hrefs, owned (what a saved
    /// world keeps of it).
    pub(crate) fn parts(self) -> (String, String, Vec<String>) {
        let hrefs = self
            .relationships
            .unwrap_or_default()
            .into_iter()
            .map(|r| match r {
                Relationship::Stub(s) => s.href.to_string(),
                Relationship::Given { href } => href,
            })
            .collect();
        (self.kind.into_owned(), self.body.into_owned(), hrefs)
    }

    /// A provisioning step still to come, as a device's
    /// `provisioning_events` lists it: its type and body, the rest `null`
    /// (as a recorded create reply lists them).
    pub(crate) fn planned(report: device::provisioning::Report) -> Self {
        EventView {
            id: None,
            href: None,
            kind: Cow::Borrowed(report.kind),
            body: Cow::Borrowed(report.body),
            interpolated: Cow::Borrowed(report.body),
            state: None,
            created_at: None,
            relationships: Some(Vec::new()),
            modified_by: None,
            ip: None,
        }
    }
}

impl World {
    /// The event of a provisioning step device `d` reported, as its own
    /// events list it (rendered from what the device keeps, so it is
    /// there when the journal has dropped it).
    pub(crate) fn reported_event_view(
        &self,
        d: &device::Kept,
        r: &device::provisioning::Reported,
    ) -> EventView {
        let entry = Entry {
            seq: 0,
            id: r.event,
            kind: Kind::Device,
            record: d.rec.id,
            change: crate::model::journal::Change::Updated(r.report.kind),
            cause: Cause::Due,
            at: r.at,
            version: 0,
            scope: crate::model::journal::Scope {
                project: Some(d.rec.project),
                organization: None,
                device: Some(d.rec.id),
            },
            by: None,
            label: None,
            seeded: None,
        };
        self.event_view(&entry)
    }
}
