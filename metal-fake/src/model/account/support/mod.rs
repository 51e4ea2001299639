//! Support requests and incidents: a support request is checked (a
//! subject and a message, a project and device the caller sees) and kept
//! in a bounded log the world does not save; the fake has no incidents.
//!
//! - `operations`: the operations modelled.

mod operations;

pub(crate) use operations::{SupportLog, RESOURCE};
