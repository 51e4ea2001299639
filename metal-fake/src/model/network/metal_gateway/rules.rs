//! The API's rules for Metal Gateways: on a VLAN of the project that has
//! no gateway yet, with a private IPv4 block of 8 to 128 addresses made
//! for it, or a reserved IPv4 block of the project named, in the VLAN's
//! metro, bound to no other gateway and assigned to no device; a delete
//! takes the gateway at once with what goes with it (`model::relations`:
//! a block made with it, its BGP dynamic neighbours and elastic IPs), or
//! after [`Timings::gateway_deleting`](crate::Timings::gateway_deleting)
//! when a test sets that lag (the gateway reads `deleting` meanwhile).

use serde::Deserialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, MetalGateway};
use crate::call::ApiError;
use crate::model::journal::Due;
use crate::model::relations::Kind;
use crate::model::{IpReservationType, World};

/// The sizes of private block a gateway may ask for.
pub(crate) const SUBNET_SIZES: [u32; 5] = [8, 16, 32, 64, 128];

/// A create request, either form of the spec's `createMetalGateway_request`
/// (a VRF gateway's is the first: a VLAN and a VRF's block).
#[derive(Debug, Deserialize)]
pub(crate) struct CreateInput {
    virtual_network_id: Uuid,
    #[serde(default)]
    ip_reservation_id: Option<Uuid>,
    #[serde(default)]
    private_ipv4_subnet_size: Option<i64>,
}

impl World {
    /// Whether a gateway of `project` may sit on `vlan` with block
    /// `reservation` (both existing).
    pub(crate) fn check_gateway(
        &self,
        project: Uuid,
        vlan: Uuid,
        reservation: Uuid,
    ) -> Result<(), ApiError> {
        let v = self.vlan(vlan)?;
        if v.rec.project != project {
            return Err(ApiError::unprocessable(
                "The virtual network belongs to another project",
            ));
        }
        if self
            .gateways
            .values()
            .any(|g| g.rec.virtual_network == vlan)
        {
            return Err(ApiError::unprocessable(
                "The virtual network already has a Metal Gateway",
            ));
        }
        let r = self
            .ips
            .reservations()
            .get(&reservation)
            .ok_or_else(|| ApiError::unprocessable("The IP reservation was not found"))?;
        if r.rec.project != project {
            return Err(ApiError::unprocessable(
                "The IP reservation belongs to another project",
            ));
        }
        if r.rec.kind == IpReservationType::GlobalIpv4 {
            return Err(ApiError::unprocessable(
                "A Metal Gateway takes a private, public or VRF IPv4 reservation of its metro",
            ));
        }
        if r.rec.metro.as_deref() != Some(v.rec.metro.as_str()) {
            return Err(ApiError::unprocessable(
                "The IP reservation and the virtual network must be in the same metro",
            ));
        }
        if self
            .gateways
            .values()
            .any(|g| g.rec.ip_reservation == reservation)
        {
            return Err(ApiError::unprocessable(
                "The IP reservation is bound to another Metal Gateway",
            ));
        }
        if !r.assignments.is_empty() {
            return Err(ApiError::unprocessable(
                "The IP reservation has addresses assigned to devices",
            ));
        }
        Ok(())
    }

    /// `createMetalGateway`: a gateway of `project`'s.
    pub(crate) fn create_gateway(
        &mut self,
        project: Uuid,
        body: &CreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        let vlan = self
            .vlans
            .get(&body.virtual_network_id)
            .ok_or_else(|| ApiError::unprocessable("The virtual network was not found"))?;
        let metro = vlan.rec.metro.clone();
        let (reservation, own_block) =
            match (body.ip_reservation_id, body.private_ipv4_subnet_size) {
                (Some(r), None) => {
                    self.check_gateway(project, body.virtual_network_id, r)?;
                    (r, false)
                }
                (None, Some(size)) => {
                    let size = u32::try_from(size)
                        .ok()
                        .filter(|s| SUBNET_SIZES.contains(s))
                        .ok_or_else(|| {
                            ApiError::unprocessable(
                                "private_ipv4_subnet_size must be one of 8, 16, 32, 64, 128",
                            )
                        })?;
                    // Checked before the block is made, so a refusal leaves
                    // nothing behind.
                    if vlan.rec.project != project {
                        return Err(ApiError::unprocessable(
                            "The virtual network belongs to another project",
                        ));
                    }
                    if self
                        .gateways
                        .values()
                        .any(|g| g.rec.virtual_network == body.virtual_network_id)
                    {
                        return Err(ApiError::unprocessable(
                            "The virtual network already has a Metal Gateway",
                        ));
                    }
                    (self.reserve_private(project, &metro, size, now)?, true)
                }
                _ => return Err(ApiError::unprocessable(
                    "Either ip_reservation_id or private_ipv4_subnet_size is required, not both",
                )),
            };
        let id = Uuid::new_v4();
        self.gateways
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec: MetalGateway {
                    id,
                    project,
                    virtual_network: body.virtual_network_id,
                    ip_reservation: reservation,
                    own_block,
                    deleting: false,
                },
                meta,
            });
        Ok(id)
    }

    /// `deleteMetalGateway`: the gateway goes at once (metal-cli's
    /// `TestGateways_Delete` reads `404` right after it), or, with a
    /// [`Timings::gateway_deleting`](crate::Timings::gateway_deleting)
    /// lag, it is `deleting` and gone that much later (a second delete
    /// meanwhile changes nothing).
    pub(crate) fn delete_gateway(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        let g = self.gateways.get(&id).ok_or_else(ApiError::not_found)?;
        if g.rec.deleting {
            return Ok(());
        }
        if self.timings().gateway_deleting.is_zero() {
            self.remove_record(Kind::MetalGateway, id, now);
            return Ok(());
        }
        self.gateways
            .rows()
            .update(&mut self.journal, id, "deleting", now, |g| {
                g.rec.deleting = true;
            });
        self.queue_gateway_gone(id, now);
        Ok(())
    }

    /// Queues the end of gateway `id`'s delete, the
    /// [`Timings::gateway_deleting`](crate::Timings::gateway_deleting)
    /// lag after `now`.
    pub(crate) fn queue_gateway_gone(&mut self, id: Uuid, now: Instant) {
        let at = now + self.timings().gateway_deleting;
        self.due.push(at, Due::MetalGateway { id });
    }

    /// Gateway `id`'s delete is done: it goes, with what goes with it
    /// (stale unless it is still deleting).
    pub(crate) fn gateway_gone(&mut self, id: Uuid, at: Instant) {
        if self.gateways.get(&id).is_some_and(|g| g.rec.deleting) {
            self.remove_record(Kind::MetalGateway, id, at);
        }
    }

    /// The gateway bound to IP reservation `reservation`, if any.
    pub(crate) fn gateway_of_block(&self, reservation: Uuid) -> Option<&Kept> {
        self.gateways
            .values()
            .find(|g| g.rec.ip_reservation == reservation)
    }

    /// The gateways on VLAN `vlan`.
    pub(crate) fn gateways_of_vlan(&self, vlan: Uuid) -> Vec<&Kept> {
        let mut all: Vec<&Kept> = self
            .gateways
            .values()
            .filter(|g| g.rec.virtual_network == vlan)
            .collect();
        all.sort_by_key(|g| g.meta.seq);
        all
    }
}
