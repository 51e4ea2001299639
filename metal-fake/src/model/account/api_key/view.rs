//! An API key as the API sends it (`AuthToken`), straight to bytes.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use crate::model::render::{Stamp, Stub};
use crate::model::World;

/// An API key in a reply.
#[derive(Serialize)]
pub(crate) struct ApiKeyView<'a> {
    id: Uuid,
    token: &'a str,
    description: &'a str,
    read_only: bool,
    created_at: Stamp,
    updated_at: Stamp,
    project: Option<Stub>,
    user: Option<Stub>,
}

/// A list of API keys.
#[derive(Serialize)]
pub(crate) struct ApiKeyList<'a> {
    pub(crate) api_keys: Vec<ApiKeyView<'a>>,
}

impl World {
    /// `k` as the API shows it.
    pub(crate) fn api_key_view<'a>(&'a self, k: &'a Kept) -> ApiKeyView<'a> {
        let at = Stamp(self.clock.wall(k.meta.created));
        ApiKeyView {
            id: k.rec.id,
            token: &k.rec.token,
            description: &k.rec.description,
            read_only: k.rec.read_only,
            created_at: at,
            updated_at: at,
            project: k
                .rec
                .project
                .map(|p| Stub::new(crate::model::project::COLLECTION, p)),
            user: k
                .rec
                .project
                .is_none()
                .then(|| Stub::new(crate::model::user::COLLECTION, k.user)),
        }
    }
}
