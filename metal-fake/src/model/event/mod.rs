//! Events: what the world's journal says changed, as the API lists them
//! (`/events`, and those of an organisation, a project, a device). They
//! are made in one place, from the journal ([`crate::model::journal`]),
//! never assembled by the operations that make the changes.
//!
//! - `kinds`: which changes are events, with their `type` and `body`.
//! - `view`: an event as the API sends it.
//! - `operations`: the event operations modelled, who owns an event,
//!   and the document's events loaded into the journal and saved from it.
//! - `record`: [`Event`], a world document's event (its `events` list),
//!   what the journal keeps of a seeded one.

mod kinds;
mod operations;
mod record;
mod view;

pub(crate) use operations::{saved, RESOURCE};
pub use record::Event;
pub(crate) use record::Seeded;
pub(crate) use view::is_event;
pub(crate) use view::EventView;

/// The collection of events' paths and hrefs.
pub(crate) const COLLECTION: &str = "events";
