//! Creating, updating and deleting a project.

use metal_api::types;

use crate::model::relations::Kind;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, Project};
use crate::call::ApiError;
use crate::document::MAX_NAME;
use crate::model::bounds::{bad_tags, refuse, too_long};
use crate::model::organization::{self, Organization};
use crate::model::resource::Scope;
use crate::model::World;

impl World {
    /// The organisation a new project of `caller` joins: the oldest one
    /// holding a project the caller sees, else the world's oldest, else a
    /// new default one.
    fn organization_for(&mut self, caller: &Scope, now: Instant) -> Uuid {
        let mut orgs: Vec<&organization::Kept> = self.organizations.values().collect();
        orgs.sort_by_key(|o| o.seq);
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
            Some(o) if self.organizations.contains_key(&o) => o,
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
            ..Project::named(id, name.to_string(), organization)
        };
        let seq = self.next_seq();
        self.projects.insert(
            id,
            Kept {
                rec,
                seq,
                created: now,
                updated: now,
                bgp_requested: None,
            },
        );
        // Its maker is a member of it, when it would not see it otherwise.
        if let Some(user) = caller.user(self).filter(|u| *u != self.user) {
            if !caller.sees_organization(self, organization) {
                crate::model::membership::insert(self, id, user, vec!["admin".into()], now);
            }
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
        let p = self.projects.get_mut(&id).ok_or_else(ApiError::not_found)?;
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
        p.updated = now;
        Ok(())
    }

    /// Deletes project `id` and its SSH keys; `422` while it holds devices
    /// or hardware reservations.
    pub(crate) fn delete_project(&mut self, id: Uuid) -> Result<(), ApiError> {
        self.delete_record(Kind::Project, id)
    }
}
