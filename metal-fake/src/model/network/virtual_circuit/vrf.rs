//! The API's rules for VRF virtual circuits: a VRF of the circuit's
//! project in its connection's metro; a peer ASN of four bytes other than
//! the VRF's own; a /30 or /31 subnet of the VRF's ranges, apart from the
//! VRF's other circuits, in one of the VRF's IP reservations or, when
//! none holds it, in a new one made for the circuit (the spec: "we will
//! create the VRF IP reservation on creation if it does not exist");
//! the Metal and customer addresses in it; an optional IPv6 subnet; an
//! MD5 password of the spec's pattern.

use std::net::Ipv4Addr;

use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::peering::{check_md5, Subnet};
use super::record::{Kept, Peering};
use crate::call::ApiError;
use crate::model::interconnection::Kept as Connection;
use crate::model::ip_reservation::Block;
use crate::model::vrf::range::Range;
use crate::model::World;

/// The peering fields of a VRF circuit's create or update
/// (`VrfVirtualCircuitCreateInput`, `VrfVirtualCircuitUpdateInput`); an
/// empty text is no value (the Terraform provider sends `""` for each it
/// leaves out).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct PeeringFields {
    peer_asn: Option<i64>,
    subnet: Option<String>,
    metal_ip: Option<String>,
    customer_ip: Option<String>,
    subnet_ipv6: Option<String>,
    metal_ipv6: Option<String>,
    customer_ipv6: Option<String>,
    md5: Option<Value>,
}

fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref().map(str::trim).filter(|t| !t.is_empty())
}

impl PeeringFields {
    /// Whether it names any peering detail (a VLAN circuit takes none).
    pub(crate) fn any(&self) -> bool {
        self.peer_asn.is_some()
            || [
                &self.subnet,
                &self.metal_ip,
                &self.customer_ip,
                &self.subnet_ipv6,
                &self.metal_ipv6,
                &self.customer_ipv6,
            ]
            .into_iter()
            .any(|t| given(t).is_some())
            || matches!(&self.md5, Some(Value::String(s)) if !s.is_empty())
    }
}

/// Where a circuit's subnet lies: a VRF IP reservation there is, or a new
/// one (network and prefix length) to make for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockUse {
    /// An IP reservation of the VRF that holds the subnet.
    Existing(Uuid),
    /// A new one, of the subnet itself.
    New(Ipv4Addr, u8),
}

/// A peering's IPv6 side: its subnet, the Metal and the customer
/// addresses (all `None`: no IPv6 peering).
type Ipv6Side = (Option<String>, Option<String>, Option<String>);

/// A peering checked against the world, and where its subnet lies.
pub(crate) struct Peered {
    pub(crate) peering: Peering,
    pub(crate) block: BlockUse,
}

impl World {
    /// The VRF `text` names for a circuit of `project` on `c`: one of the
    /// project's, in the connection's metro.
    pub(crate) fn circuit_vrf(
        &self,
        c: &Connection,
        project: Uuid,
        text: &str,
    ) -> Result<Uuid, ApiError> {
        self.vrf_in(project, &c.rec.metro, text)
    }

    /// The peering `fields` give a circuit of VRF `vrf`, over `current`
    /// (an update's, whose circuit is `circuit`): `422` for what the VRF
    /// does not allow.
    pub(crate) fn circuit_peering(
        &self,
        vrf: Uuid,
        current: Option<&Kept>,
        fields: &PeeringFields,
    ) -> Result<Peered, ApiError> {
        let v = self
            .vrfs
            .get(&vrf)
            .ok_or_else(|| ApiError::unprocessable(format!("VRF {vrf} was not found")))?;
        let was = current.and_then(|k| k.rec.peering.as_ref());
        let peer_asn = match (fields.peer_asn, was) {
            (Some(a), _) => u32::try_from(a).map_err(|_| {
                ApiError::unprocessable("peer_asn must be a 4-byte ASN (0 to 4294967295)")
            })?,
            (None, Some(p)) => p.peer_asn,
            (None, None) => return Err(ApiError::unprocessable("peer_asn can't be blank")),
        };
        if peer_asn == v.rec.local_asn {
            return Err(ApiError::unprocessable(format!(
                "peer_asn {peer_asn} is the VRF's own local_asn: the peer needs another"
            )));
        }
        let subnet_text = given(&fields.subnet)
            .or(was.map(|p| p.subnet.as_str()))
            .ok_or_else(|| ApiError::unprocessable("subnet can't be blank"))?;
        let subnet = Subnet::parse("subnet", subnet_text, false)?;
        let same = was.is_some_and(|p| p.subnet == subnet.text());
        let (metal_ip, customer_ip) =
            match (given(&fields.metal_ip), given(&fields.customer_ip), was) {
                (None, None, Some(p)) if same => (p.metal_ip.clone(), p.customer_ip.clone()),
                (m, c, _) => subnet.sides(m, c)?,
            };
        if !self.vrf_holds_range(v, Range::span(false, subnet.first, subnet.last())) {
            return Err(ApiError::unprocessable(format!(
                "subnet {} is not within the VRF's IP ranges",
                subnet.text()
            )));
        }
        let except = current.map(|k| k.rec.id);
        let taken = self.virtual_circuits.values().any(|other| {
            Some(other.rec.id) != except
                && other.rec.vrf == Some(vrf)
                && other.rec.peering.as_ref().is_some_and(|p| {
                    Subnet::parse("subnet", &p.subnet, false).is_ok_and(|s| s.overlaps(subnet))
                })
        });
        if taken {
            return Err(ApiError::unprocessable(format!(
                "subnet {} is used by another virtual circuit of the VRF",
                subnet.text()
            )));
        }
        let block = self.subnet_block(vrf, subnet, current)?;
        let (subnet_ipv6, metal_ipv6, customer_ipv6) = self.ipv6_peering(v, fields, was)?;
        let md5 = match &fields.md5 {
            None => was.and_then(|p| p.md5.clone()),
            Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => {
                check_md5(s)?;
                Some(s.clone())
            }
            Some(_) => return Err(ApiError::unprocessable("md5 must be text")),
        };
        Ok(Peered {
            peering: Peering {
                peer_asn,
                subnet: subnet.text(),
                metal_ip,
                customer_ip,
                subnet_ipv6,
                metal_ipv6,
                customer_ipv6,
                md5,
            },
            block,
        })
    }

