//! Whether a request's cost grows with the world: a device's delete and
//! read in a world of 10 devices and in one of 10,000 (the provisioning
//! run's upper bound), in instructions (callgrind, through gungraun), side
//! by side in one run. Each device is on its own hardware reservation and
//! has a port out of its bond (so the ports' table is as large as the
//! devices'), so a delete that read whole tables to find what goes with
//! the device would cost a thousand times more in the larger world.
//!
//! - `delete`: `DELETE /devices/{id}` (its port and its reservation's
//!   hold go with it), through the fake's router.
//! - `get`: `GET /devices/{id}`, through the fake's router.
//!
//! Run with `cargo bench -p metal-fake --bench scale` (needs valgrind and
//! `cargo install gungraun-runner --version 0.20.0`); the figures to
//! compare are each benchmark's two `Instructions`.

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

use common::{call, id, request, runtime};

/// A world of `devices` active devices, each on its reservation, each
/// with `eth1` out of its bond.
fn fake(devices: usize) -> Fake {
    let ports: Vec<Value> = (0..devices)
        .map(|n| json!({"device": id(0xd000, n), "name": "eth1", "bonded": false}))
        .collect();
    common::fake(devices, |_| json!({}), json!({ "ports": ports }))
}

/// The runtime, the router of a world of `devices`, and `method` on the
/// middle device (after one warm-up read and one warm-up delete of
/// another device, so one-time costs are not counted).
fn setup(devices: usize, method: &str) -> (Runtime, Router, Fake, Request<Body>) {
    let rt = runtime();
    let fake = fake(devices);
    let router = fake.router().clone();
    let path = |n: usize| format!("/metal/v1/devices/{}", id(0xd000, n));
    let (status, _) = call(&rt, &router, request("GET", &path(0)));
    assert_eq!(status, 200, "the warm-up read");
    let (status, _) = call(&rt, &router, request("DELETE", &path(1)));
    assert_eq!(status, 204, "the warm-up delete");
    let request = request(method, &path(devices / 2));
    (rt, router, fake, request)
}

fn setup_delete(devices: usize) -> (Runtime, Router, Fake, Request<Body>) {
    setup(devices, "DELETE")
}

fn setup_get(devices: usize) -> (Runtime, Router, Fake, Request<Body>) {
    setup(devices, "GET")
}

/// The request, its status checked; the world outlives it (its drop is
/// not the request's cost).
fn timed(input: (Runtime, Router, Fake, Request<Body>), status: u16) -> usize {
    let (rt, router, fake, request) = input;
    let (got, body) = call(&rt, &router, request);
    assert_eq!(got, status);
    std::mem::forget((rt, router, fake));
    black_box(body.len())
}

#[library_benchmark]
#[bench::devices_10(args = (10), setup = setup_delete)]
#[bench::devices_10000(args = (10_000), setup = setup_delete)]
fn delete(input: (Runtime, Router, Fake, Request<Body>)) -> usize {
    timed(input, 204)
}

#[library_benchmark]
#[bench::devices_10(args = (10), setup = setup_get)]
#[bench::devices_10000(args = (10_000), setup = setup_get)]
fn get(input: (Runtime, Router, Fake, Request<Body>)) -> usize {
    timed(input, 200)
}

library_benchmark_group!(name = scale; benchmarks = delete, get);

main!(library_benchmark_groups = scale);
