//! The world as a JSON document: what `metal-fake --world FILE`,
//! `POST /_fake/world` and [`crate::FakeBuilder::world`] seed the fake
//! with, and what `GET /_fake/world` and [`crate::Fake::world`] give back
//! (so a test can save a world and restore it).
//!
//! Its JSON Schema is generated from these types ([`schema`]) and shipped
//! as `metal-fake/world.schema.json`; `metal-fake --world-schema` prints
//! it. `metal-fake/examples/world.json` is an example.
//!
//! Each entry is the resource's own record (a [`Device`] is what the fake
//! keeps of a device), so the document and the model cannot drift apart.
//! Plans, facilities and metros are named by slug and code; everything else
//! by UUID. A project without an organisation belongs to a default one,
//! made when needed. Devices report the `state` they are seeded with and
//! go on from there on the fake's clock; `state_elapsed_seconds` says how
//! far into its phase a device is (a provisioning device becomes active
//! once the provisioning time has passed since its phase began).
//! Creation times are not kept: a seeded record was created when it was
//! seeded.
//!
//! ```
//! use metal_fake::document::WorldDoc;
//!
//! let doc: WorldDoc = serde_json::from_str(r#"{
//!     "projects": [{"id": "00000000-0000-4000-8000-000000000001"}],
//!     "plans": [{"slug": "c3.small.x86"}],
//!     "metros": [{"code": "da"}],
//!     "facilities": [{"code": "da11", "metro": "da"}],
//!     "reservations": [{
//!         "id": "00000000-0000-4000-8000-0000000000a1",
//!         "project": "00000000-0000-4000-8000-000000000001",
//!         "plan": "c3.small.x86",
//!         "facility": "da11"
//!     }]
//! }"#).unwrap();
//! let fake = metal_fake::Fake::builder().world(doc).try_build().unwrap();
//! assert_eq!(fake.reservations().len(), 1);
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use crate::model::Event;
pub use crate::model::{Address, BillingAddress, Coordinates};
pub use crate::model::{
    AddressFamily, BgpDynamicNeighbor, BgpSession, ElasticIp, GlobalBgpRange, MetalGateway,
    NeighborState, Port, RouteStatus, VirtualNetwork, Vrf, VrfRoute,
};
pub use crate::model::{ApiKey, Email, Invitation, Membership, PaymentMethod, Transfer, User};
pub use crate::model::{
    Batch, BgpConfig, Capacity, CapacityLevel, CatalogChoice, Counted, Device, DeviceBatchState,
    DeviceState, Drive, Facility, HardwareReservation, License, Metro, OperatingSystem,
    Organization, OwnAddress, OwnCidrs, Period, Plan, PlanMetro, PlanSpecs, Price, Project,
    ProjectType, ReservationItem, SelfServiceReservation, SpotMarketRequest, SpotPrice, SshKey,
    Token,
};
pub use crate::model::{BatchAssignment, BatchAssignmentState, BatchState, PortVlanBatch};
pub use crate::model::{
    FabricProvider, Interconnection, InterconnectionMode, InterconnectionStatus,
    InterconnectionType, Peering, Redundancy, TokenSide, VirtualCircuit, VirtualCircuitStatus,
};
pub use crate::model::{IpAssignment, IpReservation, IpReservationState, IpReservationType};

/// The most records of one kind a world document may hold (projects,
/// reservations, devices, SSH keys, ...): every list call renders all of
/// them before it paginates.
pub const MAX_RECORDS: usize = 100_000;

/// The longest name, code, slug, hostname, tag or token of a world
/// document, in bytes.
pub const MAX_NAME: usize = 255;

