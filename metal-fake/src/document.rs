//! The world as a JSON document: what `metal-fake --world FILE`,
//! `POST /_fake/world` and [`crate::FakeBuilder::world`] seed the fake
//! with, and what `GET /_fake/world` and [`crate::Fake::world`] give back
//! (so a test can save a world and restore it).
//!
//! Its JSON Schema is generated from these types ([`schema`]) and shipped
//! as `metal-fake/world.schema.json`; `metal-fake --world-schema` prints
//! it. `metal-fake/examples/world.json` is an example.
//!
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

/// The most records of one kind a world document may hold (projects,
/// reservations, devices, SSH keys, ...): every list call renders all of
/// them before it paginates.
pub const MAX_RECORDS: usize = 100_000;

/// A whole world: organisations, projects, tokens, metros, facilities,
/// plans, hardware reservations, devices and SSH keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldDoc {
    /// The API user's ID (the entity of user SSH keys); random if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<Uuid>,
    /// Organisations; each owns projects.
    #[serde(default)]
    pub organizations: Vec<OrganizationDoc>,
    /// Projects. The first is the main project ([`crate::Fake::project`]).
    #[serde(default)]
    pub projects: Vec<ProjectDoc>,
    /// API tokens besides the server's own (which sees every project), and
    /// what each sees. A token reading a project it does not see gets
    /// `403`.
    #[serde(default)]
    pub tokens: Vec<TokenDoc>,
    /// Metros, by code.
    #[serde(default)]
    pub metros: Vec<MetroDoc>,
    /// Facilities, by code, each in a metro.
    #[serde(default)]
    pub facilities: Vec<FacilityDoc>,
    /// Plans, by slug.
    #[serde(default)]
    pub plans: Vec<PlanDoc>,
    /// Hardware reservations.
    #[serde(default)]
    pub reservations: Vec<ReservationDoc>,
    /// Devices.
    #[serde(default)]
    pub devices: Vec<DeviceDoc>,
    /// SSH keys, the user's and projects'.
    #[serde(default)]
    pub ssh_keys: Vec<SshKeyDoc>,
}

/// An organisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrganizationDoc {
    /// Its ID.
    pub id: Uuid,
    /// Its name.
    #[serde(default)]
    pub name: String,
}

/// A project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectDoc {
    /// Its ID.
    pub id: Uuid,
    /// Its name (`fake project N` if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The organisation that owns it (a default one if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<Uuid>,
}

/// An API token and what it sees: every project of its organisations, and
/// the projects named.
#[derive(Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenDoc {
    /// The `X-Auth-Token` value.
    pub token: String,
    /// Organisations whose projects it sees.
    #[serde(default)]
    pub organizations: Vec<Uuid>,
    /// Projects it sees besides.
    #[serde(default)]
    pub projects: Vec<Uuid>,
}

impl std::fmt::Debug for TokenDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenDoc")
            .field("token", &"<redacted>")
            .field("organizations", &self.organizations)
            .field("projects", &self.projects)
            .finish()
    }
}

/// A metro.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetroDoc {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its code (`da`).
    pub code: String,
}

/// A facility.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FacilityDoc {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its code (`da11`).
    pub code: String,
    /// The code of its metro, one of `metros`.
    pub metro: String,
}

/// A plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanDoc {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its slug (`c3.small.x86`).
    pub slug: String,
}

/// A hardware reservation. Which device it holds is said by the device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReservationDoc {
    /// Its ID.
    pub id: Uuid,
    /// The project that holds it.
    pub project: Uuid,
    /// The plan's slug, one of `plans`.
    pub plan: String,
    /// The facility's code, one of `facilities`.
    pub facility: String,
    /// Seconds until it is provisionable again after a device was deleted
    /// from it (absent: free now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_in_seconds: Option<f64>,
}

/// The state a device is seeded in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceState {
    /// Just created; provisioning next.
    Queued,
    /// Provisioning; active next.
    Provisioning,
    /// Running.
    #[default]
    Active,
    /// Powering on; active next.
    PoweringOn,
    /// Powering off; inactive next.
    PoweringOff,
    /// Powered off.
    Inactive,
    /// Reinstalling; active next.
    Reinstalling,
    /// Its provisioning failed; it stays until deleted.
    Failed,
    /// Being deleted; gone next.
    Deprovisioning,
}

/// A device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceDoc {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// The hardware reservation it runs on, one of `reservations` of the
    /// same project, held by no other device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation: Option<Uuid>,
    /// The plan's slug (the reservation's, when it has one).
    pub plan: String,
    /// The facility's code (the reservation's, when it has one).
    pub facility: String,
    /// Its hostname.
    pub hostname: String,
    /// The operating system's slug.
    #[serde(default = "default_os")]
    pub operating_system: String,
    /// Its state now (default `active`).
    #[serde(default)]
    pub state: DeviceState,
    /// Seconds since its phase began: for `queued` and `provisioning`,
    /// since it was created; for the power states and `reinstalling`, since
    /// that action. Default: just entered the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_elapsed_seconds: Option<f64>,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Whether it is locked.
    #[serde(default)]
    pub locked: bool,
    /// Whether it boots from the network every time.
    #[serde(default)]
    pub always_pxe: bool,
    /// Its iPXE script URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipxe_script_url: Option<String>,
    /// Its billing cycle (`hourly`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_cycle: Option<String>,
    /// Its user data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub userdata: Option<String>,
    /// Its custom data.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub customdata: serde_json::Map<String, serde_json::Value>,
    /// How many times it was rebooted.
    #[serde(default)]
    pub reboots: u32,
    /// Placed by another API user (a competitor), not by the controller.
    #[serde(default)]
    pub competitor: bool,
}

fn default_os() -> String {
    "ubuntu_22_04".to_string()
}

/// An SSH key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SshKeyDoc {
    /// Its ID.
    pub id: Uuid,
    /// The project that owns it; absent: the user's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    /// Its label.
    #[serde(default)]
    pub label: String,
    /// The public key (`ssh-ed25519 AAAA... comment`).
    pub key: String,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
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
