//! An outcome put on the wire: a reply, an injected status, an HTML 502, a
//! body cut short, a connection dropped, or no reply at all; then the
//! headers every reply carries (`X-Request-Id`, and `X-RateLimit-*` when
//! the router has a limit, refusals included) and, when asked, a copy of
//! the reply kept.

use axum::body::Bytes;
use axum::http::{header, HeaderValue};
use axum::response::Response;

use super::config::RecordedReply;
use super::kill::{ConnKill, Kill};
use super::reply;
use super::{Context, Outcome, Pipeline, Route};
use crate::clock::whole_seconds;

/// The real API's answer to a bad or missing token: one `error` string,
/// not the `errors` list (ansible/ansible issue 38162). The spec's `Error`
/// schema has both fields.
pub(super) const INVALID_TOKEN: &str = r#"{"error":"Invalid authentication token"}"#;

/// The message of [`INVALID_TOKEN`], as the call log keeps it.
pub(super) const INVALID_TOKEN_MESSAGE: &str = "Invalid authentication token";

/// The message of an injected error status.
pub(super) const INJECTED_ERROR: &str = "fake: injected server error";

/// The message of the rate limit's `429`.
pub(super) const RATE_LIMITED: &str = "Rate limit exceeded";

impl Pipeline {
    /// Puts `outcome` on the wire: its response, with the headers every
    /// reply carries (and a copy kept, when asked); a dropped connection
    /// or a hang never returns.
    pub(super) async fn send(
        &self,
        cx: &Context,
        outcome: Outcome,
        kill: Option<ConnKill>,
    ) -> Response {
        let (resp, body) = respond(cx, outcome, kill).await;
        self.finish(cx, resp, body)
    }
}

/// The response for `outcome`, and its whole body when it has one built
/// here (not one cut short); a dropped connection or a hang never returns.
async fn respond(
    cx: &Context,
    outcome: Outcome,
    kill: Option<ConnKill>,
) -> (Response, Option<Bytes>) {
    let built = |(resp, body): reply::Built| (resp, Some(body));
    let success = match cx.route {
        Route::Operation(op) => op.success,
        Route::NotAllowed | Route::NotFound => 200,
    };
    match outcome {
        Outcome::Reply(result) => built(reply::of(success, result)),
        Outcome::Unauthorized => built(reply::json(401, INVALID_TOKEN.into())),
        Outcome::Closing(e) => {
            let (mut resp, body) = reply::refusal(e);
            resp.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            (resp, Some(body))
        }
        Outcome::Failed { status } => built(reply::error(status, vec![INJECTED_ERROR.to_string()])),
        Outcome::Throttled { retry_after } => {
            let (mut resp, body) = reply::error(429, vec![RATE_LIMITED.to_string()]);
            resp.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(whole_seconds(retry_after)),
            );
            (resp, Some(body))
        }
        Outcome::BadGateway => built(reply::bad_gateway()),
        Outcome::NotSent => (drop_connection(kill, Kill::NotSent).await, None),
        Outcome::Dropped => (drop_connection(kill, Kill::NoReply).await, None),
        Outcome::Hang => std::future::pending().await,
        Outcome::Truncated(result) => match reply::truncated(reply::of(success, result)) {
            Some(cut) => (cut, None),
            None => (drop_connection(kill, Kill::NoReply).await, None),
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
    fn finish(&self, cx: &Context, mut resp: Response, body: Option<Bytes>) -> Response {
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
        if self.config.record_replies
            && let Some(body) = body
        {
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
        resp
    }
}
