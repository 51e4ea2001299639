//! The API's rules for interconnections: what a create takes (a type, a
//! redundancy making one port or two, a speed of the type's, a metro
//! with interconnections, a mode, a shared connection's service token
//! side and VLANs), what an update changes, when one may go (not while a
//! dedicated port has virtual circuits: `model/relations.rs`), and its
//! activation on the fake's clock.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{
    FabricProvider, Interconnection, InterconnectionMode, InterconnectionStatus,
    InterconnectionType, Kept, Redundancy, TokenSide,
};
use super::speed::{parse_speed, speed_text, DEDICATED_SPEEDS, SHARED_SPEEDS};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_NAME, MAX_TEXT};
use crate::model::journal::Due;
use crate::model::relations::Kind;
use crate::model::World;

/// How long a requested connection takes to become active.
pub(crate) const ACTIVATION: Duration = Duration::from_secs(30);

/// The most interconnections one organisation holds (a bound of the
/// fake's).
pub(crate) const MAX_PER_ORGANIZATION: usize = 100;

/// The speed of a connection on a shared port made without one (the
/// spec: Fabric-billed connections "always default to 10gbps").
const SHARED_PORT_SPEED: u64 = 10_000_000_000;

/// What a shared connection's circuits carry, one a port in order: VLANs
/// (by ID; a port past the list's end gets none), or VRFs.
pub(crate) enum CircuitsOn {
    /// VLAN circuits.
    Vlans(Vec<Uuid>),
    /// VRF circuits, their peering given later.
    Vrfs(Vec<Uuid>),
}

/// A create's body: the spec's five inputs (a dedicated port; shared
/// with VLANs or VRFs; on a shared port; to a cloud provider) in one,
/// each field read as clients send it (packngo sends the facility as
/// `facility`, the spec as `facility_id`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CreateInput {
    name: Option<String>,
    description: Option<String>,
    contact_email: Option<String>,
    metro: Option<String>,
    facility_id: Option<String>,
    facility: Option<String>,
    mode: Option<String>,
    project: Option<String>,
    redundancy: Option<String>,
    speed: Option<Value>,
    tags: Vec<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    service_token_type: Option<String>,
    vlans: Vec<i64>,
    vrfs: Vec<String>,
    fabric_provider: Option<Value>,
}

/// An update's body (`InterconnectionUpdateInput`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UpdateInput {
    name: Option<String>,
    description: Option<String>,
    contact_email: Option<String>,
    mode: Option<String>,
    tags: Option<Vec<String>>,
}

fn kind_of(text: Option<&str>) -> Result<InterconnectionType, ApiError> {
    use InterconnectionType as T;
    match text {
        Some("dedicated") => Ok(T::Dedicated),
        Some("shared") => Ok(T::Shared),
        Some("shared_port_vlan") => Ok(T::SharedPortVlan),
        Some("shared_port_vlan_to_csp") => Ok(T::SharedPortVlanToCsp),
        Some(t) => Err(ApiError::unprocessable(format!(
            "Type {t} is not valid: dedicated, shared, shared_port_vlan or shared_port_vlan_to_csp"
        ))),
        None => Err(ApiError::unprocessable("Type can't be blank")),
    }
}

/// The redundancy asked; a connection on a shared port may leave it out
/// (then one port a VLAN given, one at least).
fn redundancy_of(
    text: Option<&str>,
    kind: InterconnectionType,
    vlans: usize,
) -> Result<Redundancy, ApiError> {
    match text {
        Some("primary") => Ok(Redundancy::Primary),
        Some("redundant") => Ok(Redundancy::Redundant),
        Some(r) => Err(ApiError::unprocessable(format!(
            "Redundancy {r} is not valid: primary or redundant"
        ))),
        None if matches!(
            kind,
            InterconnectionType::SharedPortVlan | InterconnectionType::SharedPortVlanToCsp
        ) =>
        {
            Ok(if vlans > 1 {
                Redundancy::Redundant
            } else {
                Redundancy::Primary
            })
        }
        None => Err(ApiError::unprocessable("Redundancy can't be blank")),
    }
}