/// A whole world: organisations, projects, tokens, metros, facilities,
/// plans, hardware reservations, devices, SSH keys, IP reservations and
/// capacity.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldDoc {
    /// The catalog the world starts from: `metal` (the default), the real
    /// API's metros, facilities, plans, operating systems and capacity
    /// with this document's entries over them; `none`, this document's
    /// entries alone. A saved world says `none` and lists everything.
    #[serde(default, skip_serializing_if = "CatalogChoice::is_metal")]
    pub catalog: CatalogChoice,
    /// The API user's ID (the entity of user SSH keys); random if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<Uuid>,
    /// Organisations; each owns projects.
    #[serde(default)]
    pub organizations: Vec<Organization>,
    /// Projects. The first is the main project ([`crate::Fake::project`]).
    #[serde(default)]
    pub projects: Vec<Project>,
    /// API tokens besides the server's own (which sees every project), and
    /// what each sees. A token reading a project it does not see gets
    /// `403`.
    #[serde(default)]
    pub tokens: Vec<Token>,
    /// Metros, by code (over the catalog's: a code it has takes the real
    /// metro's name and country for what the entry leaves out).
    #[serde(default)]
    pub metros: Vec<Metro>,
    /// Facilities, by code, each in a metro (over the catalog's).
    #[serde(default)]
    pub facilities: Vec<Facility>,
    /// Plans, by slug (over the catalog's: a slug it has takes the real
    /// plan's specs, price, type and categories for what the entry leaves
    /// out), each sold in every metro unless it names its own.
    #[serde(default)]
    pub plans: Vec<Plan>,
    /// Operating systems, by slug (over the catalog's; with `"catalog":
    /// "none"` and none listed, a built-in six).
    #[serde(default)]
    pub operating_systems: Vec<OperatingSystem>,
    /// Hardware reservations.
    #[serde(default)]
    pub reservations: Vec<HardwareReservation>,
    /// Devices.
    #[serde(default)]
    pub devices: Vec<Device>,
    /// SSH keys, the user's and projects'.
    #[serde(default)]
    pub ssh_keys: Vec<SshKey>,
    /// Projects' software licenses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub licenses: Vec<License>,
    /// Spot market prices of plans in metros, over the default (a share
    /// of the plan's on-demand price there).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spot_prices: Vec<SpotPrice>,
    /// Self-service reservations of projects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub self_service_reservations: Vec<SelfServiceReservation>,
    /// Device batches, each with the devices it made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<Batch>,
    /// Spot market requests, each with the devices it made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spot_market_requests: Vec<SpotMarketRequest>,
    /// IP reservations, each with its assignments to devices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ip_reservations: Vec<IpReservation>,
    /// Virtual networks (VLANs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub virtual_networks: Vec<VirtualNetwork>,
    /// Devices' ports whose state is not a fresh server's (VLANs on them,
    /// disbonded, layer 2); every other port is as a fresh server has it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<Port>,
    /// Devices' BGP sessions (their projects' BGP on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bgp_sessions: Vec<BgpSession>,
    /// Metal Gateways, each on a VLAN with a block.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metal_gateways: Vec<MetalGateway>,
    /// VRFs; their blocks are `ip_reservations` of `type: vrf`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vrfs: Vec<Vrf>,
    /// VRFs' static routes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vrf_routes: Vec<VrfRoute>,
    /// VRF gateways' BGP dynamic neighbours.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bgp_dynamic_neighbors: Vec<BgpDynamicNeighbor>,
    /// Projects' global BGP ranges (granted, never made through the API).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_bgp_ranges: Vec<GlobalBgpRange>,
    /// VRF gateways' elastic IPs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elastic_ips: Vec<ElasticIp>,
    /// The metro codes with interconnections (absent: every metro of the
    /// catalog); a connection elsewhere is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnection_metros: Option<Vec<String>>,
    /// Interconnections: organisations' dedicated ports and projects'
    /// shared connections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interconnections: Vec<Interconnection>,
    /// Virtual circuits on the interconnections' ports (a shared
    /// connection's own among them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub virtual_circuits: Vec<VirtualCircuit>,
    /// Port VLAN assignment batches (a queued or in-progress one goes on
    /// when loaded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub port_vlan_batches: Vec<PortVlanBatch>,
    /// The machines on-demand and spot devices take: pools of a plan in a
    /// metro or a facility (over the catalog's). A plan sold on demand or
    /// on the spot market in a metro where it has no pool gets one of 10
    /// machines there; a (place, plan) may be given fewer, a `level`, or
    /// `unavailable`. `/plans`, `/capacity`, the capacity checks and
    /// `createDevice` all read these pools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity: Vec<Capacity>,
    /// Users besides the world's own `user` (which is made, named `Fake
    /// User`, when it is not among them); each token is one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<User>,
    /// Users' memberships of projects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memberships: Vec<Membership>,
    /// API keys, users' and projects': each key's token authenticates as
    /// what it was given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api_keys: Vec<ApiKey>,
    /// Open invitations to organisations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invitations: Vec<Invitation>,
    /// Open project transfer requests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transfers: Vec<Transfer>,
    /// Users' email addresses besides their default one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emails: Vec<Email>,
    /// Organisations' payment methods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub payment_methods: Vec<PaymentMethod>,
    /// Events, listed (newest first) before any the world makes after it
    /// is loaded; at most 10000 (as many as the journal keeps). A saved
    /// world holds every event its journal still has.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
}

