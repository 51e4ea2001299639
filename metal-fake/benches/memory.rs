//! What the fake holds a device, in bytes of heap: a counting allocator
//! (`stats_alloc` around the system's) reads the bytes live after the
//! world is built (100,000 hardware reservations of its project, the
//! fake's bound), and after 1,000, 10,000 and 100,000 devices created
//! through the API (`POST /projects/{id}/devices`, each on a reservation
//! of its own, as the provisioning run creates them) are queued, once
//! they are active (the fake's clock moved on), and once every one was
//! deleted and is gone.
//!
//! Each figure is the world's heap less the world's before the first
//! create, over the devices: everything a device adds (its record, its ports and
//! addresses, the tables' indexes, the relations' index) and, spread over
//! them, what the fake keeps bounded whatever the number of devices (the
//! journal's last 10,000 changes, the call log's last 100,000 lines and
//! the bodies of its last 1,000 calls).
//! The marginal figure (from 10,000 to 100,000) is a device's own cost.
//! After the deletes, what is left is that bounded part: no device leaves
//! anything behind.
//!
//! Run with `cargo bench -p metal-fake --bench memory` (some 30 s);
//! counted bytes, not a clock's figure: they do not move with the
//! machine's load. See `benches/README.md` for the last figures.

use std::alloc::System;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use metal_fake::Fake;
use serde_json::{json, Value};
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use tokio::runtime::Runtime;
use uuid::Uuid;

mod common;

use common::{api_request as request, call, PROJECT, TOKEN};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The devices of each step.
const STEPS: [usize; 3] = [1_000, 10_000, 100_000];

/// Bytes live on the heap now (a reallocation counts its growth as
/// allocated, its shrinking as deallocated).
fn live() -> i128 {
    let s = GLOBAL.stats();
    s.bytes_allocated as i128 - s.bytes_deallocated as i128
}

/// A reservation of the world: its ID, plan and facility.
struct Reservation {
    id: Uuid,
    plan: String,
    facility: String,
}

/// Every reservation of [`PROJECT`], through its list (1,000 a page).
fn reservations(rt: &Runtime, router: &Router) -> Vec<Reservation> {
    let mut all = Vec::new();
    for page in 1.. {
        let path = format!("/projects/{PROJECT}/hardware-reservations?per_page=1000&page={page}");
        let (status, body) = call(rt, router, request("GET", &path, None));
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        let list: Value = serde_json::from_slice(&body).expect("a list's JSON");
        let text = |v: &Value| v.as_str().expect("a string").to_string();
        for r in list["hardware_reservations"].as_array().expect("a list") {
            all.push(Reservation {
                id: text(&r["id"]).parse().expect("a UUID"),
                plan: text(&r["plan"]["slug"]),
                facility: text(&r["facility"]["code"]),
            });
        }
        if list["meta"]["next"].is_null() {
            break;
        }
    }
    all
}

/// Device `n`'s create on reservation `r`, as the provisioning run sends
/// it.
fn create(n: usize, r: &Reservation) -> Request<Body> {
    let body = json!({"plan": r.plan, "facility": [r.facility],
        "hardware_reservation_id": r.id, "operating_system": "ubuntu_22_04",
        "hostname": format!("fleet-{n:06}"), "tags": ["fleet"]});
    request("POST", &format!("/projects/{PROJECT}/devices"), Some(body))
}

/// One line of the table: the devices, what was measured, the bytes over
/// the empty world and their share a device.
fn line(devices: usize, state: &str, over: i128) {
    let per = match devices {
        0 => "-".to_string(),
        n => format!("{:.0} B a device", over as f64 / n as f64),
    };
    println!(
        "{devices:>8} {state:<28} {:>12.1} MB {per:>17}",
        over as f64 / 1e6
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime");
    let fake = rt.block_on(async {
        Fake::builder()
            .token(TOKEN)
            .project(PROJECT.parse().expect("a UUID"))
            .reservations(STEPS[STEPS.len() - 1])
            .try_build()
            .expect("the bench's fake")
    });
    let router: Router = fake.router().clone();
    // Made before the first count: the bench's own bookkeeping is not the
    // fake's.
    let pool = reservations(&rt, &router);
    assert_eq!(pool.len(), STEPS[STEPS.len() - 1]);
    let mut ids: Vec<Uuid> = Vec::with_capacity(pool.len());
    let mut at = Vec::with_capacity(STEPS.len());
    let empty = live();
    println!(
        "before the first create: {:.1} MB of heap ({} reservations)",
        empty as f64 / 1e6,
        pool.len()
    );
    println!(
        "{:>8} {:<28} {:>15} {:>17}",
        "devices", "state", "heap added", "share"
    );
    let mut made = 0;
    for step in STEPS {
        while made < step {
            let (status, body) = call(&rt, &router, create(made, &pool[made]));
            assert_eq!(
                status,
                201,
                "create {made}: {}",
                String::from_utf8_lossy(&body)
            );
            let reply: serde_json::Value = serde_json::from_slice(&body).expect("a device's JSON");
            let id = reply["id"].as_str().expect("an ID");
            ids.push(id.parse().expect("a UUID"));
            made += 1;
        }
        let over = live() - empty;
        at.push(over);
        line(step, "queued", over);
    }
    let (from, to) = (STEPS[1], STEPS[2]);
    let marginal = (at[2] - at[1]) as f64 / (to - from) as f64;
    println!(
        "{:>8} {:<28} {:>15} {marginal:>10.0} B a device",
        "", "queued, 10,000 to 100,000", ""
    );

    // An hour on: every device active (provisioned, its ports and
    // addresses made).
    let path = format!("/projects/{PROJECT}");
    rt.block_on(tokio::time::advance(Duration::from_secs(3600)));
    let (status, _) = call(&rt, &router, request("GET", &path, None));
    assert_eq!(status, 200);
    let active = live() - empty;
    line(made, "active", active);

    for id in &ids {
        let (status, body) = call(
            &rt,
            &router,
            request("DELETE", &format!("/devices/{id}"), None),
        );
        assert_eq!(
            status,
            204,
            "delete {id}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    rt.block_on(tokio::time::advance(Duration::from_secs(3600)));
    let (status, body) = call(
        &rt,
        &router,
        request("GET", &format!("/projects/{PROJECT}/devices"), None),
    );
    assert_eq!(status, 200);
    let listed: serde_json::Value = serde_json::from_slice(&body).expect("a list's JSON");
    assert_eq!(listed["meta"]["total"], 0, "every device is gone");
    line(0, "all deleted and gone", live() - empty);
    println!(
        "(the last line: the journal's last 10,000 changes, the call log's last 100,000 lines \
         and 1,000 bodies, bounded)"
    );
    drop((router, fake));
}
