//! A user as the API sends it, straight to bytes.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use crate::model::render::{Href, ShortId, Stamp};
use crate::model::World;

/// The collection of users' paths and hrefs.
pub(crate) const COLLECTION: &str = "users";

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
    #[serde(skip_serializing_if = "Option::is_none")]
    phone_number: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timezone: Option<&'a str>,
    two_factor_auth: &'static str,
    created_at: Stamp,
    updated_at: Stamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_organization_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_project_id: Option<Uuid>,
    customdata: &'a serde_json::Map<String, serde_json::Value>,
}

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
            created_at: Stamp(self.clock.wall(u.created)),
            updated_at: Stamp(self.clock.wall(u.updated)),
            default_organization_id: defaults.map(|d| d.0),
            default_project_id: defaults.map(|d| d.1),
            customdata: &u.rec.customdata,
        }
    }
}
