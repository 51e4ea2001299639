//! The kinds of record the world keeps: what the journal, the relations
//! and every record's [`crate::model::journal::Record`] name them by.

/// A kind of record the world keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Organization,
    Project,
    Device,
    HardwareReservation,
    SshKey,
    IpReservation,
    IpAssignment,
    VirtualNetwork,
    Port,
    BgpSession,
    MetalGateway,
    Vrf,
    VrfRoute,
    BgpDynamicNeighbor,
    GlobalBgpRange,
    ElasticIp,
    Interconnection,
    VirtualCircuit,
    PortVlanBatch,
    Token,
    User,
    Membership,
    ApiKey,
    Invitation,
    Transfer,
    Email,
    PaymentMethod,
    License,
    SpotMarketRequest,
    Batch,
    SelfServiceReservation,
}

impl Kind {
    /// Its name in messages and world-document errors.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Organization => "organization",
            Self::Project => "project",
            Self::Device => "device",
            Self::HardwareReservation => "hardware reservation",
            Self::SshKey => "ssh key",
            Self::IpReservation => "ip reservation",
            Self::IpAssignment => "ip assignment",
            Self::VirtualNetwork => "virtual network",
            Self::Port => "port",
            Self::BgpSession => "bgp session",
            Self::MetalGateway => "metal gateway",
            Self::Vrf => "vrf",
            Self::VrfRoute => "vrf route",
            Self::BgpDynamicNeighbor => "bgp dynamic neighbor",
            Self::GlobalBgpRange => "global bgp range",
            Self::ElasticIp => "elastic ip",
            Self::Interconnection => "interconnection",
            Self::VirtualCircuit => "virtual circuit",
            Self::PortVlanBatch => "port vlan batch",
            Self::Token => "token",
            Self::User => "user",
            Self::Membership => "membership",
            Self::ApiKey => "api key",
            Self::Invitation => "invitation",
            Self::Transfer => "transfer",
            Self::Email => "email",
            Self::PaymentMethod => "payment method",
            Self::License => "license",
            Self::SpotMarketRequest => "spot market request",
            Self::Batch => "batch",
            Self::SelfServiceReservation => "self-service reservation",
        }
    }
}
