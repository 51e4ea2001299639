//! A virtual circuit made through its project (`POST
//! /projects/{project_id}/connections/{connection_id}/ports/{port_id}/virtual-circuits`),
//! as packngo's `VirtualCircuits.Create` made every circuit, to its last
//! version, and the `equinix/metal` Terraform provider through it. The
//! 2024 spec has only the route without the project, with the project in
//! the body; this one is the same create, with the same access (a
//! connection the caller does not see is `403`; the access step checks
//! the project, the path's first parameter, and the handler the
//! connection), the same rules and the same journal, the project taken
//! from the path. Its [`Operation`] is declared here, and the router
//! serves every modelled operation the spec lacks beside the spec's.

use metal_api::operation::{Method, Operation};
use uuid::Uuid;

use super::rules::CreateInput;
use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Prepared};

/// The operation, outside the 2024 spec (its ID is the fake's).
pub(crate) static CREATE_PROJECT_INTERCONNECTION_PORT_VIRTUAL_CIRCUIT: Operation = Operation {
    id: "createProjectInterconnectionPortVirtualCircuit",
    method: Method::Post,
    path: "/projects/{project_id}/connections/{connection_id}/ports/{port_id}/virtual-circuits",
    success: 201,
    lists: &[],
};

/// The create of `createInterconnectionPortVirtualCircuit`, in the path's
/// project (which the access step checks, as the path's first
/// parameter): `404` for a project or a connection the world lacks, or a
/// project of another organisation than the connection's (the connection
/// is not under it); `403` for a connection the caller does not see, as
/// the 2024 create's access answers.
pub(super) fn create_in_project(call: &Call) -> Result<Prepared, ApiError> {
    let project: Uuid = call.id("project_id")?;
    let connection = call.id("connection_id")?;
    let port = call.id("port_id")?;
    let body = call.json::<CreateInput>()?.in_project(project);
    let expand = expand(call);
    acts(move |w, caller, now| {
        let organization = w
            .projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?
            .organization();
        let c = w.interconnection(connection)?;
        let owner = match c.rec.project {
            Some(p) => Owner::Project(p),
            None => Owner::Organization(c.rec.organization),
        };
        w.check_access(caller, Some(owner))?;
        if c.rec.organization != organization {
            return Err(ApiError::not_found());
        }
        let id = w.create_virtual_circuit(connection, port, &body, now)?;
        reply(&w.vc_view(w.virtual_circuit(id)?, &expand, now))
    })
}
