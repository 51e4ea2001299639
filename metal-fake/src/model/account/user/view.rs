//! A user as the API sends it, straight to bytes.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::render::{Href, ShortId, Stamp, Stub};
use crate::model::World;

/// A user where a record names it (a device's `created_by`).
#[derive(Serialize)]
pub(crate) struct UserLite<'a> {
    id: Uuid,
    href: Href,
    short_id: ShortId,
    first_name: &'a str,
    last_name: &'a str,
    full_name: String,
    email: &'a str,
    avatar_thumb_url: Avatar,
    created_at: Stamp,
    updated_at: Stamp,
}

/// The world's own user in short, where the spec names a `UserLimited`
/// (its `id` required).
#[derive(Serialize)]
pub(crate) struct UserLimited {
    id: Uuid,
    href: Href,
    full_name: String,
    avatar_url: Avatar,
    avatar_thumb_url: Avatar,
}

/// A Gravatar URL of the default image, as the real API gave one to a
/// user without a picture.
#[derive(Clone, Copy)]
pub(crate) struct Avatar(pub(crate) Uuid);

impl Serialize for Avatar {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!(
            "https://www.gravatar.com/avatar/{}?d=mm",
            self.0.simple()
        ))
    }
}

/// A user in a reply.
#[derive(Serialize)]
pub(crate) struct UserView<'a> {
    id: Uuid,
    href: Href,
    short_id: ShortId,
    first_name: &'a str,
    last_name: &'a str,
    full_name: String,
    email: &'a str,
    phone_number: Option<&'a str>,
    timezone: Option<&'a str>,
    two_factor_auth: &'static str,
    avatar_url: Avatar,
    avatar_thumb_url: Avatar,
    /// Its email addresses, its own first, as links.
    emails: Vec<Stub>,
    created_at: Stamp,
    updated_at: Stamp,
    default_organization_id: Option<Uuid>,
    default_project_id: Option<Uuid>,
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    /// The fake has no web logins: when the world made the user.
    last_login_at: Stamp,
    /// The most projects and organisations the user may make: the most
    /// records of a kind the fake holds.
    max_projects: usize,
    max_organizations: usize,
    /// `null`: Metal's own risk score of the account, not public.
    fraud_score: (),
    /// Beyond the spec, as the real API sent them (see "Replies whole" in
    /// `metal_fake::fidelity`): the account's feature flags (none in the
    /// fake), its social accounts (none) and its verification stage.
    features: [&'static str; 0],
    /// As `features`.
    social_accounts: NoAccounts,
    /// As `features`: every user of the fake is verified.
    verification_stage: &'static str,
}

/// `{}`: a user's social accounts, none in the fake.
#[derive(Serialize)]
pub(crate) struct NoAccounts {}

impl World {
    /// `u` as the API shows it, with the defaults `defaults` gives
    /// (organisation, project).
    pub(crate) fn user_view<'a>(
        &'a self,
        u: &'a Kept,
        defaults: Option<(Uuid, Uuid)>,
    ) -> UserView<'a> {
        UserView {
            id: u.rec.id,
            href: Href::new(COLLECTION, u.rec.id),
            short_id: ShortId(u.rec.id),
            first_name: &u.rec.first_name,
            last_name: &u.rec.last_name,
            full_name: format!("{} {}", u.rec.first_name, u.rec.last_name),
            email: &u.rec.email,
            phone_number: u.rec.phone_number.as_deref(),
            timezone: u.rec.timezone.as_deref(),
            two_factor_auth: if u.rec.two_factor { "app" } else { "" },
            avatar_url: Avatar(u.rec.id),
            avatar_thumb_url: Avatar(u.rec.id),
            // Its own address first (packngo's TestAccUsersList reads
            // `emails[0].address` of a user that added none).
            emails: self
                .primary_is_listed(u.rec.id)
                .then(|| crate::model::email::primary_email_id(u.rec.id))
                .into_iter()
                .chain(
                    self.emails
                        .values()
                        .filter(|e| e.rec.user == u.rec.id)
                        .map(|e| e.rec.id),
                )
                .map(|id| Stub::new(crate::model::email::COLLECTION, id))
                .collect(),
            created_at: Stamp(self.clock.wall(u.meta.created)),
            updated_at: Stamp(self.clock.wall(u.meta.updated)),
            default_organization_id: defaults.map(|d| d.0),
            default_project_id: defaults.map(|d| d.1),
            customdata: &u.rec.customdata,
            last_login_at: Stamp(self.clock.wall(u.meta.created)),
            max_projects: crate::document::MAX_RECORDS,
            max_organizations: crate::document::MAX_RECORDS,
            fraud_score: (),
            features: [],
            social_accounts: NoAccounts {},
            verification_stage: "verified",
        }
    }

    /// The world's own user where the spec names a `UserLimited`.
    pub(crate) fn user_limited(&self) -> UserLimited {
        let lite = self.user_lite();
        UserLimited {
            id: self.user,
            href: Href::new(COLLECTION, self.user),
            full_name: lite.full_name,
            avatar_url: Avatar(self.user),
            avatar_thumb_url: Avatar(self.user),
        }
    }

    /// The world's own user where a record names it (the server token's
    /// user, who makes what the fake makes); the fake's placeholder when
    /// the world has no record of it.
    pub(crate) fn user_lite(&self) -> UserLite<'_> {
        let kept = self.users.get(&self.user);
        let since = Stamp(self.clock.started());
        let (first_name, last_name, email) =
            kept.map_or(("Fake", "User", "user@metal-fake.invalid"), |u| {
                (
                    &u.rec.first_name[..],
                    &u.rec.last_name[..],
                    &u.rec.email[..],
                )
            });
        UserLite {
            id: self.user,
            href: Href::new(COLLECTION, self.user),
            short_id: ShortId(self.user),
            first_name,
            last_name,
            full_name: format!("{first_name} {last_name}"),
            email,
            avatar_thumb_url: Avatar(self.user),
            created_at: kept.map_or(since, |u| Stamp(self.clock.wall(u.meta.created))),
            updated_at: kept.map_or(since, |u| Stamp(self.clock.wall(u.meta.updated))),
        }
    }
}
