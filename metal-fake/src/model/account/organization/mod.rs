//! Organisations: they own projects, and a token of an organisation sees
//! its projects.
//!
//! - `record`: [`Organization`], what the world keeps and its document
//!   entry.
//! - `operations`: who owns an organisation, and how organisations load
//!   and save.

mod operations;
mod record;

pub(crate) use operations::{insert, COLLECTION, RESOURCE};
pub(crate) use record::Kept;
pub use record::Organization;
