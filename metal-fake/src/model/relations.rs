//! The relations between the world's records, declared once: which kind
//! of record names which (child → parent), and what deleting the parent
//! does to its children: refused while there are any ([`OnDelete::Restrict`],
//! with the real API's message), the children go too
//! ([`OnDelete::Cascade`]), or they stay without the link
//! ([`OnDelete::Unlink`]).
//!
//! [`RELATIONS`] is read by every delete ([`World::delete_record`]: the
//! whole tree is checked before anything changes), by the timed removal
//! of deleted devices ([`World::remove_record`]), and after every load
//! ([`World::dangling`]: no record names one the world lacks), so what
//! the API leaves behind can always be saved and loaded again. A delete
//! finds a parent's children through the world's index (`index`: kept
//! from the journal's changes as the children change), never by reading
//! whole tables.
//!
//! ```text
//! child            → parent             on delete
//! project          → organization       cascade   (its empty projects; a project's own restrictions hold)
//! device           → project            restrict  (but one deprovisioning: cascade)
//! hw reservation   → project            restrict
//! SSH key          → project            cascade   (a project's keys)
//! license          → project            cascade   (a project's licenses)
//! spot request     → project            cascade
//! device           → spot request       unlink    (the request keeps the list)
//! batch            → project            cascade
//! self-service res → project            cascade
//! device           → batch              unlink    (the batch keeps the list)
//! IP reservation   → project            cascade   (released with it)
//! IP assignment    → IP reservation     restrict
//! IP assignment    → device             cascade
//! VLAN             → project            cascade   (a project's VLANs)
//! port             → device             cascade   (a device's ports' state)
//! port             → VLAN               restrict  (a VLAN on a port stays)
//! BGP session      → device             cascade
//! Metal Gateway    → project            restrict
//! Metal Gateway    → VLAN               cascade   (the VLAN's delete takes its gateway)
//! Metal Gateway    → IP reservation     restrict  (its block stays bound)
//! IP reservation   → Metal Gateway      cascade   (a block made with the gateway)
//! VRF              → project            cascade   (a project's VRFs)
//! IP reservation   → VRF                restrict  (a VRF's blocks)
//! VRF route        → VRF                cascade   (a VRF's routes)
//! VRF route        → IP reservation     cascade   (its next hop's block)
//! BGP dyn. neighbour → Metal Gateway    cascade
//! global BGP range → project            cascade
//! elastic IP       → Metal Gateway      cascade
//! elastic IP       → IP reservation     restrict  (its addresses' block)
//! interconnection  → organization       restrict
//! interconnection  → project            restrict  (a shared one's, or the one it came through)
//! virtual circuit  → interconnection    restrict  (a dedicated port's circuits)
//! virtual circuit  → interconnection    cascade   (a shared connection's own)
//! virtual circuit  → VLAN               restrict
//! virtual circuit  → project            restrict
//! port VLAN batch  → device             cascade
//! token scope      → project            unlink
//! token scope      → organization       unlink
//! API key          → project            cascade   (a project's keys)
//! API key          → user               cascade   (a user's keys)
//! membership       → project            cascade
//! membership       → user               cascade
//! invitation       → organization       cascade
//! invitation       → project            cascade   (one it invites to)
//! transfer         → project            cascade
//! transfer         → organization       cascade   (its target)
//! email            → user               cascade
//! payment method   → organization       cascade
//! ```
//!
//! A restriction holds unless every child it names goes in the same
//! delete (a gateway's own block names the gateway, which the gateway's
//! delete takes too). Where each decision comes from (the real API's
//! messages, the client cleanups it let pass): `metal_fake::fidelity`,
//! "Deletes with dependents".

use tokio::time::Instant;
use uuid::Uuid;

use super::device::{DeviceState, FAILED_PROVISIONING_PROJECT};
use super::World;
use crate::call::ApiError;
use crate::document::WorldError;

mod index;
mod kind;
mod links;

pub(crate) use index::LinkIndex;
pub(crate) use kind::Kind;

