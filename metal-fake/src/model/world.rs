//! The world: every record of the fake Metal API, one table a resource.
//! How it is built from the builder's shortcuts or from a world document,
//! and saved as one, is `built`.

use uuid::Uuid;

use super::access::KeptToken;
use super::catalog::Catalog;
use super::journal::{Cause, DueQueue, Journal};
use super::timings::Timings;
use super::{
    api_key, billing, device, email, hardware_reservation, invitation, membership, organization,
    project, ssh_key, support, transfer, user,
};
use crate::clock::Wall;

mod built;

/// What the world is built from (see [`crate::FakeBuilder`]).
#[derive(Clone, Debug)]
pub(crate) struct WorldSpec {
    pub projects: Vec<(Uuid, usize)>,
    pub plans: Vec<String>,
    pub facilities: Vec<(String, String)>,
    pub timings: Timings,
    /// Machines of each plan in each facility for on-demand devices (and
    /// of each pool a plan sold in a metro gets there).
    pub on_demand: u32,
    /// The catalog the world starts from.
    pub catalog: super::catalog::CatalogChoice,
}

/// The state of the fake Metal API. Each resource's folder holds its
/// rules, its view and its operations; the tables are here, each a
/// [`Table`] whose every write goes through the journal (see
/// `model/journal/`).
#[derive(Debug)]
pub(crate) struct World {
    pub(crate) timings: Timings,
    /// The fake's clock as the API's timestamps show it.
    pub(crate) clock: Wall,
    pub(crate) user: Uuid,
    pub(crate) catalog: Catalog,
    /// Organisations by ID; every project belongs to one.
    pub(crate) organizations: organization::Organizations,
    /// The world's own API tokens (besides the server's configured one,
    /// which sees everything).
    pub(crate) tokens: Vec<KeptToken>,
    /// The project [`crate::Fake::project`] names: the first one seeded.
    pub(crate) main_project: Option<Uuid>,
    pub(crate) projects: project::Projects,
    pub(crate) reservations: hardware_reservation::Reservations,
    pub(crate) devices: device::Devices,
    pub(crate) ssh_keys: ssh_key::SshKeys,
    /// Projects' software licenses.
    pub(crate) licenses: super::license::Licenses,
    /// The spot prices the world document sets (others follow the
    /// catalog's on-demand prices).
    pub(crate) spot_prices: Vec<super::compute::spot_market::price::SpotPrice>,
    /// Self-service reservations.
    pub(crate) self_service_reservations:
        super::compute::self_service_reservation::SelfServiceReservations,
    /// Device batches.
    pub(crate) batches: super::compute::batch::Batches,
    /// Spot market requests.
    pub(crate) spot_requests: super::compute::spot_market::request::SpotRequests,
    pub(crate) ips: super::ip_reservation::Table,
    /// Virtual networks (VLANs) by ID.
    pub(crate) vlans: super::vlan::Vlans,
    /// Ports whose state is not a fresh server's, by port ID.
    pub(crate) ports: super::port::Ports,
    /// Devices' BGP sessions by ID.
    pub(crate) bgp_sessions: super::bgp_session::BgpSessions,
    /// Metal Gateways by ID.
    pub(crate) gateways: super::metal_gateway::Gateways,
    /// VRFs by ID.
    pub(crate) vrfs: super::vrf::Vrfs,
    /// VRF routes by ID.
    pub(crate) vrf_routes: super::vrf_route::VrfRoutes,
    /// VRF gateways' BGP dynamic neighbours by ID.
    pub(crate) bgp_dynamic_neighbors: super::bgp_dynamic_neighbor::BgpDynamicNeighbors,
    /// Projects' global BGP ranges by ID.
    pub(crate) global_bgp_ranges: super::global_bgp_range::GlobalBgpRanges,
    /// VRF gateways' elastic IPs by ID.
    pub(crate) elastic_ips: super::elastic_ip::ElasticIps,
    /// Interconnections by ID.
    pub(crate) interconnections: super::interconnection::Interconnections,
    /// The metros with interconnections (`None`: every metro of the
    /// catalog).
    pub(crate) interconnection_metros: Option<Vec<String>>,
    /// Virtual circuits by ID.
    pub(crate) virtual_circuits: super::virtual_circuit::VirtualCircuits,
    /// Port VLAN assignment batches by ID.
    pub(crate) port_vlan_batches: super::port_vlan_batch::PortVlanBatches,
    /// Every change of the tables, in order, bounded.
    pub(crate) journal: Journal,
    /// The timed transitions to come.
    pub(crate) due: DueQueue,
    /// The pools of machines on-demand devices take.
    pub(crate) capacity: super::capacity::Table,
    /// The machines of each pool a plan sold in a metro gets there when
    /// the world gives it none ([`crate::FakeBuilder::on_demand`]).
    pub(crate) implicit_machines: u32,
    /// Users by ID: the world's own (`user`), each token's, and those
    /// made through the API.
    pub(crate) users: user::Users,
    /// Memberships of users in projects, by ID.
    pub(crate) memberships: membership::Memberships,
    /// API keys, users' and projects', by ID.
    pub(crate) api_keys: api_key::ApiKeys,
    /// Invitations to organisations, by ID.
    pub(crate) invitations: invitation::Invitations,
    /// Project transfer requests, by ID.
    pub(crate) transfers: transfer::Transfers,
    /// Users' email addresses besides their default, by ID.
    pub(crate) emails: email::Emails,
    /// Organisations' payment methods, by ID.
    pub(crate) payment_methods: billing::PaymentMethods,
    /// The support requests sent (not saved).
    pub(crate) support: support::SupportLog,
    /// Each parent's children under the relations (`model/relations.rs`).
    pub(crate) links: super::relations::LinkIndex,
    /// What the access checks find by index (`model/access/index.rs`).
    pub(crate) access: super::access::AccessIndex,
}

