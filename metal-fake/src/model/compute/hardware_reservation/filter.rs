//! The filters of `findProjectHardwareReservations`, and the page they
//! select.

use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use crate::call::{ApiError, Call};
use crate::model::device::ReservationWithDevice;
use crate::model::list::{one_of, Listing, Page};
use crate::model::render::{contains_ignoring_case, ShortId};
use crate::model::World;

/// The filters of `findProjectHardwareReservations`.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReservationFilter {
    provisionable_only: bool,
    state: Option<String>,
    facility: Option<String>,
    query: Option<String>,
}

impl ReservationFilter {
    /// The query parameters read here, in the order hrefs echo them.
    pub(crate) const PARAMS: &'static [&'static str] =
        &["provisionable", "state", "facility", "query"];

    /// Reads the filters of a call; a value outside the spec's enumeration
    /// (`provisionable`, `state`) is `422`.
    pub(crate) fn of(call: &Call) -> Result<Self, ApiError> {
        Ok(Self {
            provisionable_only: one_of(call, "provisionable", &["only"])?.is_some(),
            state: one_of(call, "state", &["active", "spare", "need_of_service"])?,
            facility: call.text("facility"),
            query: call.text("query"),
        })
    }
}

impl World {
    /// One page of a project's hardware reservations that pass `filter`,
    /// oldest first.
    pub(crate) fn reservation_page<'a>(
        &'a self,
        project: Uuid,
        filter: &ReservationFilter,
        listing: &Listing,
        now: Instant,
    ) -> Result<Page<ReservationWithDevice<'a>>, ApiError> {
        let recs = self
            .reservations
            .of_project(Some(project))
            .filter(|r| self.reservation_passes(r, filter, now));
        self.page_of(
            project,
            ("hardware_reservations", "hardware-reservations"),
            recs,
            |r| r.meta.seq,
            listing,
            |r| {
                let mut listed = self.reservation_view(r, &listing.expand, now);
                // The list may still show a released reservation as it was
                // (see `Timings::stale_reservation_list`); a get does not.
                if self.listed_stale(r, now) {
                    listed.provisionable = false;
                }
                listed
            },
        )
    }

    pub(super) fn reservation_passes(&self, r: &Kept, f: &ReservationFilter, now: Instant) -> bool {
        let rec = &r.rec;
        let query = || {
            let Some(text) = &f.query else { return true };
            let has = |field: &str| contains_ignoring_case(field, text);
            has(&rec.facility)
                || has(&rec.plan)
                || has(&ShortId(rec.id).to_string())
                || self
                    .projects
                    .get(&rec.project)
                    .is_some_and(|p| has(p.name()))
                || r.live
                    .device
                    .and_then(|d| self.devices.get(&d))
                    .is_some_and(|d| has(&d.rec.hostname))
        };
        (!f.provisionable_only || (r.provisionable() && !self.listed_stale(r, now)))
            // Every reservation of the fake is `active`: none is a spare or
            // in need of service.
            && f.state.as_deref().is_none_or(|s| s == "active")
            && f.facility.as_ref().is_none_or(|c| {
                c.eq_ignore_ascii_case(&rec.facility)
                    || self
                        .catalog
                        .facility(&rec.facility)
                        .and_then(|f| f.id)
                        .is_some_and(|id| *c == id.to_string())
            })
            && query()
    }
}
