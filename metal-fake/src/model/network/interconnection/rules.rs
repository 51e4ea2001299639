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
    Interconnection, InterconnectionMode, InterconnectionStatus, InterconnectionType, Kept,
    Redundancy, TokenSide,
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

/// A create's body: the spec's three inputs (dedicated, shared with
/// VLANs, shared with VRFs) in one, each field read as clients send it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CreateInput {
    name: Option<String>,
    description: Option<String>,
    contact_email: Option<String>,
    metro: Option<String>,
    facility_id: Option<String>,
    mode: Option<String>,
    project: Option<String>,
    redundancy: Option<String>,
    speed: Option<Value>,
    tags: Vec<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    service_token_type: Option<String>,
    vlans: Vec<i64>,
    vrfs: Option<Vec<Value>>,
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
    match text {
        Some("dedicated") => Ok(InterconnectionType::Dedicated),
        Some("shared") => Ok(InterconnectionType::Shared),
        Some(t @ ("shared_port_vlan" | "shared_port_vlan_to_csp")) => Err(ApiError::unprocessable(
            format!("Connections of type {t} are not modelled by the fake"),
        )),
        Some(t) => Err(ApiError::unprocessable(format!(
            "Type {t} is not valid: dedicated or shared"
        ))),
        None => Err(ApiError::unprocessable("Type can't be blank")),
    }
}

fn redundancy_of(text: Option<&str>) -> Result<Redundancy, ApiError> {
    match text {
        Some("primary") => Ok(Redundancy::Primary),
        Some("redundant") => Ok(Redundancy::Redundant),
        Some(r) => Err(ApiError::unprocessable(format!(
            "Redundancy {r} is not valid: primary or redundant"
        ))),
        None => Err(ApiError::unprocessable("Redundancy can't be blank")),
    }
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
        InterconnectionType::Shared => {
            SHARED_SPEEDS.contains(&speed) || (speed == 0 && side == Some(TokenSide::ZSide))
        }
    }
}

fn allowed_speeds(kind: InterconnectionType) -> String {
    let speeds = match kind {
        InterconnectionType::Dedicated => DEDICATED_SPEEDS,
        InterconnectionType::Shared => SHARED_SPEEDS,
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
        InterconnectionType::Shared => {
            if c.project.is_none() {
                return Err("a shared connection is a project's".into());
            }
            if c.service_token_type.is_none() || c.service_tokens.len() != c.ports.len() {
                return Err(
                    "a shared connection has a service token type and a token a port".into(),
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
        if body.vrfs.is_some() {
            return Err(ApiError::unprocessable(
                "Connections with VRFs are not modelled by the fake",
            ));
        }
        let kind = kind_of(body.kind.as_deref())?;
        let redundancy = redundancy_of(body.redundancy.as_deref())?;
        let metro = match (body.metro.as_deref(), body.facility_id.as_deref()) {
            (Some(m), _) if !m.trim().is_empty() => self.interconnection_metro(m.trim())?,
            (_, Some(_)) => {
                return Err(ApiError::unprocessable(
                    "Connections in a facility are not modelled by the fake: give a metro",
                ))
            }
            _ => return Err(ApiError::unprocessable("Metro can't be blank")),
        };
        let mode = mode_of(body.mode.as_deref())?;
        let side = side_of(body.service_token_type.as_deref())?;
        let speed = parse_speed(body.speed.as_ref())?;
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
            InterconnectionType::Shared => {
                if mode == Some(InterconnectionMode::Tunnel) {
                    return Err(ApiError::unprocessable(
                        "Tunnel mode is not supported for shared connections",
                    ));
                }
                if side.is_none() {
                    return Err(ApiError::unprocessable(
                        "A shared connection needs a service_token_type: a_side or z_side",
                    ));
                }
                Some(self.shared_project(organization, project, body.project.as_deref())?)
            }
        };
        let speed = match (speed, kind, side) {
            (Some(s), _, _) => s,
            (None, InterconnectionType::Shared, Some(TokenSide::ZSide)) => 0,
            (None, _, _) => return Err(ApiError::unprocessable("Speed can't be blank")),
        };
        if !speed_allowed(kind, side, speed) {
            return Err(ApiError::unprocessable(format!(
                "Speed {} is not valid for a {} connection: one of {}",
                speed_text(speed),
                if kind == InterconnectionType::Shared {
                    "shared"
                } else {
                    "dedicated"
                },
                allowed_speeds(kind)
            )));
        }
        let ports = port_count(redundancy);
        let vlans = match project {
            Some(p) if kind == InterconnectionType::Shared => {
                self.connection_vlans(p, &metro, &body.vlans, ports)?
            }
            _ => Vec::new(),
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
            InterconnectionType::Dedicated => Vec::new(),
        };
        let rec = Interconnection {
            id,
            organization,
            project,
            name: name.to_string(),
            description: body.description.clone(),
            contact_email: body.contact_email.clone(),
            metro,
            kind,
            redundancy,
            speed,
            mode: mode.unwrap_or_default(),
            tags: body.tags.clone(),
            service_token_type: side,
            ports: port_ids.clone(),
            service_tokens,
            status: InterconnectionStatus::Requested,
        };
        self.interconnections
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        self.queue_interconnection_activation(id, now);
        if let (InterconnectionType::Shared, Some(p)) = (kind, project) {
            self.create_connection_circuits(id, p, &port_ids, &vlans, speed, now);
        }
        Ok(id)
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
        if let Some(n) = &body.name {
            if n.trim().is_empty() {
                return Err(ApiError::unprocessable("Name can't be blank"));
            }
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
        if mode == Some(InterconnectionMode::Tunnel) && kind == InterconnectionType::Shared {
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
        assert!(!speed_allowed(Dedicated, None, 50_000_000));
        assert!(speed_allowed(Dedicated, None, 10_000_000_000));
    }
}
