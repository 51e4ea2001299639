//! Payment methods of organisations: the record (also its world-document
//! entry), the operations modelled, the view, who owns one (its
//! organisation), and how they load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use metal_api::types;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::Owner;
use crate::model::bounds::{refuse, too_long};
use crate::model::journal::{record, Meta, Scope};
use crate::model::list::Cut;
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::render::{reply, Stamp, Stub};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{organization, user, World};

/// The collection of payment methods' paths and hrefs.
pub(crate) const COLLECTION: &str = "payment-methods";

/// The most payment methods one organisation holds.
const MAX_PER_ORGANIZATION: usize = 100;

/// A payment method of an organisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaymentMethod {
    /// Its ID.
    pub id: Uuid,
    /// The organisation it pays for.
    pub organization: Uuid,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Whether it is the organisation's default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    /// The cardholder's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cardholder_name: Option<String>,
}

/// A payment method as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: PaymentMethod,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::PaymentMethod, |k| Scope {
    organization: Some(k.rec.organization),
    ..Scope::default()
});

/// Payment methods.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::CREATE_PAYMENT_METHOD, create_payment_method)
            .names("id", &organization::RESOURCE),
        Modelled::new(
            &op::FIND_ORGANIZATION_PAYMENT_METHODS,
            find_organization_payment_methods,
        )
        .names("id", &organization::RESOURCE),
        Modelled::new(&op::FIND_PAYMENT_METHOD_BY_ID, find_payment_method_by_id)
            .names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_PAYMENT_METHOD, update_payment_method)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_PAYMENT_METHOD, delete_payment_method).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.payment_methods
        .get(&id)
        .map(|m| Owner::Organization(m.rec.organization))
}

fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for m in &doc.payment_methods {
        unique(&mut seen, m.id, "payment method", m.id)?;
        if !w.organizations.contains_key(&m.organization) {
            return Err(unknown(
                format!("payment method {}", m.id),
                "organization",
                m.organization,
            ));
        }
        let problem = too_long("name", &m.name, MAX_NAME).or_else(|| {
            m.cardholder_name
                .as_deref()
                .and_then(|c| too_long("cardholder_name", c, MAX_NAME))
        });
        if let Some(problem) = problem {
            return Err(WorldError::Inconsistent(format!(
                "payment method {}: {problem}",
                m.id
            )));
        }
        w.payment_methods
            .rows()
            .insert(&mut w.journal, m.id, now, |meta| Kept {
                rec: m.clone(),
                meta,
            });
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.payment_methods = oldest_first(w.payment_methods.iter(), |m| m.meta.seq)
        .into_iter()
        .map(|m| m.rec.clone())
        .collect();
}

/// A payment method in a reply.
#[derive(Serialize)]
struct PaymentMethodView<'a> {
    id: Uuid,
    name: &'a str,
    default: bool,
    #[serde(rename = "type")]
    type_: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cardholder_name: Option<&'a str>,
    organization: Stub,
    created_by_user: Stub,
    created_at: Stamp,
    updated_at: Stamp,
}

/// A list of payment methods.
#[derive(Serialize)]
struct PaymentMethodList<'a> {
    payment_methods: Vec<PaymentMethodView<'a>>,
}

impl World {
    fn payment_method_view<'a>(&'a self, m: &'a Kept) -> PaymentMethodView<'a> {
        PaymentMethodView {
            id: m.rec.id,
            name: &m.rec.name,
            default: m.rec.default,
            type_: "card",
            cardholder_name: m.rec.cardholder_name.as_deref(),
            organization: Stub::new(organization::COLLECTION, m.rec.organization),
            created_by_user: Stub::new(user::COLLECTION, self.user),
            created_at: Stamp(self.clock.wall(m.meta.created)),
            updated_at: Stamp(self.clock.wall(m.meta.updated)),
        }
    }

    fn payment_method(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.payment_methods
            .get(&id)
            .ok_or_else(ApiError::not_found)
    }

    /// The default payment method of `organization`, if it has one.
    pub(crate) fn default_payment_method(&self, organization: Uuid) -> Option<Uuid> {
        self.payment_methods
            .values()
            .find(|m| m.rec.organization == organization && m.rec.default)
            .map(|m| m.rec.id)
    }

