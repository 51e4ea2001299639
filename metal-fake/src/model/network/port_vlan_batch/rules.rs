//! The API's rules for port VLAN assignment batches: what a create takes
//! (1 to 100 assignments, each a VLAN of the device's project and metro,
//! by `vxlan` or ID, `assigned` or `unassigned`, perhaps native), one
//! batch at a time on a port, and the timed steps: `in_progress`, then
//! each assignment applied in order through the port's rules
//! (`model/network/port`: restating the port's state is no change), the
//! batch `completed`, or `failed` at the first the port refuses (those
//! before it stay applied).

use std::time::Duration;

use serde::Deserialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{BatchAssignment, BatchAssignmentState, BatchState, Kept, PortVlanBatch};
use crate::call::ApiError;
use crate::model::journal::Due;
use crate::model::World;

/// How long a batch stays queued, and then in progress.
pub(crate) const STEP: Duration = Duration::from_secs(5);

/// The most assignments one batch holds (a bound of the fake's).
pub(crate) const MAX_ASSIGNMENTS: usize = 100;

/// The most batches one port keeps (a bound of the fake's: the oldest
/// finished one goes when a new one comes).
pub(crate) const MAX_PER_PORT: usize = 100;

/// A create's body (`PortVlanAssignmentBatchCreateInput`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CreateInput {
    vlan_assignments: Vec<AssignmentInput>,
}

/// One assignment of a create.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct AssignmentInput {
    vlan: Option<String>,
    state: Option<String>,
    native: Option<bool>,
}

impl World {
    /// The VLAN `vlan` (a `vxlan`, or an ID) names for port `port`: of its
    /// device's project and metro; its ID and `vxlan`.
    fn batch_vlan(&self, port: Uuid, vlan: &str) -> Result<(Uuid, u32), ApiError> {
        let (d, _) = self.find_port(port)?;
        let metro = self
            .catalog
            .facility(&d.rec.facility)
            .map(|f| f.metro.as_str());
        let vlan = vlan.trim();
        let found = match (vlan.parse::<Uuid>(), vlan.parse::<u32>()) {
            (Ok(id), _) => self.vlans.get(&id),
            (_, Ok(vxlan)) => self.vlans.values().find(|v| {
                v.rec.project == d.rec.project
                    && Some(v.rec.metro.as_str()) == metro
                    && v.rec.vxlan == vxlan
            }),
            _ => None,
        }
        .filter(|v| v.rec.project == d.rec.project && Some(v.rec.metro.as_str()) == metro)
        .ok_or_else(|| {
            ApiError::unprocessable(format!(
                "Virtual network {vlan} was not found in the device's project and metro"
            ))
        })?;
        Ok((found.rec.id, found.rec.vxlan))
    }

