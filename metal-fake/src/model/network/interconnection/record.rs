//! What the fake keeps of an interconnection: its description (also its
//! entry in the world document), and its place in the journal.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// Whether a connection is an organisation's own Fabric port or a shared
/// connection of a project (with service tokens, on a shared port, or to
/// a cloud provider).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InterconnectionType {
    /// A dedicated port of the organisation's.
    Dedicated,
    /// A shared connection of a project, set up with Fabric service
    /// tokens.
    Shared,
    /// A shared connection on one of Metal's shared ports, without
    /// service tokens (finished in Fabric).
    SharedPortVlan,
    /// A shared connection straight to a cloud provider (its
    /// `fabric_provider`).
    SharedPortVlanToCsp,
}

impl InterconnectionType {
    /// Whether its circuits are made with it (one a port) and go with it:
    /// every shared type.
    pub(crate) fn is_shared(self) -> bool {
        self != Self::Dedicated
    }

    /// Its name in the API.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Dedicated => "dedicated",
            Self::Shared => "shared",
            Self::SharedPortVlan => "shared_port_vlan",
            Self::SharedPortVlanToCsp => "shared_port_vlan_to_csp",
        }
    }
}

/// The cloud provider a `shared_port_vlan_to_csp` connection reaches (the
/// spec's `AWSFabricProvider`, its one variant).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FabricProvider {
    /// The provider's type (`CSP_AWS`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The account at the provider (twelve digits for AWS).
    pub account_id: String,
    /// The provider's region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

/// One port (`primary`) or two (`redundant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Redundancy {
    /// One port, `primary`.
    Primary,
    /// Two ports, `primary` and `secondary`.
    Redundant,
}

/// A dedicated port's mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InterconnectionMode {
    /// VLANs on the port are tagged by `nni_vlan`.
    #[default]
    Standard,
    /// Q-in-Q: the virtual circuits need no `nni_vlan`.
    Tunnel,
}

/// Which side of a Fabric connection a shared connection's service tokens
/// are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TokenSide {
    /// The Metal side starts the Fabric connection.
    #[serde(rename = "a_side")]
    ASide,
    /// A Fabric port or provider connects to Metal.
    #[serde(rename = "z_side")]
    ZSide,
}

/// Where a connection is in its life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InterconnectionStatus {
    /// Just requested: active after a delay on the fake's clock.
    Requested,
    /// Provisioned.
    #[default]
    Active,
}

/// An interconnection (a connection, in the API's paths).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Interconnection {
    /// Its ID.
    pub id: Uuid,
    /// Its organisation.
    pub organization: Uuid,
    /// Its project: a shared connection's, or the one a dedicated port was
    /// requested through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    /// Its name.
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Who to contact about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_email: Option<String>,
    /// Its metro's code.
    pub metro: String,
    /// Its facility's code (absent: the first of its metro's facilities,
    /// as the reply shows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facility: Option<String>,
    /// Dedicated, or one of the shared types.
    #[serde(rename = "type")]
    pub kind: InterconnectionType,
    /// One port or two.
    pub redundancy: Redundancy,
    /// Its speed in bits per second (0: a shared `z_side` connection
    /// made without one).
    #[serde(default)]
    pub speed: u64,
    /// Its mode (dedicated ports only).
    #[serde(default)]
    pub mode: InterconnectionMode,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// A shared connection's service tokens' side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_token_type: Option<TokenSide>,
    /// Its ports' IDs: the primary port's, then the secondary's.
    pub ports: Vec<Uuid>,
    /// A shared connection's service tokens' IDs, one per port in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub service_tokens: Vec<Uuid>,
    /// Where it is in its life (absent: active).
    #[serde(default)]
    pub status: InterconnectionStatus,
    /// A `shared_port_vlan_to_csp` connection's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fabric_provider: Option<FabricProvider>,
}

/// An interconnection as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Interconnection,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Interconnection, |k| Scope {
    project: k.rec.project,
    organization: Some(k.rec.organization),
    device: None,
});
