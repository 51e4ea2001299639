//! The current user (`GET /user`): the world's user, whose ID the world
//! document holds, with the main project and its organisation as
//! defaults when the caller's token sees them, else the first project it
//! sees.

use metal_api::operation as op;
use serde::Serialize;
use uuid::Uuid;

use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::render::{reply, Href, ShortId, Stamp, Stub};
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
    #[serde(flatten)]
    lite: UserLite<'static>,
    avatar_url: Avatar,
    two_factor_auth: &'static str,
    emails: [Stub; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    default_organization_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_project_id: Option<Uuid>,
    customdata: Empty,
}

/// A user where a record names it (a device's `created_by`).
#[derive(Serialize)]
pub(crate) struct UserLite<'a> {
    id: Uuid,
    href: Href,
    short_id: ShortId,
    first_name: &'a str,
    last_name: &'a str,
    full_name: &'a str,
    email: &'a str,
    avatar_thumb_url: Avatar,
    created_at: Stamp,
    updated_at: Stamp,
}

/// A Gravatar URL of the user's default image, as the real API gave one
/// to a user without a picture.
#[derive(Clone, Copy)]
struct Avatar(Uuid);

impl Serialize for Avatar {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!(
            "https://www.gravatar.com/avatar/{}?d=mm",
            self.0.simple()
        ))
    }
}

/// `{}`.
#[derive(Serialize)]
struct Empty {}

/// The user's one email address: an ID derived from the user's.
fn email_id(user: Uuid) -> Uuid {
    Uuid::from_u128(user.as_u128() ^ (0xe << 96))
}

impl World {
    /// The world's user, where a record names it. The world keeps no
    /// creation time for it: it was made when the world was seeded.
    pub(crate) fn user_lite(&self) -> UserLite<'static> {
        let since = Stamp(self.clock.started());
        UserLite {
            id: self.user,
            href: Href::new(COLLECTION, self.user),
            short_id: ShortId(self.user),
            first_name: "Fake",
            last_name: "User",
            full_name: "Fake User",
            email: "user@metal-fake.invalid",
            avatar_thumb_url: Avatar(self.user),
            created_at: since,
            updated_at: since,
        }
    }
}

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
        reply(&UserView {
            lite: w.user_lite(),
            avatar_url: Avatar(w.user),
            two_factor_auth: "",
            emails: [Stub::new("emails", email_id(w.user))],
            default_organization_id: organization,
            default_project_id: project,
            customdata: Empty {},
        })
    })
}
