//! An outcome put on the wire: a reply, an injected status, an HTML 502, a
//! body cut short, a connection dropped, or no reply at all; then the
//! headers every reply carries (`X-Request-Id`, and `X-RateLimit-*` when
//! the router has a limit, refusals included) and, when asked, a copy of
//! the reply kept.

use axum::http::{header, HeaderValue};
use axum::response::Response;

use super::{whole_seconds, Context, Outcome, Pipeline, Route};
use crate::router::{reply, ConnKill, Kill, RecordedReply};

/// The real API's answer to a bad or missing token: one `error` string,
/// not the `errors` list (ansible/ansible issue 38162). The spec's `Error`
/// schema has both fields.
const INVALID_TOKEN: &str = r#"{"error":"Invalid authentication token"}"#;

/// The response for `outcome`; a dropped connection or a hang never
/// returns.
pub(super) async fn respond(cx: &Context, outcome: Outcome, kill: Option<ConnKill>) -> Response {
    let success = match cx.route {
        Route::Operation(op) => op.success,
        Route::NotAllowed | Route::NotFound => 200,
    };
    match outcome {
        Outcome::Reply(result) => reply::of(success, result),
        Outcome::Unauthorized => reply::json(401, INVALID_TOKEN.into()),
        Outcome::Closing(e) => {
            let mut resp = reply::refusal(e);
            resp.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            resp
        }
        Outcome::Failed { status } => {
            reply::error(status, vec!["fake: injected server error".to_string()])
        }
        Outcome::Throttled { retry_after } => {
            let mut resp = reply::error(429, vec!["Rate limit exceeded".to_string()]);
            resp.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(whole_seconds(retry_after)),
            );
            resp
        }
        Outcome::BadGateway => reply::bad_gateway(),
        Outcome::NotSent => drop_connection(kill, Kill::NotSent).await,
        Outcome::Dropped => drop_connection(kill, Kill::NoReply).await,
        Outcome::Hang => std::future::pending().await,
        Outcome::Truncated(result) => match reply::truncated(reply::of(success, result)) {
            Some(cut) => cut,
            None => drop_connection(kill, Kill::NoReply).await,
        },
    }
}

/// Closes this request's connection without a reply (whoever carries it
/// stops waiting for this handler).
async fn drop_connection(kill: Option<ConnKill>, why: Kill) -> Response {
    if let Some(kill) = kill {
        kill.fire(why);
    }
    std::future::pending().await
}

impl Pipeline {
    /// Adds the headers every reply carries and keeps a copy of the reply
    /// (when asked to).
    pub(super) fn finish(&self, cx: &Context, mut resp: Response) -> Response {
        let mut id = [0u8; uuid::fmt::Hyphenated::LENGTH];
        let id = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut id);
        if let Ok(id) = HeaderValue::from_str(id) {
            resp.headers_mut().insert("x-request-id", id);
        }
        if let Some(r) = &cx.rate {
            let h = resp.headers_mut();
            h.insert("x-ratelimit-limit", HeaderValue::from(r.limit));
            h.insert("x-ratelimit-remaining", HeaderValue::from(r.remaining));
            // A Unix time, as the real API sends it (and packngo reads it).
            let reset = r.reset_at(std::time::SystemTime::now());
            h.insert("x-ratelimit-reset", HeaderValue::from(reset));
        }
        if self.config.record_replies {
            if let Some(body) = reply::kept_body(&resp) {
                let kept = RecordedReply {
                    operation: cx.operation_id().to_string(),
                    status: resp.status().as_u16(),
                    content_type: resp
                        .headers()
                        .get(header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string),
                    body,
                };
                self.recorded
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(kept);
            }
        }
        resp
    }
}
