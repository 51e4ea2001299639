//! The API's rules for virtual circuits: a create on a dedicated port (a
//! project of the connection's organisation, a VLAN of it in the
//! connection's metro, an `nni_vlan` free on the port unless the port is
//! in tunnel mode, a speed within the connection's), the circuits a
//! shared connection makes, an update (a new VLAN, or none), a delete,
//! and the timed steps (active; gone).

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, VirtualCircuit, VirtualCircuitStatus};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_NAME, MAX_TEXT};
use crate::model::interconnection::{
    parse_speed, InterconnectionMode, InterconnectionType, Kept as Connection,
};
use crate::model::journal::Due;
use crate::model::relations::Kind;
use crate::model::World;

/// How long a new circuit takes to become active, and a deleted one to
/// go.
pub(crate) const SETTLE: Duration = Duration::from_secs(30);

/// The `nni_vlan` range.
pub(crate) const NNI_VLAN_RANGE: std::ops::RangeInclusive<u16> = 2..=4094;

/// The most virtual circuits one port holds (a bound of the fake's).
pub(crate) const MAX_PER_PORT: usize = 100;

/// A create's body (`VlanVirtualCircuitCreateInput`; a VRF circuit's
/// `vrf` is refused).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CreateInput {
    project_id: Option<String>,
    vnid: Option<String>,
    nni_vlan: Option<i64>,
    name: Option<String>,
    description: Option<String>,
    speed: Option<Value>,
    tags: Vec<String>,
    vrf: Option<Value>,
}

/// An update's body (`VlanVirtualCircuitUpdateInput`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UpdateInput {
    vnid: Option<String>,
    name: Option<String>,
    description: Option<String>,
    speed: Option<Value>,
    tags: Option<Vec<String>>,
    vrf: Option<Value>,
}

fn check_text(
    name: Option<&str>,
    description: Option<&str>,
    tags: Option<&[String]>,
) -> Result<(), ApiError> {
    refuse([
        name.and_then(|n| too_long("Name", n, MAX_NAME)),
        description.and_then(|d| too_long("Description", d, MAX_TEXT)),
        tags.and_then(bad_tags),
    ])
}

/// Checks a circuit of a world document against its connection, port,
/// project and VLAN.
pub(crate) fn check_record(w: &World, vc: &VirtualCircuit) -> Result<(), String> {
    let c = w
        .interconnections
        .get(&vc.interconnection)
        .ok_or("its interconnection is unknown")?;
    if !c.rec.ports.contains(&vc.port) {
        return Err(format!("port {} is not its interconnection's", vc.port));
    }
    check_text(Some(&vc.name), vc.description.as_deref(), Some(&vc.tags))
        .map_err(|e| e.messages.join("; "))?;
    w.check_circuit_project(c, vc.project)
        .map_err(|e| e.messages.join("; "))?;
    if let Some(v) = vc.virtual_network {
        w.circuit_vlan(c, vc.project, &v.to_string())
            .map_err(|e| e.messages.join("; "))?;
    }
    if let Some(n) = vc.nni_vlan {
        if !NNI_VLAN_RANGE.contains(&n) {
            return Err(format!("nni_vlan {n} is outside 2 to 4094"));
        }
        if w.nni_vlan_taken(vc.port, n) {
            return Err(format!("nni_vlan {n} is taken on the port"));
        }
    }
    if w.circuits_on_port(vc.port).len() >= MAX_PER_PORT {
        return Err(format!("its port holds more than {MAX_PER_PORT} circuits"));
    }
    Ok(())
}

impl World {
    /// The circuits on `port`, oldest first.
    pub(crate) fn circuits_on_port(&self, port: Uuid) -> Vec<&Kept> {
        let mut on: Vec<&Kept> = self
            .virtual_circuits
            .values()
            .filter(|vc| vc.rec.port == port)
            .collect();
        on.sort_by_key(|vc| vc.meta.seq);
        on
    }

    /// The circuits of connection `connection`, oldest first.
    pub(crate) fn circuits_of_connection(&self, connection: Uuid) -> Vec<&Kept> {
        let mut of: Vec<&Kept> = self
            .virtual_circuits
            .values()
            .filter(|vc| vc.rec.interconnection == connection)
            .collect();
        of.sort_by_key(|vc| vc.meta.seq);
        of
    }

    /// Whether a VLAN has a virtual circuit.
    pub(crate) fn vlan_has_circuit(&self, vlan: Uuid) -> bool {
        self.virtual_circuits
            .values()
            .any(|vc| vc.rec.virtual_network == Some(vlan))
    }

    fn nni_vlan_taken(&self, port: Uuid, nni_vlan: u16) -> bool {
        self.virtual_circuits
            .values()
            .any(|vc| vc.rec.port == port && vc.rec.nni_vlan == Some(nni_vlan))
    }

