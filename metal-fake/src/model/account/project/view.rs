//! A project as the API sends it, and as other records name it.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::organization;
use crate::model::render::{Empty, Href, Stamp, Stub, Whole};
use crate::model::World;

/// A project in a reply.
#[derive(Serialize)]
pub(crate) struct ProjectView<'a> {
    id: Uuid,
    href: Href,
    name: &'a str,
    created_at: Stamp,
    updated_at: Stamp,
    #[serde(rename = "type")]
    type_: &'static str,
    /// The Terraform provider takes `organization_id` from its href.
    organization: Stub,
    tags: &'a [String],
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    backend_transfer_enabled: bool,
    /// What pays for it: its organisation's default payment method (a
    /// derived ID, reading `404`, when the organisation has none).
    payment_method: Stub,
    /// Its BGP configuration, once requested.
    bgp_config: Option<Stub>,
    /// The world's one user.
    members: [Stub; 1],
    memberships: [Stub; 1],
    invitations: Empty,
    volumes: Empty,
    max_devices: EmptyObject,
    network_status: EmptyObject,
    /// Its devices, as links, oldest first: packngo's `Project.Devices`.
    devices: Vec<Stub>,
    /// Its SSH keys, as links, oldest first: packngo's `Project.SSHKeys`.
    ssh_keys: Vec<Stub>,
    /// `null`: no public source gives its value (packngo's `Project.URL`
    /// is the href).
    url: (),
}

/// `{}`.
#[derive(Serialize)]
struct EmptyObject {}

/// A project where another record names it: included, or a stub.
pub(crate) type ProjectField<'a> = Whole<ProjectView<'a>>;

impl World {
    /// `p` as the API shows it.
    pub(crate) fn project_view<'a>(&'a self, p: &'a Kept) -> ProjectView<'a> {
        let id = p.rec.id;
        ProjectView {
            id,
            href: Href::new(COLLECTION, id),
            name: p.name(),
            created_at: Stamp(self.clock.wall(p.meta.created)),
            updated_at: Stamp(self.clock.wall(p.meta.updated)),
            type_: p.rec.project_type.as_str(),
            organization: Stub::new(organization::COLLECTION, p.organization()),
            tags: &p.rec.tags,
            customdata: &p.rec.customdata,
            payment_method: Stub::new(
                crate::model::billing::PAYMENT_METHOD_COLLECTION,
                self.default_payment_method(p.organization())
                    .unwrap_or_else(|| Uuid::from_u128(!p.organization().as_u128())),
            ),
            backend_transfer_enabled: p.rec.backend_transfer_enabled,
            bgp_config: p
                .rec
                .bgp_config
                .as_ref()
                .map(|b| Stub::new("bgp-configs", b.id.unwrap_or_default())),
            members: [Stub::new(crate::model::user::COLLECTION, self.user)],
            // The user's membership of it: an ID derived from both.
            memberships: [Stub::new(
                "memberships",
                Uuid::from_u128(id.as_u128() ^ self.user.as_u128()),
            )],
            invitations: Empty,
            volumes: Empty,
            max_devices: EmptyObject {},
            network_status: EmptyObject {},
            devices: self.project_devices(id),
            ssh_keys: self.project_keys(id),
            url: (),
        }
    }

    /// The devices of project `id`, as links, oldest first.
    fn project_devices(&self, id: Uuid) -> Vec<Stub> {
        Stub::oldest_first(
            crate::model::device::COLLECTION,
            // The project's devices alone, through the table's index by
            // project (a device's scope is its project).
            self.devices.of_project(Some(id)),
            |d| (d.meta.seq, d.rec.id),
        )
    }

    /// The SSH keys of project `id`, as links, oldest first.
    fn project_keys(&self, id: Uuid) -> Vec<Stub> {
        Stub::oldest_first(
            crate::model::ssh_key::COLLECTION,
            self.ssh_keys.of_project(Some(id)),
            |k| (k.meta.seq, k.rec.id),
        )
    }

    /// The project `id` where a record names it: the whole project when
    /// `include` (and it exists), else a stub.
    pub(crate) fn project_field(&self, id: Uuid, include: bool) -> ProjectField<'_> {
        match self.projects.get(&id) {
            Some(p) if include => ProjectField::Full(Box::new(self.project_view(p))),
            _ => ProjectField::Stub(Stub::new(COLLECTION, id)),
        }
    }
}