    /// The IPv6 side of a peering: a /126 or /127 of the VRF's IPv6
    /// ranges, when given (or kept from `was`).
    fn ipv6_peering(
        &self,
        v: &crate::model::vrf::Kept,
        fields: &PeeringFields,
        was: Option<&Peering>,
    ) -> Result<Ipv6Side, ApiError> {
        let Some(text) = given(&fields.subnet_ipv6).or(was.and_then(|p| p.subnet_ipv6.as_deref()))
        else {
            return Ok((None, None, None));
        };
        let subnet = Subnet::parse("subnet_ipv6", text, true)?;
        if !self.vrf_holds_range(v, Range::span(true, subnet.first, subnet.last())) {
            return Err(ApiError::unprocessable(format!(
                "subnet_ipv6 {} is not within the VRF's IP ranges",
                subnet.text()
            )));
        }
        let same = was.is_some_and(|p| p.subnet_ipv6.as_deref() == Some(subnet.text().as_str()));
        let (m, c) = match (
            given(&fields.metal_ipv6),
            given(&fields.customer_ipv6),
            was.filter(|_| same),
        ) {
            (None, None, Some(p)) => (
                p.metal_ipv6.clone().unwrap_or_default(),
                p.customer_ipv6.clone().unwrap_or_default(),
            ),
            (m, c, _) => subnet.sides(m, c)?,
        };
        Ok((Some(subnet.text()), Some(m), Some(c)))
    }

    /// Where `subnet` of VRF `vrf` lies: the VRF's IP reservation that
    /// holds it, or a new one; `422` when it overlaps one without lying
    /// in it. A circuit's own reservation (`current`'s) is left out when
    /// its subnet changes: it goes with the change.
    fn subnet_block(
        &self,
        vrf: Uuid,
        subnet: Subnet,
        current: Option<&Kept>,
    ) -> Result<BlockUse, ApiError> {
        // An IPv4 subnet's first address fits in 32 bits (it was parsed
        // as one).
        let first = u32::try_from(subnet.first).unwrap_or_default();
        let wanted = Block::new(Ipv4Addr::from(first), subnet.prefix);
        let own = current
            .filter(|k| k.rec.own_block)
            .and_then(|k| k.rec.vrf_block);
        // An IPv4 subnet lies in, or overlaps, only the VRF's IPv4 blocks.
        for (r, block) in self
            .vrf_reservations(vrf)
            .filter_map(|r| Some((r, r.block()?)))
        {
            if own == Some(r.rec.id) && block != wanted {
                continue;
            }
            if block.holds(wanted) {
                return Ok(BlockUse::Existing(r.rec.id));
            }
            if block.overlaps(wanted) {
                return Err(ApiError::unprocessable(format!(
                    "subnet {} overlaps the VRF's IP reservation {}/{}",
                    subnet.text(),
                    block.network(),
                    block.cidr()
                )));
            }
        }
        Ok(BlockUse::New(wanted.network(), wanted.cidr()))
    }

    /// The reservation `block` names for a circuit of `project` in `vrf`
    /// (made now when new), and whether it was made for the circuit.
    pub(crate) fn take_block(
        &mut self,
        project: Uuid,
        vrf: Uuid,
        block: BlockUse,
        now: Instant,
    ) -> (Uuid, bool) {
        match block {
            BlockUse::Existing(id) => (id, false),
            BlockUse::New(network, cidr) => (
                self.insert_vrf_block(project, vrf, network, cidr, Default::default(), now),
                true,
            ),
        }
    }
}
