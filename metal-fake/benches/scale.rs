//! Whether a request's cost grows with the world: each write (a create,
//! an update and a delete of a device, a project, an SSH key, a VLAN and
//! an IP reservation; an IP assignment's create and delete), and a
//! device's read, in a world of 100 records of each kind and in one of
//! 99,000 (the fake holds 100,000 of a kind at most, and the creates need
//! room), in instructions (callgrind, through gungraun), side by side in
//! one run. Each device is on its own hardware reservation, has a port
//! out of its bond (so the ports' table is as large as the devices') and
//! an address of one of its project's IP reservations assigned; the world
//! holds as many projects, SSH keys, VLANs and IP reservations, one of
//! each in each project. A write that read whole tables to find what goes
//! with its record would cost a thousand times more in the larger world.
//!
//! One process a world (building the world of 99,000 under valgrind
//! takes minutes, so it is built once): `at_100` and `at_99000` make the
//! same writes, in the order of [`WRITES`], each on records of its own,
//! and callgrind dumps its counts after each (`--dump-after` of [`one`]),
//! so gungraun prints one part a write, in that order, each beside the
//! same part at 100 records with the ratio (`compare_by_id`). Part `n` is
//! the write `WRITES[n - 1]`; the last part (after the last write) is
//! empty.
//!
//! Before the writes are measured, each is made once on other records
//! (one-time costs are not counted), and the allocator is given a moment
//! to sort what building the world freed: glibc's malloc sorts up to
//! 10,000 freed chunks into its bins at each large allocation, and right
//! after a world of 99,000 was built and its document dropped, that
//! sorting (some 12 million instructions) landed on whatever request came
//! first, whatever that request did. A server pays it once after a load,
//! not at each write; [`settle_allocator`] pays it before the measure.
//!
//! Run with `cargo bench -p metal-fake --bench scale` (needs valgrind and
//! `cargo install gungraun-runner --version 0.20.0`; some five minutes,
//! most of it building the world of 99,000 under valgrind); see
//! `benches/README.md` for the last figures.

// gungraun's macros generate undocumented items.
#![allow(missing_docs)]

use std::hint::black_box;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use gungraun::{
    library_benchmark, library_benchmark_group, main, Callgrind, LibraryBenchmarkConfig,
    OutputFormat,
};
use metal_fake::Fake;
use serde_json::{json, Value};
use tokio::runtime::Runtime;

mod common;

use common::{api_request as request, call, id, runtime, PROJECT};

/// The writes, in the order they are measured (part `n` of a run is
/// `WRITES[n - 1]`), each making its request for the `n`th records it
/// takes.
const WRITES: &[(&str, Write)] = &[
    ("get", device_get),
    ("device_create", device_create),
    ("device_update", device_update),
    ("device_delete", device_delete),
    ("project_create", project_create),
    ("project_update", project_update),
    ("project_delete", project_delete),
    ("ssh_key_create", ssh_key_create),
    ("ssh_key_update", ssh_key_update),
    ("ssh_key_delete", ssh_key_delete),
    ("vlan_create", vlan_create),
    ("vlan_update", vlan_update),
    ("vlan_delete", vlan_delete),
    ("ip_create", ip_create),
    ("ip_update", ip_update),
    ("ip_delete", ip_delete),
    ("ip_assign", ip_assign),
    ("ip_unassign", ip_unassign),
];

/// A write of the benchmarks: its request for the `n`th records it takes
/// (of a world of `records`), and the status it answers.
type Write = fn(usize, usize) -> (Request<Body>, u16);

/// The `n`th SSH key of the world: a valid ed25519 public key of its own.
fn key(n: usize) -> String {
    use base64::Engine as _;
    let mut blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20".to_vec();
    let mut k = [0u8; 32];
    k[..8].copy_from_slice(&(n as u64).to_le_bytes());
    blob.extend_from_slice(&k);
    let body = base64::engine::general_purpose::STANDARD.encode(blob);
    format!("ssh-ed25519 {body} key-{n}")
}

/// The `n`th project (`0` is [`PROJECT`], which holds every device).
fn project(n: usize) -> String {
    if n == 0 {
        PROJECT.to_string()
    } else {
        id(0xb000, n)
    }
}

/// The IP reservation of project `n` (`n >= 1`): a public /32.
fn reservation(n: usize) -> String {
    id(0x9000, n)
}

/// The assignment of device `n`: an address of [`PROJECT`]'s
/// `n / PER_BLOCK`th /24.
fn assignment(n: usize) -> String {
    id(0xc000, n)
}

/// The `i`th address from `base` (an IPv4 address as a number).
fn address(base: u32, i: usize) -> std::net::Ipv4Addr {
    std::net::Ipv4Addr::from(base + u32::try_from(i).expect("a small world"))
}

