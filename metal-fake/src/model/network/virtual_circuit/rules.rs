//! The API's rules for virtual circuits: a create on a dedicated port (a
//! project of the connection's organisation, a VLAN of it in the
//! connection's metro or a VRF with its peering (`vrf.rs`), an `nni_vlan`
//! free on the port unless the port is in tunnel mode, a speed within the
//! connection's), the circuits a shared connection makes (pending until
//! the connection is found, then waiting on a VLAN or on peering details
//! until given), an update (a new VLAN, or none; new peering details), a
//! delete, and the timed steps (active; waiting on a VLAN again; gone).

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, VirtualCircuit, VirtualCircuitStatus};
use super::vrf::PeeringFields;
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_NAME, MAX_TEXT};
use crate::model::interconnection::{
    parse_speed, CircuitsOn, InterconnectionMode, Kept as Connection,
};
use crate::model::journal::Due;
use crate::model::relations::Kind;
use crate::model::World;

/// How long a new (or changed) circuit takes to become active.
pub(crate) const SETTLE: Duration = Duration::from_secs(30);

/// How long a deleted circuit reads `deleting` before it is gone: within
/// the Ansible collection's `metal_virtual_circuit` wait (`timeout`
/// default 15 s, polled every 5 s by `wait_for_resource_removal`: its
/// second read, 5 s on, finds it gone), while a read right after the
/// delete still shows `deleting`, as Terraform's delete waits out.
pub(crate) const DELETING: Duration = Duration::from_secs(5);

/// The `nni_vlan` range.
pub(crate) const NNI_VLAN_RANGE: std::ops::RangeInclusive<u16> = 2..=4094;

/// The most virtual circuits one port holds (a bound of the fake's).
pub(crate) const MAX_PER_PORT: usize = 100;

/// A create's body: `VlanVirtualCircuitCreateInput`, or
/// `VrfVirtualCircuitCreateInput` (with `vrf` and its peering).
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
    /// The VRF: `vrf` as the spec names it, or `vrf_id` as packngo's
    /// `VCCreateRequest` sends it (`metal_fake::fidelity`).
    #[serde(alias = "vrf_id")]
    vrf: Option<String>,
    #[serde(flatten)]
    peering: PeeringFields,
}

impl CreateInput {
    /// The body with `project` as its `project_id`, whatever it said:
    /// the legacy route's path names the project (packngo sends none in
    /// the body).
    pub(crate) fn in_project(mut self, project: Uuid) -> Self {
        self.project_id = Some(project.to_string());
        self
    }
}

