//! The API key operations the fake models, who owns a key (for access),
//! and how keys load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{ApiKey, Kept};
use super::view::ApiKeyList;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::Owner;
use crate::model::bounds::{refuse, too_long, MAX_KEYS_PER_OWNER};
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::render::{contains_ignoring_case, reply};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{project, World};

/// API keys: the user's and projects'.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_API_KEYS, find_api_keys),
        Modelled::new(&op::CREATE_API_KEY, create_api_key),
        Modelled::new(&op::DELETE_USER_API_KEY, delete_user_api_key).names("id", &RESOURCE),
        Modelled::new(&op::FIND_PROJECT_API_KEYS, find_project_api_keys)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::CREATE_PROJECT_API_KEY, create_project_api_key)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::DELETE_API_KEY, delete_api_key).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.api_keys.get(&id).map(|k| match k.rec.project {
        Some(p) => Owner::Project(p),
        None => Owner::User(k.user),
    })
}

/// Loads the document's keys: unique IDs and tokens, each of a project or
/// user the world has, within the bounds of a key.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    let mut tokens = HashSet::new();
    for k in &doc.api_keys {
        unique(&mut seen, k.id, "api key", k.id)?;
        let valid = !k.token.trim().is_empty()
            && k.token.len() <= MAX_NAME
            && axum::http::HeaderValue::from_str(&k.token).is_ok();
        if !valid {
            return Err(WorldError::Inconsistent(format!(
                "api key {}: its token is empty, longer than {MAX_NAME} bytes or not a valid header value",
                k.id
            )));
        }
        unique(
            &mut tokens,
            k.token.as_str(),
            "api key token",
            "(not shown)",
        )?;
        if let Some(problem) = too_long("description", &k.description, MAX_NAME) {
            return Err(WorldError::Inconsistent(format!(
                "api key {}: {problem}",
                k.id
            )));
        }
        let from = || format!("api key {}", k.id);
        let user = match (k.project, k.user) {
            (Some(p), _) if !w.projects.contains_key(&p) => {
                return Err(unknown(from(), "project", p))
            }
            (Some(_), Some(_)) => {
                return Err(WorldError::Inconsistent(format!(
                    "api key {}: a project's key names no user",
                    k.id
                )))
            }
            (Some(_), None) => Uuid::nil(),
            (None, Some(u)) if !w.users.contains_key(&u) => return Err(unknown(from(), "user", u)),
            (None, u) => u.unwrap_or(w.user),
        };
        w.api_keys
            .rows()
            .insert(&mut w.journal, k.id, now, |meta| Kept {
                rec: k.clone(),
                user,
                meta,
            });
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.api_keys = oldest_first(w.api_keys.iter(), |k| k.meta.seq)
        .into_iter()
        .map(|k| k.rec.clone())
        .collect();
}

impl World {
    /// The API key whose token is `token`.
    pub(crate) fn api_key_of_token(&self, token: &str) -> Option<&Kept> {
        self.api_keys.get(&self.access.api_key(token)?)
    }

    /// A new key of `project`, or of `user` when `project` is `None`.
    fn create_api_key(
        &mut self,
        project: Option<Uuid>,
        user: Uuid,
        body: &types::AuthTokenInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if let Some(p) = project {
            self.projects.get(&p).ok_or_else(ApiError::not_found)?;
        }
        let description = body.description.clone().unwrap_or_default();
        refuse([too_long("Description", &description, MAX_NAME)])?;
        let held = self
            .api_keys
            .values()
            .filter(|k| match project {
                Some(p) => k.rec.project == Some(p),
                None => k.rec.project.is_none() && k.user == user,
            })
            .count();
        if held >= MAX_KEYS_PER_OWNER {
            return Err(ApiError::unprocessable(format!(
                "API keys are too many (maximum is {MAX_KEYS_PER_OWNER} a project, and a user)"
            )));
        }
        let id = Uuid::new_v4();
        let token = loop {
            let t = format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
            if self.api_key_of_token(&t).is_none() && self.access.token(&t).is_none() {
                break t;
            }
        };
        self.api_keys
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec: ApiKey {
                    id,
                    token,
                    description,
                    read_only: body.read_only.unwrap_or(false),
                    project,
                    user: (project.is_none() && user != self.user).then_some(user),
                },
                user: if project.is_some() { Uuid::nil() } else { user },
                meta,
            });
        Ok(id)
    }

    /// Keys of `project` (`None`: `user`'s own) whose description has
    /// `search`, oldest first.
    fn api_keys_of(
        &self,
        project: Option<Uuid>,
        user: Uuid,
        search: Option<&str>,
    ) -> ApiKeyList<'_> {
        let mut keys: Vec<&Kept> = self
            .api_keys
            .values()
            .filter(|k| match project {
                Some(p) => k.rec.project == Some(p),
                None => k.rec.project.is_none() && k.user == user,
            })
            .filter(|k| search.is_none_or(|s| contains_ignoring_case(&k.rec.description, s)))
            .collect();
        keys.sort_by_key(|k| k.meta.seq);
        ApiKeyList {
            api_keys: keys.into_iter().map(|k| self.api_key_view(k)).collect(),
        }
    }

    fn api_key(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.api_keys.get(&id).ok_or_else(ApiError::not_found)
    }
}

fn find_api_keys(call: &Call) -> Result<Prepared, ApiError> {
    let search = call.text("search");
    acts(move |w, caller, _| {
        let user = caller.user_or_denied(w)?;
        reply(&w.api_keys_of(None, user, search.as_deref()))
    })
}

fn create_api_key(call: &Call) -> Result<Prepared, ApiError> {
    let body: types::AuthTokenInput = call.json()?;
    acts(move |w, caller, now| {
        let user = caller.user_or_denied(w)?;
        let id = w.create_api_key(None, user, &body, now)?;
        reply(&w.api_key_view(w.api_key(id)?))
    })
}

fn find_project_api_keys(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    acts(move |w, _, _| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        reply(&w.api_keys_of(Some(project), Uuid::nil(), None))
    })
}

fn create_project_api_key(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let body: types::AuthTokenInput = call.json()?;
    acts(move |w, _, now| {
        let id = w.create_api_key(Some(project), Uuid::nil(), &body, now)?;
        reply(&w.api_key_view(w.api_key(id)?))
    })
}

/// `deleteUserAPIKey`: one of the caller's own user keys (`404` for any
/// other key).
fn delete_user_api_key(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, caller, now| {
        let user = caller.user_or_denied(w)?;
        let k = w.api_key(id)?;
        // The user's own keys, and (as packngo's `APIKeys.Delete` sends
        // every delete here: "The API key can be either an User API key or
        // a Project API key"; its TestAccAPIKeyCreateProject) the keys of
        // projects it sees.
        let theirs = match k.rec.project {
            Some(p) => caller.sees(p),
            None => k.user == user,
        };
        if !theirs {
            return Err(ApiError::not_found());
        }
        w.delete_record(Kind::ApiKey, id, now)?;
        Ok(Reply::Empty)
    })
}

/// `deleteAPIKey`: any key the caller sees (a user's or a project's).
fn delete_api_key(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_record(Kind::ApiKey, id, now)?;
        Ok(Reply::Empty)
    })
}
