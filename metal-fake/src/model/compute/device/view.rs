//! A device as the API sends it, written straight to bytes from the
//! record: `include`/`exclude` applied (what is not included is an href
//! stub), the empty arrays the API always sends as `[]`, and the fields a
//! controller waits for (addresses once active, ports, attached keys,
//! progress).

use std::fmt;
use std::time::Duration;

use serde::{Serialize, Serializer};
use tokio::time::Instant;
use uuid::Uuid;

use super::own_addresses::{derived_id, own_kinds, AddressText, Part};
use super::provisioning;
use super::record::{Kept, OwnAddress, OwnCidrs, Phase};
use super::COLLECTION;
use crate::model::catalog::{FacilityView, MetroView, OperatingSystemView, PlanView};
use crate::model::event::EventView;
use crate::model::hardware_reservation::{self, ReservationView};
use crate::model::ip_reservation::AssignmentView;
use crate::model::project::{self, ProjectField};
use crate::model::render::{Empty, Expand, Href, ShortId, Stamp, Stub, Whole};
use crate::model::user::UserLite;
use crate::model::World;
use crate::model::{DeviceState, Timings};

/// A device in a reply.
#[derive(Serialize)]
pub(crate) struct DeviceView<'a> {
    id: Uuid,
    href: Href,
    short_id: ShortId,
    hostname: &'a str,
    description: Option<&'a str>,
    state: &'static str,
    tags: &'a [String],
    locked: bool,
    always_pxe: bool,
    ipxe_script_url: Option<&'a str>,
    userdata: &'a str,
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    billing_cycle: &'a str,
    spot_instance: bool,
    spot_price_max: Option<f64>,
    termination_time: Option<Stamp>,
    network_frozen: bool,
    bonding_mode: u8,
    iqn: Iqn,
    sos: Sos<'a>,
    actions: Actions,
    #[serde(skip_serializing_if = "Option::is_none")]
    root_password: Option<RootPassword>,
    created_by: UserLite<'a>,
    created_at: Stamp,
    updated_at: Stamp,
    ip_addresses: Addresses<'a>,
    network_ports: crate::model::port::DevicePorts<'a>,
    ssh_keys: KeyStubs<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    provisioning_percentage: Option<f32>,
    user: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    switch_uuid: Option<SwitchUuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<Ref<PlanView<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    facility: Option<Ref<FacilityView<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metro: Option<Ref<MetroView<'a>>>,
    operating_system: OperatingSystemView<'a>,
    project: ProjectField<'a>,
    project_lite: Stub,
    hardware_reservation: Option<ReservationField<'a>>,
    /// `null`: the fake models no firmware sets, custom images or disk
    /// layouts (see "Replies whole" in `metal_fake::fidelity`).
    firmware_set_id: (),
    /// `null`, as `firmware_set_id`.
    image_url: (),
    /// `null`, as `firmware_set_id`.
    storage: (),
    volumes: Empty,
    provisioning_events: Vec<EventView>,
}

/// A device where another record names it: included, or a stub.
pub(crate) type DeviceField<'a> = Whole<DeviceView<'a>>;

/// The names of a device's references its view writes as `{"href": ...}`
/// itself when a request excludes them (plainly, at the device's top), as
/// `model::expand` would cut them afterwards: `exclude` of these alone
/// needs no walk of the written reply (`metal_policy`'s device watch lists
/// with all four).
pub(crate) const EXCLUDED_BY_VIEW: [&str; 4] = ["plan", "facility", "metro", "ip_addresses"];

/// A catalog thing a device shows whole, or its `{"href": ...}` when the
/// request excludes it (one without an ID stays whole, as
/// `model::expand` leaves it).
#[derive(Serialize)]
#[serde(untagged)]
enum Ref<T> {
    Whole(T),
    Href(Stub),
}

impl<T> Ref<T> {
    fn new(view: T, excluded: bool, collection: &'static str, id: Option<Uuid>) -> Self {
        match (excluded, id) {
            (true, Some(id)) => Self::Href(Stub::new(collection, id)),
            _ => Self::Whole(view),
        }
    }
}

/// A reservation with its device, when included, whole as a device's
/// view.
pub(crate) type ReservationWithDevice<'a> = ReservationView<'a, DeviceView<'a>>;

/// A device's reservation: included, or a stub.
type ReservationField<'a> = Whole<ReservationWithDevice<'a>>;