    /// Makes `id` its organisation's only default, at `now`.
    fn make_default(&mut self, organization: Uuid, id: Uuid, now: Instant) {
        let changed: Vec<Uuid> = self
            .payment_methods
            .values()
            .filter(|m| m.rec.organization == organization && m.rec.default != (m.rec.id == id))
            .map(|m| m.rec.id)
            .collect();
        for m in changed {
            self.payment_methods
                .rows()
                .update(&mut self.journal, m, "default", now, |m| {
                    m.rec.default = m.rec.id == id;
                });
        }
    }
}

/// `createPaymentMethod`: a name and a processor's nonce; the first of an
/// organisation's methods is its default.
fn create_payment_method(call: &Call) -> Result<Prepared, ApiError> {
    let organization = call.id("id")?;
    let body: types::PaymentMethodCreateInput = call.json()?;
    if body.nonce.trim().is_empty() {
        return Err(ApiError::unprocessable("Nonce can't be blank"));
    }
    refuse([too_long("Name", &body.name, MAX_NAME)])?;
    acts(move |w, _, now| {
        w.organization(organization)?;
        let held = w
            .payment_methods
            .values()
            .filter(|m| m.rec.organization == organization)
            .count();
        if held >= MAX_PER_ORGANIZATION {
            return Err(ApiError::unprocessable(format!(
                "Payment methods are too many (maximum is {MAX_PER_ORGANIZATION} an organization)"
            )));
        }
        let id = Uuid::new_v4();
        w.payment_methods
            .rows()
            .insert(&mut w.journal, id, now, |meta| Kept {
                rec: PaymentMethod {
                    id,
                    organization,
                    name: body.name.clone(),
                    default: false,
                    cardholder_name: None,
                },
                meta,
            });
        if held == 0 || body.default == Some(true) {
            w.make_default(organization, id, now);
        }
        reply(&w.payment_method_view(w.payment_method(id)?))
    })
}

fn find_organization_payment_methods(call: &Call) -> Result<Prepared, ApiError> {
    let organization = call.id("id")?;
    let cut = Cut::of(call)?;
    acts(move |w, _, _| {
        w.organization(organization)?;
        let mut listed: Vec<&Kept> = w
            .payment_methods
            .values()
            .filter(|m| m.rec.organization == organization)
            .collect();
        listed.sort_by_key(|m| m.meta.seq);
        reply(&PaymentMethodList {
            payment_methods: cut
                .cut(listed)
                .into_iter()
                .map(|m| w.payment_method_view(m))
                .collect(),
        })
    })
}

fn find_payment_method_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.payment_method_view(w.payment_method(id)?)))
}

fn update_payment_method(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::PaymentMethodUpdateInput = call.json()?;
    refuse([
        body.name
            .as_deref()
            .and_then(|n| too_long("Name", n, MAX_NAME)),
        body.cardholder_name
            .as_deref()
            .and_then(|n| too_long("Cardholder name", n, MAX_NAME)),
    ])?;
    acts(move |w, _, now| {
        let organization = w
            .payment_methods
            .rows()
            .update(&mut w.journal, id, "fields", now, |m| {
                if let Some(v) = &body.name {
                    m.rec.name.clone_from(v);
                }
                if let Some(v) = &body.cardholder_name {
                    m.rec.cardholder_name = Some(v.clone());
                }
                m.rec.organization
            })
            .ok_or_else(ApiError::not_found)?;
        if body.default == Some(true) {
            w.make_default(organization, id, now);
        }
        reply(&w.payment_method_view(w.payment_method(id)?))
    })
}

/// `deletePaymentMethod`: refused for the default while the organisation
/// has others.
fn delete_payment_method(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        let m = w.payment_method(id)?;
        let others = w
            .payment_methods
            .values()
            .any(|o| o.rec.organization == m.rec.organization && o.rec.id != id);
        if m.rec.default && others {
            return Err(ApiError::unprocessable(
                "Cannot delete the default payment method: make another the default first",
            ));
        }
        w.delete_record(Kind::PaymentMethod, id, now)?;
        Ok(Reply::Empty)
    })
}