/// An update's body: `VlanVirtualCircuitUpdateInput`, or
/// `VrfVirtualCircuitUpdateInput` (its peering).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UpdateInput {
    vnid: Option<String>,
    name: Option<String>,
    description: Option<String>,
    speed: Option<Value>,
    tags: Option<Vec<String>>,
    vrf: Option<Value>,
    #[serde(flatten)]
    peering: PeeringFields,
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
    match (vc.vrf, vc.virtual_network) {
        (Some(_), Some(_)) => return Err("a circuit carries a VLAN or a VRF, not both".into()),
        (Some(v), None) => {
            w.circuit_vrf(c, vc.project, &v.to_string())
                .map_err(|e| e.messages.join("; "))?;
            if let Some(b) = vc.vrf_block
                && w.ips
                    .reservations()
                    .get(&b)
                    .is_none_or(|r| r.rec.vrf != Some(v))
            {
                return Err(format!("its block {b} is not an IP reservation of its VRF"));
            }
        }
        (None, _) if vc.peering.is_some() || vc.vrf_block.is_some() => {
            return Err("only a VRF circuit has a peering".into())
        }
        (None, _) => {}
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
        if let Some(s) = speed
            && c.rec.speed > 0
            && s > c.rec.speed
        {
            return Err(ApiError::unprocessable(
                "The virtual circuit's speed exceeds its connection's",
            ));
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
        if c.rec.kind.is_shared() {
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
        let vnid = body
            .vnid
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty());
        let vrf = body.vrf.as_deref().map(str::trim).filter(|v| !v.is_empty());
        let (vlan, vrf) = match (vnid, vrf) {
            (Some(_), Some(_)) => {
                return Err(ApiError::unprocessable(
                    "A virtual circuit takes a vnid or a vrf, not both",
                ))
            }
            (Some(v), None) => (Some(self.circuit_vlan(c, project, v)?), None),
            (None, Some(v)) => (None, Some(self.circuit_vrf(c, project, v)?)),
            (None, None) if body.peering.any() => {
                return Err(ApiError::unprocessable(
                    "Peering details (peer_asn, subnet, ...) are for a VRF virtual circuit: give its vrf",
                ))
            }
            (None, None) => (None, None),
        };
        // A VRF circuit on a dedicated port has all its peering details
        // from its create (the spec's `VrfVirtualCircuit.status`).
        let peered = match vrf {
            Some(v) => Some(self.circuit_peering(v, None, &body.peering)?),
            None => None,
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
        let block = match (vrf, &peered) {
            (Some(v), Some(p)) => Some(self.take_block(project, v, p.block, now)),
            _ => None,
        };
        let status = if vlan.is_some() || vrf.is_some() {
            VirtualCircuitStatus::Activating
        } else {
            VirtualCircuitStatus::WaitingOnCustomerVlan
        };
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
            status,
            vrf,
            peering: peered.map(|p| p.peering),
            vrf_block: block.map(|b| b.0),
            own_block: block.is_some_and(|b| b.1),
        };
        self.virtual_circuits
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        if status == VirtualCircuitStatus::Activating {
            self.queue_circuit_step(id, status, now);
        }
        Ok(id)
    }

    /// The circuits a new shared connection makes: one on each of its
    /// `ports`, of `project`, `pending` until the connection is found,
    /// carrying what `on` names for the same place (a VLAN, none past the
    /// list's end; or a VRF).
    pub(crate) fn create_connection_circuits(
        &mut self,
        connection: Uuid,
        project: Uuid,
        ports: &[Uuid],
        on: &CircuitsOn,
        speed: u64,
        now: Instant,
    ) {
        for (i, port) in ports.iter().enumerate() {
            let id = Uuid::new_v4();
            let (virtual_network, vrf) = match on {
                CircuitsOn::Vlans(vlans) => (vlans.get(i).copied(), None),
                CircuitsOn::Vrfs(vrfs) => (None, vrfs.get(i).copied()),
            };
            let rec = VirtualCircuit {
                id,
                interconnection: connection,
                port: *port,
                project,
                virtual_network,
                nni_vlan: None,
                name: String::new(),
                description: None,
                speed,
                tags: Vec::new(),
                status: VirtualCircuitStatus::Pending,
                vrf,
                peering: None,
                vrf_block: None,
                own_block: false,
            };
            self.virtual_circuits
                .rows()
                .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        }
    }

    /// Connection `connection` was found (it became active): each of its
    /// pending circuits activates when it has what it carries (a VLAN, or
    /// a VRF's peering), else waits on it.
    pub(crate) fn connection_circuits_found(&mut self, connection: Uuid, at: Instant) {
        let pending: Vec<(Uuid, VirtualCircuitStatus)> = self
            .circuits_of_connection(connection)
            .into_iter()
            .filter(|vc| vc.rec.status == VirtualCircuitStatus::Pending)
            .map(|vc| {
                let next = match (&vc.rec.vrf, &vc.rec.peering, &vc.rec.virtual_network) {
                    (Some(_), Some(_), _) | (None, _, Some(_)) => VirtualCircuitStatus::Activating,
                    (Some(_), None, _) => VirtualCircuitStatus::WaitingOnPeeringDetails,
                    (None, _, None) => VirtualCircuitStatus::WaitingOnCustomerVlan,
                };
                (vc.rec.id, next)
            })
            .collect();
        for (id, next) in pending {
            self.set_circuit_status(id, next, at);
        }
    }

    /// Moves circuit `id` to `status` (journaled as the status's name),
    /// queuing its timed step when it has one.
    fn set_circuit_status(&mut self, id: Uuid, status: VirtualCircuitStatus, at: Instant) {
        self.virtual_circuits
            .rows()
            .update(&mut self.journal, id, status_name(status), at, |vc| {
                vc.rec.status = status;
            });
        if timed(status) {
            self.queue_circuit_step(id, status, at);
        }
    }

    /// `updateVirtualCircuit`: the name, description, speed, tags, and the
    /// VLAN given (`"vnid": ""` takes it off) or the VRF circuit's peering
    /// details; what it carries moves its status on.
    pub(crate) fn update_virtual_circuit(
        &mut self,
        id: Uuid,
        body: &UpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        use VirtualCircuitStatus as S;
        let vc = self.virtual_circuit(id)?;
        if vc.rec.status == S::Deleting {
            return Err(ApiError::unprocessable(
                "The virtual circuit is being deleted",
            ));
        }
        if body.vrf.as_ref().is_some_and(|v| !v.is_null()) {
            return Err(ApiError::unprocessable(
                "The VRF of a virtual circuit cannot be changed",
            ));
        }
        check_text(
            body.name.as_deref(),
            body.description.as_deref(),
            body.tags.as_deref(),
        )?;
        let c = self.interconnection(vc.rec.interconnection)?;
        let speed = Self::circuit_speed(c, body.speed.as_ref())?;
        let status = vc.rec.status;
        let (vlan, peered, next) = match vc.rec.vrf {
            Some(vrf) => {
                if body.vnid.as_deref().is_some_and(|v| !v.trim().is_empty()) {
                    return Err(ApiError::unprocessable(
                        "A VRF virtual circuit carries no VLAN",
                    ));
                }
                if !body.peering.any() {
                    (None, None, status)
                } else {
                    let peered = self.circuit_peering(vrf, Some(vc), &body.peering)?;
                    let next = match status {
                        S::Active => S::ChangingPeeringDetails,
                        S::WaitingOnPeeringDetails => S::Activating,
                        other => other,
                    };
                    (None, Some((vrf, peered)), next)
                }
            }
            None => {
                if body.peering.any() {
                    return Err(ApiError::unprocessable(
                        "Peering details are for a VRF virtual circuit",
                    ));
                }
                let was = vc.rec.virtual_network;
                let vlan = match body.vnid.as_deref().map(str::trim) {
                    None => was,
                    Some("") => None,
                    Some(v) => Some(self.circuit_vlan(c, vc.rec.project, v)?),
                };
                let next = match (was, vlan, status) {
                    (_, _, S::Pending) => S::Pending,
                    (w, v, s) if w == v => s,
                    (_, Some(_), S::Active | S::ChangingVlan) => S::ChangingVlan,
                    (_, Some(_), _) => S::Activating,
                    (_, None, S::Active | S::ChangingVlan) => S::Deactivating,
                    (_, None, _) => S::WaitingOnCustomerVlan,
                };
                (vlan, None, next)
            }
        };
        let project = vc.rec.project;
        let old_block = vc.rec.vrf_block.filter(|_| vc.rec.own_block);
        let block = peered
            .as_ref()
            .map(|(vrf, p)| self.take_block(project, *vrf, p.block, now));
        if let (Some(old), Some((new, _))) = (old_block, block)
            && old != new
        {
            self.ips.remove_reservation_row(&mut self.journal, old, now);
        }
        let vrf_circuit = peered.is_some();
        self.virtual_circuits
            .rows()
            .update(&mut self.journal, id, "fields", now, |vc| {
                if let Some((_, p)) = peered {
                    vc.rec.peering = Some(p.peering);
                }
                if let Some((b, own)) = block {
                    vc.rec.vrf_block = Some(b);
                    vc.rec.own_block = own;
                }
                if !vrf_circuit && vc.rec.vrf.is_none() {
                    vc.rec.virtual_network = vlan;
                }
                vc.rec.status = next;
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
            .ok_or_else(ApiError::not_found)?;
        if next != status && timed(next) {
            self.queue_circuit_step(id, next, now);
        }
        Ok(())
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
        if c.rec.kind.is_shared() {
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
        let after = if from == VirtualCircuitStatus::Deleting {
            DELETING
        } else {
            SETTLE
        };
        self.due.push(now + after, Due::VirtualCircuit { id, from });
    }

    /// The timed step of circuit `id` out of `from`: active (out of
    /// activating or a change), waiting on a VLAN (out of deactivating),
    /// or gone (out of deleting); stale unless it is still in `from`.
    pub(crate) fn circuit_step(&mut self, id: Uuid, from: VirtualCircuitStatus, at: Instant) {
        use VirtualCircuitStatus as S;
        if self
            .virtual_circuits
            .get(&id)
            .is_none_or(|vc| vc.rec.status != from)
        {
            return;
        }
        let to = match from {
            S::Activating | S::ChangingVlan | S::ChangingPeeringDetails => S::Active,
            S::Deactivating => S::WaitingOnCustomerVlan,
            S::Deleting => return self.remove_record(Kind::VirtualCircuit, id, at),
            S::Pending | S::WaitingOnCustomerVlan | S::WaitingOnPeeringDetails | S::Active => {
                return
            }
        };
        self.virtual_circuits
            .rows()
            .update(&mut self.journal, id, status_name(to), at, |vc| {
                vc.rec.status = to;
            });
    }

    /// Removes circuit `id` (its delete or its connection's is done), and
    /// the VRF IP reservation made for it.
    pub(crate) fn remove_circuit(&mut self, id: Uuid, at: Instant) {
        let own = self
            .virtual_circuits
            .get(&id)
            .filter(|vc| vc.rec.own_block)
            .and_then(|vc| vc.rec.vrf_block);
        self.virtual_circuits.remove_row(&mut self.journal, id, at);
        if let Some(b) = own {
            self.ips.remove_reservation_row(&mut self.journal, b, at);
        }
    }
}

/// Whether a circuit in `status` moves on by itself after a delay.
fn timed(status: VirtualCircuitStatus) -> bool {
    use VirtualCircuitStatus as S;
    matches!(
        status,
        S::Activating | S::ChangingVlan | S::ChangingPeeringDetails | S::Deactivating | S::Deleting
    )
}

/// The journal's name of a move to `status` (`active`, the events' name
/// of it, or the status's own).
fn status_name(status: VirtualCircuitStatus) -> &'static str {
    use VirtualCircuitStatus as S;
    match status {
        S::Pending => "pending",
        S::WaitingOnCustomerVlan => "waiting_on_customer_vlan",
        S::WaitingOnPeeringDetails => "waiting_on_peering_details",
        S::Activating => "activating",
        S::ChangingVlan => "changing_vlan",
        S::ChangingPeeringDetails => "changing_peering_details",
        S::Deactivating => "deactivating",
        S::Active => "active",
        S::Deleting => "deleting",
    }
}
