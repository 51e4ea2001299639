//! The router: every operation of `openapi/metal.json` (from
//! [`metal_api::operation::ALL`]) routed with axum's own routing under
//! `/metal/v1`, behind the gate; `405` with `Allow` for a method a path
//! does not serve; `404` for a path the spec does not have; and the
//! control API (`/_fake/...`, [`crate::control`]) outside the gate.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Extension, Path, State};
use axum::http::{Method, Uri};
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter};
use axum::{middleware, Router};
use metal_api::operation::{self, Operation};

use super::config::{RecordedReply, ServerConfig};
use super::context::{Context, Routes};
use super::gate::gate;
use super::kill::ConnKill;
use super::{operation as serve_operation, reply};
use crate::model::ALSO_PATCH;
use crate::render::API_PREFIX;
use crate::shared::Shared;

/// Where recorded replies go (see [`ServerConfig::record_replies`]).
pub(crate) type Recorded = Arc<Mutex<Vec<RecordedReply>>>;

/// The fake's router over `shared`, configured by `config`, and where it
/// records replies.
pub(crate) fn router(shared: Arc<Shared>, config: ServerConfig) -> (Router, Recorded) {
    let mut by_path: BTreeMap<&'static str, Vec<&'static Operation>> = BTreeMap::new();
    for op in operation::ALL {
        by_path.entry(op.path).or_default().push(op);
    }
    let mut routes: Routes = HashMap::new();
    let mut api: Router<Context> = Router::new();
    for (path, ops) in by_path {
        let mut methods = MethodRouter::new();
        for op in ops {
            let method = http_method(op);
            routes
                .entry(format!("{API_PREFIX}{path}"))
                .or_default()
                .insert(method.clone(), op);
            let handler = move |State(cx): State<Context>,
                                kill: Option<Extension<ConnKill>>,
                                path: Result<Path<HashMap<String, String>>, PathRejection>,
                                uri: Uri,
                                body: Body| {
                serve_operation::serve(
                    cx,
                    op,
                    kill.map(|Extension(k)| k),
                    path.ok().map(|Path(p)| p),
                    uri,
                    body,
                )
            };
            methods = methods.on(filter(op, method.clone()), handler);
            // A client's PATCH where the spec says PUT (see ALSO_PATCH).
            if ALSO_PATCH.iter().any(|also| also.id == op.id) {
                routes
                    .entry(format!("{API_PREFIX}{path}"))
                    .or_default()
                    .insert(Method::PATCH, op);
                methods = methods.on(MethodFilter::PATCH, handler);
            }
        }
        api = api.route(path, methods);
    }
    let api = api.method_not_allowed_fallback(not_allowed);
    let recorded = Recorded::default();
    let control = crate::control::router(shared.clone(), config.control_token.clone());
    let cx = Context::new(shared, config, recorded.clone(), routes);
    let router = Router::new()
        .nest(API_PREFIX, api)
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(cx.clone(), gate))
        .with_state(cx)
        // The control API (`/_fake/...`), outside the gate.
        .merge(control);
    (router, recorded)
}

fn http_method(op: &Operation) -> Method {
    Method::from_bytes(op.method.as_str().as_bytes())
        .unwrap_or_else(|_| unreachable!("{} is an HTTP method", op.method))
}

fn filter(op: &Operation, method: Method) -> MethodFilter {
    MethodFilter::try_from(method)
        .unwrap_or_else(|_| panic!("axum routes no {} ({})", op.method, op.id))
}

/// A method the path does not serve; axum adds `Allow`.
async fn not_allowed(State(cx): State<Context>) -> Response {
    cx.shared.record("unknown", Some(405));
    reply::error(405, vec!["Method not allowed".to_string()])
}

/// A path the spec does not have.
async fn not_found(State(cx): State<Context>) -> Response {
    cx.shared.record("unknown", Some(404));
    reply::error(404, vec!["Not found".to_string()])
}