/// A `shared_port_vlan_to_csp` connection's `fabric_provider`: `type`
/// `CSP_AWS` and a 12-digit `account_id` (the spec's
/// `AWSFabricProvider`), `location` optional.
fn provider_of(value: Option<&Value>) -> Result<FabricProvider, ApiError> {
    let provider = value
        .filter(|v| !v.is_null())
        .ok_or_else(|| ApiError::unprocessable("Fabric provider can't be blank"))?;
    let text = |key: &str| provider.get(key).and_then(Value::as_str).map(str::trim);
    if text("type") != Some("CSP_AWS") {
        return Err(ApiError::unprocessable(
            "Fabric provider type is not valid: CSP_AWS",
        ));
    }
    let account = text("account_id").unwrap_or_default();
    if account.len() != 12 || !account.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::unprocessable(
            "Fabric provider account_id must be an AWS account ID of 12 digits",
        ));
    }
    let location = text("location").filter(|l| !l.is_empty());
    if let Some(l) = location {
        refuse([too_long("Fabric provider location", l, MAX_NAME)])?;
    }
    Ok(FabricProvider {
        kind: "CSP_AWS".to_string(),
        account_id: account.to_string(),
        location: location.map(str::to_string),
    })
}

fn mode_of(text: Option<&str>) -> Result<Option<InterconnectionMode>, ApiError> {
    match text {
        None | Some("") => Ok(None),
        Some("standard") => Ok(Some(InterconnectionMode::Standard)),
        Some("tunnel") => Ok(Some(InterconnectionMode::Tunnel)),
        Some(m) => Err(ApiError::unprocessable(format!(
            "Mode {m} is not valid: standard or tunnel"
        ))),
    }
}

fn side_of(text: Option<&str>) -> Result<Option<TokenSide>, ApiError> {
    match text {
        None | Some("") => Ok(None),
        Some("a_side") => Ok(Some(TokenSide::ASide)),
        Some("z_side") => Ok(Some(TokenSide::ZSide)),
        Some(t) => Err(ApiError::unprocessable(format!(
            "Service token type {t} is not valid: a_side or z_side"
        ))),
    }
}

/// How many ports `redundancy` makes.
pub(crate) fn port_count(redundancy: Redundancy) -> usize {
    match redundancy {
        Redundancy::Primary => 1,
        Redundancy::Redundant => 2,
    }
}

/// Whether `speed` is one a connection of `kind` (and token side) takes:
/// 0 only for a shared `z_side` connection made without one.
fn speed_allowed(kind: InterconnectionType, side: Option<TokenSide>, speed: u64) -> bool {
    match kind {
        InterconnectionType::Dedicated => DEDICATED_SPEEDS.contains(&speed),
        _ => SHARED_SPEEDS.contains(&speed) || (speed == 0 && side == Some(TokenSide::ZSide)),
    }
}