/// Why a world document was refused. Over HTTP, `422` with the message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// Two records of one kind share an ID, code or token.
    #[error("{kind} {id} appears twice")]
    Duplicate {
        /// The kind of record.
        kind: &'static str,
        /// The repeated ID, code or slug (a token is not shown).
        id: String,
    },
    /// A record names one that the document does not have.
    #[error("{from} names {kind} {id}, which the world does not have")]
    Unknown {
        /// The record that names it.
        from: String,
        /// The kind of record named.
        kind: &'static str,
        /// The ID, code or slug named.
        id: String,
    },
    /// A record is inconsistent with another.
    #[error("{0}")]
    Inconsistent(String),
    /// More records of one kind than [`MAX_RECORDS`].
    #[error("{kind}: {count} records, more than the fake holds ({MAX_RECORDS})")]
    TooMany {
        /// The kind of record.
        kind: &'static str,
        /// How many the document has.
        count: usize,
    },
    /// A number of seconds is negative, not finite, or beyond a week.
    #[error("{field} of {id}: {value} is not a number of seconds from 0 to a week")]
    Seconds {
        /// The field.
        field: &'static str,
        /// The record.
        id: String,
        /// The value given.
        value: f64,
    },
    /// A token is empty or cannot be an HTTP header value.
    #[error("token {index} (0-based) is empty or not a valid header value")]
    Token {
        /// Its place in `tokens`.
        index: usize,
    },
    /// An SSH key is not a valid public key.
    #[error("ssh key {id}: {reason}")]
    SshKey {
        /// The key's ID.
        id: Uuid,
        /// What the API would say.
        reason: String,
    },
    /// The document does not decode (JSON syntax, a missing or unknown
    /// field, a wrong type).
    #[error("the world document does not decode: {0}")]
    Decode(#[from] serde_json::Error),
}

