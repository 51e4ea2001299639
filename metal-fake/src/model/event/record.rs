//! An event of a world document (its `events` list): what the journal
//! keeps of a seeded event, and its bounds.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The longest body or interpolated text of a seeded event, in bytes.
pub const MAX_EVENT_TEXT: usize = 4096;

/// The most relationships one seeded event names.
pub const MAX_RELATIONSHIPS: usize = 16;

/// An event of a world document, as the event lists show it: readable by
/// its ID, in `/events`, and in the lists of the device, project and
/// organisation it names (and seen by the tokens that see those; an event
/// naming none is its maker's). The device, project and organisation need
/// not exist any more: events outlive what they tell of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// Its ID.
    pub id: Uuid,
    /// Its `type` (`provisioning.110`), at most 255 bytes.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its `body`, at most 4096 bytes.
    pub body: String,
    /// Its `interpolated` text (absent: the body), at most 4096 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpolated: Option<String>,
    /// Its `state` (absent: `null`, as the real API's own events had).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// When it happened (RFC 3339).
    pub created_at: DateTime<Utc>,
    /// The organisation it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<Uuid>,
    /// The project it concerns (its organisation's too, while the project
    /// is the world's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    /// The device it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<Uuid>,
    /// The user who made it (its `modified_by`; absent: the provisioning
    /// bot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_by: Option<Uuid>,
    /// The hrefs of its `relationships` (at most 16, each at most 255
    /// bytes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relationships: Vec<String>,
    /// Its `ip` (absent: `null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip: Option<IpAddr>,
}

/// What the journal keeps of a seeded event: the document's entry.
pub(crate) type Seeded = Event;
