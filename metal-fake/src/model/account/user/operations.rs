//! The user operations the fake models (the current user, users by ID and
//! listed, a new user), who sees a user (for access), and how users load
//! and save.

use std::collections::HashSet;

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::notifications;
use super::record::{Kept, User};
use super::rules::change_user;
use super::security;
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::Owner;
use crate::model::bounds::{refuse, too_long, MAX_TEXT};
use crate::model::load::unique;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource, Scope};
use crate::model::world::oldest_first;
use crate::model::World;

/// Users.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_CURRENT_USER, find_current_user),
        Modelled::new(&op::UPDATE_CURRENT_USER, update_current_user).also_patch(),
        Modelled::new(&op::FIND_USERS, find_users),
        Modelled::new(&op::CREATE_USER, create_user),
        Modelled::new(&op::FIND_USER_BY_ID, find_user_by_id).names("id", &RESOURCE),
        Modelled::new(&op::FIND_USER_CUSTOMDATA, find_user_customdata).names("id", &RESOURCE),
        // Outside the 2024 spec: packngo's `Notifications`.
        Modelled::new(
            &notifications::FIND_NOTIFICATIONS,
            notifications::find_notifications,
        ),
        Modelled::new(
            &notifications::FIND_NOTIFICATION_BY_ID,
            notifications::find_notification,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &notifications::UPDATE_NOTIFICATION,
            notifications::find_notification,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::ENABLE_TFA_APP, security::enable_tfa_app),
        Modelled::new(&op::DISABLE_TFA_APP, security::disable_tfa_app),
        Modelled::new(
            &op::CREATE_PASSWORD_RESET_TOKEN,
            security::create_password_reset_token,
        ),
        Modelled::new(&op::RESET_PASSWORD, security::reset_password),
        Modelled::new(
            &op::CREATE_VALIDATION_REQUEST,
            security::create_validation_request,
        ),
        Modelled::new(
            &op::CONSUME_VERIFICATION_REQUEST,
            security::consume_verification_request,
        ),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.users.contains_key(&id).then_some(Owner::User(id))
}

/// Adds a user.
pub(crate) fn insert(w: &mut World, rec: User, now: Instant) {
    w.users
        .rows()
        .insert(&mut w.journal, rec.id, now, |meta| Kept {
            rec,
            reset_requested: false,
            verification: None,
            meta,
        });
}

/// Loads the document's users (each email once), then the world's own
/// user when the document does not describe it.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    let mut emails = HashSet::new();
    for u in &doc.users {
        unique(&mut seen, u.id, "user", u.id)?;
        if !u.email.is_empty() {
            unique(&mut emails, u.email.to_lowercase(), "user email", &u.email)?;
        }
        let problem = [
            too_long("first_name", &u.first_name, MAX_NAME),
            too_long("last_name", &u.last_name, MAX_NAME),
            too_long("email", &u.email, MAX_NAME),
        ]
        .into_iter()
        .flatten()
        .next();
        if let Some(problem) = problem {
            return Err(WorldError::Inconsistent(format!(
                "user {}: {problem}",
                u.id
            )));
        }
        insert(w, u.clone(), now);
    }
    if !w.users.contains_key(&w.user) {
        let me = User::named(w.user, "Fake", "User", "user@metal-fake.invalid".into());
        insert(w, me, now);
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.users = oldest_first(w.users.iter(), |u| u.meta.seq)
        .into_iter()
        .map(|u| u.rec.clone())
        .collect();
}

impl World {
    /// The user of the world's token number `index` that names none: one
    /// of its own, made now.
    pub(crate) fn user_of_token(&mut self, index: usize) -> Uuid {
        let id = Uuid::new_v4();
        let n = index + 1;
        let rec = User::named(
            id,
            "Token",
            &format!("User {n}"),
            format!("token-{n}-{}@metal-fake.invalid", id.simple()),
        );
        // A token's user was made when the world loaded: at its start.
        let at = self.users.get(&self.user).map(|u| u.meta.created);
        insert(self, rec, at.unwrap_or_else(Instant::now));
        id
    }

    /// The user whose email is `email` (ignoring case).
    pub(crate) fn user_by_email(&self, email: &str) -> Option<&Kept> {
        self.users
            .values()
            .find(|u| u.rec.email.eq_ignore_ascii_case(email))
    }

    /// The user `id`, or `404`.
    pub(crate) fn user_rec(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.users.get(&id).ok_or_else(ApiError::not_found)
    }

    /// The caller's defaults: the main project when it sees it, else the
    /// first it sees; never another organisation's.
    fn defaults_of(&self, scope: &Scope) -> Option<(Uuid, Uuid)> {
        let visible = |p: &Uuid| self.projects.contains_key(p) && scope.sees(*p);
        let project = self
            .main_project()
            .filter(visible)
            .or_else(|| self.projects.keys().copied().find(visible))?;
        let organization = self.projects.get(&project)?.organization();
        Some((organization, project))
    }