impl World {
    /// `d` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn device_view<'a>(
        &'a self,
        d: &'a Kept,
        expand: &Expand,
        now: Instant,
    ) -> DeviceView<'a> {
        let rec = &d.rec;
        let reservation = rec.reservation.map(|r| {
            match self.reservations.get(&r) {
                Some(kept) if expand.includes("hardware_reservation") => {
                    let nested = expand.nested("hardware_reservation");
                    // The reservation's own device is this one: keep it a stub.
                    let mut view = self.reservation_view_with(kept, &nested, now, |d, n| {
                        self.device_view(d, n, now)
                    });
                    view.device = Some(DeviceField::Stub(Stub::new(COLLECTION, rec.id)));
                    ReservationField::Full(Box::new(view))
                }
                _ => ReservationField::Stub(Stub::new(hardware_reservation::COLLECTION, r)),
            }
        });
        let state = d.state();
        let made = Stamp(self.clock.wall(d.meta.created));
        let catalog = &self.catalog;
        let facility = catalog.facility(&rec.facility);
        let metro_id = facility.and_then(|f| catalog.metro(&f.metro)?.id);
        DeviceView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            short_id: ShortId(rec.id),
            hostname: &rec.hostname,
            description: rec.description.as_deref(),
            state: state.as_str(),
            tags: &rec.tags,
            locked: rec.locked,
            always_pxe: rec.always_pxe,
            ipxe_script_url: rec.ipxe_script_url.as_deref(),
            userdata: rec.userdata.as_deref().unwrap_or_default(),
            customdata: &rec.customdata,
            // The real API's default cycle.
            billing_cycle: rec.billing_cycle.as_deref().unwrap_or("hourly"),
            spot_instance: rec.spot_instance,
            spot_price_max: rec.spot_price_max,
            termination_time: rec.termination_time.map(Stamp),
            network_frozen: false,
            // The real API's bonding mode of a layer-3 bond (balance-tlb).
            bonding_mode: 5,
            iqn: Iqn {
                year: made.0,
                device: rec.id,
            },
            sos: Sos(&rec.facility),
            actions: Actions(state, rec.rescue),
            root_password: d
                .password_shown(&self.timings, now)
                .then_some(RootPassword(rec.id)),
            created_by: self.user_lite(),
            created_at: made,
            updated_at: Stamp(self.clock.wall(d.meta.updated)),
            ip_addresses: Addresses {
                stubs: expand.excludes("ip_addresses"),
                ..self.device_addresses(d)
            },
            network_ports: self.device_ports(d, &expand.nested("network_ports"), now),
            ssh_keys: KeyStubs(&d.live.ssh_keys),
            provisioning_percentage: d.provisioning_percentage(&self.timings, now),
            user: "root",
            // An on-demand device's server is cabled to a switch too.
            switch_uuid: Some(SwitchUuid(rec.reservation.unwrap_or(rec.id))),
            plan: Some(Ref::new(
                self.plan_view(&rec.plan),
                expand.excludes("plan"),
                "plans",
                catalog.plan(&rec.plan).and_then(|p| p.id),
            )),
            facility: Some(Ref::new(
                catalog.facility_view(&rec.facility),
                expand.excludes("facility"),
                "facilities",
                facility.and_then(|f| f.id),
            )),
            metro: Some(Ref::new(
                catalog.metro_view(&rec.facility),
                expand.excludes("metro"),
                "locations/metros",
                metro_id,
            )),
            operating_system: self.catalog.operating_system_view(&rec.operating_system),
            project: self.project_field(rec.project, expand.includes("project")),
            project_lite: Stub::new(project::COLLECTION, rec.project),
            hardware_reservation: reservation,
            firmware_set_id: (),
            image_url: (),
            storage: (),
            volumes: Empty,
            provisioning_events: self.provisioning_events(d),
        }
    }

    /// `d`'s provisioning steps, as its events list them: while it
    /// provisions, every step planned (those to come with a `null` ID and
    /// time, as a recorded create reply shows them); after, the steps it
    /// reported.
    fn provisioning_events(&self, d: &Kept) -> Vec<EventView> {
        let reported = d
            .live
            .reports
            .iter()
            .map(|r| self.reported_event_view(d, r));
        let provisioning = d.live.phase == Phase::Provisioning
            && matches!(d.state(), DeviceState::Queued | DeviceState::Provisioning);
        if !provisioning {
            return reported.collect();
        }
        let mut out: Vec<EventView> = reported.collect();
        out.extend(
            provisioning::planned()
                .filter(|p| !d.live.reports.iter().any(|r| r.report == *p))
                .map(EventView::planned),
        );
        out
    }
}

