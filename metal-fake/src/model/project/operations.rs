//! The project operations the fake models, and who owns a project.

use metal_api::operation as op;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, Project};
use super::view::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
use crate::model::organization::{self, Organization};
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// Projects.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[Modelled::new(&op::FIND_PROJECT_BY_ID, find_project_by_id)],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.projects.get(&id).map(|_| Owner::Project(id))
}

fn find_project_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let p = w.projects.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.project_view(p))
    })
}

/// Loads the document's projects: each of an organisation the world has,
/// or of a default one made when needed; named `fake project N` when the
/// document gives no name.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = std::collections::HashSet::new();
    let mut default_org = None;
    for (n, p) in doc.projects.iter().enumerate() {
        unique(&mut seen, p.id, "project", p.id)?;
        let org = match p.organization {
            Some(o) if w.organizations.contains_key(&o) => o,
            Some(o) => return Err(unknown(format!("project {}", p.id), "organization", o)),
            None => *default_org.get_or_insert_with(|| {
                let id = Uuid::new_v4();
                organization::insert(
                    w,
                    Organization {
                        id,
                        name: "fake organization".to_string(),
                    },
                );
                id
            }),
        };
        w.projects.insert(
            p.id,
            Kept {
                rec: Project {
                    id: p.id,
                    name: Some(
                        p.name
                            .clone()
                            .unwrap_or_else(|| format!("fake project {}", n + 1)),
                    ),
                    organization: Some(org),
                },
                created: now,
            },
        );
    }
    Ok(())
}

/// Saves the projects into `doc`, the main project first (so that it
/// stays the main one).
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    let mut projects: Vec<Project> = w.projects.values().map(|p| p.rec.clone()).collect();
    projects.sort_by_key(|p| Some(p.id) != w.main_project);
    doc.projects = projects;
}
