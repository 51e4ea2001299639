//! BGP sessions: a device's sessions with the fake's routers, one per
//! address family, which need the project's BGP configuration
//! (`model/account/project/bgp.rs`), and the neighbour data a device's
//! BGP speaker is configured from, derived from the sessions and the
//! configuration.
//!
//! - `record`: [`BgpSession`], what the world keeps and its document
//!   entry.
//! - `rules`: a create (the project's BGP on, one session a family), an
//!   update (the default route), a delete; the neighbour data.
//! - `view`: a session and the neighbour data as the API sends them.
//! - `operations`: the operations modelled, who owns a session, and how
//!   sessions load and save.
//! - `discover`: a project's sessions discovered again, a path outside
//!   the 2024 spec that packngo used.

mod discover;
mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{AddressFamily, BgpSession};

/// The collection of sessions' hrefs (`/bgp/sessions/{id}`).
pub(crate) const COLLECTION: &str = "bgp/sessions";

crate::model::journal::owned_table! {
    /// The world's devices' BGP sessions, by ID: written only here.
    BgpSessions of Kept
}
