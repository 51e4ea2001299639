//! One call of one operation of the spec: the request read into a
//! [`Call`], handed to the operation's handler, run through
//! [`crate::shared::Shared::exchange`] (fault, change, record), and its
//! outcome put on the wire: a reply, an injected status, an HTML 502, a
//! body cut short, a connection dropped, or no reply at all.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::Query;
use axum::http::{header, HeaderValue, Uri};
use axum::response::Response;
use metal_api::operation::Operation;

use super::context::Context;
use super::kill::{ConnKill, Kill};
use super::limit::whole_seconds;
use super::reply;
use crate::call::Call;
use crate::shared::Outcome;

/// Serves one call of `operation`. `params` is `None` when the path
/// parameters do not decode (not UTF-8): that path names nothing.
pub(super) async fn serve(
    cx: Context,
    operation: &'static Operation,
    kill: Option<ConnKill>,
    params: Option<HashMap<String, String>>,
    uri: Uri,
    body: Bytes,
) -> Response {
    let Some(params) = params else {
        cx.shared.record(operation.id, Some(404));
        return reply::error(404, vec!["Not found".to_string()]);
    };
    let query: HashMap<String, String> = Query::try_from_uri(&uri)
        .map(|Query(q)| q)
        .unwrap_or_default();
    let call = Call::new(operation, params, query, body);
    let action = match cx.shared.prepare(call) {
        Ok(action) => action,
        Err(e) => {
            cx.shared.record(operation.id, Some(e.status));
            return reply::refusal(e);
        }
    };
    match cx.shared.exchange(operation, action).await {
        Outcome::Reply(result) => reply::of(operation.success, result),
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
        Outcome::Truncated(result) => {
            match reply::truncated(reply::of(operation.success, result)) {
                Some(cut) => cut,
                None => drop_connection(kill, Kill::NoReply).await,
            }
        }
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
