//! The account family: organisations, their projects, SSH keys and the
//! current user. Its resources, in the order a world document loads them,
//! are [`RESOURCES`].

pub(crate) mod organization;
pub(crate) mod project;
pub(crate) mod ssh_key;
pub(crate) mod user;

use super::Resource;

/// The account family's resources, in load order (a project names its
/// organisation, a key its project).
pub(crate) static RESOURCES: &[&Resource] = &[
    &organization::RESOURCE,
    &project::RESOURCE,
    &ssh_key::RESOURCE,
    &user::RESOURCE,
];