impl World {
    /// `d`'s IP addresses at `now`: its own once provisioned, and those
    /// assigned to it from the project's IP reservations.
    pub(crate) fn device_addresses<'a>(&'a self, d: &'a Kept) -> Addresses<'a> {
        let state = d.state();
        let mut elastic = self.elastic_addresses_of(d.rec.id);
        // The address its create took from a reserved block is its public
        // IPv4: first, once provisioned, as its own would be.
        let management = d.rec.public_ipv4_assignment.and_then(|a| {
            let i = elastic.iter().position(|v| v.id() == a)?;
            let view = elastic.remove(i);
            state.has_addresses().then_some(view)
        });
        Addresses {
            device: d.rec.id,
            seq: state.has_addresses().then_some(d.meta.seq),
            own: d.rec.own_addresses.as_deref(),
            cidrs: d.rec.own_cidrs,
            made: Stamp(self.clock.wall(d.meta.created)),
            management: management.map(|v| v.into_management()),
            elastic,
            stubs: false,
        }
    }
}

impl DeviceView<'_> {
    /// Shows the device's reservation as a stub (a reservation's own
    /// device, included in it).
    pub(crate) fn set_reservation_stub(&mut self, reservation: Uuid) {
        self.hardware_reservation = Some(ReservationField::Stub(Stub::new(
            hardware_reservation::COLLECTION,
            reservation,
        )));
    }
}

impl World {
    /// Reservation `r` as the API shows it at `now`, with `expand`
    /// applied: its device, when included, whole as a device's view (the
    /// device's own reservation a stub). Here, not beside the
    /// reservation's own view, because it names both views.
    pub(crate) fn reservation_view<'a>(
        &'a self,
        r: &'a hardware_reservation::Kept,
        expand: &Expand,
        now: Instant,
    ) -> ReservationWithDevice<'a> {
        self.reservation_view_with(r, expand, now, |d, nested| {
            let mut view = self.device_view(d, nested, now);
            view.set_reservation_stub(r.rec.id);
            view
        })
    }
}

/// How long after provisioning ends the real API still showed a device's
/// `root_password` (a day); later reads leave it out.
pub(crate) const ROOT_PASSWORD_WINDOW: Duration = Duration::from_secs(24 * 3600);

impl Kept {
    /// Whether a read at `now` shows the root password: from the create
    /// until [`ROOT_PASSWORD_WINDOW`] after provisioning (or reinstalling)
    /// ends.
    fn password_shown(&self, t: &Timings, now: Instant) -> bool {
        let done = match self.live.phase {
            Phase::Provisioning => t.queued + t.provisioning,
            Phase::Reinstalling => t.reinstall,
            _ => return false,
        };
        now < self.live.since + done + ROOT_PASSWORD_WINDOW
    }
}

/// A device's root password: 14 letters and digits derived from its ID
/// (stable across reads, distinct per device).
struct RootPassword(Uuid);

impl Serialize for RootPassword {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        const ALPHABET: &[u8; 62] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        // splitmix64 over the ID's two halves.
        let mut x = (self.0.as_u128() as u64) ^ ((self.0.as_u128() >> 64) as u64);
        let mut text = [0u8; 14];
        for b in &mut text {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            *b = ALPHABET[(z % 62) as usize];
        }
        // Only ASCII letters and digits were written.
        s.serialize_str(std::str::from_utf8(&text).unwrap_or_default())
    }
}

/// A device's iSCSI qualified name, as the real API named them:
/// `iqn.<year>-<month>.net.packet:device.<short id>`.
pub(crate) struct Iqn {
    pub(crate) year: chrono::DateTime<chrono::Utc>,
    pub(crate) device: Uuid,
}

impl fmt::Display for Iqn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use chrono::Datelike as _;
        write!(
            f,
            "iqn.{}-{:02}.net.packet:device.{}",
            self.year.year(),
            self.year.month(),
            ShortId(self.device)
        )
    }
}

impl Serialize for Iqn {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The host of a device's serial-over-SSH console in its facility.
struct Sos<'a>(&'a str);

impl Serialize for Sos<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("sos.{}.platformequinix.com", self.0))
    }
}

/// What can be done to a device in its state (and whether it is in
/// rescue mode, where `rescue` is not offered again): `{type, name}` each.
struct Actions(DeviceState, bool);

#[derive(Serialize)]
struct Action {
    #[serde(rename = "type")]
    type_: &'static str,
    name: &'static str,
}

