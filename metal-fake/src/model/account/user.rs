//! The current user (`GET /user`): the world's user, whose ID the world
//! document holds, with the main project and its organisation as
//! defaults when the caller's token sees them, else the first project it
//! sees.

use metal_api::operation as op;
use serde::Serialize;
use uuid::Uuid;

use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::render::{reply, Href};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// The collection of users' hrefs.
pub(crate) const COLLECTION: &str = "users";

/// The current user.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[Modelled::new(&op::FIND_CURRENT_USER, find_current_user)],
    owner,
    // The world reads and writes `user` of the document itself.
    load: |_, _, _| Ok(()),
    save: |_, _, _| {},
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    (id == w.user).then_some(Owner::Everyone)
}

/// The current user in a reply.
#[derive(Serialize)]
struct UserView {
    id: Uuid,
    href: Href,
    short_id: String,
    first_name: &'static str,
    last_name: &'static str,
    full_name: &'static str,
    email: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_organization_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_project_id: Option<Uuid>,
    customdata: Empty,
}

/// `{}`.
#[derive(Serialize)]
struct Empty {}

fn find_current_user(_call: &Call) -> Result<Prepared, ApiError> {
    acts(move |w, scope, _| {
        // The main project when the caller sees it, else the first it
        // sees: never another organisation's.
        let visible = |p: &Uuid| w.projects.contains_key(p) && scope.sees(*p);
        let project = w
            .main_project()
            .filter(visible)
            .or_else(|| w.projects.keys().copied().find(visible));
        let organization = project
            .and_then(|p| w.projects.get(&p))
            .map(|p| p.organization());
        let mut short_id = w.user.simple().to_string();
        short_id.truncate(8);
        reply(&UserView {
            id: w.user,
            href: Href::new(COLLECTION, w.user),
            short_id,
            first_name: "Fake",
            last_name: "User",
            full_name: "Fake User",
            email: "user@metal-fake.invalid",
            default_organization_id: organization,
            default_project_id: project,
            customdata: Empty {},
        })
    })
}
