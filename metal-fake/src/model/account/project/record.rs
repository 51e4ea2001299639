//! What the fake keeps of a project: its description (also its entry in
//! the world document, with its BGP configuration) and when it was made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Project {
    /// Its ID.
    pub id: Uuid,
    /// Its name (`fake project N` if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The organisation that owns it (a default one if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<Uuid>,
    /// Its tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Its custom data.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub customdata: serde_json::Map<String, serde_json::Value>,
    /// Whether backend transfer is enabled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub backend_transfer_enabled: bool,
    /// Its BGP configuration (absent: BGP is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bgp_config: Option<BgpConfig>,
    /// Its type: `default` (absent), or `vmce` (a VMware Cloud Essentials
    /// project), as its create asked.
    #[serde(
        default,
        rename = "type",
        skip_serializing_if = "ProjectType::is_default"
    )]
    pub project_type: ProjectType,
}

/// A project's `type`: the spec's two values.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProjectType {
    /// A project of bare-metal devices.
    #[default]
    Default,
    /// A VMware Cloud Essentials project.
    Vmce,
}

impl ProjectType {
    /// Its name in the API.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Vmce => "vmce",
        }
    }

    fn is_default(&self) -> bool {
        *self == Self::Default
    }
}

impl Project {
    /// A project with only its ID set: named `fake project N`, in the
    /// default organisation, untagged, when loaded.
    ///
    /// ```
    /// let id = uuid::Uuid::new_v4();
    /// let p = metal_fake::document::Project {
    ///     name: Some("web".into()),
    ///     ..metal_fake::document::Project::new(id)
    /// };
    /// assert!(p.tags.is_empty() && p.organization.is_none());
    /// ```
    pub fn new(id: Uuid) -> Self {
        Self {
            id,
            name: None,
            organization: None,
            tags: Vec::new(),
            customdata: serde_json::Map::new(),
            backend_transfer_enabled: false,
            bgp_config: None,
            project_type: ProjectType::Default,
        }
    }

    /// A project with only its ID, name and organisation set.
    pub(crate) fn named(id: Uuid, name: String, organization: Uuid) -> Self {
        Self {
            name: Some(name),
            organization: Some(organization),
            ..Self::new(id)
        }
    }
}

/// A project as the world keeps it: its name and organisation always
/// filled in.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Project,
    pub(crate) meta: Meta,
    /// When its BGP configuration was requested (or loaded).
    pub(crate) bgp_requested: Option<Instant>,
}

record!(
    Kept,
    Kind::Project,
    |k| Scope {
        project: Some(k.rec.id),
        organization: k.rec.organization,
        device: None,
    },
    label | k | Some(format!("\"{}\"", k.name()))
);

impl Kept {
    /// The organisation that owns it.
    pub(crate) fn organization(&self) -> Uuid {
        self.rec.organization.unwrap_or_default()
    }

    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.rec.name.as_deref().unwrap_or_default()
    }
}

/// A project's BGP configuration, as the world document holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgpConfig {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// The project's autonomous system number.
    pub asn: i64,
    /// `local` (enabled at once) or `global` (requested, awaiting review).
    pub deployment_type: String,
    /// The BGP password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub md5: Option<String>,
}

/// The deployment types the spec allows.
const DEPLOYMENT_TYPES: [&str; 2] = ["local", "global"];

impl BgpConfig {
    /// `enabled` for a local configuration, `requested` for a global one
    /// (which Equinix reviewed by hand).
    pub(super) fn status(&self) -> &'static str {
        if self.deployment_type == "global" {
            "requested"
        } else {
            "enabled"
        }
    }

    /// Checks a document's configuration.
    pub(crate) fn check(&self) -> Option<String> {
        (!DEPLOYMENT_TYPES.contains(&self.deployment_type.as_str())).then(|| {
            format!(
                "deployment_type must be local or global, not {}",
                self.deployment_type
            )
        })
    }
}
