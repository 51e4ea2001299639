//! What tests and `/_fake/state` inspect: every device and reservation as
//! the API shows them, reboots, competitors, and counts of the world's
//! contents.

use std::collections::BTreeMap;

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::render::Expand;
use super::world::oldest_first;
use super::World;

/// Counts of the world's contents, for `/_fake/state` and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct WorldCounts {
    /// Devices by the state they report now.
    pub devices_by_state: BTreeMap<String, u64>,
    /// Reservations holding a device.
    pub reservations_with_device: u64,
    /// Reservations without a device.
    pub reservations_without_device: u64,
    /// Reservations a create would succeed on now.
    pub reservations_provisionable: u64,
    /// SSH keys (user and project).
    pub ssh_keys: u64,
    /// Devices created through the API since the start.
    pub devices_created: u64,
    /// Devices placed by an injected competitor.
    pub competitor_devices: u64,
    /// Reboots performed.
    pub reboots: u64,
    /// Records of each kind the world holds now (`device`,
    /// `ip_reservation`, `virtual_network`, ...; a kind with none is
    /// absent): counted as every table is written, so every table is
    /// here, a new one too.
    pub records: BTreeMap<String, u64>,
}

/// A list, as JSON bytes, of views.
fn json_list<T: Serialize>(views: Vec<T>) -> Vec<u8> {
    // A view of the world's own records always encodes: its maps have
    // string keys and its numbers are finite.
    super::json::to_vec(&views).unwrap_or_else(|_| b"[]".to_vec())
}

impl World {
    /// Every device, with its project and reservation included, in
    /// creation order: a JSON array as the API renders devices.
    pub(crate) fn all_devices(&self, now: Instant) -> Vec<u8> {
        let expand = Expand::parse(Some("project,hardware_reservation"), None);
        json_list(
            oldest_first(self.devices.iter(), |d| d.meta.seq)
                .into_iter()
                .map(|d| self.device_view(d, &expand, now))
                .collect(),
        )
    }

    /// Every reservation with its device and project included, in creation
    /// order: a JSON array as the API renders reservations.
    pub(crate) fn all_reservations(&self, now: Instant) -> Vec<u8> {
        let expand = Expand::parse(Some("device,project"), None);
        json_list(
            oldest_first(self.reservations.iter(), |r| r.meta.seq)
                .into_iter()
                .map(|r| self.reservation_view(r, &expand, now))
                .collect(),
        )
    }

    /// Reboots performed on a device, `None` for an unknown device.
    pub(crate) fn reboots(&self, id: Uuid) -> Option<u32> {
        self.devices.get(&id).map(|d| d.rec.reboots)
    }

    /// Whether a device was placed by a competitor.
    pub(crate) fn is_competitor(&self, id: Uuid) -> bool {
        self.devices.get(&id).is_some_and(|d| d.rec.competitor)
    }

    /// Counts of the world's contents at `now`.
    pub(crate) fn counts(&self) -> WorldCounts {
        let mut c = WorldCounts {
            ssh_keys: self.ssh_keys.len() as u64,
            devices_created: self.devices.created(),
            competitor_devices: self.devices.competitors(),
            records: self
                .journal
                .live()
                .iter()
                .map(|(kind, n)| (kind.replace([' ', '-'], "_"), *n))
                .collect(),
            ..Default::default()
        };
        for d in self.devices.values() {
            *c.devices_by_state
                .entry(d.state().as_str().to_string())
                .or_default() += 1;
            c.reboots += u64::from(d.rec.reboots);
        }
        for r in self.reservations.values() {
            if r.live.device.is_some() {
                c.reservations_with_device += 1;
            } else {
                c.reservations_without_device += 1;
            }
            if r.provisionable() {
                c.reservations_provisionable += 1;
            }
        }
        c
    }
}
