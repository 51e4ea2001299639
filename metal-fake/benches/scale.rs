//! Whether a request's cost grows with the world: each write (a create,
//! an update and a delete of a device, a project, an SSH key and a
//! VLAN), and a device's read, in a world of 100 records of each kind
//! and in one of 100,000, in instructions (callgrind, through gungraun),
//! side by side in one run. Each device is on its own hardware
//! reservation and has a port out of its bond (so the ports' table is as
//! large as the devices'); the world holds as many projects, SSH keys
//! and VLANs, one of each in each project. A write that read whole
//! tables to find what goes with its record would cost a thousand times
//! more in the larger world.
//!
//! - `device_create`: `POST /projects/{id}/devices`, on demand, into the
//!   project holding every device.
//! - `device_update`, `device_delete`, `get`: `PUT`, `DELETE` and `GET
//!   /devices/{id}`.
//! - `project_create`, `project_update`, `project_delete`: `POST
//!   /projects`, `PUT` and `DELETE /projects/{id}` (a project holding
//!   its key and its VLAN, which go with it).
//! - `ssh_key_create`, `ssh_key_update`, `ssh_key_delete`: `POST
//!   /projects/{id}/ssh-keys`, `PUT` and `DELETE /ssh-keys/{id}`.
//! - `vlan_create`, `vlan_update`, `vlan_delete`: `POST
//!   /projects/{id}/virtual-networks`, `PUT` and `DELETE
//!   /virtual-networks/{id}`.
//!
//! Run with `cargo bench -p metal-fake --bench scale` (needs valgrind and
//! `cargo install gungraun-runner --version 0.20.0`); the figures to
//! compare are each benchmark's two `Instructions` (see
//! `benches/README.md` for the last figures).

// gungraun's macros generate undocumented items.
#![allow(missing_docs)]

use std::hint::black_box;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use gungraun::{library_benchmark, library_benchmark_group, main};
use metal_fake::Fake;
use serde_json::{json, Value};
use tokio::runtime::Runtime;

mod common;

use common::{call, id, runtime, PROJECT, TOKEN};

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

/// The most devices a world holds: the fake holds 100,000 machines, and
/// the on-demand creates need 1,000 of them free.
const DEVICES: usize = 99_000;

/// A world of `records` of each kind (of devices at most [`DEVICES`]):
/// active devices in [`PROJECT`],
/// each on its reservation, each with `eth1` out of its bond; projects;
/// and in project `n` the SSH key `n` and the VLAN `n`.
fn fake(records: usize) -> Fake {
    let devices = records.min(DEVICES);
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
    common::fake(
        devices,
        |_| json!({}),
        json!({
            "ports": ports, "projects": projects, "ssh_keys": keys, "virtual_networks": vlans,
            "capacity": [{"metro": "da", "plan": "c3.small.x86", "available": 1000}],
        }),
    )
}

/// `method` on `path` with `body` (JSON), as the token.
fn request(method: &str, path: &str, body: Option<Value>) -> Request<Body> {
    let builder = Request::builder()
        .method(method)
        .uri(format!("/metal/v1{path}"))
        .header("x-auth-token", TOKEN)
        .header("content-type", "application/json");
    builder
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .expect("a valid request")
}

/// A write of the benchmarks: its request for the `n`th record it takes
/// (the warm-up takes `1`, the measured one the middle record), and the
/// status it answers.
type Write = fn(usize, usize) -> (Request<Body>, u16);

/// The runtime, the router of a world of `records`, and `write`'s
/// request (after a warm-up of the same write and a read, so one-time
/// costs are not counted).
fn setup(records: usize, write: Write) -> (Runtime, Router, Fake, Request<Body>, u16) {
    let rt = runtime();
    let fake = fake(records);
    let router = fake.router().clone();
    let (status, _) = call(
        &rt,
        &router,
        common::request("GET", &format!("/metal/v1/devices/{}", id(0xd000, 0))),
    );
    assert_eq!(status, 200, "the warm-up read");
    let (warm, want) = write(records, 1);
    let (status, body) = call(&rt, &router, warm);
    assert_eq!(
        status,
        want,
        "the warm-up: {}",
        String::from_utf8_lossy(&body)
    );
    let (request, status) = write(records, records / 2);
    (rt, router, fake, request, status)
}

/// The request, its status checked; the world outlives it (its drop is
/// not the request's cost).
fn timed(input: (Runtime, Router, Fake, Request<Body>, u16)) -> usize {
    let (rt, router, fake, request, status) = input;
    let (got, body) = call(&rt, &router, request);
    assert_eq!(got, status, "{}", String::from_utf8_lossy(&body));
    std::mem::forget((rt, router, fake));
    black_box(body.len())
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

fn device_get(_: usize, n: usize) -> (Request<Body>, u16) {
    (
        request("GET", &format!("/devices/{}", id(0xd000, n)), None),
        200,
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

/// The benchmark `$name` of `write` at 100 and at 100,000 records.
macro_rules! write_bench {
    ($name:ident, $write:expr) => {
        #[library_benchmark]
        #[bench::records_100(args = (100, $write), setup = setup)]
        #[bench::records_100000(args = (100_000, $write), setup = setup)]
        fn $name(input: (Runtime, Router, Fake, Request<Body>, u16)) -> usize {
            timed(input)
        }
    };
}

write_bench!(get, device_get);
write_bench!(device_create_, device_create);
write_bench!(device_update_, device_update);
write_bench!(device_delete_, device_delete);
write_bench!(project_create_, project_create);
write_bench!(project_update_, project_update);
write_bench!(project_delete_, project_delete);
write_bench!(ssh_key_create_, ssh_key_create);
write_bench!(ssh_key_update_, ssh_key_update);
write_bench!(ssh_key_delete_, ssh_key_delete);
write_bench!(vlan_create_, vlan_create);
write_bench!(vlan_update_, vlan_update);
write_bench!(vlan_delete_, vlan_delete);

library_benchmark_group!(
    name = scale;
    benchmarks = get, device_create_, device_update_, device_delete_,
        project_create_, project_update_, project_delete_,
        ssh_key_create_, ssh_key_update_, ssh_key_delete_,
        vlan_create_, vlan_update_, vlan_delete_
);

main!(library_benchmark_groups = scale);
