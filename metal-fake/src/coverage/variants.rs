//! The request variants the fake does not simply model: those it serves
//! as another, and those it refuses as the real API refused them.
//!
//! An operation's variants are its body's `oneOf` branches (by schema
//! name), the values of its body's `type` (`type=rescue`), read from
//! `openapi/metal.json`, and the few of [`BEYOND_SPEC`] that the spec
//! leaves untyped. Every variant is modelled but those of [`VARIANTS`].
//! No reply may say the fake does not model something: the test
//! `coverage::replies` sends every variant, and fails on such a reply, on
//! a modelled variant that is not answered `2xx`, and on a refused one
//! that is not answered `4xx`.

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
    /// Refused (`4xx`, in the real API's words) as the real API refused
    /// it: the evidence.
    Refused(&'static str),
}

/// A variant of `operation` the real API refused, as the fake does:
/// `evidence` says where that is seen.
const fn refused(
    operation: &'static str,
    variant: &'static str,
    evidence: &'static str,
) -> Variant {
    Variant {
        operation,
        variant,
        status: Status::Refused(evidence),
    }
}

/// Every variant that is not simply modelled.
pub(crate) const VARIANTS: &[Variant] = &[
    refused(
        "requestIPReservation",
        "type=private_ipv4",
        "the Terraform provider's reserved IP block docs (\"The IPv6 and private IPv4 blocks can't be created, only imported\") and its `type` validation (public_ipv4, global_ipv4, vrf); metal-cli's `ip request` help",
    ),
    refused(
        "requestIPReservation",
        "type=public_ipv6",
        "as for private_ipv4: the Terraform provider's reserved IP block docs and validation, metal-cli's `ip request` help",
    ),
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