/// What deleting a parent does to its children of one relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnDelete {
    /// Refused while it has any (`422` with this message).
    Restrict(&'static str),
    /// They are deleted with it (and their own children by the same rules).
    Cascade,
    /// They stay, no longer naming it.
    Unlink,
}

/// One declared relation.
pub(crate) struct Relation {
    pub(crate) child: Kind,
    pub(crate) parent: Kind,
    pub(crate) on_delete: OnDelete,
    /// Who keeps its links, and how one record's are read. A token's
    /// index in the world's list is its ID here (tokens have none).
    links: Linked,
}

/// Where a relation's links are kept, and how one record's are read.
#[derive(Clone, Copy)]
pub(crate) enum Linked {
    /// By the child: the parents the child with this ID names (none when
    /// the world does not hold it). The world's index ([`LinkIndex`])
    /// finds a parent's children, kept as the children change.
    ByChild(fn(&World, Uuid) -> Vec<Uuid>),
    /// By the parent: the children the parent with this ID lists (a spot
    /// market request's devices), read from the parent itself.
    ByParent(fn(&World, Uuid) -> Vec<Uuid>),
}

use Linked::{ByChild, ByParent};

/// `Uuid` of a token's index (tokens have no ID of their own).
fn token_key(index: usize) -> Uuid {
    Uuid::from_u128(index as u128)
}

/// The token whose key ([`token_key`]) is `id`.
fn token(w: &World, id: Uuid) -> Option<&super::access::KeptToken> {
    usize::try_from(id.as_u128())
        .ok()
        .and_then(|i| w.tokens.get(i))
}

/// The one parent named, if any.
fn one(parent: Option<Uuid>) -> Vec<Uuid> {
    parent.into_iter().collect()
}

