//! The account family: organisations, their projects, SSH keys, users,
//! memberships, API keys, invitations, transfer requests, emails, billing
//! (payment methods, invoices) and support requests. Its resources, in the order a world document
//! loads them, are [`RESOURCES`].

pub(crate) mod api_key;
pub(crate) mod billing;
pub(crate) mod email;
pub(crate) mod invitation;
pub(crate) mod membership;
pub(crate) mod organization;
pub(crate) mod project;
pub(crate) mod ssh_key;
pub(crate) mod support;
pub(crate) mod transfer;
pub(crate) mod user;

use super::Resource;

/// The account family's resources, in load order (an organisation names
/// its members, a project its organisation, a key its project, a
/// membership and an API key their project and user, an invitation, a
/// transfer and a payment method their organisation, an email its user).
pub(crate) static RESOURCES: &[&Resource] = &[
    &user::RESOURCE,
    &organization::RESOURCE,
    &project::RESOURCE,
    &ssh_key::RESOURCE,
    &membership::RESOURCE,
    &api_key::RESOURCE,
    &invitation::RESOURCE,
    &transfer::RESOURCE,
    &email::RESOURCE,
    &billing::PAYMENT_METHODS,
    &billing::INVOICES,
    &support::RESOURCE,
];
