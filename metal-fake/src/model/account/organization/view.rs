//! An organisation as the API sends it, straight to bytes.

use serde::Serialize;
use uuid::Uuid;

use super::record::{Address, Kept};
use super::COLLECTION;
use crate::model::render::{Expand, Href, Stamp, Stub};
use crate::model::resource::Scope;
use crate::model::World;

/// An organisation in a reply.
#[derive(Serialize)]
pub(crate) struct OrganizationView<'a> {
    id: Uuid,
    href: Href,
    name: &'a str,
    description: Option<&'a str>,
    website: Option<&'a str>,
    twitter: Option<&'a str>,
    /// metal-cli's `organization get` reads it unchecked.
    created_at: Stamp,
    updated_at: Stamp,
    /// Its projects the caller sees, as links.
    projects: Vec<Stub>,
    /// Its members, as links.
    members: Vec<Stub>,
    /// The memberships of its projects, as links.
    memberships: Vec<Stub>,
    /// The fake bills nothing.
    credit_amount: f32,
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    /// Only when included: "the address is not included by default"
    /// (metal-cli's organisation helper, which asks for both because
    /// metalv1 refuses the default the real API sent, which lacked the
    /// required fields); whole when included, `null` when included and
    /// unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<Option<&'a Address>>,
    /// As `address`.
    #[serde(skip_serializing_if = "Option::is_none")]
    billing_address: Option<Option<&'a Address>>,
    logo: Option<&'a str>,
    enforce_2fa_at: Option<Stamp>,
    /// `null`: no public source gives its values.
    terms: (),
}

impl World {
    /// `o` as the API shows it to `caller`, its addresses left out.
    pub(crate) fn organization_view<'a>(
        &'a self,
        o: &'a Kept,
        caller: &Scope,
    ) -> OrganizationView<'a> {
        self.organization_view_with(o, caller, &Expand::default())
    }

    /// `o` as the API shows it to `caller`, with its addresses when
    /// `expand` includes them.
    pub(crate) fn organization_view_with<'a>(
        &'a self,
        o: &'a Kept,
        caller: &Scope,
        expand: &Expand,
    ) -> OrganizationView<'a> {
        let mut projects: Vec<_> = self
            .projects
            .values()
            .filter(|p| p.organization() == o.rec.id && caller.sees(p.rec.id))
            .collect();
        projects.sort_by_key(|p| p.meta.seq);
        OrganizationView {
            id: o.rec.id,
            href: Href::new(COLLECTION, o.rec.id),
            name: &o.rec.name,
            description: o.rec.description.as_deref(),
            website: o.rec.website.as_deref(),
            twitter: o.rec.twitter.as_deref(),
            created_at: Stamp(self.clock.wall(o.meta.created)),
            updated_at: Stamp(self.clock.wall(o.meta.updated)),
            projects: projects
                .into_iter()
                .map(|p| Stub::new(crate::model::project::COLLECTION, p.rec.id))
                .collect(),
            members: o
                .rec
                .members
                .iter()
                .map(|u| Stub::new(crate::model::user::COLLECTION, *u))
                .collect(),
            memberships: self
                .memberships
                .values()
                .filter(|m| {
                    self.projects
                        .get(&m.rec.project)
                        .is_some_and(|p| p.organization() == o.rec.id)
                })
                .map(|m| Stub::new(crate::model::membership::COLLECTION, m.rec.id))
                .collect(),
            credit_amount: 0.0,
            customdata: &o.rec.customdata,
            address: expand.includes("address").then_some(o.rec.address.as_ref()),
            billing_address: expand
                .includes("billing_address")
                .then_some(o.rec.billing_address.as_ref()),
            logo: o.rec.logo.as_deref(),
            enforce_2fa_at: o.rec.enforce_2fa_at.map(Stamp),
            terms: (),
        }
    }
}