    /// `createPortVlanAssignmentBatch`: a new batch on port `port`,
    /// queued.
    pub(crate) fn create_port_vlan_batch(
        &mut self,
        port: Uuid,
        body: &CreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let (d, _) = self.find_port(port)?;
        let (device, project) = (d.rec.id, d.rec.project);
        if body.vlan_assignments.is_empty() {
            return Err(ApiError::unprocessable("vlan_assignments can't be blank"));
        }
        if body.vlan_assignments.len() > MAX_ASSIGNMENTS {
            return Err(ApiError::unprocessable(format!(
                "A batch holds at most {MAX_ASSIGNMENTS} VLAN assignments"
            )));
        }
        let mut assignments = Vec::new();
        for a in &body.vlan_assignments {
            let vlan = a
                .vlan
                .as_deref()
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| ApiError::unprocessable("vlan can't be blank"))?;
            let (_, vxlan) = self.batch_vlan(port, vlan)?;
            let state = match a.state.as_deref() {
                None | Some("assigned") => BatchAssignmentState::Assigned,
                Some("unassigned") => BatchAssignmentState::Unassigned,
                Some(s) => {
                    return Err(ApiError::unprocessable(format!(
                        "State {s} is not valid: assigned or unassigned"
                    )))
                }
            };
            if state == BatchAssignmentState::Unassigned && a.native == Some(true) {
                return Err(ApiError::unprocessable(
                    "An unassigned VLAN cannot be the native VLAN",
                ));
            }
            assignments.push(BatchAssignment {
                id: Uuid::new_v4(),
                vlan: vxlan,
                state,
                native: a.native,
            });
        }
        let busy = self.port_vlan_batches.values().any(|b| {
            b.rec.port == port && matches!(b.rec.state, BatchState::Queued | BatchState::InProgress)
        });
        if busy {
            return Err(ApiError::unprocessable(
                "The port has a VLAN assignment batch in progress: wait for it to finish",
            ));
        }
        let mut of_port: Vec<&Kept> = self
            .port_vlan_batches
            .values()
            .filter(|b| b.rec.port == port)
            .collect();
        if of_port.len() >= MAX_PER_PORT {
            of_port.sort_by_key(|b| b.meta.seq);
            let oldest = of_port[0].rec.id;
            self.port_vlan_batches
                .rows()
                .remove(&mut self.journal, oldest, now);
        }
        let id = Uuid::new_v4();
        let rec = PortVlanBatch {
            id,
            port,
            project,
            vlan_assignments: assignments,
            state: BatchState::Queued,
            error_messages: Vec::new(),
        };
        self.port_vlan_batches
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec,
                meta,
                device,
            });
        self.queue_batch_step(id, BatchState::Queued, now);
        Ok(id)
    }

    /// Queues batch `id`'s step out of `from`.
    pub(crate) fn queue_batch_step(&mut self, id: Uuid, from: BatchState, now: Instant) {
        self.due.push(now + STEP, Due::PortVlanBatch { id, from });
    }

    /// Batch `id`'s timed step out of `from` (stale unless it is still
    /// there): queued to in progress; in progress to applied, completed
    /// or failed.
    pub(crate) fn batch_step(&mut self, id: Uuid, from: BatchState, at: Instant) {
        let Some(b) = self.port_vlan_batches.get(&id) else {
            return;
        };
        if b.rec.state != from {
            return;
        }
        match from {
            BatchState::Queued => {
                self.port_vlan_batches.rows().update(
                    &mut self.journal,
                    id,
                    "in_progress",
                    at,
                    |b| {
                        b.rec.state = BatchState::InProgress;
                    },
                );
                self.queue_batch_step(id, BatchState::InProgress, at);
            }
            BatchState::InProgress => {
                let (port, assignments) = (b.rec.port, b.rec.vlan_assignments.clone());
                let failure = assignments
                    .iter()
                    .find_map(|a| self.apply_assignment(port, a, at).err());
                self.port_vlan_batches
                    .rows()
                    .update(&mut self.journal, id, "finished", at, |b| match failure {
                        None => b.rec.state = BatchState::Completed,
                        Some(message) => {
                            b.rec.state = BatchState::Failed;
                            b.rec.error_messages = vec![message];
                        }
                    });
            }
            BatchState::Completed | BatchState::Failed => {}
        }
    }

    /// One assignment on port `port`, through the port's rules: a VLAN
    /// already in the state asked is no change.
    fn apply_assignment(
        &mut self,
        port: Uuid,
        a: &BatchAssignment,
        at: Instant,
    ) -> Result<(), String> {
        let fail = |e: ApiError| format!("vlan {}: {}", a.vlan, e.messages.join("; "));
        let vnid = a.vlan.to_string();
        let (vlan, _) = self.batch_vlan(port, &vnid).map_err(fail)?;
        let (d, slot) = self.find_port(port).map_err(fail)?;
        let state = self.port_state(d.rec.id, slot);
        let on = state.vlans.contains(&vlan);
        let native = state.native == Some(vlan);
        match a.state {
            BatchAssignmentState::Assigned => {
                if !on {
                    self.assign_port(port, Some(&vnid), at).map_err(fail)?;
                }
                match a.native {
                    Some(true) if !native => {
                        self.set_native_vlan(port, Some(&vnid), at).map_err(fail)
                    }
                    Some(false) if native => self.remove_native_vlan(port, at).map_err(fail),
                    _ => Ok(()),
                }
            }
            BatchAssignmentState::Unassigned if on => {
                self.unassign_port(port, Some(&vnid), at).map_err(fail)
            }
            BatchAssignmentState::Unassigned => Ok(()),
        }
    }

    /// The batch `id` of port `port`, `404` when there is none.
    pub(crate) fn port_vlan_batch(&self, port: Uuid, id: Uuid) -> Result<&Kept, ApiError> {
        self.port_vlan_batches
            .get(&id)
            .filter(|b| b.rec.port == port)
            .ok_or_else(ApiError::not_found)
    }

    /// The batches of port `port`, oldest first.
    pub(crate) fn port_vlan_batches_of(&self, port: Uuid) -> Vec<&Kept> {
        let mut of: Vec<&Kept> = self
            .port_vlan_batches
            .values()
            .filter(|b| b.rec.port == port)
            .collect();
        of.sort_by_key(|b| b.meta.seq);
        of
    }
}
