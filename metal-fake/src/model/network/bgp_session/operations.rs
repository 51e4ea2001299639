//! The BGP session operations the fake models, and who owns a session
//! (its device's project).

use metal_api::operation as op;
use metal_api::types;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::discover;
use super::record;
use super::record::Kept;
use super::view::{neighbors_view, SessionList};
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;
use crate::model::{device, project};

/// BGP sessions (`/bgp/sessions/{id}`), and a device's and a project's.
pub(crate) static RESOURCE: Resource = Resource {
    collection: "bgp",
    operations: &[
        Modelled::new(&op::FIND_BGP_SESSIONS, find_bgp_sessions).names("id", &device::RESOURCE),
        Modelled::new(&op::CREATE_BGP_SESSION, create_bgp_session).names("id", &device::RESOURCE),
        Modelled::new(&op::GET_BGP_NEIGHBOR_DATA, get_bgp_neighbor_data)
            .names("id", &device::RESOURCE),
        Modelled::new(&op::FIND_PROJECT_BGP_SESSIONS, find_project_bgp_sessions)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_BGP_SESSION_BY_ID, find_bgp_session_by_id).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_BGP_SESSION, update_bgp_session).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_BGP_SESSION, delete_bgp_session).names("id", &RESOURCE),
        // Outside the 2024 spec: packngo's `Projects.DiscoverBGPSessions`.
        Modelled::new(
            &discover::DISCOVER_PROJECT_BGP_SESSIONS,
            discover::discover_project_bgp_sessions,
        )
        .names("project_id", &project::RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    let s = w.bgp_sessions.get(&id)?;
    let d = w.devices.get(&s.rec.device)?;
    Some(Owner::Project(d.rec.project))
}

fn find_bgp_sessions(call: &Call) -> Result<Prepared, ApiError> {
    let device = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.devices.get(&device).ok_or_else(ApiError::not_found)?;
        reply(&SessionList {
            bgp_sessions: w
                .bgp_sessions_where(|s| s.rec.device == device)
                .into_iter()
                .map(|s| w.bgp_session_view(s, &expand, now))
                .collect(),
        })
    })
}

fn create_bgp_session(call: &Call) -> Result<Prepared, ApiError> {
    let device = call.id("id")?;
    let body: types::BgpSessionInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_bgp_session(device, &body, now)?;
        let s = w.bgp_sessions.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.bgp_session_view(s, &expand, now))
    })
}

fn get_bgp_neighbor_data(call: &Call) -> Result<Prepared, ApiError> {
    let device = call.id("id")?;
    acts(move |w, _, _| {
        let neighbors = w.bgp_neighbors(device)?;
        reply(&neighbors_view(&neighbors))
    })
}

fn find_project_bgp_sessions(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let of_project = |s: &record::Kept| {
            w.devices
                .get(&s.rec.device)
                .is_some_and(|d| d.rec.project == project)
        };
        reply(&SessionList {
            bgp_sessions: w
                .bgp_sessions_where(of_project)
                .into_iter()
                .map(|s| w.bgp_session_view(s, &expand, now))
                .collect(),
        })
    })
}

fn find_bgp_session_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let s = w.bgp_sessions.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.bgp_session_view(s, &expand, now))
    })
}

fn update_bgp_session(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    // The spec's body is the default route alone, a JSON boolean;
    // packngo's `UpdateBGPSessionRequest` sends `{"default_route": b}`.
    let default_route = match call.json_value()? {
        serde_json::Value::Bool(b) => b,
        serde_json::Value::Object(o) => o
            .get("default_route")
            .and_then(serde_json::Value::as_bool)
            .ok_or_else(|| ApiError::unprocessable("default_route must be true or false"))?,
        _ => {
            return Err(ApiError::unprocessable(
                "default_route must be true or false",
            ))
        }
    };
    acts(move |w, _, now| {
        w.update_bgp_session(id, default_route, now)?;
        // The session as it is now: packngo's TestAccBGPSession reads the
        // updated session's ID from the reply (the spec gives the 200 no
        // body).
        let s = w.bgp_sessions.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.bgp_session_view(s, &Default::default(), now))
    })
}

fn delete_bgp_session(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_bgp_session(id, now)?;
        Ok(Reply::Empty)
    })
}

/// Loads the document's sessions: each of a device the world has, whose
/// project has BGP on, one a family a device.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    let mut families = HashSet::new();
    for s in &doc.bgp_sessions {
        let from = || format!("bgp session {}", s.id);
        unique(&mut ids, s.id, "bgp session", s.id)?;
        let d = w
            .devices
            .get(&s.device)
            .ok_or_else(|| unknown(from(), "device", s.device))?;
        if w.bgp_config_of(d.rec.project).is_none() {
            return Err(WorldError::Inconsistent(format!(
                "{}: its device's project has no BGP configuration",
                from()
            )));
        }
        if !families.insert((s.device, s.address_family)) {
            return Err(WorldError::Inconsistent(format!(
                "{}: its device has another {} session",
                from(),
                s.address_family.as_str()
            )));
        }
        w.bgp_sessions
            .rows()
            .insert(&mut w.journal, s.id, now, |meta| Kept {
                rec: s.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the sessions into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.bgp_sessions = oldest_first(w.bgp_sessions.iter(), |s| s.meta.seq)
        .into_iter()
        .map(|s| s.rec.clone())
        .collect();
}
