//! Creating, updating and deleting a project.

use metal_api::types;

use crate::model::relations::Kind;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, Project, ProjectType};
use crate::call::ApiError;
use crate::document::MAX_NAME;
use crate::model::access::Owner;
use crate::model::bounds::{bad_tags, refuse, too_long};
use crate::model::organization::{self, Organization};
use crate::model::resource::Scope;
use crate::model::World;

impl World {
    /// Project `project` belongs to `organization` from `now` on (a
    /// transfer accepted); `404` when there is no such project.
    pub(crate) fn transfer_project(
        &mut self,
        project: Uuid,
        organization: Uuid,
        now: Instant,
    ) -> Result<(), ApiError> {
        self.projects
            .rows()
            .update(&mut self.journal, project, "transferred", now, |p| {
                p.rec.organization = Some(organization);
            })
            .ok_or_else(ApiError::not_found)
    }

    /// The organisation a new project of `caller` joins: the oldest one
    /// holding a project the caller sees, else the world's oldest, else a
    /// new default one.
    fn organization_for(&mut self, caller: &Scope, now: Instant) -> Uuid {
        let mut orgs: Vec<&organization::Kept> = self.organizations.values().collect();
        orgs.sort_by_key(|o| o.meta.seq);
        let seen = orgs
            .iter()
            .find(|o| caller.sees_organization(self, o.rec.id));
        if let Some(o) = seen.or(orgs.first()) {
            return o.rec.id;
        }
        let id = Uuid::new_v4();
        organization::insert(self, Organization::named(id, "fake organization"), now);
        id
    }

    /// Creates a project from `body` in `organization` (`None`: the
    /// caller's); returns its ID. `422` for an organisation the world does
    /// not have.
    pub(crate) fn create_project(
        &mut self,
        body: &types::ProjectCreateInput,
        organization: Option<Uuid>,
        caller: &Scope,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let name: &str = &body.name;
        refuse([too_long("Name", name, MAX_NAME), bad_tags(&body.tags)])?;
        let organization = match organization {
            // The body's target is checked as a path's would be: an
            // organisation holding projects, none of which the caller
            // sees, is another's (`403`). An organisation without
            // projects cannot be told apart (a token's access is its
            // projects), so it passes.
            Some(o) if self.organizations.contains_key(&o) => {
                let holds = self.projects.values().any(|p| p.organization() == o);
                if holds {
                    self.check_access(caller, Some(Owner::Organization(o)))?;
                }
                o
            }
            Some(o) => {
                return Err(ApiError::unprocessable(format!(
                    "organization_id {o} names no organization"
                )))
            }
            None => self.organization_for(caller, now),
        };
        let id = Uuid::new_v4();
        let rec = Project {
            tags: body.tags.clone(),
            customdata: body.customdata.clone(),
            project_type: match body.type_ {
                Some(types::ProjectCreateInputType::Vmce) => ProjectType::Vmce,
                Some(types::ProjectCreateInputType::Default) | None => ProjectType::Default,
            },
            ..Project::named(id, name.to_string(), organization)
        };
        self.projects
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec,
                meta,
                bgp_requested: None,
            });
        // Its maker is a member of it, when it would not see it otherwise
        // (a token that sees the organisation only through another of its
        // projects does not see a new one there); the grant reads the
        // relations' index, told of the new project first.
        self.sync_links();
        if let Some(user) = caller.user(self).filter(|u| *u != self.user)
            && !self.grant_of_user(user).projects.contains(&id)
        {
            crate::model::membership::insert(self, id, user, vec!["admin".into()], now);
        }
        Ok(id)
    }

    /// Changes project `id` as `body` asks; a field left out is left alone.
    pub(crate) fn update_project(
        &mut self,
        id: Uuid,
        body: &types::ProjectUpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        refuse([
            body.name
                .as_deref()
                .and_then(|n| too_long("Name", n, MAX_NAME)),
            body.tags.as_deref().and_then(bad_tags),
        ])?;
        self.projects
            .rows()
            .update(&mut self.journal, id, "fields", now, |p| {
                if let Some(name) = &body.name {
                    p.rec.name = Some(name.to_string());
                }
                if let Some(tags) = &body.tags {
                    p.rec.tags.clone_from(tags);
                }
                if let Some(customdata) = &body.customdata {
                    p.rec.customdata.clone_from(customdata);
                }
                if let Some(on) = body.backend_transfer_enabled {
                    p.rec.backend_transfer_enabled = on;
                }
            })
            .ok_or_else(ApiError::not_found)
    }

    /// Deletes project `id` and its SSH keys; `422` while it holds devices
    /// or hardware reservations.
    pub(crate) fn delete_project(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::Project, id, now)
    }
}
