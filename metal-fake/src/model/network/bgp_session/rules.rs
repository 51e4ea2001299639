//! The API's rules for BGP sessions: a session needs its project's BGP
//! configuration ("BGP is not enabled" without it), a device has one
//! session an address family; an update sets whether the device gets a
//! default route. And the neighbour data: for each session, the
//! project's ASN and password, the fake's routers (ASN 65530, link-local
//! peers, multihop), the device's address, the routes it may announce
//! (the project's reserved IPv4 blocks it could hold) and the routes it
//! is sent.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{AddressFamily, BgpSession, Kept};
use crate::call::ApiError;
use crate::model::device::{address_texts, own_blocks};
use crate::model::project::BgpConfig;
use crate::model::relations::Kind;
use crate::model::{IpReservationType, World};

/// The ASN of the fake's routers, as the API's neighbour data gives it.
pub(crate) const PEER_AS: u32 = 65530;

/// The routers' addresses of each family (link-local IPv4, unique local
/// IPv6).
pub(crate) fn peer_ips(family: AddressFamily) -> [&'static str; 2] {
    match family {
        AddressFamily::Ipv4 => ["169.254.255.1", "169.254.255.2"],
        AddressFamily::Ipv6 => ["fc00::e", "fc00::f"],
    }
}

/// One route of the neighbour data.
pub(crate) struct Route {
    pub(crate) route: String,
    pub(crate) exact: bool,
}

/// The neighbour data of one session, before it is rendered.
pub(crate) struct Neighbor<'a> {
    pub(crate) family: AddressFamily,
    pub(crate) config: &'a BgpConfig,
    pub(crate) customer_ip: Option<String>,
    pub(crate) routes_in: Vec<Route>,
    pub(crate) routes_out: Vec<Route>,
}

impl World {
    /// `project`'s BGP configuration, when BGP is on.
    pub(crate) fn bgp_config_of(&self, project: Uuid) -> Option<&BgpConfig> {
        self.projects.get(&project)?.rec.bgp_config.as_ref()
    }