/// The declared relations (the table in the module's documentation).
pub(crate) static RELATIONS: &[Relation] = &[
    // metal-cli's project test deletes an organisation still holding the
    // project it made there, and stops on any error but a 404: the real
    // API took the organisation's empty projects with it.
    Relation {
        child: Kind::Project,
        parent: Kind::Organization,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.projects.get(&id).and_then(|p| p.rec.organization))),
    },
    Relation {
        child: Kind::Device,
        parent: Kind::Project,
        on_delete: OnDelete::Restrict("Cannot delete a project that has devices"),
        // A device whose provisioning failed has left for a project no
        // world holds (as the real API moved it): not a link.
        links: ByChild(|w, id| device_link(w, id, false)),
    },
    // packngo's test teardown deletes its device and at once its project,
    // and fails on any error: a device already deleted (deprovisioning)
    // holds no project, and goes with it.
    Relation {
        child: Kind::Device,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| device_link(w, id, true)),
    },
    Relation {
        child: Kind::HardwareReservation,
        parent: Kind::Project,
        on_delete: OnDelete::Restrict("Cannot delete a project that has hardware reservations"),
        links: ByChild(|w, id| one(w.reservations.get(&id).map(|r| r.rec.project))),
    },
    Relation {
        child: Kind::SshKey,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.ssh_keys.get(&id).and_then(|k| k.rec.project))),
    },
    Relation {
        child: Kind::License,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.licenses.get(&id).map(|l| l.rec.project))),
    },
    Relation {
        child: Kind::SpotMarketRequest,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.spot_requests.get(&id).map(|r| r.rec.project))),
    },
    // The request keeps the list of its devices: deleting it drops the
    // links (its devices stay, unless `force_termination` deletes them
    // first); a device gone is no longer linked.
    Relation {
        child: Kind::Device,
        parent: Kind::SpotMarketRequest,
        on_delete: OnDelete::Unlink,
        links: ByParent(|w, id| {
            w.spot_requests
                .get(&id)
                .map(|r| w.request_devices(r).collect())
                .unwrap_or_default()
        }),
    },
    Relation {
        child: Kind::Batch,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.batches.get(&id).map(|b| b.rec.project))),
    },
    // As a spot market request's: the batch keeps the list.
    Relation {
        child: Kind::Device,
        parent: Kind::Batch,
        on_delete: OnDelete::Unlink,
        links: ByParent(|w, id| {
            w.batches
                .get(&id)
                .map(|b| w.batch_devices(b).collect())
                .unwrap_or_default()
        }),
    },
    Relation {
        child: Kind::SelfServiceReservation,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.self_service_reservations.get(&id).map(|r| r.rec.project))),
    },
    Relation {
        child: Kind::IpReservation,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.ips.reservations().get(&id).map(|r| r.rec.project))),
    },
    Relation {
        child: Kind::IpAssignment,
        parent: Kind::IpReservation,
        on_delete: OnDelete::Restrict(
            "The IP reservation has assignments: unassign its addresses before deleting it",
        ),
        links: ByChild(|w, id| one(w.ips.assignments().get(&id).map(|a| a.reservation))),
    },
    Relation {
        child: Kind::IpAssignment,
        parent: Kind::Device,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.ips.assignments().get(&id).map(|a| a.rec.device))),
    },
    Relation {
        child: Kind::VirtualNetwork,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.vlans.get(&id).map(|v| v.rec.project))),
    },
    Relation {
        child: Kind::Port,
        parent: Kind::Device,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.ports.get(&id).map(|p| p.state.device))),
    },
    Relation {
        child: Kind::Port,
        parent: Kind::VirtualNetwork,
        on_delete: OnDelete::Restrict("Cannot delete Virtual Network when port is assigned"),
        links: ByChild(|w, id| {
            w.ports
                .get(&id)
                .map(|p| p.state.vlans.clone())
                .unwrap_or_default()
        }),
    },
    Relation {
        child: Kind::BgpSession,
        parent: Kind::Device,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.bgp_sessions.get(&id).map(|s| s.rec.device))),
    },
    Relation {
        child: Kind::MetalGateway,
        parent: Kind::Project,
        on_delete: OnDelete::Restrict("Cannot delete a project that has Metal Gateways"),
        links: ByChild(|w, id| one(w.gateways.get(&id).map(|g| g.rec.project))),
    },
    // metal-cli's gateway test makes a gateway it never deletes, and its
    // cleanup deletes the VLAN (stopping on any error but a 404): the
    // real API's VLAN delete took the gateway with it.
    Relation {
        child: Kind::MetalGateway,
        parent: Kind::VirtualNetwork,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.gateways.get(&id).map(|g| g.rec.virtual_network))),
    },
    Relation {
        child: Kind::MetalGateway,
        parent: Kind::IpReservation,
        // The real API's words (terraform-provider-equinix PR 138's log),
        // the reservation's delete prefixing `IP Reservation "<cidr>" error:`.
        // A gateway's delete is done at once by default (metal-cli's
        // gateway tests, 2024). With a `deleting` lag (the 2022 behaviour,
        // `Timings::gateway_deleting`), a gateway being deleted lets go of
        // a public or private block it was given at once (packngo's
        // TestAccMetalGatewayExistingReservation deletes the block right
        // after the gateway); a VRF's block (and
        // one made with it, which goes with it) stays held until the
        // gateway is gone (PR 138's block was a VRF's, and
        // terraform-provider-equinix issue 135 names the VRF workflows).
        on_delete: OnDelete::Restrict("Cannot delete with associated metal gateway"),
        links: ByChild(|w, id| {
            one(w
                .gateways
                .get(&id)
                .filter(|g| {
                    !g.rec.deleting
                        || g.rec.own_block
                        || w.ips
                            .reservations()
                            .get(&g.rec.ip_reservation)
                            .is_some_and(|r| r.rec.kind == crate::model::IpReservationType::Vrf)
                })
                .map(|g| g.rec.ip_reservation))
        }),
    },
    // A private block made with its gateway goes with it.
    Relation {
        child: Kind::IpReservation,
        parent: Kind::MetalGateway,
        on_delete: OnDelete::Cascade,
        links: ByParent(|w, id| {
            w.gateways
                .get(&id)
                .filter(|g| g.rec.own_block)
                .map(|g| vec![g.rec.ip_reservation])
                .unwrap_or_default()
        }),
    },
    // No client cleanup deletes a project with a VRF still in it (the
    // VRFs always go first), so nothing shows the real API's answer: the
    // project takes its VRFs with it, as it takes its VLANs and blocks
    // (input taken rather than refused, the rule where it stays a guess).
    Relation {
        child: Kind::Vrf,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.vrfs.get(&id).map(|v| v.rec.project))),
    },
    Relation {
        child: Kind::IpReservation,
        parent: Kind::Vrf,
        on_delete: OnDelete::Restrict(
            "The VRF is in use: delete its IP reservations (and their gateways) first",
        ),
        links: ByChild(|w, id| one(w.ips.reservations().get(&id).and_then(|r| r.rec.vrf))),
    },
    Relation {
        child: Kind::Interconnection,
        parent: Kind::Organization,
        on_delete: OnDelete::Restrict("Cannot delete an organization that has interconnections"),
        links: ByChild(|w, id| one(w.interconnections.get(&id).map(|c| c.rec.organization))),
    },
    Relation {
        child: Kind::Interconnection,
        parent: Kind::Project,
        on_delete: OnDelete::Restrict("Cannot delete a project that has interconnections"),
        links: ByChild(|w, id| one(w.interconnections.get(&id).and_then(|c| c.rec.project))),
    },
    Relation {
        child: Kind::VirtualCircuit,
        parent: Kind::Interconnection,
        on_delete: OnDelete::Restrict(
            "The connection has virtual circuits: delete them before deleting it",
        ),
        links: ByChild(|w, id| circuit_link(w, id, false)),
    },
    Relation {
        child: Kind::VirtualCircuit,
        parent: Kind::Interconnection,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| circuit_link(w, id, true)),
    },
    Relation {
        child: Kind::VirtualCircuit,
        parent: Kind::Vrf,
        on_delete: OnDelete::Restrict("The VRF is in use: delete its virtual circuits first"),
        links: ByChild(|w, id| one(w.virtual_circuits.get(&id).and_then(|vc| vc.rec.vrf))),
    },
    Relation {
        child: Kind::VirtualCircuit,
        parent: Kind::IpReservation,
        on_delete: OnDelete::Restrict(
            "The IP reservation holds the subnet of a virtual circuit: delete the circuit first",
        ),
        links: ByChild(|w, id| one(w.virtual_circuits.get(&id).and_then(|vc| vc.rec.vrf_block))),
    },
    Relation {
        child: Kind::VirtualCircuit,
        parent: Kind::VirtualNetwork,
        on_delete: OnDelete::Restrict(
            "The virtual network is attached to a virtual circuit: detach it before deleting it",
        ),
        links: ByChild(|w, id| {
            one(w
                .virtual_circuits
                .get(&id)
                .and_then(|vc| vc.rec.virtual_network))
        }),
    },
    // metal-cli's `TestCli_Vrf_Route` update and get tests never delete
    // their route (`helper.CreateTestVrfRoute` registers a cleanup that
    // deletes an IP reservation by the route's ID: a tolerated 404), then
    // release the block holding its next hop and delete the VRF, each
    // cleanup failing on any error but a 404: the route goes with its
    // VRF, and with the block of its next hop.
    Relation {
        child: Kind::VrfRoute,
        parent: Kind::Vrf,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.vrf_routes.get(&id).map(|r| r.rec.vrf))),
    },
    Relation {
        child: Kind::VrfRoute,
        parent: Kind::IpReservation,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.vrf_routes.get(&id).and_then(|r| w.route_block(r)))),
    },
    Relation {
        child: Kind::BgpDynamicNeighbor,
        parent: Kind::MetalGateway,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| {
            one(w
                .bgp_dynamic_neighbors
                .get(&id)
                .map(|n| n.rec.metal_gateway))
        }),
    },
    Relation {
        child: Kind::ElasticIp,
        parent: Kind::MetalGateway,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.elastic_ips.get(&id).map(|e| e.rec.metal_gateway))),
    },
    Relation {
        child: Kind::ElasticIp,
        parent: Kind::IpReservation,
        on_delete: OnDelete::Restrict(
            "The IP reservation holds an elastic IP of a Metal Gateway: remove it first",
        ),
        links: ByChild(|w, id| one(w.elastic_ips.get(&id).map(|e| e.rec.ip_reservation))),
    },
    Relation {
        child: Kind::GlobalBgpRange,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.global_bgp_ranges.get(&id).map(|r| r.rec.project))),
    },
    Relation {
        child: Kind::VirtualCircuit,
        parent: Kind::Project,
        on_delete: OnDelete::Restrict("Cannot delete a project that has virtual circuits"),
        links: ByChild(|w, id| one(w.virtual_circuits.get(&id).map(|vc| vc.rec.project))),
    },
    Relation {
        child: Kind::PortVlanBatch,
        parent: Kind::Device,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.port_vlan_batches.get(&id).map(|b| b.device))),
    },
    Relation {
        child: Kind::Token,
        parent: Kind::Project,
        on_delete: OnDelete::Unlink,
        links: ByChild(|w, id| {
            token(w, id)
                .map(|t| t.rec.projects.clone())
                .unwrap_or_default()
        }),
    },
    Relation {
        child: Kind::Token,
        parent: Kind::Organization,
        on_delete: OnDelete::Unlink,
        links: ByChild(|w, id| {
            token(w, id)
                .map(|t| t.rec.organizations.clone())
                .unwrap_or_default()
        }),
    },
    Relation {
        child: Kind::ApiKey,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.api_keys.get(&id).and_then(|k| k.rec.project))),
    },
    Relation {
        child: Kind::ApiKey,
        parent: Kind::User,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| {
            one(w
                .api_keys
                .get(&id)
                .filter(|k| k.rec.project.is_none())
                .map(|k| k.user))
        }),
    },
    Relation {
        child: Kind::Membership,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.memberships.get(&id).map(|m| m.rec.project))),
    },
    Relation {
        child: Kind::Membership,
        parent: Kind::User,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.memberships.get(&id).map(|m| m.rec.user))),
    },
    Relation {
        child: Kind::Invitation,
        parent: Kind::Organization,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.invitations.get(&id).map(|i| i.rec.organization))),
    },
    Relation {
        child: Kind::Invitation,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| {
            w.invitations
                .get(&id)
                .map(|i| i.rec.projects.clone())
                .unwrap_or_default()
        }),
    },
    Relation {
        child: Kind::Transfer,
        parent: Kind::Project,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.transfers.get(&id).map(|t| t.rec.project))),
    },
    Relation {
        child: Kind::Transfer,
        parent: Kind::Organization,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.transfers.get(&id).map(|t| t.rec.target_organization))),
    },
    Relation {
        child: Kind::Email,
        parent: Kind::User,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.emails.get(&id).map(|e| e.rec.user))),
    },
    Relation {
        child: Kind::PaymentMethod,
        parent: Kind::Organization,
        on_delete: OnDelete::Cascade,
        links: ByChild(|w, id| one(w.payment_methods.get(&id).map(|m| m.rec.organization))),
    },
];

