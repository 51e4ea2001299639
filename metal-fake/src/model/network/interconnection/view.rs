//! An interconnection and its ports as the API sends them, written
//! straight to bytes: the metro whole, the organisation and project stubs
//! unless included, every port with its virtual circuits, a shared
//! connection's service tokens.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::port_href;
use super::record::{
    FabricProvider, InterconnectionMode, InterconnectionStatus, InterconnectionType, Kept,
    Redundancy, TokenSide,
};
use crate::model::catalog::{FacilityView, MetroView};
use crate::model::organization::{self, OrganizationView};
use crate::model::project::ProjectField;
use crate::model::render::{Expand, ShortId, Stamp, Stub};
use crate::model::resource::Scope;
use crate::model::virtual_circuit::VcView;
use crate::model::World;

/// How long a service token stays usable after its connection is made
/// (a fixed figure of the fake's).
const TOKEN_LIFETIME: std::time::Duration = std::time::Duration::from_secs(180 * 24 * 3600);

/// A connection's organisation: whole when included, else a stub.
#[derive(Serialize)]
#[serde(untagged)]
enum OrganizationField<'a> {
    Full(Box<OrganizationView<'a>>),
    Stub(Stub),
}

/// A connection in a reply.
#[derive(Serialize)]
pub(crate) struct InterconnectionView<'a> {
    id: Uuid,
    name: &'a str,
    description: &'a str,
    contact_email: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    facility: Option<FacilityView<'a>>,
    metro: MetroView<'a>,
    /// Left out of a shared connection's reply (upstream spec's `mode`:
    /// shared connections won't have this field).
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<InterconnectionMode>,
    organization: OrganizationField<'a>,
    project: Option<ProjectField<'a>>,
    ports: Vec<PortView<'a>>,
    redundancy: Redundancy,
    requested_by: Stub,
    service_tokens: Vec<TokenView>,
    speed: u64,
    status: InterconnectionStatus,
    tags: &'a [String],
    #[serde(rename = "type")]
    kind: InterconnectionType,
    fabric_provider: Option<&'a FabricProvider>,
    /// A shared connection's Fabric authorization code (none for a
    /// dedicated one).
    authorization_code: Option<Uuid>,
    /// `null`: deprecated (the service tokens stand for it).
    token: (),
    created_at: Stamp,
    updated_at: Stamp,
}

/// A connection's port in a reply.
#[derive(Serialize)]
pub(crate) struct PortView<'a> {
    id: Uuid,
    href: String,
    name: String,
    role: &'static str,
    speed: u64,
    status: InterconnectionStatus,
    link_status: &'static str,
    organization: Stub,
    virtual_circuits: Vec<VcView<'a>>,
    /// Its switch's short ID: made up, stable per port.
    switch_id: ShortId,
}

/// A shared connection's service token in a reply.
#[derive(Serialize)]
struct TokenView {
    id: Uuid,
    expires_at: Stamp,
    max_allowed_speed: u64,
    role: &'static str,
    service_token_type: TokenSide,
    state: &'static str,
}

/// A connection's port list.
#[derive(Serialize)]
pub(crate) struct PortList<'a> {
    pub(crate) ports: Vec<PortView<'a>>,
}

/// The role of a connection's `index`th port.
fn role(index: usize) -> &'static str {
    if index == 0 {
        "primary"
    } else {
        "secondary"
    }
}

/// The Fabric authorization code of shared connection `id`: a UUID of
/// its own, derived from the connection's (so stable across a save and a
/// load), as Fabric's `authentication_key` for a `METAL_NETWORK` access
/// point takes it.
fn authorization_code(id: Uuid) -> Uuid {
    // The XOR leaves the version and variant bits (zero in the mask) as
    // the connection's.
    Uuid::from_u128(id.as_u128() ^ 0xa11c_0de0_5a5a_0a5a_0a5a_5a5a_5a5a_5a5a)
}

/// The speed a shared `z_side` connection made without one allows.
const Z_SIDE_MAX: u64 = 10_000_000_000;

