//! Support requests and incidents: a support request is checked (a
//! subject and a message, a project and device the caller sees) and kept
//! in a bounded log the world does not save; the fake has no incidents.
//!
//! - `operations`: the operations modelled.
//!
//! The log ([`SupportLog`]), the world's field, is here, below them.

mod operations;

use std::collections::VecDeque;

use uuid::Uuid;

pub(crate) use operations::RESOURCE;

/// The support requests sent, newest last.
#[derive(Clone, Debug, Default)]
pub(crate) struct SupportLog {
    /// `(subject, project)` of each.
    pub(crate) requests: VecDeque<(String, Option<Uuid>)>,
}