    /// `createBgpSession`: a session of `device`'s, refused without the
    /// project's BGP or with a session of the family already.
    pub(crate) fn create_bgp_session(
        &mut self,
        device: Uuid,
        body: &types::BgpSessionInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let d = self.devices.get(&device).ok_or_else(ApiError::not_found)?;
        let family = match body.address_family {
            Some(types::BgpSessionInputAddressFamily::Ipv4) => AddressFamily::Ipv4,
            Some(types::BgpSessionInputAddressFamily::Ipv6) => AddressFamily::Ipv6,
            None => {
                return Err(ApiError::unprocessable(
                    "address_family must be ipv4 or ipv6",
                ))
            }
        };
        if self.bgp_config_of(d.rec.project).is_none() {
            return Err(ApiError::unprocessable("BGP is not enabled"));
        }
        let taken = self
            .bgp_sessions
            .values()
            .any(|s| s.rec.device == device && s.rec.address_family == family);
        if taken {
            return Err(ApiError::unprocessable(format!(
                "The device already has an {} BGP session",
                family.as_str()
            )));
        }
        let id = Uuid::new_v4();
        self.bgp_sessions
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec: BgpSession {
                    id,
                    device,
                    address_family: family,
                    default_route: body.default_route,
                },
                meta,
            });
        Ok(id)
    }

    /// `updateBgpSession`: whether the device gets a default route.
    pub(crate) fn update_bgp_session(
        &mut self,
        id: Uuid,
        default_route: bool,
        now: Instant,
    ) -> Result<(), ApiError> {
        self.bgp_sessions
            .rows()
            .update(&mut self.journal, id, "default_route", now, |s| {
                s.rec.default_route = default_route;
            })
            .ok_or_else(ApiError::not_found)
    }

    /// `deleteBgpSession`.
    pub(crate) fn delete_bgp_session(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::BgpSession, id, now)
    }

    /// The sessions passing `keep`, oldest first.
    pub(crate) fn bgp_sessions_where(&self, keep: impl Fn(&Kept) -> bool) -> Vec<&Kept> {
        let mut all: Vec<&Kept> = self.bgp_sessions.values().filter(|s| keep(s)).collect();
        all.sort_by_key(|s| s.meta.seq);
        all
    }

    /// The neighbour data of `device`'s sessions (none while its project
    /// has no BGP configuration).
    pub(crate) fn bgp_neighbors(&self, device: Uuid) -> Result<Vec<Neighbor<'_>>, ApiError> {
        let d = self.devices.get(&device).ok_or_else(ApiError::not_found)?;
        let Some(config) = self.bgp_config_of(d.rec.project) else {
            return Ok(Vec::new());
        };
        let metro = self
            .catalog
            .facility(&d.rec.facility)
            .map(|f| f.metro.as_str());
        let addresses: Vec<String> = if d.state().has_addresses() {
            address_texts(d).collect()
        } else {
            Vec::new()
        };
        // The project's blocks the device could hold and announce: public
        // ones of its metro, and global ones (not a gateway's private
        // block, nor a VRF's).
        let mut blocks: Vec<_> = self
            .ips
            .reservations()
            .values()
            .filter(|r| {
                r.rec.project == d.rec.project
                    && match r.rec.kind {
                        IpReservationType::GlobalIpv4 => true,
                        IpReservationType::PublicIpv4 => r.rec.metro.as_deref() == metro,
                        // Private and IPv6 blocks are read below, through
                        // the devices' own subnets.
                        IpReservationType::PrivateIpv4
                        | IpReservationType::PublicIpv6
                        | IpReservationType::Vrf => false,
                    }
            })
            .collect();
        blocks.sort_by_key(|r| r.meta.seq);
        // The project's own subnets in the device's metro, which the real
        // API listed as routes in beside its blocks (a public test fixture
        // of a metadata BGP client: private IPv4 ranges, and the project's
        // IPv6 /56s holding the device's address; packngo's
        // TestAccBGPNeighbors finds a route in for a device of a project
        // that reserved nothing). The fake has no per-metro parent
        // subnets: each device's own private IPv4 and public IPv6 blocks
        // stand for them (as in the project's IP reservations).
        let mut devices: Vec<_> = self
            .devices
            .values()
            .filter(|o| {
                o.rec.project == d.rec.project
                    && self
                        .catalog
                        .facility(&o.rec.facility)
                        .map(|f| f.metro.as_str())
                        == metro
            })
            .collect();
        devices.sort_by_key(|o| o.meta.seq);
        let subnets = |family: u8| -> Vec<Route> {
            devices
                .iter()
                .flat_map(|o| own_blocks(o))
                .filter(|b| b.address_family == family && (family == 6 || !b.public))
                .map(|b| Route {
                    route: format!("{}/{}", b.network, b.cidr),
                    exact: false,
                })
                .collect()
        };
        Ok(self
            .bgp_sessions_where(|s| s.rec.device == device)
            .into_iter()
            .map(|s| {
                let family = s.rec.address_family;
                let (customer_ip, routes_in, default) = match family {
                    // The device's private IPv4 address (the third of its
                    // own), which the routers accept sessions from.
                    AddressFamily::Ipv4 => (
                        addresses.get(2).cloned(),
                        blocks
                            .iter()
                            .map(|r| Route {
                                route: format!("{}/{}", r.rec.network, r.rec.cidr),
                                exact: false,
                            })
                            .chain(subnets(4))
                            .collect(),
                        "0.0.0.0/0",
                    ),
                    AddressFamily::Ipv6 => (addresses.get(1).cloned(), subnets(6), "::/0"),
                };
                Neighbor {
                    family,
                    config,
                    customer_ip,
                    routes_in,
                    routes_out: if s.rec.default_route {
                        vec![Route {
                            route: default.to_string(),
                            exact: true,
                        }]
                    } else {
                        Vec::new()
                    },
                }
            })
            .collect())
    }
}