    /// `project` may have a circuit on `c`: one of `c`'s organisation.
    fn check_circuit_project(&self, c: &Connection, project: Uuid) -> Result<(), ApiError> {
        let p = self
            .projects
            .get(&project)
            .ok_or_else(|| ApiError::unprocessable(format!("Project {project} was not found")))?;
        if p.rec.organization != Some(c.rec.organization) {
            return Err(ApiError::unprocessable(
                "The project is not of the connection's organization",
            ));
        }
        Ok(())
    }

    /// The VLAN `vnid` names (its ID, or its `vxlan`) for a circuit of
    /// `project` on `c`: of the project, in the connection's metro.
    fn circuit_vlan(&self, c: &Connection, project: Uuid, vnid: &str) -> Result<Uuid, ApiError> {
        let vnid = vnid.trim();
        let vlan = match (vnid.parse::<Uuid>(), vnid.parse::<u32>()) {
            (Ok(id), _) => self.vlans.get(&id),
            (_, Ok(vxlan)) => self.vlans.values().find(|v| {
                v.rec.project == project
                    && v.rec.metro.eq_ignore_ascii_case(&c.rec.metro)
                    && v.rec.vxlan == vxlan
            }),
            _ => None,
        }
        .ok_or_else(|| ApiError::unprocessable(format!("Virtual network {vnid} was not found")))?;
        if vlan.rec.project != project {
            return Err(ApiError::unprocessable(
                "The virtual network belongs to another project than the virtual circuit",
            ));
        }
        if !vlan.rec.metro.eq_ignore_ascii_case(&c.rec.metro) {
            return Err(ApiError::unprocessable(format!(
                "Virtual network {} is in metro {}, not in the connection's metro {}",
                vlan.rec.vxlan, vlan.rec.metro, c.rec.metro
            )));
        }
        Ok(vlan.rec.id)
    }

    /// A speed of a circuit on `c`: at most the connection's.
    fn circuit_speed(c: &Connection, speed: Option<&Value>) -> Result<Option<u64>, ApiError> {
        let speed = parse_speed(speed)?;
        if let Some(s) = speed {
            if c.rec.speed > 0 && s > c.rec.speed {
                return Err(ApiError::unprocessable(
                    "The virtual circuit's speed exceeds its connection's",
                ));
            }
        }
        Ok(speed)
    }

