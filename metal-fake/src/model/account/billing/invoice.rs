//! Invoices: the fake bills nothing, so an organisation's list is empty
//! and every invoice is `404`.

use metal_api::operation as op;
use serde::Serialize;
use uuid::Uuid;

use crate::call::{ApiError, Call};
use crate::coverage::Unread;
use crate::model::access::Owner;
use crate::model::organization;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// An invoice list's parameters, which select among no invoices.
const NOTHING_BILLED: &[Unread] = &[
    Unread::no_effect("page", "the fake bills nothing: the list is always empty"),
    Unread::no_effect("per_page", "as `page`"),
    Unread::no_effect("status", "as `page`"),
];

/// Invoices.
pub(crate) static RESOURCE: Resource = Resource {
    collection: "invoices",
    operations: &[
        Modelled::new(&op::FIND_ORGANIZATION_INVOICES, find_organization_invoices)
            .names("id", &organization::RESOURCE)
            .unread(NOTHING_BILLED),
        Modelled::new(&op::GET_INVOICE_BY_ID, get_invoice_by_id).names("id", &RESOURCE),
    ],
    owner,
    load: |_, _, _| Ok(()),
    save: |_, _, _| {},
};

/// No invoice exists.
fn owner(_: &World, _: Uuid) -> Option<Owner> {
    None
}

/// `{"invoices": []}`.
#[derive(Serialize)]
struct InvoiceList {
    invoices: [(); 0],
}

fn find_organization_invoices(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        w.organization(id)?;
        reply(&InvoiceList { invoices: [] })
    })
}

fn get_invoice_by_id(call: &Call) -> Result<Prepared, ApiError> {
    call.id("id")?;
    acts(move |_, _, _| Err(ApiError::not_found()))
}
