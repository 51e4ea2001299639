//! Creating and updating an organisation, and the bounds of its fields.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::operations::insert;
use super::record::Organization;
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
        [&o.address, &o.billing_address]
            .into_iter()
            .flatten()
            .flat_map(|a| {
                [
                    Some(&a.address),
                    a.address2.as_ref(),
                    a.city.as_ref(),
                    a.state.as_ref(),
                    Some(&a.zip_code),
                    Some(&a.country),
                ]
            })
            .flatten()
            .find_map(|t| too_long("Address", t, MAX_NAME)),
    ]
    .into_iter()
    .flatten()
    .next()
}

/// `body`'s fields over `o`'s (a field left out is left alone).
fn apply(o: &mut Organization, body: &types::OrganizationInput) {
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
    if let Some(v) = &body.address {
        o.address = Some(super::record::Address::of(v));
    }
    if let Some(v) = &body.billing_address {
        o.billing_address = Some(super::record::Address::of(v));
    }
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
        apply(&mut rec, body);
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
        apply(&mut rec, body);
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