/// The projects' /32s, from 44.0.0.0 (out of the fake's pools).
const PROJECT_BLOCKS: u32 = 44 << 24;
/// [`PROJECT`]'s /24s, one per [`PER_BLOCK`] devices, from 45.0.0.0.
const DEVICE_BLOCKS: u32 = 45 << 24;
/// The devices with an address of each of [`PROJECT`]'s /24s: as many in
/// either world, so a block's own list of assignments (at most 256) is
/// as long in both, and only the world's size differs.
const PER_BLOCK: usize = 100;
/// [`PROJECT`]'s spare /28, whose addresses `ip_assign` assigns.
const SPARE_BLOCK: u32 = 46 << 24;

/// The records of each kind of the larger world: the fake holds 100,000
/// of a kind (and 100,000 machines) at most, and the creates need room
/// (and 1,000 machines free).
const LARGE: usize = 99_000;

/// A world of `records` of each kind (at most [`LARGE`]):
/// active devices in [`PROJECT`], each on its reservation, each with
/// `eth1` out of its bond and an address of one of [`PROJECT`]'s /24s;
/// projects; and in project `n` the SSH key `n`, the VLAN `n` and a /32.
fn fake(records: usize) -> Fake {
    let devices = records;
    let ports: Vec<Value> = (0..devices)
        .map(|n| json!({"device": id(0xd000, n), "name": "eth1", "bonded": false}))
        .collect();
    let projects: Vec<Value> = (0..records).map(|n| json!({"id": project(n)})).collect();
    let keys: Vec<Value> = (0..records)
        .map(|n| json!({"id": id(0xe000, n), "project": project(n), "label": format!("k{n}"), "key": key(n)}))
        .collect();
    let vlans: Vec<Value> = (0..records)
        .map(|n| json!({"id": id(0xf000, n), "project": project(n), "metro": "da", "vxlan": 2 + n % 3000}))
        .collect();
    let mut ips: Vec<Value> = (1..records)
        .map(|n| {
            json!({"id": reservation(n), "project": project(n), "type": "public_ipv4",
                "network": address(PROJECT_BLOCKS, n).to_string(), "cidr": 32, "metro": "da"})
        })
        .collect();
    for (b, first) in (0..devices).step_by(PER_BLOCK).enumerate() {
        let network = DEVICE_BLOCKS + (u32::try_from(b).expect("a small world") << 8);
        let assignments: Vec<Value> = (first..devices.min(first + PER_BLOCK))
            .map(|n| {
                json!({"id": assignment(n), "device": id(0xd000, n),
                    "address": address(network, n - first).to_string()})
            })
            .collect();
        ips.push(
            json!({"id": id(0x9100, b), "project": PROJECT, "type": "public_ipv4",
            "network": address(network, 0).to_string(), "cidr": 24, "metro": "da",
            "assignments": assignments}),
        );
    }
    ips.push(
        json!({"id": id(0x9200, 0), "project": PROJECT, "type": "public_ipv4",
        "network": address(SPARE_BLOCK, 0).to_string(), "cidr": 28, "metro": "da"}),
    );
    common::fake(
        devices,
        |_| json!({}),
        json!({
            "ports": ports, "projects": projects, "ssh_keys": keys, "virtual_networks": vlans,
            "ip_reservations": ips,
            "capacity": [{"metro": "da", "plan": "c3.small.x86", "available": 1000}],
        }),
    )
}

/// What a world's run measures: the runtime, the router (and the fake
/// behind it), and each write's request with the status it answers.
struct Run {
    rt: Runtime,
    router: Router,
    fake: Fake,
    writes: Vec<(Request<Body>, u16)>,
}

/// The world of `records`, each write made once on records of its own
/// (from `1`), and the requests of the measured writes, each on records
/// of its own (from the middle of the world).
fn setup(records: usize) -> Run {
    let rt = runtime();
    let fake = fake(records);
    let router = fake.router().clone();
    for (i, (name, write)) in WRITES.iter().enumerate() {
        let (warm, want) = write(records, 1 + i);
        let (status, body) = call(&rt, &router, warm);
        assert_eq!(
            status,
            want,
            "the warm-up of {name}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    let writes = WRITES
        .iter()
        .enumerate()
        .map(|(i, (_, write))| write(records, records / 2 + i))
        .collect();
    settle_allocator();
    Run {
        rt,
        router,
        fake,
        writes,
    }
}

/// Allocates and frees 4,096 blocks of 64 KiB: each makes glibc's malloc
/// sort up to 10,000 of the chunks freed while the world was built (see
/// the module's documentation), so no measured request pays for it.
fn settle_allocator() {
    for _ in 0..4096 {
        black_box(Vec::<u8>::with_capacity(64 * 1024));
    }
}

/// One measured write: callgrind dumps its counts as a part when it
/// returns (`--dump-after`).
#[inline(never)]
fn one(rt: &Runtime, router: &Router, request: Request<Body>, status: u16) -> usize {
    let (got, body) = call(rt, router, request);
    assert_eq!(got, status, "{}", String::from_utf8_lossy(&body));
    black_box(body.len())
}

/// Every write of `run`, in order; the world outlives them (its drop is
/// no write's cost).
fn measure(run: Run) -> usize {
    let Run {
        rt,
        router,
        fake,
        writes,
    } = run;
    let mut total = 0;
    for (request, status) in writes {
        total += one(&rt, &router, request, status);
    }
    std::mem::forget((rt, router, fake));
    total
}

fn device_get(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request("GET", &format!("/devices/{}", id(0xd000, n)), None),
        200,
    )
}

fn device_create(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"plan": "c3.small.x86", "metro": "da",
        "operating_system": "ubuntu_22_04", "hostname": format!("new-{n}")});
    (
        request("POST", &format!("/projects/{PROJECT}/devices"), Some(body)),
        201,
    )
}

