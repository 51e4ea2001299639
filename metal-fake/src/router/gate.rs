//! The gate every API request passes, whatever it is routed to (an
//! operation, a method the route does not serve, no route): the
//! `X-Auth-Token` check (401), then the rate limit (429 with
//! `Retry-After`), then ownership (403 for another organisation's
//! project, device, reservation or SSH key), then the headers every reply
//! carries (`X-Request-Id`, and `X-RateLimit-*` when the router has a
//! limit, on refusals too: a `401` shows the budget without spending it)
//! and the recording of the reply.
//!
//! The gate reads only the request's head: a request without a valid token
//! is refused before anything reads its body, and it spends nothing of the
//! rate limit, so unauthenticated requests cannot use up an authorised
//! client's budget.
//!
//! A token is valid when it is the server's configured token (which sees
//! every project) or one of the world's tokens (which sees the projects of
//! its organisations and those named). What it sees is set for the
//! request's exchange ([`crate::shared::CALLER`]), so that lists such as
//! `GET /ssh-keys` show only what the token sees.

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use super::context::Context;
use super::reply;
use crate::model::{id_in_path, Access};
use crate::render::API_PREFIX;
use crate::shared::CALLER;

/// The real API's answer to a bad or missing token: one `error` string,
/// not the `errors` list (ansible/ansible issue 38162). The spec's `Error`
/// schema has both fields.
const INVALID_TOKEN: &str = r#"{"error":"Invalid authentication token"}"#;

/// The gate, as an axum middleware.
pub(super) async fn gate(State(cx): State<Context>, request: Request, next: Next) -> Response {
    let matched = request.extensions().get::<MatchedPath>();
    let operation = cx.operation_at(request.method(), matched.map(MatchedPath::as_str));
    let Some(access) = access(&cx, request.headers().get("x-auth-token")) else {
        cx.shared.record(operation, Some(401));
        let resp = reply::json(401, INVALID_TOKEN.into());
        // The budget as it stands, spending none of it.
        return cx.finish(operation, cx.peek().as_ref(), resp);
    };
    let rate = match cx.admit() {
        Ok(rate) => rate,
        Err(rate) => {
            cx.shared.record(operation, Some(429));
            let mut resp = reply::error(429, vec!["Rate limit exceeded".to_string()]);
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(rate.reset));
            return cx.finish(operation, Some(&rate), resp);
        }
    };
    if let Some(op) = metal_api::operation::find(operation) {
        let path = request.uri().path();
        let id = id_in_path(op.path, path.strip_prefix(API_PREFIX).unwrap_or(path));
        let checked = cx.shared.lock().world.check_access(&access, op.path, id);
        if let Err(refused) = checked {
            cx.shared.record(operation, Some(refused.status));
            return cx.finish(operation, rate.as_ref(), reply::refusal(refused));
        }
    }
    let resp = CALLER.scope(access, next.run(request)).await;
    cx.finish(operation, rate.as_ref(), resp)
}

/// What the request's token sees: everything for the server's token, the
/// world's say for one of its tokens, `None` for any other.
fn access(cx: &Context, token: Option<&HeaderValue>) -> Option<Access> {
    let token = token.and_then(|v| v.to_str().ok())?;
    if token == cx.config().token {
        return Some(Access::All);
    }
    cx.shared.lock().world.access_of(token)
}
