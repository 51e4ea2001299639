//! The walk draws the request variants, not only the default ones: a
//! scripted walk of the variant-bearing operations (VRFs, VLANs and
//! connections first, so their IDs, ranges and vxlans are in the pool;
//! then circuits, IP requests, device actions), each many times with
//! seeds of its own, keeps every invariant, and among its calls the fake
//! took a VRF circuit, a connection of each type, a request of each IP
//! reservation type it models and a rescue: each drawn from the spec's
//! `oneOf` branches and known values, not written by hand.

use serde_json::json;

use super::{specs, walk_once, Step};

/// `op` called with seeds `from..from + n`.
fn named(op: &'static str, from: u64, n: u64) -> Vec<Step> {
    (from..from + n)
        .map(|seed| Step::Named { op, seed })
        .collect()
}

/// The trace's calls that were answered `2xx` and whose line (method,
/// path, body) has every one of `parts`.
fn taken(trace: &str, parts: &[&str]) -> usize {
    trace
        .lines()
        .filter(|l| {
            l.rsplit(" -> ")
                .next()
                .is_some_and(|s| s.starts_with('2') || s.starts_with("Some(2"))
                && parts.iter().all(|p| l.contains(p))
        })
        .count()
}

/// The walk's fake on a world of one metro (`da`, facility `da11`), so
/// that the VRFs, VLANs and connections it makes meet there: the walk's
/// project and organisation, machines of `c3.small.x86` to make devices
/// on. Named here, not the default world's catalog.
fn one_metro() -> metal_fake::FakeBuilder {
    let org = "0a000000-0000-4000-8000-0000000000a1";
    let doc = json!({
        "organizations": [{"id": org, "name": "walk"}],
        "projects": [{"id": "0b000000-0000-4000-8000-0000000000b1", "organization": org}],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "operating_systems": [{"slug": "ubuntu_24_04"}],
        "capacity": [{"facility": "da11", "plan": "c3.small.x86", "available": 20}]
    });
    metal_fake::Fake::builder()
        .token(super::run::TOKEN)
        .world(serde_json::from_value(doc).unwrap())
}

#[test]
fn the_walk_draws_every_variant_and_the_fake_takes_them() {
    let mut steps = Vec::new();
    steps.extend(named("createVrf", 1, 4));
    steps.extend(named("createVirtualNetwork", 100, 30));
    // Dedicated ports first: an organisation holds at most 100
    // connections, and the circuits' paths pick among those there are.
    steps.extend(named("createOrganizationInterconnection", 2000, 90));
    steps.extend(named("createDevice", 400, 20));
    steps.push(Step::Advance { seconds: 600 });
    steps.push(Step::Advance { seconds: 600 });
    steps.extend(named("createInterconnectionPortVirtualCircuit", 500, 600));
    steps.extend(named("createProjectInterconnection", 300, 60));
    steps.extend(named("requestIPReservation", 800, 320));
    steps.extend(named("performAction", 1000, 60));
    let (spec, docs) = specs(&[]);
    let (violations, trace) = walk_once(&spec, &docs, one_metro(), &steps);
    assert!(violations.is_empty(), "{violations:#?}\n{trace}");
    let counts = [
        (
            "a VRF circuit",
            taken(&trace, &["/virtual-circuits", "\"vrf\":"]),
        ),
        (
            "a shared connection",
            taken(&trace, &["/connections ", "\"type\":\"shared\""]),
        ),
        (
            "a shared_port_vlan connection",
            taken(&trace, &["/connections ", "\"shared_port_vlan\""]),
        ),
        (
            "a shared_port_vlan_to_csp connection",
            taken(&trace, &["/connections ", "\"shared_port_vlan_to_csp\""]),
        ),
        (
            "a dedicated port",
            taken(&trace, &["/connections ", "\"dedicated\""]),
        ),
        (
            "a public_ipv4 block",
            taken(&trace, &["/ips ", "\"public_ipv4\""]),
        ),
        (
            "a global_ipv4 block",
            taken(&trace, &["/ips ", "\"global_ipv4\""]),
        ),
        ("a vrf block", taken(&trace, &["/ips ", "\"vrf\""])),
        ("a rescue", taken(&trace, &["/actions", "\"rescue\""])),
    ];
    let missing: Vec<&str> = counts
        .iter()
        .filter(|(_, n)| *n == 0)
        .map(|(what, _)| *what)
        .collect();
    assert!(
        missing.is_empty(),
        "the walk made no {missing:?}: {counts:?}\n{trace}"
    );
}