    /// `createInterconnectionPortVirtualCircuit`: a new VLAN circuit on
    /// port `port` of dedicated connection `connection`.
    pub(crate) fn create_virtual_circuit(
        &mut self,
        connection: Uuid,
        port: Uuid,
        body: &CreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let c = self.interconnection(connection)?;
        if !c.rec.ports.contains(&port) {
            return Err(ApiError::not_found());
        }
        if body.vrf.is_some() {
            return Err(ApiError::unprocessable(
                "VRF virtual circuits are not modelled by the fake: give a vnid",
            ));
        }
        if c.rec.kind == InterconnectionType::Shared {
            return Err(ApiError::unprocessable(
                "A shared connection's virtual circuits are made with it: update them instead",
            ));
        }
        check_text(
            body.name.as_deref(),
            body.description.as_deref(),
            Some(&body.tags),
        )?;
        let project = body
            .project_id
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| ApiError::unprocessable("project_id can't be blank"))?;
        let project = project
            .parse::<Uuid>()
            .map_err(|_| ApiError::unprocessable(format!("Project {project} was not found")))?;
        self.check_circuit_project(c, project)?;
        let vlan = match body.vnid.as_deref().map(str::trim) {
            Some(v) if !v.is_empty() => Some(self.circuit_vlan(c, project, v)?),
            _ => None,
        };
        let nni_vlan = match (body.nni_vlan, c.rec.mode) {
            (Some(n), _) => {
                let n = u16::try_from(n)
                    .ok()
                    .filter(|n| NNI_VLAN_RANGE.contains(n))
                    .ok_or_else(|| {
                        ApiError::unprocessable("nni_vlan must be between 2 and 4094")
                    })?;
                if self.nni_vlan_taken(port, n) {
                    return Err(ApiError::unprocessable(format!(
                        "NNI VLAN {n} is already in use on the port"
                    )));
                }
                Some(n)
            }
            (None, InterconnectionMode::Tunnel) => None,
            (None, InterconnectionMode::Standard) => {
                return Err(ApiError::unprocessable(
                    "nni_vlan can't be blank on a port in standard mode",
                ))
            }
        };
        let speed = Self::circuit_speed(c, body.speed.as_ref())?.unwrap_or(c.rec.speed);
        if self.circuits_on_port(port).len() >= MAX_PER_PORT {
            return Err(ApiError::unprocessable(format!(
                "The port has too many virtual circuits (maximum is {MAX_PER_PORT})"
            )));
        }
        let id = Uuid::new_v4();
        let rec = VirtualCircuit {
            id,
            interconnection: connection,
            port,
            project,
            virtual_network: vlan,
            nni_vlan,
            name: body.name.clone().unwrap_or_default(),
            description: body.description.clone(),
            speed,
            tags: body.tags.clone(),
            status: VirtualCircuitStatus::Activating,
        };
        self.virtual_circuits
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        self.queue_circuit_step(id, VirtualCircuitStatus::Activating, now);
        Ok(id)
    }

    /// The circuits a new shared connection makes: one on each of its
    /// `ports`, of `project`, carrying the VLAN of the same place in
    /// `vlans` (none past its end).
    pub(crate) fn create_connection_circuits(
        &mut self,
        connection: Uuid,
        project: Uuid,
        ports: &[Uuid],
        vlans: &[Uuid],
        speed: u64,
        now: Instant,
    ) {
        for (i, port) in ports.iter().enumerate() {
            let id = Uuid::new_v4();
            let rec = VirtualCircuit {
                id,
                interconnection: connection,
                port: *port,
                project,
                virtual_network: vlans.get(i).copied(),
                nni_vlan: None,
                name: String::new(),
                description: None,
                speed,
                tags: Vec::new(),
                status: VirtualCircuitStatus::Activating,
            };
            self.virtual_circuits
                .rows()
                .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
            self.queue_circuit_step(id, VirtualCircuitStatus::Activating, now);
        }
    }

    /// `updateVirtualCircuit`: the name, description, speed, tags and VLAN
    /// given (`"vnid": ""` takes its VLAN off).
    pub(crate) fn update_virtual_circuit(
        &mut self,
        id: Uuid,
        body: &UpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let vc = self.virtual_circuit(id)?;
        if body.vrf.is_some() {
            return Err(ApiError::unprocessable(
                "VRF virtual circuits are not modelled by the fake",
            ));
        }
        if vc.rec.status == VirtualCircuitStatus::Deleting {
            return Err(ApiError::unprocessable(
                "The virtual circuit is being deleted",
            ));
        }
        check_text(
            body.name.as_deref(),
            body.description.as_deref(),
            body.tags.as_deref(),
        )?;
        let c = self.interconnection(vc.rec.interconnection)?;
        let vlan = match body.vnid.as_deref().map(str::trim) {
            None => vc.rec.virtual_network,
            Some("") => None,
            Some(v) => Some(self.circuit_vlan(c, vc.rec.project, v)?),
        };
        let speed = Self::circuit_speed(c, body.speed.as_ref())?;
        self.virtual_circuits
            .rows()
            .update(&mut self.journal, id, "fields", now, |vc| {
                vc.rec.virtual_network = vlan;
                if let Some(n) = &body.name {
                    vc.rec.name.clone_from(n);
                }
                if let Some(d) = &body.description {
                    vc.rec.description = Some(d.clone());
                }
                if let Some(s) = speed {
                    vc.rec.speed = s;
                }
                if let Some(t) = &body.tags {
                    vc.rec.tags.clone_from(t);
                }
            })
            .ok_or_else(ApiError::not_found)
    }

    /// `deleteVirtualCircuit`: a dedicated port's circuit is `deleting`,
    /// and goes after a delay; a shared connection's goes with the
    /// connection alone.
    pub(crate) fn delete_virtual_circuit(
        &mut self,
        id: Uuid,
        now: Instant,
    ) -> Result<(), ApiError> {
        let vc = self.virtual_circuit(id)?;
        let c = self.interconnection(vc.rec.interconnection)?;
        if c.rec.kind == InterconnectionType::Shared {
            return Err(ApiError::unprocessable(
                "A shared connection's virtual circuits go with it: delete the connection",
            ));
        }
        if vc.rec.status == VirtualCircuitStatus::Deleting {
            return Err(ApiError::unprocessable(
                "The virtual circuit is already being deleted",
            ));
        }
        self.virtual_circuits
            .rows()
            .update(&mut self.journal, id, "deleting", now, |vc| {
                vc.rec.status = VirtualCircuitStatus::Deleting;
            });
        self.queue_circuit_step(id, VirtualCircuitStatus::Deleting, now);
        Ok(())
    }

    /// The circuit `id`, `404` when there is none.
    pub(crate) fn virtual_circuit(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.virtual_circuits
            .get(&id)
            .ok_or_else(ApiError::not_found)
    }

    /// Queues the step of circuit `id` out of `from` (activating, or
    /// deleting).
    pub(crate) fn queue_circuit_step(
        &mut self,
        id: Uuid,
        from: VirtualCircuitStatus,
        now: Instant,
    ) {
        self.due
            .push(now + SETTLE, Due::VirtualCircuit { id, from });
    }

    /// The timed step of circuit `id` out of `from`: active, or gone;
    /// stale unless it is still in `from`.
    pub(crate) fn circuit_step(&mut self, id: Uuid, from: VirtualCircuitStatus, at: Instant) {
        if self
            .virtual_circuits
            .get(&id)
            .is_none_or(|vc| vc.rec.status != from)
        {
            return;
        }
        match from {
            VirtualCircuitStatus::Activating => {
                self.virtual_circuits
                    .rows()
                    .update(&mut self.journal, id, "active", at, |vc| {
                        vc.rec.status = VirtualCircuitStatus::Active;
                    });
            }
            VirtualCircuitStatus::Deleting => self.remove_record(Kind::VirtualCircuit, id, at),
            VirtualCircuitStatus::Active => {}
        }
    }
}