impl World {
    /// An empty world on `clock`.
    fn empty(timings: Timings, clock: Wall) -> Self {
        Self {
            timings,
            clock,
            user: Uuid::new_v4(),
            catalog: Catalog::default(),
            organizations: Default::default(),
            tokens: Vec::new(),
            main_project: None,
            projects: Default::default(),
            reservations: Default::default(),
            devices: Default::default(),
            ssh_keys: Default::default(),
            licenses: Default::default(),
            spot_prices: Vec::new(),
            spot_requests: Default::default(),
            batches: Default::default(),
            self_service_reservations: Default::default(),
            ips: Default::default(),
            vlans: Default::default(),
            ports: Default::default(),
            bgp_sessions: Default::default(),
            gateways: Default::default(),
            vrfs: Default::default(),
            vrf_routes: Default::default(),
            bgp_dynamic_neighbors: Default::default(),
            global_bgp_ranges: Default::default(),
            elastic_ips: Default::default(),
            interconnections: Default::default(),
            interconnection_metros: None,
            virtual_circuits: Default::default(),
            port_vlan_batches: Default::default(),
            journal: Journal::new(super::bounds::MAX_JOURNAL),
            due: DueQueue::default(),
            capacity: Default::default(),
            implicit_machines: super::capacity::DEFAULT_ON_DEMAND,
            users: Default::default(),
            memberships: Default::default(),
            api_keys: Default::default(),
            invitations: Default::default(),
            transfers: Default::default(),
            emails: Default::default(),
            payment_methods: Default::default(),
            support: support::SupportLog::default(),
            links: Default::default(),
            access: Default::default(),
        }
    }

    /// Runs `act` as a call of `operation` by `user` (what the journal
    /// names as the cause of its changes, and who made them).
    pub(crate) fn acting<R>(
        &mut self,
        operation: &'static str,
        user: Option<Uuid>,
        act: impl FnOnce(&mut Self) -> R,
    ) -> R {
        self.journal.set_cause(Cause::Operation(operation));
        self.journal.set_actor(user);
        let r = act(self);
        self.journal.set_cause(Cause::Fake);
        self.journal.set_actor(None);
        r
    }

    /// The lifecycle timings.
    pub(crate) fn timings(&self) -> Timings {
        self.timings
    }

    /// The main project: the first one seeded.
    pub(crate) fn main_project(&self) -> Option<Uuid> {
        self.main_project
    }
}

/// Records sorted by creation order, for saving and inspecting.
pub(crate) fn oldest_first<'a, K: 'a, V: 'a>(
    table: impl IntoIterator<Item = (&'a K, &'a V)>,
    seq: impl Fn(&V) -> u64,
) -> Vec<&'a V> {
    let mut all: Vec<&V> = table.into_iter().map(|(_, v)| v).collect();
    all.sort_by_key(|v| seq(v));
    all
}

#[cfg(test)]
impl World {
    /// An empty world on a clock starting now, default timings.
    pub(crate) fn for_tests() -> Self {
        let clock = crate::clock::Clock::new(1.0);
        Self::empty(Timings::default(), clock.wall())
    }
}