impl WorldDoc {
    /// Refuses a document with more than [`MAX_RECORDS`] records of one
    /// kind.
    pub(crate) fn check_bounds(&self) -> Result<(), WorldError> {
        let counts = [
            ("organizations", self.organizations.len()),
            ("projects", self.projects.len()),
            ("tokens", self.tokens.len()),
            ("metros", self.metros.len()),
            ("facilities", self.facilities.len()),
            ("plans", self.plans.len()),
            ("reservations", self.reservations.len()),
            ("devices", self.devices.len()),
            ("ssh_keys", self.ssh_keys.len()),
            ("licenses", self.licenses.len()),
            ("spot_prices", self.spot_prices.len()),
            ("spot_market_requests", self.spot_market_requests.len()),
            ("batches", self.batches.len()),
            (
                "self_service_reservations",
                self.self_service_reservations.len(),
            ),
            ("ip_reservations", self.ip_reservations.len()),
            ("virtual_networks", self.virtual_networks.len()),
            ("ports", self.ports.len()),
            ("bgp_sessions", self.bgp_sessions.len()),
            ("metal_gateways", self.metal_gateways.len()),
            ("vrfs", self.vrfs.len()),
            ("vrf_routes", self.vrf_routes.len()),
            ("bgp_dynamic_neighbors", self.bgp_dynamic_neighbors.len()),
            ("global_bgp_ranges", self.global_bgp_ranges.len()),
            ("elastic_ips", self.elastic_ips.len()),
            (
                "interconnection_metros",
                self.interconnection_metros.as_ref().map_or(0, Vec::len),
            ),
            ("interconnections", self.interconnections.len()),
            ("virtual_circuits", self.virtual_circuits.len()),
            ("port_vlan_batches", self.port_vlan_batches.len()),
            ("capacity", self.capacity.len()),
            ("users", self.users.len()),
            ("memberships", self.memberships.len()),
            ("api_keys", self.api_keys.len()),
            ("invitations", self.invitations.len()),
            ("transfers", self.transfers.len()),
            ("emails", self.emails.len()),
            ("payment_methods", self.payment_methods.len()),
            ("events", self.events.len()),
        ];
        for (kind, count) in counts {
            if count > MAX_RECORDS {
                return Err(WorldError::TooMany { kind, count });
            }
        }
        // Names and codes are single lines of a few words: bounded so that
        // no record makes every list that shows it large.
        let names = self
            .organizations
            .iter()
            .map(|o| ("organization name", o.name.as_str()))
            .chain(
                self.projects
                    .iter()
                    .filter_map(|p| Some(("project name", p.name.as_deref()?))),
            )
            .chain(self.metros.iter().map(|m| ("metro code", m.code.as_str())))
            .chain(self.facilities.iter().flat_map(|f| {
                [
                    ("facility code", f.code.as_str()),
                    ("facility metro", f.metro.as_str()),
                ]
            }))
            .chain(self.plans.iter().map(|p| ("plan slug", p.slug.as_str())))
            .chain(self.tokens.iter().map(|t| ("token", t.token.as_str())));
        for (field, value) in names {
            if value.len() > MAX_NAME {
                return Err(WorldError::Inconsistent(format!(
                    "a {field} is longer than {MAX_NAME} bytes"
                )));
            }
        }
        if let Some(t) = self
            .tokens
            .iter()
            .find(|t| t.projects.len() + t.organizations.len() > MAX_RECORDS)
        {
            return Err(WorldError::TooMany {
                kind: "token's projects and organizations",
                count: t.projects.len() + t.organizations.len(),
            });
        }
        Ok(())
    }

    /// Decodes a document from JSON text.
    ///
    /// ```
    /// let err = metal_fake::document::WorldDoc::from_json(br#"{"projets": []}"#).unwrap_err();
    /// assert!(err.to_string().contains("unknown field `projets`"));
    /// ```
    pub fn from_json(text: &[u8]) -> Result<Self, WorldError> {
        Ok(serde_json::from_slice(text)?)
    }
}

/// The JSON Schema of [`WorldDoc`], as shipped in
/// `metal-fake/world.schema.json` (pretty-printed, with a final newline).
///
/// ```
/// let schema = metal_fake::document::schema();
/// assert!(schema.contains("\"title\": \"WorldDoc\""));
/// ```
pub fn schema() -> String {
    let schema = schemars::schema_for!(WorldDoc);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The longest duration a seconds field takes (one week).
pub(crate) const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// `value` seconds as a duration, refused outside `[0, a week]`.
pub(crate) fn seconds(
    field: &'static str,
    id: impl ToString,
    value: f64,
) -> Result<std::time::Duration, WorldError> {
    if !(0.0..=MAX_SECONDS).contains(&value) {
        return Err(WorldError::Seconds {
            field,
            id: id.to_string(),
            value,
        });
    }
    std::time::Duration::try_from_secs_f64(value).map_err(|_| WorldError::Seconds {
        field,
        id: id.to_string(),
        value,
    })
}