/// The project of device `id`, when it is deprovisioning (`deleted`), or
/// when it is not; none for a device of the failed-provisioning project.
fn device_link(w: &World, id: Uuid, deleted: bool) -> Vec<Uuid> {
    one(w
        .devices
        .get(&id)
        .filter(|d| d.rec.project != FAILED_PROVISIONING_PROJECT)
        .filter(|d| (d.state() == DeviceState::Deprovisioning) == deleted)
        .map(|d| d.rec.project))
}

/// The connection of circuit `id`, when it is a shared connection
/// (`shared`: made with it and going with it) or a dedicated one (or one
/// the world does not hold).
fn circuit_link(w: &World, id: Uuid, shared: bool) -> Vec<Uuid> {
    one(w
        .virtual_circuits
        .get(&id)
        .filter(|vc| {
            w.interconnections
                .get(&vc.rec.interconnection)
                .is_none_or(|c| c.rec.kind.is_shared() == shared)
        })
        .map(|vc| vc.rec.interconnection))
}

impl Relation {
    /// The children of `parent` in `w` (this relation the `index`th of
    /// [`RELATIONS`]), in ID order: from the world's index, or the
    /// parent's own list.
    pub(crate) fn children(&self, w: &World, index: usize, parent: Uuid) -> Vec<Uuid> {
        match self.links {
            ByChild(parents) => {
                let found: Vec<Uuid> = w.links.children(index, parent).collect();
                // Every delete of every debug build checks the index
                // against the tables themselves.
                debug_assert_eq!(
                    found,
                    w.ids(self.child)
                        .into_iter()
                        .filter(|c| parents(w, *c).contains(&parent))
                        .collect::<Vec<_>>(),
                    "the index of {:?} -> {:?}",
                    self.child,
                    self.parent
                );
                found
            }
            ByParent(children) => children(w, parent),
        }
    }