    /// The defaults user `id` shows the caller: the caller's own (as
    /// [`World::defaults_of`]), else the project of its oldest membership
    /// and that project's organisation (none without a membership).
    fn user_defaults(&self, scope: &Scope, id: Uuid) -> Option<(Uuid, Uuid)> {
        if scope.user_or_denied(self).ok() == Some(id) {
            return self.defaults_of(scope);
        }
        let project = self
            .memberships
            .values()
            .filter(|m| m.rec.user == id && self.projects.contains_key(&m.rec.project))
            .min_by_key(|m| m.meta.seq)?
            .rec
            .project;
        Some((self.projects.get(&project)?.organization(), project))
    }

    /// Whether the caller sees user `id`: itself, or one that shares a
    /// project with it.
    fn sees_user(&self, scope: &Scope, id: Uuid) -> bool {
        self.check_access(scope, Some(Owner::User(id))).is_ok()
    }
}

fn find_current_user(_call: &Call) -> Result<Prepared, ApiError> {
    acts(move |w, scope, _| {
        let me = w.user_rec(scope.user_or_denied(w)?)?;
        reply(&w.user_view(me, w.defaults_of(scope)))
    })
}

fn update_current_user(call: &Call) -> Result<Prepared, ApiError> {
    let body: types::UserUpdateInput = call.json()?;
    let customdata_len = body
        .customdata
        .as_ref()
        .map(|c| serde_json::Value::Object(c.clone()).to_string().len());
    refuse([
        body.first_name
            .as_deref()
            .and_then(|n| too_long("first_name", n, MAX_NAME)),
        body.last_name
            .as_deref()
            .and_then(|n| too_long("last_name", n, MAX_NAME)),
        body.phone_number
            .as_deref()
            .and_then(|n| too_long("phone_number", n, MAX_NAME)),
        body.timezone
            .as_deref()
            .and_then(|n| too_long("timezone", n, MAX_NAME)),
        customdata_len
            .filter(|n| *n > MAX_TEXT)
            .map(|_| format!("customdata is too long (maximum is {MAX_TEXT} bytes)")),
    ])?;
    acts(move |w, scope, now| {
        let id = scope.user_or_denied(w)?;
        change_user(w, id, "fields", now, |u| {
            if let Some(v) = &body.first_name {
                u.rec.first_name.clone_from(v);
            }
            if let Some(v) = &body.last_name {
                u.rec.last_name.clone_from(v);
            }
            if let Some(v) = &body.phone_number {
                u.rec.phone_number = Some(v.clone());
            }
            if let Some(v) = &body.timezone {
                u.rec.timezone = Some(v.clone());
            }
            if let Some(v) = &body.customdata {
                u.rec.customdata.clone_from(v);
            }
            Ok(())
        })?;
        let me = w.user_rec(id)?;
        reply(&w.user_view(me, w.defaults_of(scope)))
    })
}

/// The users the caller sees (itself, and those who share a project with
/// it), oldest first.
fn find_users(call: &Call) -> Result<Prepared, ApiError> {
    let listing = crate::model::list::Listing::of(call, &[])?;
    acts(move |w, scope, _| {
        let path = format_args!("{}/{COLLECTION}", crate::model::render::API_PREFIX);
        let listed = w.users.values().filter(|u| w.sees_user(scope, u.rec.id));
        let page = crate::model::list::page(
            "users",
            &path,
            listed,
            |u| u.meta.seq,
            &listing,
            |u| w.user_view(u, w.user_defaults(scope, u.rec.id)),
        );
        reply(&page)
    })
}

fn find_user_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, scope, _| reply(&w.user_view(w.user_rec(id)?, w.user_defaults(scope, id))))
}

fn find_user_customdata(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.user_rec(id)?.rec.customdata))
}

/// `createUser`: a user with the first of its emails as its address;
/// `422` for an email another user has, or one that is no email address
/// (as invitations refuse one: the walk sent an IP block and it was taken).
fn create_user(call: &Call) -> Result<Prepared, ApiError> {
    let body: types::UserCreateInput = call.json()?;
    let email = body
        .emails
        .iter()
        .find(|e| e.default == Some(true))
        .or(body.emails.first())
        .map(|e| e.address.clone())
        .filter(|a| !a.trim().is_empty())
        .ok_or_else(|| ApiError::unprocessable("Emails can't be blank"))?;
    if !email.contains('@') || email.trim() != email {
        return Err(ApiError::unprocessable(
            "Email is not a valid email address",
        ));
    }
    refuse([
        too_long("first_name", &body.first_name, MAX_NAME),
        too_long("last_name", &body.last_name, MAX_NAME),
        too_long("email", &email, MAX_NAME),
    ])?;
    acts(move |w, _, now| {
        if w.user_by_email(&email).is_some() {
            return Err(ApiError::unprocessable(
                "Email address has already been taken",
            ));
        }
        crate::model::bounds::room_for("users", w.users.len())?;
        let id = Uuid::new_v4();
        let mut rec = User::named(id, &body.first_name, &body.last_name, email.clone());
        rec.phone_number.clone_from(&body.phone_number);
        rec.timezone.clone_from(&body.timezone);
        rec.customdata.clone_from(&body.customdata);
        insert(w, rec, now);
        reply(&w.user_view(w.user_rec(id)?, None))
    })
}
