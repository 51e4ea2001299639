//! The project operations the fake models, and who owns a project.

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::bgp;
use super::record::{BgpConfig, Kept, Project};
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::{self, Listing};
use crate::model::load::{unique, unknown};
use crate::model::organization::{self, Organization};
use crate::model::render::{contains_ignoring_case, reply, API_PREFIX};
use crate::model::resource::{acts, Modelled, Prepared, Resource, Scope};
use crate::model::World;

/// Projects.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_PROJECTS, find_projects),
        Modelled::new(&op::CREATE_PROJECT, create_project),
        Modelled::new(&op::FIND_PROJECT_BY_ID, find_project_by_id).names("id", &RESOURCE),
        // packngo's `Projects.Update` sends PATCH.
        Modelled::new(&op::UPDATE_PROJECT, update_project)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_PROJECT, delete_project).names("id", &RESOURCE),
        Modelled::new(
            &op::FIND_BGP_CONFIG_BY_PROJECT,
            bgp::find_bgp_config_by_project,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::REQUEST_BGP_CONFIG, bgp::request_bgp_config).names("id", &RESOURCE),
        Modelled::new(&op::FIND_PROJECT_CUSTOMDATA, find_project_customdata).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.projects.get(&id).map(|_| Owner::Project(id))
}

fn find_project_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| project_reply(w, id))
}

fn find_project_customdata(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let p = w.projects.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&p.rec.customdata)
    })
}

fn project_reply(w: &World, id: Uuid) -> Result<Reply, ApiError> {
    let p = w.projects.get(&id).ok_or_else(ApiError::not_found)?;
    reply(&w.project_view(p))
}

/// The projects the caller sees, oldest first; `name` matches partially
/// (ASCII case ignored), as the Ansible collection's `metal_project`
/// target lists both its projects by their common prefix.
fn find_projects(call: &Call) -> Result<Prepared, ApiError> {
    let listing = Listing::of(call, &["name"])?;
    let name = call.text("name");
    acts(move |w, caller, _| {
        let path = format_args!("{API_PREFIX}/{COLLECTION}");
        w.projects_page(&path, None, name.as_deref(), caller, &listing)
    })
}

impl World {
    /// One page (at `path`) of the projects the caller sees, of
    /// `organization` when given, whose name holds `name` (ASCII case
    /// ignored) when given, oldest first.
    pub(crate) fn projects_page(
        &self,
        path: &dyn std::fmt::Display,
        organization: Option<Uuid>,
        name: Option<&str>,
        caller: &Scope,
        listing: &Listing,
    ) -> Result<Reply, ApiError> {
        let listed = self.projects.values().filter(|p| {
            caller.sees(p.rec.id)
                && organization.is_none_or(|o| p.organization() == o)
                && name.is_none_or(|n| contains_ignoring_case(p.name(), n))
        });
        let page = list::page(
            "projects",
            path,
            listed,
            |p| p.meta.seq,
            listing,
            |p| self.project_view(p),
        );
        reply(&page)
    }
}

fn create_project(call: &Call) -> Result<Prepared, ApiError> {
    let body: types::ProjectCreateInput = call.json()?;
    // packngo's `ProjectCreateRequest` and the SDKs' create-from-root input
    // name the organisation in the body, beside the spec's fields.
    let organization = match call.json_value()?.get("organization_id") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(
            v.as_str()
                .and_then(|s| Uuid::parse_str(s).ok())
                .ok_or_else(|| ApiError::unprocessable("organization_id must be a UUID"))?,
        ),
    };
    acts(move |w, caller, now| {
        let id = w.create_project(&body, organization, caller, now)?;
        project_reply(w, id)
    })
}

fn update_project(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::ProjectUpdateInput = call.json()?;
    acts(move |w, _, now| {
        w.update_project(id, &body, now)?;
        project_reply(w, id)
    })
}

fn delete_project(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_project(id, now)?;
        Ok(Reply::Empty)
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
                organization::insert(w, Organization::named(id, "fake organization"), now);
                id
            }),
        };
        let problem = crate::model::bounds::bad_tags(&p.tags)
            .or_else(|| p.bgp_config.as_ref().and_then(BgpConfig::check));
        if let Some(problem) = problem {
            return Err(WorldError::Inconsistent(format!(
                "project {}: {problem}",
                p.id
            )));
        }
        let bgp_config = p.bgp_config.clone().map(|c| BgpConfig {
            id: Some(c.id.unwrap_or_else(Uuid::new_v4)),
            ..c
        });
        w.projects
            .rows()
            .insert(&mut w.journal, p.id, now, |meta| Kept {
                rec: Project {
                    name: Some(
                        p.name
                            .clone()
                            .unwrap_or_else(|| format!("fake project {}", n + 1)),
                    ),
                    organization: Some(org),
                    bgp_config,
                    ..p.clone()
                },
                meta,
                bgp_requested: p.bgp_config.as_ref().map(|_| now),
            });
    }
    Ok(())
}

/// Saves the projects into `doc`, the main project first (so that it
/// stays the main one).
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    let mut projects: Vec<&Kept> = w.projects.values().collect();
    projects.sort_by_key(|p| (Some(p.rec.id) != w.main_project, p.meta.seq));
    doc.projects = projects.into_iter().map(|p| p.rec.clone()).collect();
}