    /// Every link of this relation in `w`: `(child, parent)`.
    fn all_links(&self, w: &World) -> Vec<(Uuid, Uuid)> {
        match self.links {
            ByChild(parents) => w
                .ids(self.child)
                .into_iter()
                .flat_map(|c| parents(w, c).into_iter().map(move |p| (c, p)))
                .collect(),
            ByParent(children) => w
                .ids(self.parent)
                .into_iter()
                .flat_map(|p| children(w, p).into_iter().map(move |c| (c, p)))
                .collect(),
        }
    }
}

/// What a delete does: the records to remove (children before their
/// parents) and the links to drop.
#[derive(Debug, Default)]
struct Plan {
    remove: Vec<(Kind, Uuid)>,
    unlink: Vec<(Kind, Uuid, Kind, Uuid)>,
}

impl World {
    /// Whether the world holds `id` of `kind`.
    pub(crate) fn holds(&self, kind: Kind, id: Uuid) -> bool {
        match kind {
            Kind::Organization => self.organizations.contains_key(&id),
            Kind::Project => self.projects.contains_key(&id),
            Kind::Device => self.devices.contains_key(&id),
            Kind::HardwareReservation => self.reservations.contains_key(&id),
            Kind::SshKey => self.ssh_keys.contains_key(&id),
            Kind::IpReservation => self.ips.reservations().contains_key(&id),
            Kind::IpAssignment => self.ips.assignments().contains_key(&id),
            Kind::VirtualNetwork => self.vlans.contains_key(&id),
            Kind::Port => self.ports.contains_key(&id),
            Kind::BgpSession => self.bgp_sessions.contains_key(&id),
            Kind::MetalGateway => self.gateways.contains_key(&id),
            Kind::Vrf => self.vrfs.contains_key(&id),
            Kind::VrfRoute => self.vrf_routes.contains_key(&id),
            Kind::BgpDynamicNeighbor => self.bgp_dynamic_neighbors.contains_key(&id),
            Kind::GlobalBgpRange => self.global_bgp_ranges.contains_key(&id),
            Kind::ElasticIp => self.elastic_ips.contains_key(&id),
            Kind::Interconnection => self.interconnections.contains_key(&id),
            Kind::VirtualCircuit => self.virtual_circuits.contains_key(&id),
            Kind::PortVlanBatch => self.port_vlan_batches.contains_key(&id),
            Kind::Token => usize::try_from(id.as_u128()).is_ok_and(|i| i < self.tokens.len()),
            Kind::User => self.users.contains_key(&id),
            Kind::Membership => self.memberships.contains_key(&id),
            Kind::ApiKey => self.api_keys.contains_key(&id),
            Kind::Invitation => self.invitations.contains_key(&id),
            Kind::Transfer => self.transfers.contains_key(&id),
            Kind::Email => self.emails.contains_key(&id),
            Kind::PaymentMethod => self.payment_methods.contains_key(&id),
            Kind::License => self.licenses.contains_key(&id),
            Kind::SpotMarketRequest => self.spot_requests.contains_key(&id),
            Kind::Batch => self.batches.contains_key(&id),
            Kind::SelfServiceReservation => self.self_service_reservations.contains_key(&id),
        }
    }

