//! What the benchmarks share: the token, a world of many devices, a
//! current-thread runtime, and one request through the fake's router.
// Each benchmark uses its part.
#![allow(dead_code)]

use axum::body::{Body, Bytes};
use axum::http::Request;
use axum::Router;
use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};
use tokio::runtime::Runtime;
use tower::ServiceExt;

/// The token the benchmarks' fakes accept.
pub const TOKEN: &str = "bench-token";
/// The one project of [`fake`]'s world.
pub const PROJECT: &str = "00000000-0000-4000-8000-000000000001";

/// The `n`th ID of a `kind` (`0xa000` reservations, `0xd000` devices).
pub fn id(kind: u32, n: usize) -> String {
    format!("00000000-0000-4000-{kind:04x}-{n:012x}")
}

/// A fake of a world of `devices` active devices in [`PROJECT`], each on
/// its own hardware reservation (a `c3.small.x86` in `da11`), device `n`
/// with `device(n)`'s fields besides, and the document with `more`'s
/// lists besides.
pub fn fake(devices: usize, device: impl Fn(usize) -> Value, more: Value) -> Fake {
    let reservations: Vec<Value> = (0..devices)
        .map(|n| {
            json!({"id": id(0xa000, n), "project": PROJECT, "plan": "c3.small.x86", "facility": "da11"})
        })
        .collect();
    let all: Vec<Value> = (0..devices)
        .map(|n| {
            let mut entry = json!({
                "id": id(0xd000, n), "project": PROJECT, "reservation": id(0xa000, n),
                "plan": "c3.small.x86", "facility": "da11", "hostname": format!("web-{n}"),
            });
            merge(&mut entry, device(n));
            entry
        })
        .collect();
    let mut doc = json!({
        "projects": [{"id": PROJECT}],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "reservations": reservations,
        "devices": all,
    });
    merge(&mut doc, more);
    let doc: WorldDoc = serde_json::from_value(doc).expect("the bench's world decodes");
    Fake::builder()
        .token(TOKEN)
        .world(doc)
        .try_build()
        .expect("the bench's world loads")
}

/// `more`'s fields set on the object `into`.
fn merge(into: &mut Value, more: Value) {
    if let (Some(into), Value::Object(more)) = (into.as_object_mut(), more) {
        into.extend(more);
    }
}

/// A current-thread runtime, for the router's calls.
pub fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime")
}

/// `method` on `path` with [`TOKEN`], no body.
pub fn request(method: &str, path: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .header("x-auth-token", TOKEN)
        .body(Body::empty())
        .expect("a valid request")
}

/// `method` on the API's `path` (below `/metal/v1`) with [`TOKEN`] and
/// `body` as JSON, if any.
pub fn api_request(method: &str, path: &str, body: Option<Value>) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(format!("/metal/v1{path}"))
        .header("x-auth-token", TOKEN)
        .header("content-type", "application/json")
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .expect("a valid request")
}

/// One request through `router`, its whole body read.
pub fn call(rt: &Runtime, router: &Router, request: Request<Body>) -> (u16, Bytes) {
    rt.block_on(async {
        let reply = router
            .clone()
            .oneshot(request)
            .await
            .unwrap_or_else(|never| match never {});
        let status = reply.status().as_u16();
        let body = axum::body::to_bytes(reply.into_body(), usize::MAX)
            .await
            .expect("the body reads");
        (status, body)
    })
}
