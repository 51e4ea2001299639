//! The gate every API request passes, whatever it is routed to (an
//! operation, a method the route does not serve, no route): the
//! `X-Auth-Token` check (401), then the rate limit (429 with
//! `Retry-After`), then the headers every reply carries (`X-Request-Id`,
//! and `X-RateLimit-*` when the router has a limit, on refusals too: a
//! `401` shows the budget without spending it) and the recording of the
//! reply.
//!
//! The gate reads only the request's head: a request without a valid token
//! is refused before anything reads its body, and it spends nothing of the
//! rate limit, so unauthenticated requests cannot use up an authorised
//! client's budget.

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use super::context::Context;
use super::reply;

/// The gate, as an axum middleware.
pub(super) async fn gate(State(cx): State<Context>, request: Request, next: Next) -> Response {
    let matched = request.extensions().get::<MatchedPath>();
    let operation = cx.operation_at(request.method(), matched.map(MatchedPath::as_str));
    if !cx.token_ok(request.headers().get("x-auth-token")) {
        cx.shared.record(operation, Some(401));
        let resp = reply::error(401, vec!["Invalid authentication token".to_string()]);
        // The budget as it stands, spending none of it.
        return cx.finish(operation, cx.peek().as_ref(), resp);
    }
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
    let resp = next.run(request).await;
    cx.finish(operation, rate.as_ref(), resp)
}