    /// Deletes `id` of `kind` with what [`RELATIONS`] cascades from it, or
    /// refuses with the first restriction met anywhere in that tree, before
    /// anything changes. `404` when the world does not hold it.
    pub(crate) fn delete_record(
        &mut self,
        kind: Kind,
        id: Uuid,
        at: Instant,
    ) -> Result<(), ApiError> {
        if !self.holds(kind, id) {
            return Err(ApiError::not_found());
        }
        self.sync_links();
        let plan = self.plan(kind, id, true)?;
        self.apply(plan, at);
        Ok(())
    }

    /// Removes `id` of `kind` with what cascades from it, restrictions
    /// aside: for a removal the API already accepted (a deleted device
    /// leaving when its deprovisioning is done). No relation restricts a
    /// device's removal (a test checks), so nothing is skipped there.
    pub(crate) fn remove_record(&mut self, kind: Kind, id: Uuid, at: Instant) {
        if self.holds(kind, id) {
            self.sync_links();
            if let Ok(plan) = self.plan(kind, id, false) {
                self.apply(plan, at);
            }
        }
    }

    /// The plan of deleting `id` of `kind`; with `restrict`, the first
    /// restriction in the tree refuses it.
    /// A restriction holds unless every child it names is in the tree
    /// too (a gateway's own block restricts nothing the gateway's delete
    /// takes with it).
    fn plan(&self, kind: Kind, id: Uuid, restrict: bool) -> Result<Plan, ApiError> {
        let mut plan = Plan::default();
        let mut held: Vec<(&'static str, Kind, Vec<Uuid>)> = Vec::new();
        let mut stack = vec![(kind, id)];
        while let Some((kind, id)) = stack.pop() {
            if plan.remove.contains(&(kind, id)) {
                continue;
            }
            plan.remove.push((kind, id));
            for (i, r) in RELATIONS
                .iter()
                .enumerate()
                .filter(|(_, r)| r.parent == kind)
            {
                let children = r.children(self, i, id);
                match r.on_delete {
                    OnDelete::Restrict(message) if restrict => {
                        if !children.is_empty() {
                            held.push((message, r.child, children));
                        }
                    }
                    OnDelete::Restrict(_) | OnDelete::Cascade => {
                        stack.extend(children.into_iter().map(|c| (r.child, c)));
                    }
                    OnDelete::Unlink => plan
                        .unlink
                        .extend(children.into_iter().map(|c| (r.child, c, kind, id))),
                }
            }
        }
        if let Some((message, _, _)) = held.iter().find(|(_, kind, children)| {
            children.iter().any(|c| !plan.remove.contains(&(*kind, *c)))
        }) {
            return Err(ApiError::unprocessable(*message));
        }
        // Children first: a record's removal may read its parent.
        plan.remove.reverse();
        Ok(plan)
    }

    fn apply(&mut self, plan: Plan, at: Instant) {
        for (child, c, parent, p) in plan.unlink {
            self.unlink(child, c, parent, p);
        }
        for (kind, id) in plan.remove {
            self.remove_one(kind, id, at);
        }
    }

    /// Removes one record from its table at `at` (journaled), keeping its
    /// table's own indexes (a reservation's device, an assignment's
    /// reservation) right.
    fn remove_one(&mut self, kind: Kind, id: Uuid, at: Instant) {
        let log = &mut self.journal;
        match kind {
            Kind::Organization => {
                self.organizations.remove_row(log, id, at);
            }
            Kind::Project => {
                self.projects.remove_row(log, id, at);
            }
            Kind::Device => self.remove_device(id, at),
            Kind::HardwareReservation => {
                self.reservations.remove_row(log, id, at);
            }
            Kind::SshKey => {
                self.ssh_keys.remove_row(log, id, at);
            }
            Kind::IpReservation => {
                self.ips.remove_reservation_row(log, id, at);
            }
            Kind::IpAssignment => {
                self.ips.remove_assignment(log, id, at);
            }
            Kind::VirtualNetwork => {
                self.vlans.remove_row(log, id, at);
            }
            Kind::Port => {
                self.ports.remove_row(log, id, at);
            }
            Kind::BgpSession => {
                self.bgp_sessions.remove_row(log, id, at);
            }
            Kind::MetalGateway => {
                self.gateways.remove_row(log, id, at);
            }
            Kind::Vrf => {
                self.vrfs.remove_row(log, id, at);
            }
            Kind::VrfRoute => {
                self.vrf_routes.remove_row(log, id, at);
            }
            Kind::BgpDynamicNeighbor => {
                self.bgp_dynamic_neighbors.remove_row(log, id, at);
            }
            Kind::GlobalBgpRange => {
                self.global_bgp_ranges.remove_row(log, id, at);
            }
            Kind::ElasticIp => {
                self.elastic_ips.remove_row(log, id, at);
            }
            Kind::Interconnection => {
                self.interconnections.remove_row(log, id, at);
            }
            Kind::VirtualCircuit => self.remove_circuit(id, at),
            Kind::PortVlanBatch => {
                self.port_vlan_batches.remove_row(log, id, at);
            }
            // Tokens are never removed by a cascade (only unlinked).
            Kind::Token => {}
            Kind::User => {
                self.users.remove_row(log, id, at);
            }
            Kind::Membership => {
                self.memberships.remove_row(log, id, at);
            }
            Kind::ApiKey => {
                self.api_keys.remove_row(log, id, at);
            }
            Kind::Invitation => {
                self.invitations.remove_row(log, id, at);
            }
            Kind::Transfer => {
                self.transfers.remove_row(log, id, at);
            }
            Kind::Email => {
                self.emails.remove_row(log, id, at);
            }
            Kind::PaymentMethod => {
                self.payment_methods.remove_row(log, id, at);
            }
            Kind::License => self.remove_license(id, at),
            Kind::SpotMarketRequest => self.remove_spot_request(id, at),
            Kind::Batch => self.remove_batch(id, at),
            Kind::SelfServiceReservation => self.remove_self_service_reservation(id, at),
        }
    }

    /// `child` no longer names `parent`.
    fn unlink(&mut self, child: Kind, c: Uuid, parent: Kind, p: Uuid) {
        if child != Kind::Token {
            return;
        }
        let Some(t) = usize::try_from(c.as_u128())
            .ok()
            .and_then(|i| self.tokens.get_mut(i))
        else {
            return;
        };
        match parent {
            Kind::Project => t.rec.projects.retain(|x| *x != p),
            Kind::Organization => t.rec.organizations.retain(|x| *x != p),
            _ => {}
        }
        // Tokens are no table: the index hears of it here.
        self.relink(Kind::Token, c);
    }

    /// The first link of a loaded world to a record it does not hold, as
    /// the world document's error.
    pub(crate) fn dangling(&self) -> Result<(), WorldError> {
        for r in RELATIONS {
            for (child, parent) in r.all_links(self) {
                if !self.holds(r.parent, parent) {
                    let from = match r.child {
                        Kind::Token => format!("token {}", child.as_u128()),
                        kind => format!("{} {child}", kind.name()),
                    };
                    return Err(WorldError::Unknown {
                        from,
                        kind: r.parent.name(),
                        id: parent.to_string(),
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_restricts_a_device_s_removal() {
        // World::remove_record removes deleted devices when the fake's
        // clock says so, restrictions aside: none may name a device.
        for r in RELATIONS.iter().filter(|r| r.parent == Kind::Device) {
            assert!(
                !matches!(r.on_delete, OnDelete::Restrict(_)),
                "{:?} restricts a device's removal",
                r.child
            );
        }
    }

    #[test]
    fn only_tokens_are_unlinked_and_tokens_are_never_cascaded() {
        // Besides tokens, only links their parent keeps are unlinked
        // (a spot market request's list of its devices): the parent's
        // removal drops them.
        let kept_by_parent = [
            (Kind::Device, Kind::SpotMarketRequest),
            (Kind::Device, Kind::Batch),
        ];
        for r in RELATIONS {
            if r.on_delete == OnDelete::Unlink && kept_by_parent.contains(&(r.child, r.parent)) {
                continue;
            }
            if r.on_delete == OnDelete::Unlink {
                assert_eq!(r.child, Kind::Token, "{:?}", r.parent);
            } else {
                assert_ne!(r.child, Kind::Token, "{:?}", r.parent);
            }
        }
    }
}
