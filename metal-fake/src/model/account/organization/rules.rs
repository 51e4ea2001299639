//! Creating and updating an organisation, and the bounds of its fields.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Address, Coordinates, Kept, Organization};
use crate::call::ApiError;
use crate::document::MAX_NAME;
use crate::model::access::Access;
use crate::model::bounds::{refuse, room_for, too_long, MAX_TEXT};
use crate::model::World;

/// Why an organisation's fields are out of bounds (`None`: within them).
pub(crate) fn check(o: &Organization) -> Option<String> {
    let customdata = serde_json::Value::Object(o.customdata.clone())
        .to_string()
        .len();
    [
        too_long("Name", &o.name, MAX_NAME),
        o.description
            .as_deref()
            .and_then(|d| too_long("Description", d, MAX_TEXT)),
        o.website
            .as_deref()
            .and_then(|d| too_long("Website", d, MAX_NAME)),
        o.twitter
            .as_deref()
            .and_then(|d| too_long("Twitter", d, MAX_NAME)),
        (customdata > MAX_TEXT)
            .then(|| format!("Customdata is too long (maximum is {MAX_TEXT} bytes)")),
        (o.members.len() > crate::document::MAX_RECORDS)
            .then(|| "Members are too many".to_string()),
        o.logo
            .as_deref()
            .and_then(|l| too_long("Logo", l, MAX_NAME)),
    ]
    .into_iter()
    .chain(
        [&o.address, &o.billing_address]
            .into_iter()
            .flatten()
            .map(address_bounds),
    )
    .flatten()
    .next()
}

/// Why an address's fields are out of bounds.
fn address_bounds(a: &Address) -> Option<String> {
    let c = a.coordinates.as_ref();
    [
        Some(a.address.as_str()),
        a.address2.as_deref(),
        a.city.as_deref(),
        a.state.as_deref(),
        Some(a.zip_code.as_str()),
        Some(a.country.as_str()),
        c.map(|c| c.latitude.as_str()),
        c.map(|c| c.longitude.as_str()),
    ]
    .into_iter()
    .flatten()
    .find_map(|v| too_long("An address field", v, MAX_NAME))
}

/// An address of a request: `422` without its `address`, `country` or
/// `zip_code` (the spec's `Address` requires them, as the Terraform
/// provider's organisation resource does).
fn address(which: &str, a: &types::Address) -> Result<Address, ApiError> {
    let given = |field: &str, v: &Option<String>| match v.as_deref().map(str::trim) {
        Some(v) if !v.is_empty() => Ok(v.to_string()),
        _ => Err(ApiError::unprocessable(format!(
            "{which} {field} can't be blank"
        ))),
    };
    Ok(Address {
        address: given("address", &a.address)?,
        address2: a.address2.clone(),
        city: a.city.clone(),
        state: a.state.clone(),
        zip_code: given("zip_code", &a.zip_code)?,
        country: given("country", &a.country)?,
        coordinates: a.coordinates.as_ref().and_then(|c| {
            Some(Coordinates {
                latitude: c.latitude.clone()?,
                longitude: c.longitude.clone()?,
            })
        }),
    })
}

/// `body`'s fields over `o`'s (a field left out is left alone).
fn apply(o: &mut Organization, body: &types::OrganizationInput) -> Result<(), ApiError> {
    if let Some(a) = &body.address {
        o.address = Some(address("Address", a)?);
    }
    if let Some(a) = &body.billing_address {
        o.billing_address = Some(address("Billing address", a)?);
    }
    if let Some(at) = body.enforce_2fa_at {
        o.enforce_2fa_at = Some(at);
    }
    if let Some(v) = &body.name {
        o.name.clone_from(v);
    }
    if let Some(v) = &body.description {
        o.description = Some(v.clone());
    }
    if let Some(v) = &body.website {
        o.website = Some(v.clone());
    }
    if let Some(v) = &body.twitter {
        o.twitter = Some(v.clone());
    }
    if let Some(v) = &body.customdata {
        o.customdata.clone_from(v);
    }
    Ok(())
}

impl World {
    /// User `user` is a member of `organization` from `now` on (an
    /// invitation accepted); `404` when there is no such organisation.
    pub(crate) fn add_organization_member(
        &mut self,
        organization: Uuid,
        user: Uuid,
        now: Instant,
    ) -> Result<(), ApiError> {
        self.organizations
            .rows()
            .update(&mut self.journal, organization, "member added", now, |o| {
                if !o.rec.members.contains(&user) {
                    o.rec.members.push(user);
                }
            })
            .ok_or_else(ApiError::not_found)
    }

    /// User `user` is no longer a member of `organization` (removed by
    /// the organisation); `404` when there is no such organisation.
    pub(crate) fn remove_organization_member(
        &mut self,
        organization: Uuid,
        user: Uuid,
        now: Instant,
    ) -> Result<(), ApiError> {
        self.organizations
            .rows()
            .update(
                &mut self.journal,
                organization,
                "member removed",
                now,
                |o| {
                    o.rec.members.retain(|m| *m != user);
                },
            )
            .ok_or_else(ApiError::not_found)
    }

    /// `createOrganization`: a named organisation, whose members are its
    /// maker (the world's own user is a member of every one).
    pub(crate) fn create_organization(
        &mut self,
        body: &types::OrganizationInput,
        caller: &Access,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let maker = caller.user_or_denied(self)?;
        room_for("Organizations", self.organizations.len())?;
        let name = body.name.clone().unwrap_or_default();
        if name.trim().is_empty() {
            return Err(ApiError::unprocessable("Name can't be blank"));
        }
        let id = Uuid::new_v4();
        let mut rec = Organization::named(id, &name);
        apply(&mut rec, body)?;
        if maker != self.user {
            rec.members.push(maker);
        }
        refuse([check(&rec)])?;
        insert(self, rec, now);
        Ok(id)
    }

    /// `updateOrganization`.
    pub(crate) fn update_organization(
        &mut self,
        id: Uuid,
        body: &types::OrganizationInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let mut rec = self.organization(id)?.rec.clone();
        apply(&mut rec, body)?;
        if rec.name.trim().is_empty() {
            return Err(ApiError::unprocessable("Name can't be blank"));
        }
        refuse([check(&rec)])?;
        self.organizations
            .rows()
            .update(&mut self.journal, id, "updated", now, |o| o.rec = rec)
            .ok_or_else(ApiError::not_found)
    }
}

/// Adds an organisation.
pub(crate) fn insert(w: &mut World, rec: Organization, now: Instant) {
    w.organizations
        .rows()
        .insert(&mut w.journal, rec.id, now, |meta| Kept { rec, meta });
}
