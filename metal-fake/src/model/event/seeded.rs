//! The events of a world document: each loaded into the journal as it is
//! written (listed before any change the world makes after), and each
//! event the journal holds saved as one, so that a saved world lists the
//! same events when it is loaded again.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::view::is_event;
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::bounds::MAX_JOURNAL;
use crate::model::journal::{Entry, Scope};
use crate::model::World;

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

/// Refuses an event out of bounds. Its time is taken as given: a world
/// saved from a fake whose clock ran ahead holds events "after" the wall
/// clock of the one it is loaded into.
fn check(e: &Event) -> Result<(), WorldError> {
    let bad = |why: String| Err(WorldError::Inconsistent(format!("event {}: {why}", e.id)));
    if e.kind.trim().is_empty() || e.kind.len() > MAX_NAME {
        return bad(format!("its type must be 1 to {MAX_NAME} bytes"));
    }
    let texts = [Some(&e.body), e.interpolated.as_ref()];
    if texts
        .into_iter()
        .flatten()
        .any(|t| t.len() > MAX_EVENT_TEXT)
    {
        return bad(format!("its body is longer than {MAX_EVENT_TEXT} bytes"));
    }
    if e.state.as_ref().is_some_and(|s| s.len() > MAX_NAME) {
        return bad(format!("its state is longer than {MAX_NAME} bytes"));
    }
    if e.relationships.len() > MAX_RELATIONSHIPS
        || e.relationships.iter().any(|h| h.len() > MAX_NAME)
    {
        return bad(format!(
            "it names more than {MAX_RELATIONSHIPS} relationships, or one longer than {MAX_NAME} bytes"
        ));
    }
    Ok(())
}

/// Loads the document's events into the journal, oldest first (by
/// `created_at`, then as listed); at most as many as the journal keeps.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    if doc.events.len() > MAX_JOURNAL {
        return Err(WorldError::TooMany {
            kind: "events",
            count: doc.events.len(),
        });
    }
    let mut seen = std::collections::HashSet::new();
    for e in &doc.events {
        check(e)?;
        if !seen.insert(e.id) {
            return Err(WorldError::Duplicate {
                kind: "event",
                id: e.id.to_string(),
            });
        }
    }
    let mut events: Vec<&Event> = doc.events.iter().collect();
    events.sort_by_key(|e| e.created_at);
    for e in events {
        let scope = Scope {
            project: e.project,
            organization: e.organization,
            device: e.device,
        };
        w.journal.seed(e.id, now, scope, e.modified_by, e.clone());
    }
    Ok(())
}

/// Saves every event the journal holds, oldest first: a seeded one as it
/// was loaded, one of the world's changes as its reply shows it.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _: Instant) {
    doc.events = w
        .journal
        .entries()
        .filter(|e| is_event(e))
        .map(|e| saved(w, e))
        .collect();
}

/// The event of journal entry `e` as a world document holds it.
pub(crate) fn saved(w: &World, e: &Entry) -> Event {
    match &e.seeded {
        Some(s) => (**s).clone(),
        None => {
            let view = w.event_view(e);
            let (kind, body, relationships) = view.parts();
            Event {
                id: e.id,
                kind,
                body,
                interpolated: None,
                state: None,
                created_at: w.clock.wall(e.at),
                organization: e.scope.organization,
                project: e.scope.project,
                device: e.scope.device,
                modified_by: e.by,
                relationships,
                ip: None,
            }
        }
    }
}
