//! Email addresses: the operations modelled, the view, who owns one (its
//! user), and how they load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use metal_api::types;
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{primary_email_id, Email, Kept};
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::Owner;
use crate::model::bounds::{refuse, too_long};
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::render::{reply, Href};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// The most addresses one user holds besides its default.
const MAX_PER_USER: usize = 100;

/// Email addresses.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::CREATE_EMAIL, create_email),
        Modelled::new(&op::FIND_EMAIL_BY_ID, find_email_by_id).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_EMAIL, update_email)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_EMAIL, delete_email).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.emails
        .get(&id)
        .map(|e| e.rec.user)
        .or_else(|| w.primary_email_holder(id))
        .map(Owner::User)
}

/// Whether any user has `address`, as its default or besides.
fn taken(w: &World, address: &str) -> bool {
    w.user_by_email(address).is_some()
        || w.emails
            .values()
            .any(|e| e.rec.address.eq_ignore_ascii_case(address))
}

fn check(address: &str) -> Result<(), ApiError> {
    if !address.contains('@') || address.trim() != address {
        return Err(ApiError::unprocessable(
            "Address is not a valid email address",
        ));
    }
    refuse([too_long("Address", address, MAX_NAME)])
}

fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for e in &doc.emails {
        unique(&mut seen, e.id, "email", e.id)?;
        let from = || format!("email {}", e.id);
        if !w.users.contains_key(&e.user) {
            return Err(unknown(from(), "user", e.user));
        }
        check(&e.address).map_err(|x| {
            WorldError::Inconsistent(format!("{}: {}", from(), x.messages.join("; ")))
        })?;
        // Its own user's default may be this address (made so by
        // `updateEmail`); any other holder is a duplicate.
        let other_user = w
            .user_by_email(&e.address)
            .is_some_and(|u| u.rec.id != e.user);
        let other_email = w
            .emails
            .values()
            .any(|o| o.rec.address.eq_ignore_ascii_case(&e.address));
        if other_user || other_email {
            return Err(WorldError::Duplicate {
                kind: "email address",
                id: e.address.clone(),
            });
        }
        w.emails
            .rows()
            .insert(&mut w.journal, e.id, now, |meta| Kept {
                rec: e.clone(),
                meta,
            });
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.emails = oldest_first(w.emails.iter(), |e| e.meta.seq)
        .into_iter()
        .map(|e| e.rec.clone())
        .collect();
}

/// An address in a reply.
#[derive(Serialize)]
struct EmailView<'a> {
    id: Uuid,
    href: Href,
    address: &'a str,
    default: bool,
    verified: bool,
}

impl World {
    fn email_view<'a>(&'a self, e: &'a Kept) -> EmailView<'a> {
        let default = self
            .users
            .get(&e.rec.user)
            .is_some_and(|u| u.rec.email.eq_ignore_ascii_case(&e.rec.address));
        EmailView {
            id: e.rec.id,
            href: Href::new(COLLECTION, e.rec.id),
            address: &e.rec.address,
            default,
            verified: e.rec.verified,
        }
    }

    fn email(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.emails.get(&id).ok_or_else(ApiError::not_found)
    }

    /// The user whose own address `id` is (see [`primary_email_id`]),
    /// while no record of its holds that address.
    fn primary_email_holder(&self, id: Uuid) -> Option<Uuid> {
        self.users
            .values()
            .find(|u| primary_email_id(u.rec.id) == id && self.primary_is_listed(u.rec.id))
            .map(|u| u.rec.id)
    }

    /// Whether `user`'s own address is listed under its own derived ID:
    /// no email record of its holds it (one made default by `updateEmail`
    /// stands for it).
    pub(crate) fn primary_is_listed(&self, user: Uuid) -> bool {
        self.users.get(&user).is_some_and(|u| {
            !self
                .emails
                .values()
                .any(|e| e.rec.user == user && e.rec.address.eq_ignore_ascii_case(&u.rec.email))
        })
    }

    /// The address `id` as the API shows it: a record, or a user's own.
    fn any_email_view(&self, id: Uuid) -> Result<EmailView<'_>, ApiError> {
        if let Ok(e) = self.email(id) {
            return Ok(self.email_view(e));
        }
        let user = self
            .primary_email_holder(id)
            .and_then(|u| self.users.get(&u))
            .ok_or_else(ApiError::not_found)?;
        Ok(EmailView {
            id,
            href: Href::new(COLLECTION, id),
            address: &user.rec.email,
            default: true,
            verified: true,
        })
    }
}

/// `createEmail`: an address of the caller's; `422` for one any user has.
fn create_email(call: &Call) -> Result<Prepared, ApiError> {
    let body: types::CreateEmailInput = call.json()?;
    check(&body.address)?;
    acts(move |w, caller, now| {
        let user = caller.user_or_denied(w)?;
        if taken(w, &body.address) {
            return Err(ApiError::unprocessable("Address has already been taken"));
        }
        let held = w.emails.values().filter(|e| e.rec.user == user).count();
        if held >= MAX_PER_USER {
            return Err(ApiError::unprocessable(format!(
                "Emails are too many (maximum is {MAX_PER_USER} a user)"
            )));
        }
        let id = Uuid::new_v4();
        let rec = Email {
            id,
            user,
            address: body.address.clone(),
            verified: false,
        };
        w.emails
            .rows()
            .insert(&mut w.journal, id, now, |meta| Kept { rec, meta });
        reply(&w.email_view(w.email(id)?))
    })
}

fn find_email_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.any_email_view(id)?))
}

/// `updateEmail`: `default: true` makes it the user's `email`.
fn update_email(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::UpdateEmailInput = call.json()?;
    acts(move |w, _, now| {
        // A user's own address is its default already.
        if let Ok(e) = w.email(id) {
            let e = e.rec.clone();
            if body.default == Some(true) {
                w.set_user_email(e.user, &e.address, now)?;
            }
        }
        reply(&w.any_email_view(id)?)
    })
}

/// `deleteEmail`: never the user's default.
fn delete_email(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        if w.any_email_view(id)?.default {
            return Err(ApiError::unprocessable(
                "Cannot delete the default email address",
            ));
        }
        w.delete_record(Kind::Email, id, now)?;
        Ok(Reply::Empty)
    })
}
