//! What tests and `/_fake/state` inspect: every device and reservation,
//! reboots, competitors, and counts of the world's contents.

use std::collections::BTreeMap;

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::records::{state_of, DeviceRec, ReservationRec};
use super::world::World;
use crate::render::Expand;

/// Counts of the world's contents, for `/_fake/state` and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
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
}

impl World {
    /// Every device, rendered with its project included, in creation order.
    pub(crate) fn all_devices(&self, now: Instant) -> Vec<types::Device> {
        let mut recs: Vec<&DeviceRec> = self.devices.values().collect();
        recs.sort_by_key(|d| d.seq);
        let expand = Expand::parse(Some("project,hardware_reservation"), None);
        recs.into_iter()
            .map(|d| self.device(d, &expand, now))
            .collect()
    }

    /// Every reservation with its device included, in creation order.
    pub(crate) fn all_reservations(&self, now: Instant) -> Vec<types::HardwareReservation> {
        let mut recs: Vec<&ReservationRec> = self.reservations.values().collect();
        recs.sort_by_key(|r| r.seq);
        let expand = Expand::parse(Some("device,project"), None);
        recs.into_iter()
            .map(|r| self.reservation(r, &expand, now))
            .collect()
    }

    /// Reboots performed on a device, `None` for an unknown device.
    pub(crate) fn reboots(&self, id: Uuid) -> Option<u32> {
        self.devices.get(&id).map(|d| d.reboots)
    }

    /// Counts of the world's contents at `now`.
    pub(crate) fn counts(&self, now: Instant) -> WorldCounts {
        let mut c = WorldCounts {
            ssh_keys: self.ssh_keys.len() as u64,
            devices_created: self.devices_created,
            competitor_devices: self.competitor_devices,
            ..Default::default()
        };
        for d in self.devices.values() {
            *c.devices_by_state
                .entry(state_of(d, &self.timings, now).to_string())
                .or_default() += 1;
            c.reboots += u64::from(d.reboots);
        }
        for r in self.reservations.values() {
            if r.device.is_some() {
                c.reservations_with_device += 1;
            } else {
                c.reservations_without_device += 1;
            }
            if self.provisionable(r, now) {
                c.reservations_provisionable += 1;
            }
        }
        c
    }

    /// A competitor gives up its device: it is deleted as the API deletes
    /// (its reservation is released), without a call. `false` when the
    /// device is unknown or not a competitor's.
    pub(crate) fn release_competitor(&mut self, id: Uuid, now: Instant) -> bool {
        self.is_competitor(id) && self.delete_device(id, now).is_ok()
    }

    /// Whether a device was placed by a competitor.
    pub(crate) fn is_competitor(&self, id: Uuid) -> bool {
        self.devices.get(&id).is_some_and(|d| d.competitor)
    }
}
