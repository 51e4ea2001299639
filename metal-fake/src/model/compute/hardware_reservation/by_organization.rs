//! An organisation's hardware reservations (`GET
//! /organizations/{id}/hardware-reservations`, which issue 30 says
//! packngo's `Organizations.ListHardwareReservations` called): the 2024
//! spec has no such path, so its [`Operation`] is declared here, and the
//! router serves every modelled operation the spec lacks beside the
//! spec's.

use metal_api::operation::{Method, Operation};
use uuid::Uuid;

use super::filter::ReservationFilter;
use crate::call::{ApiError, Call};
use crate::model::list::{page, Listing};
use crate::model::organization;
use crate::model::render::{reply, Href};
use crate::model::resource::{acts, Prepared};

/// The operation, outside the 2024 spec (its ID is the fake's).
pub(crate) static FIND_ORGANIZATION_HARDWARE_RESERVATIONS: Operation = Operation {
    id: "findOrganizationHardwareReservations",
    method: Method::Get,
    path: "/organizations/{id}/hardware-reservations",
    success: 200,
    lists: &[],
};

/// The reservations of the organisation's projects the caller sees, that
/// pass the project list's filters, oldest first.
pub(super) fn find_organization_hardware_reservations(call: &Call) -> Result<Prepared, ApiError> {
    let org: Uuid = call.id("id")?;
    let listing = Listing::of(call, ReservationFilter::PARAMS)?;
    let filter = ReservationFilter::of(call)?;
    acts(move |w, caller, now| {
        w.organizations.get(&org).ok_or_else(ApiError::not_found)?;
        let of_org =
            |p: Uuid| w.projects.get(&p).is_some_and(|p| p.organization() == org) && caller.sees(p);
        let recs = w
            .reservations
            .values()
            .filter(|r| of_org(r.rec.project) && w.reservation_passes(r, &filter, now));
        let path = format_args!(
            "{}/hardware-reservations",
            Href::new(organization::COLLECTION, org)
        );
        reply(&page(
            "hardware_reservations",
            &path,
            recs,
            |r| r.meta.seq,
            &listing,
            |r| w.reservation_view(r, &listing.expand, now),
        ))
    })
}