impl World {
    /// `c` as the API shows it to `caller` at `now`, with `expand` applied.
    pub(crate) fn interconnection_view<'a>(
        &'a self,
        c: &'a Kept,
        expand: &Expand,
        caller: &Scope,
        now: Instant,
    ) -> InterconnectionView<'a> {
        let rec = &c.rec;
        let organization = match self.organizations.get(&rec.organization) {
            Some(o) if expand.includes("organization") => {
                OrganizationField::Full(Box::new(self.organization_view(o, caller)))
            }
            _ => OrganizationField::Stub(Stub::new(organization::COLLECTION, rec.organization)),
        };
        InterconnectionView {
            id: rec.id,
            name: &rec.name,
            description: rec.description.as_deref().unwrap_or_default(),
            contact_email: rec.contact_email.as_deref().unwrap_or_default(),
            facility: self
                .connection_facility(c)
                .map(|f| self.catalog.facility_view(f)),
            metro: self.catalog.metro_of_code(&rec.metro),
            // Shared connections have no mode (the spec's `mode`: "Shared
            // connections won't have this field").
            mode: (!rec.kind.is_shared()).then_some(rec.mode),
            organization,
            project: rec
                .project
                .map(|p| self.project_field(p, expand.includes("project"))),
            ports: (0..rec.ports.len())
                .filter_map(|i| self.interconnection_port_view(c, i, &expand.nested("ports"), now))
                .collect(),
            redundancy: rec.redundancy,
            requested_by: Stub::new(crate::model::user::COLLECTION, self.user),
            service_tokens: self.interconnection_tokens(c),
            speed: rec.speed,
            status: rec.status,
            tags: &rec.tags,
            kind: rec.kind,
            fabric_provider: rec.fabric_provider.as_ref(),
            authorization_code: rec.kind.is_shared().then(|| authorization_code(rec.id)),
            token: (),
            created_at: Stamp(self.clock.wall(c.meta.created)),
            updated_at: Stamp(self.clock.wall(c.meta.updated)),
        }
    }

    /// Service token `token` of a shared connection, with the connection
    /// it is of, as the connection's `service_tokens` show it.
    pub(crate) fn service_token_view(&self, token: Uuid) -> Option<(&Kept, impl Serialize)> {
        let c = self
            .interconnections
            .values()
            .find(|c| c.rec.service_tokens.contains(&token))?;
        let view = self
            .interconnection_tokens(c)
            .into_iter()
            .find(|t| t.id == token)?;
        Some((c, view))
    }

    /// The service tokens of `c`, one a port.
    fn interconnection_tokens(&self, c: &Kept) -> Vec<TokenView> {
        let rec = &c.rec;
        let max = if rec.speed == 0 {
            Z_SIDE_MAX
        } else {
            rec.speed
        };
        let state = match rec.status {
            InterconnectionStatus::Requested => "inactive",
            InterconnectionStatus::Active => "active",
        };
        rec.service_tokens
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                Some(TokenView {
                    id: *t,
                    expires_at: Stamp(self.clock.wall(c.meta.created + TOKEN_LIFETIME)),
                    max_allowed_speed: max,
                    role: role(i),
                    service_token_type: rec.service_token_type?,
                    state,
                })
            })
            .collect()
    }

    /// The facility of `c`: the one it was made in, else the first of its
    /// metro's in the catalog (a port is in one); none when the catalog
    /// has no facility there.
    pub(crate) fn connection_facility<'a>(&'a self, c: &'a Kept) -> Option<&'a str> {
        c.rec.facility.as_deref().or_else(|| {
            self.catalog
                .facilities
                .iter()
                .find(|f| f.metro == c.rec.metro)
                .map(|f| f.code.as_str())
        })
    }

    /// The `index`th port of `c`, with its virtual circuits.
    pub(crate) fn interconnection_port_view<'a>(
        &'a self,
        c: &'a Kept,
        index: usize,
        expand: &Expand,
        now: Instant,
    ) -> Option<PortView<'a>> {
        let id = *c.rec.ports.get(index)?;
        let active = c.rec.status == InterconnectionStatus::Active;
        let short = &c.rec.id.simple().to_string()[..8];
        Some(PortView {
            id,
            href: port_href(c.rec.id, id),
            name: format!("{}-{short}-{}", c.rec.metro, role(index)),
            role: role(index),
            speed: c.rec.speed,
            status: c.rec.status,
            link_status: if active { "up" } else { "down" },
            organization: Stub::new(organization::COLLECTION, c.rec.organization),
            virtual_circuits: self
                .circuits_on_port(id)
                .into_iter()
                .map(|vc| self.vc_view(vc, &expand.nested("virtual_circuits"), now))
                .collect(),
            switch_id: ShortId(id),
        })
    }
}
