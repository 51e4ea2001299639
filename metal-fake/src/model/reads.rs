//! The reads the API answers: one record or one page of a list, rendered
//! with the request's `include`/`exclude`.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::records::{DeviceRec, KeyOwner, ReservationRec, SshKeyRec};
use super::world::World;
use crate::call::ApiError;
use crate::render::{self, Expand};

impl World {
    /// One device.
    pub(super) fn device_by_id(
        &self,
        id: Uuid,
        expand: &Expand,
        now: Instant,
    ) -> Result<types::Device, ApiError> {
        let rec = self.devices.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(self.device(rec, expand, now))
    }

    /// One page of a project's devices, oldest first.
    pub(super) fn device_page(
        &self,
        project: Uuid,
        page: u32,
        per_page: u32,
        expand: &Expand,
        now: Instant,
    ) -> Result<types::DeviceList, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        let mut recs: Vec<&DeviceRec> = self
            .devices
            .values()
            .filter(|d| d.project == project)
            .collect();
        recs.sort_by_key(|d| d.seq);
        let path = format!("{}/devices", render::project_href(project));
        let (recs, meta) = render::paginate(recs, page, per_page, &path);
        Ok(types::DeviceList {
            devices: recs
                .into_iter()
                .map(|d| self.device(d, expand, now))
                .collect(),
            meta: Some(meta),
        })
    }

    /// One hardware reservation.
    pub(super) fn reservation_by_id(
        &self,
        id: Uuid,
        expand: &Expand,
        now: Instant,
    ) -> Result<types::HardwareReservation, ApiError> {
        let rec = self.reservations.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(self.reservation(rec, expand, now))
    }

    /// One page of a project's hardware reservations, oldest first.
    pub(super) fn reservation_page(
        &self,
        project: Uuid,
        page: u32,
        per_page: u32,
        expand: &Expand,
        now: Instant,
    ) -> Result<types::HardwareReservationList, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        let mut recs: Vec<&ReservationRec> = self
            .reservations
            .values()
            .filter(|r| r.project == project)
            .collect();
        recs.sort_by_key(|r| r.seq);
        let path = format!("{}/hardware-reservations", render::project_href(project));
        let (recs, meta) = render::paginate(recs, page, per_page, &path);
        Ok(types::HardwareReservationList {
            hardware_reservations: recs
                .into_iter()
                .map(|r| self.reservation(r, expand, now))
                .collect(),
            meta: Some(meta),
        })
    }

    /// The SSH keys of `owner`, oldest first. The user's list
    /// (`GET /ssh-keys`) also has the keys of every project the caller
    /// sees, as the real API answers (Monogon's live test expects it).
    pub(super) fn ssh_keys_of(&self, owner: KeyOwner) -> Result<types::SshKeyList, ApiError> {
        if let KeyOwner::Project(p) = owner {
            self.projects.get(&p).ok_or_else(ApiError::not_found)?;
        }
        let listed = |k: &SshKeyRec| match (owner, k.owner) {
            (KeyOwner::User, KeyOwner::Project(p)) => {
                self.projects.contains_key(&p) && self.caller.sees(p)
            }
            _ => k.owner == owner,
        };
        let mut recs: Vec<&SshKeyRec> = self.ssh_keys.values().filter(|k| listed(k)).collect();
        recs.sort_by_key(|k| k.seq);
        Ok(types::SshKeyList {
            ssh_keys: recs.into_iter().map(|k| self.ssh_key(k)).collect(),
        })
    }

    /// One SSH key.
    pub(super) fn ssh_key_by_id(&self, id: Uuid) -> Result<types::SshKey, ApiError> {
        let rec = self.ssh_keys.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(self.ssh_key(rec))
    }
}
