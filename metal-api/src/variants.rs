//! The API's response unions, each decoded to the variant it is.
//!
//! Some replies are one of several schemas: `GET /ips/{id}` is an IP
//! assignment, an IP reservation or a VRF IP reservation; a project's IP
//! list mixes reservations and VRF reservations; a Metal gateway is a plain
//! or a VRF gateway; a virtual circuit is a VLAN or a VRF one. Response
//! schemas require no property (a nested object may come as an `{"href"}`
//! stub, see `cargo xtask spec`), so a decoder that tries each variant in
//! turn would take the first for every body. The types here read the
//! property that tells the variants apart (`type`, or the presence of
//! `vrf` or `assigned_to`), then decode the body as that variant alone.
//! A body that names none of them decodes as the most general variant,
//! so a newer API's value does not fail the reply. Each variant is boxed:
//! the generated records run to kilobytes, and a list holds many.
//!
//! The generated client returns these types wherever the spec names such a
//! union (`cargo xtask generate` checks that every response union has
//! one).
//!
//! ```
//! use metal_api::variants::AnyIpReservation;
//! let entries: Vec<AnyIpReservation> = serde_json::from_str(r#"[
//!     {"type": "public_ipv4", "address": "147.75.0.0", "cidr": 31},
//!     {"type": "vrf", "network": "10.0.0.0", "vrf": {"href": "/metal/v1/vrfs/1"}}
//! ]"#).unwrap();
//! assert!(matches!(entries[0], AnyIpReservation::Reservation(_)));
//! assert!(matches!(entries[1], AnyIpReservation::Vrf(_)));
//! ```

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::types;

/// A response body, read as a JSON object before its variant is chosen.
struct Body(Map<String, Value>);

impl Body {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Object(map) => Ok(Self(map)),
            other => Err(D::Error::custom(format!(
                "expected a JSON object, found {}",
                kind(&other)
            ))),
        }
    }

    /// The `type` property, when it is a string.
    fn type_(&self) -> Option<&str> {
        self.0.get("type").and_then(Value::as_str)
    }

    /// Whether `key` is present and not `null`.
    fn has(&self, key: &str) -> bool {
        self.0.get(key).is_some_and(|v| !v.is_null())
    }

    fn decode<T: DeserializeOwned, E: serde::de::Error>(self) -> Result<T, E> {
        serde_json::from_value(Value::Object(self.0)).map_err(E::custom)
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One IP address record (`findIPAddressById`, `updateIPAddress`): an
/// assignment to a device, a reservation, or a VRF reservation.
///
/// Told apart by `type`: `"vrf"` is a VRF reservation, `"IPAssignment"` an
/// assignment. Without a `type`, a record with `assigned_to` is an
/// assignment (reservations carry a `type`, assignments need not); any
/// other record is a reservation, whose `type` is open.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum IpAddress {
    /// An address assigned to a device.
    Assignment(Box<types::IpAssignment>),
    /// A reserved block of addresses.
    Reservation(Box<types::IpReservation>),
    /// A block reserved in a VRF.
    VrfReservation(Box<types::VrfIpReservation>),
}

impl<'de> Deserialize<'de> for IpAddress {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let body = Body::read(d)?;
        match body.type_() {
            Some("vrf") => body.decode().map(|v| Self::VrfReservation(Box::new(v))),
            Some("IPAssignment") => body.decode().map(|v| Self::Assignment(Box::new(v))),
            None if body.has("assigned_to") => body.decode().map(|v| Self::Assignment(Box::new(v))),
            _ => body.decode().map(|v| Self::Reservation(Box::new(v))),
        }
    }
}

/// One IP reservation (`findIPReservations`' entries,
/// `requestIPReservation`): a plain or a VRF reservation.
///
/// A `type` of `"vrf"`, or a `vrf`, makes it a VRF reservation; anything
/// else is a plain one, whose `type` is open.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AnyIpReservation {
    /// A reserved block of public, private or global addresses.
    Reservation(Box<types::IpReservation>),
    /// A block reserved in a VRF.
    Vrf(Box<types::VrfIpReservation>),
}

impl<'de> Deserialize<'de> for AnyIpReservation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let body = Body::read(d)?;
        if body.type_() == Some("vrf") || body.has("vrf") {
            body.decode().map(|v| Self::Vrf(Box::new(v)))
        } else {
            body.decode().map(|v| Self::Reservation(Box::new(v)))
        }
    }
}

/// One Metal gateway (`findMetalGatewayById`, `createMetalGateway`,
/// `deleteMetalGateway`, `findMetalGatewaysByProject`' entries): a plain
/// or a VRF gateway.
///
/// Neither carries a `type`; a gateway with a `vrf` is a VRF gateway.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AnyMetalGateway {
    /// A gateway for a virtual network, with its IP reservation.
    Gateway(Box<types::MetalGateway>),
    /// A gateway of a VRF.
    Vrf(Box<types::VrfMetalGateway>),
}

impl<'de> Deserialize<'de> for AnyMetalGateway {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let body = Body::read(d)?;
        if body.has("vrf") {
            body.decode().map(|v| Self::Vrf(Box::new(v)))
        } else {
            body.decode().map(|v| Self::Gateway(Box::new(v)))
        }
    }
}

/// One virtual circuit of an interconnection: a VLAN or a VRF circuit.
///
/// A `type` of `"vrf"`, or a `vrf`, makes it a VRF circuit; anything else
/// (`"vlan"`, or no `type`) a VLAN one.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum VirtualCircuit {
    /// A circuit to a VLAN.
    Vlan(Box<types::VlanVirtualCircuit>),
    /// A circuit to a VRF.
    Vrf(Box<types::VrfVirtualCircuit>),
}

impl<'de> Deserialize<'de> for VirtualCircuit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let body = Body::read(d)?;
        if body.type_() == Some("vrf") || body.has("vrf") {
            body.decode().map(|v| Self::Vrf(Box::new(v)))
        } else {
            body.decode().map(|v| Self::Vlan(Box::new(v)))
        }
    }
}
