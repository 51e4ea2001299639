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

use super::PAYMENT_METHOD_COLLECTION as COLLECTION;
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
    /// The card's brand, as the processor reports it (`Visa`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_type: Option<String>,
    /// The card's billing email address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// The month the card expires (`01` to `12`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_month: Option<String>,
    /// The year the card expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_year: Option<String>,
    /// The card's billing address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_address: Option<BillingAddress>,
}

/// A card's billing address: the spec's `PaymentMethodBillingAddress`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BillingAddress {
    /// Its country, as a two-letter ISO 3166-1 code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_code_alpha2: Option<String>,
    /// Its postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    /// Its street address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_address: Option<String>,
}

impl BillingAddress {
    /// The address an update's `billing_address` gives: its three fields,
    /// each text (`422` for one that is not).
    fn of(given: &serde_json::Map<String, serde_json::Value>) -> Result<Self, ApiError> {
        let field = |name: &str| match given.get(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(v)) => Ok(Some(v.clone())),
            Some(_) => Err(ApiError::unprocessable(format!(
                "billing_address.{name} must be text"
            ))),
        };
        Ok(Self {
            country_code_alpha2: field("country_code_alpha2")?,
            postal_code: field("postal_code")?,
            street_address: field("street_address")?,
        })
    }

    /// Why its fields are out of bounds.
    fn too_long(&self) -> Option<String> {
        [
            &self.country_code_alpha2,
            &self.postal_code,
            &self.street_address,
        ]
        .into_iter()
        .flatten()
        .find_map(|v| too_long("billing_address", v, MAX_NAME))
    }
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
        let problem = too_long("name", &m.name, MAX_NAME)
            .or_else(|| {
                [
                    ("cardholder_name", &m.cardholder_name),
                    ("card_type", &m.card_type),
                    ("email", &m.email),
                    ("expiration_month", &m.expiration_month),
                    ("expiration_year", &m.expiration_year),
                ]
                .into_iter()
                .find_map(|(name, v)| v.as_deref().and_then(|v| too_long(name, v, MAX_NAME)))
            })
            .or_else(|| {
                m.billing_address
                    .as_ref()
                    .and_then(BillingAddress::too_long)
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
    #[serde(skip_serializing_if = "Option::is_none")]
    card_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expiration_month: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expiration_year: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    billing_address: Option<&'a BillingAddress>,
    /// The projects it pays for: its organisation's, when it is the
    /// organisation's default (as each project's `payment_method` says).
    projects: Vec<Stub>,
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
            card_type: m.rec.card_type.as_deref(),
            email: m.rec.email.as_deref(),
            expiration_month: m.rec.expiration_month.as_deref(),
            expiration_year: m.rec.expiration_year.as_deref(),
            billing_address: m.rec.billing_address.as_ref(),
            projects: Stub::oldest_first(
                crate::model::project::COLLECTION,
                self.projects
                    .values()
                    .filter(|p| m.rec.default && p.organization() == m.rec.organization),
                |p| (p.meta.seq, p.rec.id),
            ),
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
                    card_type: None,
                    email: None,
                    expiration_month: None,
                    expiration_year: None,
                    billing_address: None,
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
    let billing_address = body
        .billing_address
        .as_ref()
        .map(BillingAddress::of)
        .transpose()?;
    refuse([
        body.name
            .as_deref()
            .and_then(|n| too_long("Name", n, MAX_NAME)),
        body.cardholder_name
            .as_deref()
            .and_then(|n| too_long("Cardholder name", n, MAX_NAME)),
        body.expiration_month
            .as_deref()
            .and_then(|n| too_long("Expiration month", n, MAX_NAME)),
        billing_address.as_ref().and_then(BillingAddress::too_long),
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
                if let Some(v) = &body.expiration_month {
                    m.rec.expiration_month = Some(v.clone());
                }
                if let Some(v) = body.expiration_year {
                    m.rec.expiration_year = Some(v.to_string());
                }
                if let Some(v) = &billing_address {
                    m.rec.billing_address = Some(v.clone());
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