fn device_update(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"description": format!("changed {n}")});
    (
        request("PUT", &format!("/devices/{}", id(0xd000, n)), Some(body)),
        200,
    )
}

fn device_delete(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request("DELETE", &format!("/devices/{}", id(0xd000, n)), None),
        204,
    )
}

fn project_create(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"name": format!("new-{n}")});
    (request("POST", "/projects", Some(body)), 201)
}

fn project_update(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"name": format!("changed-{n}")});
    (
        request("PUT", &format!("/projects/{}", project(n)), Some(body)),
        200,
    )
}

/// A project holding its key, its VLAN and its IP reservation, which go
/// with it.
fn project_delete(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request("DELETE", &format!("/projects/{}", project(n)), None),
        204,
    )
}

fn ssh_key_create(records: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"label": format!("new-{n}"), "key": key(records + n)});
    (
        request(
            "POST",
            &format!("/projects/{}/ssh-keys", project(n)),
            Some(body),
        ),
        201,
    )
}

fn ssh_key_update(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"label": format!("changed-{n}")});
    (
        request("PUT", &format!("/ssh-keys/{}", id(0xe000, n)), Some(body)),
        200,
    )
}

fn ssh_key_delete(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request("DELETE", &format!("/ssh-keys/{}", id(0xe000, n)), None),
        204,
    )
}

fn vlan_create(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"metro": "da", "vxlan": 3500});
    let path = format!("/projects/{}/virtual-networks", project(n));
    (request("POST", &path, Some(body)), 201)
}

fn vlan_update(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"description": format!("changed {n}")});
    (
        request(
            "PUT",
            &format!("/virtual-networks/{}", id(0xf000, n)),
            Some(body),
        ),
        200,
    )
}

fn vlan_delete(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request(
            "DELETE",
            &format!("/virtual-networks/{}", id(0xf000, n)),
            None,
        ),
        204,
    )
}

/// `requestIPReservation`: a public /32 more for project `n` (which
/// holds one).
fn ip_create(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"type": "public_ipv4", "quantity": 1, "metro": "da"});
    let path = format!("/projects/{}/ips", project(n));
    (request("POST", &path, Some(body)), 201)
}

/// `updateIPAddress`: project `n`'s /32's details.
fn ip_update(_: usize, n: usize) -> (Request<Body>, u16) {
    let body = json!({"details": format!("changed {n}")});
    (
        request("PATCH", &format!("/ips/{}", reservation(n)), Some(body)),
        200,
    )
}

/// `deleteIPAddress` of project `n`'s /32 (unassigned: released).
fn ip_delete(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request("DELETE", &format!("/ips/{}", reservation(n)), None),
        204,
    )
}

/// `createIPAssignment`: an address of [`PROJECT`]'s spare /28 to device
/// `n` (the warm-up takes its first address, the measure its second).
fn ip_assign(records: usize, n: usize) -> (Request<Body>, u16) {
    let spare = address(SPARE_BLOCK, usize::from(n >= records / 2));
    let body = json!({"address": spare.to_string()});
    (
        request(
            "POST",
            &format!("/devices/{}/ips", id(0xd000, n)),
            Some(body),
        ),
        201,
    )
}

/// `deleteIPAddress` of device `n`'s assignment (unassigned).
fn ip_unassign(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request("DELETE", &format!("/ips/{}", assignment(n)), None),
        204,
    )
}

/// Callgrind without its cache simulation (only instructions are read),
/// its counts dumped after each write (one part a write), each part
/// printed.
fn config() -> LibraryBenchmarkConfig {
    let mut config = LibraryBenchmarkConfig::default();
    config
        .tool(Callgrind::with_args([
            "--cache-sim=no",
            "--dump-after=scale::one",
        ]))
        .output_format(OutputFormat::default().show_intermediate(true));
    config
}

#[library_benchmark(config = config())]
#[bench::writes(args = (100,), setup = setup)]
fn at_100(run: Run) -> usize {
    measure(run)
}

#[library_benchmark(config = config())]
#[bench::writes(args = (LARGE,), setup = setup)]
fn at_99000(run: Run) -> usize {
    measure(run)
}

library_benchmark_group!(
    name = scale;
    compare_by_id = true;
    benchmarks = at_100, at_99000
);

main!(library_benchmark_groups = scale);
