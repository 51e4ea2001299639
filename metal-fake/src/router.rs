//! The fake's one router, served over HTTP ([`crate::server`]) and called
//! in-process without sockets (the [`metal_api::Exchange`] of
//! [`crate::Fake`]): every operation of `openapi/metal.json` (from
//! [`metal_api::operation::ALL`]) routed with axum's own routing under
//! `/metal/v1`, each route handing its operation to the pipeline; `405`
//! with `Allow` for a method a path does not serve and `404` for a path the
//! spec does not have, through the same pipeline (but the few modelled
//! operations outside the spec, each declared by its folder); and the
//! control API
//! (`/_fake/...`) beside it.

use std::collections::BTreeMap;

use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{Extension, RawPathParams, Request, State};
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter};
use axum::Router;
use metal_api::operation::{self, Operation};

use crate::model::render::API_PREFIX;
use crate::pipeline::{ConnKill, Pipeline, Route};

/// The fake's router: every request through `pipeline`.
pub(crate) fn router(pipeline: Pipeline) -> Router {
    let mut by_path: BTreeMap<&'static str, Vec<&'static Operation>> = BTreeMap::new();
    for op in operation::ALL {
        by_path.entry(op.path).or_default().push(op);
    }
    // The few modelled operations the spec lacks (each says why, with a
    // row in `fidelity`), served beside the spec's.
    for m in crate::model::modelled() {
        if operation::find(m.operation.id).is_none() {
            by_path
                .entry(m.operation.path)
                .or_default()
                .push(m.operation);
        }
    }
    let also_patch: Vec<&str> = crate::model::modelled()
        .filter(|m| m.also_patch)
        .map(|m| m.operation.id)
        .collect();
    let mut api: Router<Pipeline> = Router::new();
    for (path, ops) in by_path {
        let mut methods = MethodRouter::new();
        for op in ops {
            let handler = move |State(pipeline): State<Pipeline>,
                                kill: Option<Extension<ConnKill>>,
                                path: Result<RawPathParams, RawPathParamsRejection>,
                                request: Request| async move {
                pipeline
                    .serve(
                        Route::Operation(op),
                        path.ok().map(|p| {
                            p.iter()
                                .map(|(name, value)| (name.to_string(), value.to_string()))
                                .collect()
                        }),
                        kill.map(|Extension(k)| k),
                        request,
                    )
                    .await
            };
            methods = methods.on(filter(op), handler);
            // A client's PATCH where the spec says PUT.
            if also_patch.contains(&op.id) {
                methods = methods.on(MethodFilter::PATCH, handler);
            }
        }
        api = api.route(&format!("{API_PREFIX}{path}"), methods);
    }
    let api = api.method_not_allowed_fallback(not_allowed);
    let control = crate::control::router(pipeline.store().clone(), pipeline.control_token());
    api.fallback(not_found)
        .with_state(pipeline)
        // The control API (`/_fake/...`), outside the API's pipeline.
        .merge(control)
}

/// The filter of `op`'s method: every method of the spec is one axum
/// routes by, so the match is total.
fn filter(op: &Operation) -> MethodFilter {
    use metal_api::operation::Method as M;
    match op.method {
        M::Get => MethodFilter::GET,
        M::Put => MethodFilter::PUT,
        M::Post => MethodFilter::POST,
        M::Delete => MethodFilter::DELETE,
        M::Patch => MethodFilter::PATCH,
        M::Head => MethodFilter::HEAD,
        M::Options => MethodFilter::OPTIONS,
        M::Trace => MethodFilter::TRACE,
    }
}

/// A method the path does not serve; axum adds `Allow`.
async fn not_allowed(State(pipeline): State<Pipeline>, request: Request) -> Response {
    pipeline.serve(Route::NotAllowed, None, None, request).await
}

/// A path the spec does not have.
async fn not_found(State(pipeline): State<Pipeline>, request: Request) -> Response {
    pipeline.serve(Route::NotFound, None, None, request).await
}