fn allowed_speeds(kind: InterconnectionType) -> String {
    let speeds = match kind {
        InterconnectionType::Dedicated => DEDICATED_SPEEDS,
        _ => SHARED_SPEEDS,
    };
    speeds
        .iter()
        .map(|s| speed_text(*s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks a connection of a world document: its name, its metro, its
/// ports and tokens for its redundancy and type, its speed.
pub(crate) fn check_record(w: &World, c: &Interconnection) -> Result<(), String> {
    refuse([
        too_long("Name", &c.name, MAX_NAME),
        c.description
            .as_deref()
            .and_then(|d| too_long("Description", d, MAX_TEXT)),
        c.contact_email
            .as_deref()
            .and_then(|e| too_long("Contact email", e, MAX_NAME)),
        bad_tags(&c.tags),
    ])
    .map_err(|e| e.messages.join("; "))?;
    if c.name.trim().is_empty() {
        return Err("its name is blank".into());
    }
    w.interconnection_metro(&c.metro)
        .map_err(|e| e.messages.join("; "))?;
    if let Some(f) = &c.facility
        && w.catalog.facility(f).is_none_or(|f| f.metro != c.metro)
    {
        return Err(format!("facility {f} is not one of metro {}", c.metro));
    }
    if (c.kind == InterconnectionType::SharedPortVlanToCsp) != c.fabric_provider.is_some() {
        return Err(
            "a shared_port_vlan_to_csp connection, and only one, has a fabric provider".into(),
        );
    }
    if c.ports.len() != port_count(c.redundancy) {
        return Err(format!(
            "a {:?} connection has {} ports",
            c.redundancy,
            port_count(c.redundancy)
        ));
    }
    match c.kind {
        InterconnectionType::Dedicated => {
            if c.service_token_type.is_some() || !c.service_tokens.is_empty() {
                return Err("a dedicated port has no service tokens".into());
            }
        }
        shared => {
            if c.project.is_none() {
                return Err("a shared connection is a project's".into());
            }
            let tokens = shared == InterconnectionType::Shared;
            if c.service_token_type.is_some() != tokens
                || c.service_tokens.len() != if tokens { c.ports.len() } else { 0 }
            {
                return Err(
                    "a shared connection (only) has a service token type and a token a port".into(),
                );
            }
            if c.mode == InterconnectionMode::Tunnel {
                return Err("a shared connection has no tunnel mode".into());
            }
        }
    }
    if !speed_allowed(c.kind, c.service_token_type, c.speed) {
        return Err(format!(
            "speed {} is none of {}",
            c.speed,
            allowed_speeds(c.kind)
        ));
    }
    Ok(())
}

impl World {
    /// `createOrganizationInterconnection` (`project`: `None`) and
    /// `createProjectInterconnection`: a new connection of `organization`.
    pub(crate) fn create_interconnection(
        &mut self,
        organization: Option<Uuid>,
        project: Option<Uuid>,
        body: &CreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let organization = match (organization, project) {
            (Some(o), _) => {
                self.organizations.get(&o).ok_or_else(ApiError::not_found)?;
                o
            }
            (None, Some(p)) => self
                .projects
                .get(&p)
                .ok_or_else(ApiError::not_found)?
                .rec
                .organization
                .ok_or_else(|| ApiError::unprocessable("The project has no organization"))?,
            (None, None) => return Err(ApiError::not_found()),
        };
        let name = body.name.as_deref().map(str::trim).unwrap_or_default();
        if name.is_empty() {
            return Err(ApiError::unprocessable("Name can't be blank"));
        }
        refuse([
            too_long("Name", name, MAX_NAME),
            body.description
                .as_deref()
                .and_then(|d| too_long("Description", d, MAX_TEXT)),
            body.contact_email
                .as_deref()
                .and_then(|e| too_long("Contact email", e, MAX_NAME)),
            bad_tags(&body.tags),
        ])?;
        let kind = kind_of(body.kind.as_deref())?;
        let redundancy = redundancy_of(body.redundancy.as_deref(), kind, body.vlans.len())?;
        let (metro, facility) = self.connection_place(body)?;
        let mode = mode_of(body.mode.as_deref())?;
        // A shared connection made without a token type gets Z-side
        // tokens, as the real API's (packngo's TestAccConnectionProject
        // and TestAccConnectionOrganization send none, nor a speed, which
        // only a Z-side one may leave out; the Terraform provider's
        // `service_token_type` is optional, its docs calling A-side "not
        // generally available").
        let side = match (kind, side_of(body.service_token_type.as_deref())?) {
            (InterconnectionType::Shared, None) => Some(TokenSide::ZSide),
            (_, side) => side,
        };
        let speed = parse_speed(body.speed.as_ref())?;
        let fabric_provider = match kind {
            InterconnectionType::SharedPortVlanToCsp => {
                Some(provider_of(body.fabric_provider.as_ref())?)
            }
            _ if body.fabric_provider.as_ref().is_some_and(|p| !p.is_null()) => {
                return Err(ApiError::unprocessable(
                    "Only a shared_port_vlan_to_csp connection takes a fabric_provider",
                ))
            }
            _ => None,
        };
        if !body.vrfs.is_empty() && kind != InterconnectionType::Shared {
            return Err(ApiError::unprocessable(
                "Only a shared connection with service tokens takes vrfs",
            ));
        }
        let project = match kind {
            InterconnectionType::Dedicated => {
                if side.is_some() {
                    return Err(ApiError::unprocessable(
                        "A dedicated connection takes no service_token_type",
                    ));
                }
                if !body.vlans.is_empty() {
                    return Err(ApiError::unprocessable(
                        "A dedicated connection takes no vlans: add virtual circuits to its ports",
                    ));
                }
                project
            }
            shared => {
                if mode == Some(InterconnectionMode::Tunnel) {
                    return Err(ApiError::unprocessable(
                        "Tunnel mode is not supported for shared connections",
                    ));
                }
                match (shared, side) {
                    (InterconnectionType::Shared, _) | (_, None) => {}
                    (other, Some(_)) => {
                        return Err(ApiError::unprocessable(format!(
                            "A {} connection has no service tokens: it takes no service_token_type",
                            other.as_str()
                        )))
                    }
                }
                Some(self.shared_project(organization, project, body.project.as_deref())?)
            }
        };
        let speed = match (speed, kind, side) {
            (Some(s), _, _) => s,
            (None, InterconnectionType::Shared, Some(TokenSide::ZSide)) => 0,
            // A connection on a shared port is 10 Gbps unless it says.
            (
                None,
                InterconnectionType::SharedPortVlan | InterconnectionType::SharedPortVlanToCsp,
                _,
            ) => SHARED_PORT_SPEED,
            (None, _, _) => return Err(ApiError::unprocessable("Speed can't be blank")),
        };
        if !speed_allowed(kind, side, speed) {
            return Err(ApiError::unprocessable(format!(
                "Speed {} is not valid for a {} connection: one of {}",
                speed_text(speed),
                if kind.is_shared() {
                    "shared"
                } else {
                    "dedicated"
                },
                allowed_speeds(kind)
            )));
        }
        let ports = port_count(redundancy);
        let on = match project {
            Some(p) if kind.is_shared() => {
                if !body.vlans.is_empty() && !body.vrfs.is_empty() {
                    return Err(ApiError::unprocessable(
                        "A connection takes vlans or vrfs, not both",
                    ));
                }
                if body.vrfs.is_empty() {
                    CircuitsOn::Vlans(self.connection_vlans(p, &metro, &body.vlans, ports)?)
                } else {
                    CircuitsOn::Vrfs(self.connection_vrfs(p, &metro, &body.vrfs, ports)?)
                }
            }
            _ => CircuitsOn::Vlans(Vec::new()),
        };
        let held = self
            .interconnections
            .values()
            .filter(|c| c.rec.organization == organization)
            .count();
        if held >= MAX_PER_ORGANIZATION {
            return Err(ApiError::unprocessable(format!(
                "The organization has too many connections (maximum is {MAX_PER_ORGANIZATION})"
            )));
        }
        let id = Uuid::new_v4();
        let port_ids: Vec<Uuid> = (0..ports).map(|_| Uuid::new_v4()).collect();
        let service_tokens = match kind {
            InterconnectionType::Shared => (0..ports).map(|_| Uuid::new_v4()).collect(),
            _ => Vec::new(),
        };
        let rec = Interconnection {
            id,
            organization,
            project,
            name: name.to_string(),
            description: body.description.clone(),
            contact_email: body.contact_email.clone(),
            metro,
            facility,
            kind,
            redundancy,
            speed,
            mode: mode.unwrap_or_default(),
            tags: body.tags.clone(),
            service_token_type: side,
            ports: port_ids.clone(),
            service_tokens,
            status: InterconnectionStatus::Requested,
            fabric_provider,
        };
        self.interconnections
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        self.queue_interconnection_activation(id, now);
        if let (true, Some(p)) = (kind.is_shared(), project) {
            self.create_connection_circuits(id, p, &port_ids, &on, speed, now);
        }
        Ok(id)
    }

    /// Where a new connection is: its `metro` (a code), or the metro of
    /// its `facility_id` (`facility`, as packngo sends it: a code or an
    /// ID); a facility given with a metro must be of it.
    fn connection_place(&self, body: &CreateInput) -> Result<(String, Option<String>), ApiError> {
        let given = |t: &Option<String>| {
            t.as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        let facility = match given(&body.facility_id).or_else(|| given(&body.facility)) {
            Some(f) => Some(
                self.catalog
                    .facilities
                    .iter()
                    .find(|x| {
                        x.code.eq_ignore_ascii_case(&f)
                            || x.id.is_some_and(|id| id.to_string() == f)
                    })
                    .ok_or_else(|| {
                        ApiError::unprocessable(format!("Facility {f} was not found"))
                    })?,
            ),
            None => None,
        };
        let metro = match (given(&body.metro), facility) {
            (Some(m), _) => self.interconnection_metro(&m)?,
            (None, Some(f)) => self.interconnection_metro(&f.metro)?,
            (None, None) => return Err(ApiError::unprocessable("Metro can't be blank")),
        };
        if let Some(f) = facility.filter(|f| f.metro != metro) {
            return Err(ApiError::unprocessable(format!(
                "Facility {} is not in metro {metro}",
                f.code
            )));
        }
        Ok((metro, facility.map(|f| f.code.clone())))
    }

    /// The VRFs (by ID) a shared connection of `project` in `metro` with
    /// `ports` ports puts on its circuits: one a port, each a VRF of the
    /// project in the metro (the same one twice is allowed).
    fn connection_vrfs(
        &self,
        project: Uuid,
        metro: &str,
        ids: &[String],
        ports: usize,
    ) -> Result<Vec<Uuid>, ApiError> {
        if ids.len() != ports {
            return Err(ApiError::unprocessable(format!(
                "A connection with {ports} port(s) takes {ports} VRF(s), one a virtual circuit"
            )));
        }
        ids.iter()
            .map(|text| self.vrf_in(project, metro, text))
            .collect()
    }

    /// The project of a shared connection: the path's, or the body's (of
    /// `organization`).
    fn shared_project(
        &self,
        organization: Uuid,
        path: Option<Uuid>,
        body: Option<&str>,
    ) -> Result<Uuid, ApiError> {
        if let Some(p) = path {
            return Ok(p);
        }
        let text = body
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| ApiError::unprocessable("A shared connection needs a project"))?;
        let p = text
            .parse::<Uuid>()
            .ok()
            .and_then(|p| self.projects.get(&p))
            .ok_or_else(|| ApiError::unprocessable(format!("Project {text} was not found")))?;
        if p.rec.organization != Some(organization) {
            return Err(ApiError::unprocessable(
                "The project is not of the connection's organization",
            ));
        }
        Ok(p.rec.id)
    }

    /// The VLANs (by `vxlan`) a shared connection of `project` in `metro`
    /// with `ports` ports takes: at most one a port, each a VLAN of the
    /// project in the metro, none twice.
    fn connection_vlans(
        &self,
        project: Uuid,
        metro: &str,
        vxlans: &[i64],
        ports: usize,
    ) -> Result<Vec<Uuid>, ApiError> {
        if vxlans.len() > ports {
            return Err(ApiError::unprocessable(format!(
                "A connection with {ports} port(s) takes at most {ports} VLAN(s)"
            )));
        }
        let mut out = Vec::new();
        for vxlan in vxlans {
            let vlan = self
                .vlans
                .values()
                .find(|v| {
                    v.rec.project == project
                        && v.rec.metro.eq_ignore_ascii_case(metro)
                        && i64::from(v.rec.vxlan) == *vxlan
                })
                .ok_or_else(|| {
                    ApiError::unprocessable(format!(
                        "Virtual network {vxlan} was not found in metro {metro} of the project"
                    ))
                })?;
            if out.contains(&vlan.rec.id) {
                return Err(ApiError::unprocessable(format!(
                    "Virtual network {vxlan} is given twice"
                )));
            }
            out.push(vlan.rec.id);
        }
        Ok(out)
    }

    /// `updateInterconnection`: the name, description, contact email, mode
    /// (a dedicated port's) and tags given.
    pub(crate) fn update_interconnection(
        &mut self,
        id: Uuid,
        body: &UpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let kind = self.interconnection(id)?.rec.kind;
        if let Some(n) = &body.name
            && n.trim().is_empty()
        {
            return Err(ApiError::unprocessable("Name can't be blank"));
        }
        refuse([
            body.name
                .as_deref()
                .and_then(|n| too_long("Name", n, MAX_NAME)),
            body.description
                .as_deref()
                .and_then(|d| too_long("Description", d, MAX_TEXT)),
            body.contact_email
                .as_deref()
                .and_then(|e| too_long("Contact email", e, MAX_NAME)),
            body.tags.as_deref().and_then(bad_tags),
        ])?;
        let mode = mode_of(body.mode.as_deref())?;
        if mode == Some(InterconnectionMode::Tunnel) && kind.is_shared() {
            return Err(ApiError::unprocessable(
                "Tunnel mode is not supported for shared connections",
            ));
        }
        self.interconnections
            .rows()
            .update(&mut self.journal, id, "fields", now, |c| {
                if let Some(n) = &body.name {
                    c.rec.name = n.trim().to_string();
                }
                if let Some(d) = &body.description {
                    c.rec.description = Some(d.clone());
                }
                if let Some(e) = &body.contact_email {
                    c.rec.contact_email = Some(e.clone());
                }
                if let Some(m) = mode {
                    c.rec.mode = m;
                }
                if let Some(t) = &body.tags {
                    c.rec.tags.clone_from(t);
                }
            })
            .ok_or_else(ApiError::not_found)
    }

    /// `deleteInterconnection`: refused while a dedicated port has virtual
    /// circuits; a shared connection's own circuits go with it
    /// (`model/relations.rs`).
    pub(crate) fn delete_interconnection(
        &mut self,
        id: Uuid,
        now: Instant,
    ) -> Result<(), ApiError> {
        self.delete_record(Kind::Interconnection, id, now)
    }

    /// The connection `id`, `404` when there is none.
    pub(crate) fn interconnection(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.interconnections
            .get(&id)
            .ok_or_else(ApiError::not_found)
    }

    /// The connection whose port is `port`, with the port's index.
    pub(crate) fn interconnection_of_port(&self, port: Uuid) -> Option<(&Kept, usize)> {
        self.interconnections.values().find_map(|c| {
            let i = c.rec.ports.iter().position(|p| *p == port)?;
            Some((c, i))
        })
    }

    /// Queues the activation of the requested connection `id`.
    pub(crate) fn queue_interconnection_activation(&mut self, id: Uuid, now: Instant) {
        self.due.push(now + ACTIVATION, Due::Interconnection { id });
    }

    /// The timed activation of connection `id` (stale unless it is still
    /// requested).
    pub(crate) fn activate_interconnection(&mut self, id: Uuid, at: Instant) {
        let requested = self
            .interconnections
            .get(&id)
            .is_some_and(|c| c.rec.status == InterconnectionStatus::Requested);
        if requested {
            self.interconnections
                .rows()
                .update(&mut self.journal, id, "active", at, |c| {
                    c.rec.status = InterconnectionStatus::Active;
                });
            self.connection_circuits_found(id, at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_z_side_shared_connection_alone_may_have_no_speed() {
        use InterconnectionType::{Dedicated, Shared};
        assert!(speed_allowed(Shared, Some(TokenSide::ZSide), 0));
        assert!(!speed_allowed(Shared, Some(TokenSide::ASide), 0));
        assert!(!speed_allowed(Dedicated, None, 0));
        assert!(speed_allowed(Shared, Some(TokenSide::ASide), 50_000_000));
        // 50 Mbps on a dedicated port, as both Terraform providers'
        // dedicated tests create one; 300 Mbps is in no table.
        assert!(speed_allowed(Dedicated, None, 50_000_000));
        assert!(!speed_allowed(Dedicated, None, 300_000_000));
        assert!(speed_allowed(Dedicated, None, 10_000_000_000));
    }
}
