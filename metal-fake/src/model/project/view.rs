//! A project as the API sends it, and as other records name it.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use crate::model::render::{Href, Stamp, Stub};
use crate::model::World;

/// The collection of projects' paths and hrefs.
pub(crate) const COLLECTION: &str = "projects";

/// A project in a reply.
#[derive(Serialize)]
pub(crate) struct ProjectView<'a> {
    id: Uuid,
    href: Href,
    name: &'a str,
    created_at: Stamp,
    updated_at: Stamp,
    #[serde(rename = "type")]
    type_: &'static str,
}

/// A project where another record names it: included, or a stub.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum ProjectField<'a> {
    Full(ProjectView<'a>),
    Stub(Stub),
}

impl World {
    /// `p` as the API shows it.
    pub(crate) fn project_view<'a>(&'a self, p: &'a Kept) -> ProjectView<'a> {
        let made = Stamp(self.clock.wall(p.created));
        ProjectView {
            id: p.rec.id,
            href: Href::new(COLLECTION, p.rec.id),
            name: p.name(),
            created_at: made,
            updated_at: made,
            type_: "default",
        }
    }

    /// The project `id` where a record names it: the whole project when
    /// `include` (and it exists), else a stub.
    pub(crate) fn project_field(&self, id: Uuid, include: bool) -> ProjectField<'_> {
        match self.projects.get(&id) {
            Some(p) if include => ProjectField::Full(self.project_view(p)),
            _ => ProjectField::Stub(Stub::new(COLLECTION, id)),
        }
    }
}
