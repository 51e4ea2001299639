//! A project's global BGP ranges as the API sends them (the spec's
//! `GlobalBgpRangeList`: no pages).

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::project;
use crate::model::render::{Href, Stub};
use crate::model::World;

/// A range in a reply.
#[derive(Serialize)]
pub(crate) struct RangeView<'a> {
    id: Uuid,
    href: Href,
    address_family: u8,
    range: &'a str,
    project: Stub,
}

/// A project's ranges.
#[derive(Serialize)]
pub(crate) struct RangeList<'a> {
    pub(crate) global_bgp_ranges: Vec<RangeView<'a>>,
}

impl World {
    /// `project`'s ranges, oldest first.
    pub(crate) fn global_bgp_ranges_of(&self, project: Uuid) -> RangeList<'_> {
        let mut all: Vec<&Kept> = self
            .global_bgp_ranges
            .values()
            .filter(|r| r.rec.project == project)
            .collect();
        all.sort_by_key(|r| r.meta.seq);
        RangeList {
            global_bgp_ranges: all
                .into_iter()
                .map(|r| RangeView {
                    id: r.rec.id,
                    href: Href::new(COLLECTION, r.rec.id),
                    address_family: r.address_family,
                    range: &r.rec.range,
                    project: Stub::new(project::COLLECTION, r.rec.project),
                })
                .collect(),
        }
    }
}
