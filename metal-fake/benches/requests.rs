//! What one request to the fake costs, in instructions (callgrind, through
//! gungraun), side by side in one run so that a loaded machine does not
//! blur the ratios:
//!
//! - `page`: `GET /projects/{id}/devices?per_page=1000` on a world of 1000
//!   active devices, through the fake's router (the HTTP path without
//!   sockets); divide by 1000 for the cost of one device.
//! - `value_tree`: the same page's 1000 devices as generated
//!   `metal_api::types` values, rendered through a `serde_json::Value`
//!   tree (clone, `to_value`, the API's empty arrays filled in, `to_vec`,
//!   drop): how the fake rendered before it wrote bytes from its records.
//! - `small_get`: `GET /projects/{id}` through the fake's router, against
//!   `minimal_axum`: an axum router with one route answering the same JSON
//!   bytes, called the same way.
//!
//! Run with `cargo bench -p metal-fake --bench requests` (needs valgrind
//! and `cargo install gungraun-runner --version 0.20.0`).

// gungraun's macros generate undocumented items.
#![allow(missing_docs)]

use std::hint::black_box;

use axum::body::Body;
use axum::http::{header, Request};
use axum::Router;
use gungraun::{library_benchmark, library_benchmark_group, main};
use metal_api::types;
use metal_fake::Fake;
use serde_json::{json, Value};
use tokio::runtime::Runtime;

mod common;

use common::{call, request, runtime, PROJECT};

const DEVICES: usize = 1000;

/// A world of `DEVICES` active devices, each on its reservation.
fn fake() -> Fake {
    common::fake(DEVICES, |_| json!({"tags": ["bench", "web"]}), json!({}))
}

fn page_path() -> String {
    format!("/metal/v1/projects/{PROJECT}/devices?per_page={DEVICES}")
}

fn small_path() -> String {
    format!("/metal/v1/projects/{PROJECT}")
}

/// The runtime, the fake's router, and the request (one warm-up request
/// first, so that one-time costs are not counted).
fn setup_fake(path: String) -> (Runtime, Router, Request<Body>) {
    let rt = runtime();
    let fake = fake();
    let router = fake.router().clone();
    let (status, _) = call(&rt, &router, request("GET", &path));
    assert_eq!(status, 200, "the warm-up of {path}");
    (rt, router, request("GET", &path))
}

fn setup_page() -> (Runtime, Router, Request<Body>) {
    setup_fake(page_path())
}

fn setup_small() -> (Runtime, Router, Request<Body>) {
    setup_fake(small_path())
}

/// A minimal axum router answering the fake's reply to the small GET.
fn setup_minimal() -> (Runtime, Router, Request<Body>) {
    let (rt, fake_router, small) = setup_small();
    let (_, body) = call(&rt, &fake_router, small);
    let router = Router::new().route(
        "/metal/v1/projects/{id}",
        axum::routing::get(move || {
            let body = body.clone();
            async move {
                (
                    [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
                    body,
                )
            }
        }),
    );
    let (status, _) = call(&rt, &router, request("GET", &small_path()));
    assert_eq!(status, 200);
    (rt, router, request("GET", &small_path()))
}

/// The page's devices as generated types.
fn setup_value_tree() -> Vec<types::Device> {
    let (rt, router, request) = setup_page();
    let (_, body) = call(&rt, &router, request);
    let list: types::DeviceList = serde_json::from_slice(&body).expect("the page decodes");
    assert_eq!(list.devices.len(), DEVICES);
    list.devices
}

/// The arrays the API always sends on a device, filled in as the Value
/// rendering did.
const DEVICE_ARRAYS: &[&str] = &[
    "tags",
    "ssh_keys",
    "ip_addresses",
    "network_ports",
    "volumes",
    "provisioning_events",
];

#[library_benchmark]
#[bench::devices_1000(setup = setup_page)]
fn page(input: (Runtime, Router, Request<Body>)) -> usize {
    let (rt, router, request) = input;
    let (status, body) = call(&rt, &router, request);
    assert_eq!(status, 200);
    // The runtime and the router outlive the request: their drop is not
    // its cost.
    std::mem::forget((rt, router));
    black_box(body.len())
}

#[library_benchmark]
#[bench::devices_1000(setup = setup_value_tree)]
fn value_tree(devices: Vec<types::Device>) -> usize {
    let list = types::DeviceList {
        devices: devices.clone(),
        meta: None,
    };
    let mut v = serde_json::to_value(&list).expect("encodes");
    if let Some(all) = v.get_mut("devices").and_then(Value::as_array_mut) {
        for d in all {
            if let Some(obj) = d.as_object_mut() {
                for key in DEVICE_ARRAYS {
                    obj.entry(*key).or_insert_with(|| Value::Array(Vec::new()));
                }
            }
        }
    }
    let bytes = serde_json::to_vec(&v).expect("encodes");
    // The model's records outlive the request (the clone above stands for
    // building the generated values, and is dropped here).
    std::mem::forget(devices);
    black_box(bytes.len())
}

#[library_benchmark]
#[bench::fake(setup = setup_small)]
#[bench::minimal_axum(setup = setup_minimal)]
fn small_get(input: (Runtime, Router, Request<Body>)) -> usize {
    let (rt, router, request) = input;
    let (status, body) = call(&rt, &router, request);
    assert_eq!(status, 200);
    // The runtime and the router outlive the request: their drop is not
    // its cost.
    std::mem::forget((rt, router));
    black_box(body.len())
}

library_benchmark_group!(name = requests; benchmarks = page, value_tree, small_get);

main!(library_benchmark_groups = requests);
