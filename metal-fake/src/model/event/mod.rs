//! Events: what the world's journal says changed, as the API lists them
//! (`/events`, and those of an organisation, a project, a device). They
//! are made in one place, from the journal ([`crate::model::journal`]),
//! never assembled by the operations that make the changes.
//!
//! - `kinds`: which changes are events, with their `type` and `body`.
//! - `view`: an event as the API sends it.
//! - `operations`: the event operations modelled, and who owns an event.
//! - `seeded`: the events a world document seeds (its `events` list),
//!   loaded into the journal and saved from it.

mod kinds;
mod operations;
mod seeded;
mod view;

pub(crate) use operations::RESOURCE;
pub use seeded::Event;
pub(crate) use seeded::{saved, Seeded};
pub(crate) use view::is_event;
pub(crate) use view::EventView;