impl Serialize for Actions {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let all: &[(&str, &str)] = match self.0 {
            DeviceState::Active if self.1 => &[
                ("power_off", "Power Off"),
                ("reboot", "Reboot"),
                ("reinstall", "Reinstall"),
            ],
            DeviceState::Active => &[
                ("power_off", "Power Off"),
                ("reboot", "Reboot"),
                ("rescue", "Rescue"),
                ("reinstall", "Reinstall"),
            ],
            DeviceState::Inactive => &[("power_on", "Power On"), ("reinstall", "Reinstall")],
            _ => &[],
        };
        s.collect_seq(all.iter().map(|&(type_, name)| Action { type_, name }))
    }
}

/// The SSH keys attached to a device, as href stubs.
struct KeyStubs<'a>(&'a [Uuid]);

impl Serialize for KeyStubs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.0
                .iter()
                .map(|k| Stub::new(crate::model::ssh_key::COLLECTION, *k)),
        )
    }
}

/// The switch a device's server is cabled to (stable per reservation, or
/// per device on demand): 8 hex digits.
struct SwitchUuid(Uuid);

impl Serialize for SwitchUuid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&ShortId(self.0))
    }
}

/// A device's public IPv4, public IPv6 and private IPv4 assignments (as
/// its create asked), none before it has them; then those of the
/// project's IP reservations assigned to it.
pub(crate) struct Addresses<'a> {
    device: Uuid,
    /// The device's creation order, when it has its addresses.
    seq: Option<u64>,
    /// Which of its own it has (`None`: all three).
    own: Option<&'a [OwnAddress]>,
    /// Their prefix lengths.
    cidrs: OwnCidrs,
    made: Stamp,
    /// Its public IPv4 from a reserved block, once provisioned.
    management: Option<AssignmentView<'a>>,
    elastic: Vec<AssignmentView<'a>>,
    /// Written as `{"href": ...}` stubs (`exclude=ip_addresses`).
    stubs: bool,
}

#[derive(Serialize)]
struct Assignment {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    state: &'static str,
    address: AddressText,
    gateway: AddressText,
    network: AddressText,
    netmask: String,
    address_family: u8,
    cidr: u8,
    public: bool,
    management: bool,
    manageable: bool,
    enabled: bool,
    global_ip: bool,
    assigned_to: Stub,
    created_at: Stamp,
    /// `null`: a device's own addresses have no next hop, metro or
    /// parent block (see "Replies whole" in `metal_fake::fidelity`).
    next_hop: (),
    /// As `next_hop`.
    metro: (),
    /// As `next_hop`.
    parent_block: (),
}

impl Serialize for Addresses<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let own = match self.seq {
            Some(_) => own_kinds(self.own, &self.cidrs),
            None => Vec::new(),
        };
        let management = usize::from(self.management.is_some());
        let mut seq = s.serialize_seq(Some(management + own.len() + self.elastic.len()))?;
        if self.stubs {
            let ips = crate::model::ip_reservation::COLLECTION;
            let own = own
                .iter()
                .map(|o| derived_id(self.device, o.index as u128 + 1));
            let ids = self.management.iter().map(AssignmentView::id);
            for id in ids
                .chain(own)
                .chain(self.elastic.iter().map(AssignmentView::id))
            {
                seq.serialize_element(&Stub::new(ips, id))?;
            }
            return seq.end();
        }
        if let Some(m) = &self.management {
            seq.serialize_element(m)?;
        }
        if let Some(n) = self.seq {
            for o in own {
                let id = derived_id(self.device, o.index as u128 + 1);
                seq.serialize_element(&Assignment {
                    id,
                    href: Href::new("ips", id),
                    type_: "IPAssignment",
                    state: "active",
                    address: o.text(n, Part::Address),
                    gateway: o.text(n, Part::Gateway),
                    network: o.text(n, Part::Network),
                    netmask: o.netmask(),
                    address_family: o.address_family,
                    cidr: o.cidr,
                    public: o.public,
                    management: true,
                    manageable: true,
                    enabled: true,
                    global_ip: false,
                    assigned_to: Stub::new(COLLECTION, self.device),
                    created_at: self.made,
                    next_hop: (),
                    metro: (),
                    parent_block: (),
                })?;
            }
        }
        for a in &self.elastic {
            seq.serialize_element(a)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_id_is_the_first_eight_hex_digits() {
        assert_eq!(
            ShortId(Uuid::from_u128(0x0a0b_0c0d << 96)).to_string(),
            "0a0b0c0d"
        );
    }
}
