//! Every response union of the spec decodes each of its variants to that
//! variant: a table of sample bodies, written from the variants' schemas
//! (and shaped as the API sends them: stubs for what was not included,
//! `type` values newer than the spec), each with the variant it must
//! decode to; then the same through the client, over HTTP.

use crate::common;

use common::*;
use httpmock::{Method, MockServer};
use metal_api::types;
use metal_api::variants::{AnyIpReservation, AnyMetalGateway, IpAddress, VirtualCircuit};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

const IP: &str = "3b1f6a2e-8c4d-4e5f-9a6b-7c8d9e0f1a2b";
const VRF: &str = "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d";
const GATEWAY: &str = "1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a";
const CIRCUIT: &str = "4c5d6e7f-8a9b-4c0d-9e1f-2a3b4c5d6e7f";

/// An IP assignment as `GET /ips/{id}` returns it: no `type`, the device
/// it is assigned to and its parent block as stubs.
fn assignment() -> Value {
    json!({
        "id": IP,
        "href": format!("/metal/v1/ips/{IP}"),
        "address_family": 4,
        "address": "147.75.84.95",
        "netmask": "255.255.255.254",
        "gateway": "147.75.84.94",
        "network": "147.75.84.94",
        "cidr": 31,
        "public": true,
        "management": true,
        "manageable": true,
        "enabled": true,
        "global_ip": false,
        "created_at": "2024-03-01T10:00:00Z",
        "assigned_to": {"href": format!("/metal/v1/devices/{DEVICE}")},
        "parent_block": {"network": "147.75.84.88", "netmask": "255.255.255.248", "cidr": 29,
                         "href": "/metal/v1/ips/5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"}
    })
}

