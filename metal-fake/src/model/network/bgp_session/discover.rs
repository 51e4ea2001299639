//! A project's BGP sessions discovered again (`POST
//! /bgp/discover/{project_id}`), as packngo's
//! `Projects.DiscoverBGPSessions` (`projects.go`: "Discover refreshes BGP
//! session status") asked for it, reading `updated_at` from the reply
//! (`BGPDiscoverResponse`). The 2024 spec has no such path, so its
//! [`Operation`] is declared here, and the router serves every modelled
//! operation the spec lacks beside the spec's. The fake's sessions are
//! always as their devices and the project's configuration say, so there
//! is nothing to refresh: the reply says when it was asked.

use metal_api::operation::{Method, Operation};
use serde::Serialize;

use crate::call::{ApiError, Call};
use crate::model::render::{reply, Stamp};
use crate::model::resource::{acts, Prepared};

/// The operation, outside the 2024 spec (its ID is the fake's).
pub(crate) static DISCOVER_PROJECT_BGP_SESSIONS: Operation = Operation {
    id: "discoverProjectBgpSessions",
    method: Method::Post,
    path: "/bgp/discover/{project_id}",
    success: 200,
    lists: &[],
};

/// packngo's `BGPDiscoverResponse`.
#[derive(Serialize)]
struct Discovered {
    updated_at: Stamp,
}

/// `updated_at` now; `404` for a project the world lacks.
pub(super) fn discover_project_bgp_sessions(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    acts(move |w, _, now| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        reply(&Discovered {
            updated_at: Stamp(w.clock.wall(now)),
        })
    })
}
