//! The request variants the fake does not serve as the real API did.
//!
//! An operation's variants are its body's `oneOf` branches (by schema
//! name), the values of its body's `type` (`type=rescue`), read from
//! `openapi/metal.json`, and the few of [`BEYOND_SPEC`] that the spec
//! leaves untyped. Every variant is modelled but those of [`VARIANTS`].
//! Marking one modelled is deleting its line here: the test
//! `coverage::replies` then fails until the fake serves it, and passes
//! once it does (and fails while a line says "not yet" of a variant the
//! fake serves).

/// A variant of an operation's request, and how the fake serves it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Variant {
    /// The operationId.
    pub(crate) operation: &'static str,
    /// The branch's schema name, or `field=value`.
    pub(crate) variant: &'static str,
    /// How the fake serves it.
    pub(crate) status: Status,
}

/// How the fake serves a variant that is not simply modelled.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Status {
    /// Refused with a `422` saying the fake does not model it: to be
    /// modelled.
    NotYet,
    /// Accepted, and served as another variant: why.
    Ignored(&'static str),
}

/// A variant of `operation` the fake does not model yet.
const fn not_yet(operation: &'static str, variant: &'static str) -> Variant {
    Variant {
        operation,
        variant,
        status: Status::NotYet,
    }
}

/// Every variant that is not simply modelled.
pub(crate) const VARIANTS: &[Variant] = &[
    not_yet(
        "createInterconnectionPortVirtualCircuit",
        "VrfVirtualCircuitCreateInput",
    ),
    not_yet("updateVirtualCircuit", "VrfVirtualCircuitUpdateInput"),
    not_yet("performAction", "type=rescue"),
    not_yet(
        "createOrganizationInterconnection",
        "VrfFabricVcCreateInput",
    ),
    not_yet(
        "createOrganizationInterconnection",
        "SharedPortVCVlanCreateInput",
    ),
    not_yet(
        "createOrganizationInterconnection",
        "VlanCSPConnectionCreateInput",
    ),
    not_yet("createOrganizationInterconnection", "type=shared_port_vlan"),
    not_yet(
        "createOrganizationInterconnection",
        "type=shared_port_vlan_to_csp",
    ),
    not_yet("createOrganizationInterconnection", "facility_id"),
    not_yet("createProjectInterconnection", "VrfFabricVcCreateInput"),
    not_yet(
        "createProjectInterconnection",
        "SharedPortVCVlanCreateInput",
    ),
    not_yet(
        "createProjectInterconnection",
        "VlanCSPConnectionCreateInput",
    ),
    not_yet("createProjectInterconnection", "type=shared_port_vlan"),
    not_yet(
        "createProjectInterconnection",
        "type=shared_port_vlan_to_csp",
    ),
    not_yet("createProjectInterconnection", "facility_id"),
    not_yet("requestIPReservation", "type=private_ipv4"),
    not_yet("requestIPReservation", "type=public_ipv6"),
    Variant {
        operation: "createProject",
        variant: "type=vmce",
        status: Status::Ignored("the project is made, and reads `type: default`"),
    },
    Variant {
        operation: "createOrganizationProject",
        variant: "type=vmce",
        status: Status::Ignored("the project is made, and reads `type: default`"),
    },
];

/// Variants the spec does not type (its property is a plain string), each
/// with the evidence that clients send it: `(operation, variant,
/// evidence)`.
pub(crate) const BEYOND_SPEC: &[(&str, &str, &str)] = &[
    (
        "requestIPReservation",
        "type=public_ipv4",
        "packngo's `IPReservationCreateRequest.Type` (`PublicIPv4`); the upstream description of `IPReservationRequestInput.type`",
    ),
    ("requestIPReservation", "type=global_ipv4", "packngo's `GlobalIPv4`"),
    ("requestIPReservation", "type=private_ipv4", "packngo's `PrivateIPv4`"),
    ("requestIPReservation", "type=public_ipv6", "packngo's `PublicIPv6`"),
    (
        "createOrganizationInterconnection",
        "facility_id",
        "the spec's `facility_id` of `DedicatedPortCreateInput` (a connection in a facility, without `metro`)",
    ),
    (
        "createProjectInterconnection",
        "facility_id",
        "as createOrganizationInterconnection",
    ),
];