/// A public IPv4 reservation, its assignments as stubs.
fn reservation(kind: &str) -> Value {
    json!({
        "id": IP,
        "href": format!("/metal/v1/ips/{IP}"),
        "type": kind,
        "address_family": 4,
        "address": "147.75.84.88",
        "netmask": "255.255.255.248",
        "network": "147.75.84.88",
        "cidr": 29,
        "public": true,
        "management": false,
        "manageable": true,
        "addon": true,
        "bill": true,
        "state": "created",
        "tags": ["edge"],
        "customdata": {},
        "assignments": [{"href": "/metal/v1/ips/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}],
        "project": {"href": format!("/metal/v1/projects/{PROJECT}")},
        "metro": {"code": "da", "href": format!("/metal/v1/locations/metros/{METRO}")}
    })
}

/// A VRF reservation: `type` is `vrf`, and it names its VRF.
fn vrf_reservation() -> Value {
    json!({
        "id": IP,
        "href": format!("/metal/v1/ips/{IP}"),
        "type": "vrf",
        "address_family": 4,
        "network": "10.1.2.0",
        "cidr": 24,
        "public": false,
        "state": "created",
        "vrf": {"id": VRF, "name": "prod", "local_asn": 65000},
        "created_by": {"href": format!("/metal/v1/users/{USER}")},
        "project": {"href": format!("/metal/v1/projects/{PROJECT}")}
    })
}

fn gateway() -> Value {
    json!({
        "id": GATEWAY,
        "href": format!("/metal/v1/metal-gateways/{GATEWAY}"),
        "state": "active",
        "virtual_network": {"href": "/metal/v1/virtual-networks/2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"},
        "ip_reservation": {"href": format!("/metal/v1/ips/{IP}")},
        "project": {"href": format!("/metal/v1/projects/{PROJECT}")}
    })
}

fn vrf_gateway() -> Value {
    let mut gw = gateway();
    gw["vrf"] = json!({"href": format!("/metal/v1/vrfs/{VRF}")});
    gw
}

fn vlan_circuit(with_type: bool) -> Value {
    let mut vc = json!({
        "id": CIRCUIT,
        "name": "to-aws",
        "status": "active",
        "vnid": 1001,
        "nni_vlan": 1234,
        "speed": 1_000_000_000u64,
        "bill": false,
        "virtual_network": {"href": "/metal/v1/virtual-networks/2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"},
        "project": {"href": format!("/metal/v1/projects/{PROJECT}")}
    });
    if with_type {
        vc["type"] = json!("vlan");
    }
    vc
}

fn vrf_circuit(with_type: bool) -> Value {
    let mut vc = json!({
        "id": CIRCUIT,
        "name": "to-vrf",
        "status": "waiting_on_peering_details",
        "nni_vlan": 1235,
        "peer_asn": 65100,
        "subnet": "169.254.0.0/31",
        "metal_ip": "169.254.0.0",
        "customer_ip": "169.254.0.1",
        "vrf": {"href": format!("/metal/v1/vrfs/{VRF}")},
        "project": {"href": format!("/metal/v1/projects/{PROJECT}")}
    });
    if with_type {
        vc["type"] = json!("vrf");
    }
    vc
}

/// Decodes `body` as `U`, and as `V` directly, for the table's check that
/// the union's variant holds exactly what the variant's own type reads.
fn both<U: DeserializeOwned, V: DeserializeOwned>(body: &Value) -> (U, V) {
    let union = serde_json::from_value(body.clone())
        .unwrap_or_else(|e| panic!("the union does not decode {body}: {e}"));
    let variant = serde_json::from_value(body.clone())
        .unwrap_or_else(|e| panic!("the variant does not decode {body}: {e}"));
    (union, variant)
}

/// Which variant of its union a body decodes to, checked against decoding
/// the body as that variant's type.
fn decoded(union: &str, body: &Value) -> &'static str {
    match union {
        "IpAddress" => match serde_json::from_value::<IpAddress>(body.clone()).unwrap() {
            IpAddress::Assignment(a) => {
                assert_eq!(*a, both::<IpAddress, types::IpAssignment>(body).1);
                "Assignment"
            }
            IpAddress::Reservation(r) => {
                assert_eq!(*r, both::<IpAddress, types::IpReservation>(body).1);
                "Reservation"
            }
            IpAddress::VrfReservation(v) => {
                assert_eq!(*v, both::<IpAddress, types::VrfIpReservation>(body).1);
                "VrfReservation"
            }
        },
        "AnyIpReservation" => {
            match serde_json::from_value::<AnyIpReservation>(body.clone()).unwrap() {
                AnyIpReservation::Reservation(r) => {
                    assert_eq!(*r, both::<AnyIpReservation, types::IpReservation>(body).1);
                    "Reservation"
                }
                AnyIpReservation::Vrf(v) => {
                    assert_eq!(
                        *v,
                        both::<AnyIpReservation, types::VrfIpReservation>(body).1
                    );
                    "Vrf"
                }
            }
        }
        "AnyMetalGateway" => {
            match serde_json::from_value::<AnyMetalGateway>(body.clone()).unwrap() {
                AnyMetalGateway::Gateway(g) => {
                    assert_eq!(*g, both::<AnyMetalGateway, types::MetalGateway>(body).1);
                    "Gateway"
                }
                AnyMetalGateway::Vrf(v) => {
                    assert_eq!(*v, both::<AnyMetalGateway, types::VrfMetalGateway>(body).1);
                    "Vrf"
                }
            }
        }
        "VirtualCircuit" => match serde_json::from_value::<VirtualCircuit>(body.clone()).unwrap() {
            VirtualCircuit::Vlan(v) => {
                assert_eq!(
                    *v,
                    both::<VirtualCircuit, types::VlanVirtualCircuit>(body).1
                );
                "Vlan"
            }
            VirtualCircuit::Vrf(v) => {
                assert_eq!(*v, both::<VirtualCircuit, types::VrfVirtualCircuit>(body).1);
                "Vrf"
            }
        },
        // A union of one schema is generated as a newtype of it.
        "InterconnectionFabricProvider" => {
            let (union, variant) =
                both::<types::InterconnectionFabricProvider, types::AwsFabricProvider>(body);
            assert_eq!(union.0, variant);
            "AwsFabricProvider"
        }
        other => panic!("no union {other}"),
    }
}

#[test]
fn every_variant_of_every_response_union_decodes_to_itself() {
    let mut assignment_typed = assignment();
    assignment_typed["type"] = json!("IPAssignment");
    let mut vrf_without_type = vrf_reservation();
    vrf_without_type.as_object_mut().unwrap().remove("type");

    let table: Vec<(&str, Value, &str)> = vec![
        // findIPAddressById, updateIPAddress.
        ("IpAddress", assignment(), "Assignment"),
        ("IpAddress", assignment_typed, "Assignment"),
        ("IpAddress", reservation("public_ipv4"), "Reservation"),
        ("IpAddress", reservation("private_ipv4"), "Reservation"),
        ("IpAddress", reservation("public_ipv6"), "Reservation"),
        ("IpAddress", reservation("global_ipv4"), "Reservation"),
        // A type newer than the spec (packngo knows global_ipv6).
        ("IpAddress", reservation("global_ipv6"), "Reservation"),
        ("IpAddress", vrf_reservation(), "VrfReservation"),
        // Not included: a stub.
        (
            "IpAddress",
            json!({"href": format!("/metal/v1/ips/{IP}")}),
            "Reservation",
        ),
        // findIPReservations' entries, requestIPReservation.
        (
            "AnyIpReservation",
            reservation("public_ipv4"),
            "Reservation",
        ),
        (
            "AnyIpReservation",
            reservation("private_ipv6"),
            "Reservation",
        ),
        ("AnyIpReservation", vrf_reservation(), "Vrf"),
        ("AnyIpReservation", vrf_without_type, "Vrf"),
        // findMetalGatewayById, createMetalGateway, findMetalGatewaysByProject.
        ("AnyMetalGateway", gateway(), "Gateway"),
        ("AnyMetalGateway", vrf_gateway(), "Vrf"),
        // Virtual circuits of interconnections.
        ("VirtualCircuit", vlan_circuit(true), "Vlan"),
        ("VirtualCircuit", vlan_circuit(false), "Vlan"),
        ("VirtualCircuit", vrf_circuit(true), "Vrf"),
        ("VirtualCircuit", vrf_circuit(false), "Vrf"),
        // Interconnection.fabric_provider: a oneOf of one schema.
        (
            "InterconnectionFabricProvider",
            json!({"type": "CSP_AWS", "account_id": "123456789012", "location": "us-east-1"}),
            "AwsFabricProvider",
        ),
    ];
    let mut wrong = Vec::new();
    for (union, body, expected) in &table {
        let got = decoded(union, body);
        if got != *expected {
            wrong.push(format!("{union}: {body} decoded as {got}, not {expected}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_variant_keeps_what_only_it_has() {
    let IpAddress::VrfReservation(vrf) = serde_json::from_value(vrf_reservation()).unwrap() else {
        panic!("a VRF reservation");
    };
    assert_eq!(vrf.vrf.unwrap().name.as_deref(), Some("prod"));
    let IpAddress::Assignment(a) = serde_json::from_value(assignment()).unwrap() else {
        panic!("an assignment");
    };
    assert!(a.assigned_to.unwrap().href.ends_with(DEVICE));
    let IpAddress::Reservation(r) = serde_json::from_value(reservation("global_ipv6")).unwrap()
    else {
        panic!("a reservation");
    };
    assert_eq!(
        r.type_.as_deref(),
        Some("global_ipv6"),
        "the newer type is kept"
    );
    assert_eq!(r.assignments.len(), 1);
}

#[tokio::test]
async fn the_client_returns_each_variant_of_an_ip_address() {
    for (body, expected) in [
        (assignment(), "Assignment"),
        (reservation("public_ipv4"), "Reservation"),
        (vrf_reservation(), "VrfReservation"),
    ] {
        let server = MockServer::start_async().await;
        server
            .mock_async(|when, then| {
                api(when, Method::GET, &format!("/ips/{IP}"), None);
                then.status(200).json_body(body.clone());
            })
            .await;
        let got = client(&server)
            .find_ip_address_by_id()
            .id(uuid(IP))
            .send()
            .await
            .unwrap()
            .into_inner();
        let name = match got {
            IpAddress::Assignment(_) => "Assignment",
            IpAddress::Reservation(_) => "Reservation",
            IpAddress::VrfReservation(_) => "VrfReservation",
        };
        assert_eq!(name, expected, "{body}");
    }
}

#[tokio::test]
async fn a_project_ip_list_mixes_reservations_and_vrf_reservations() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/projects/{PROJECT}/ips"),
                // `types` is exploded in the spec: one key per value;
                // `include` is one comma-joined value.
                Some("include=vrf%2Cproject&types=public_ipv4&types=vrf"),
            );
            then.status(200).json_body(json!({
                "ip_addresses": [reservation("public_ipv4"), vrf_reservation()],
                "meta": meta_json(1, 1, 2)
            }));
        })
        .await;
    let list = client(&server)
        .find_ip_reservations()
        .id(uuid(PROJECT))
        .types(vec![
            types::FindIpReservationsTypesItem::PublicIpv4,
            types::FindIpReservationsTypesItem::Vrf,
        ])
        .include(metal_api::csv(["vrf", "project"]))
        .send()
        .await
        .unwrap()
        .into_inner();
    mock.assert_async().await;
    assert!(matches!(
        list.ip_addresses[..],
        [AnyIpReservation::Reservation(_), AnyIpReservation::Vrf(_)]
    ));
}

#[test]
fn a_body_that_is_not_an_object_is_a_clear_error() {
    for (text, found) in [("[]", "an array"), ("null", "null"), ("\"x\"", "a string")] {
        let err = serde_json::from_str::<IpAddress>(text)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("expected a JSON object, found {found}")),
            "{err}"
        );
    }
}

#[test]
fn a_chosen_variant_that_does_not_decode_says_why() {
    // `vrf` chooses the VRF variant, whose `cidr` is a number.
    let err = serde_json::from_str::<AnyIpReservation>(r#"{"type": "vrf", "cidr": "x"}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid type: string \"x\""), "{err}");
}

#[test]
fn a_null_vrf_is_no_vrf() {
    let gw: AnyMetalGateway = serde_json::from_str(r#"{"vrf": null}"#).unwrap();
    assert!(matches!(gw, AnyMetalGateway::Gateway(_)));
}
