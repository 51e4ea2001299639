//! One call of one operation of the spec: the request's body read (within
//! the configured size and time, once the gate has let the request
//! through), the request read into a [`Call`], handed to the operation's
//! handler, run through
//! [`crate::shared::Shared::exchange`] (fault, change, record), and its
//! outcome put on the wire: a reply, an injected status, an HTML 502, a
//! body cut short, a connection dropped, or no reply at all.

use std::collections::HashMap;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Query;
use axum::http::{header, HeaderValue, Uri};
use axum::response::Response;
use futures::StreamExt;
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
    body: Body,
) -> Response {
    let Some(params) = params else {
        cx.shared.record(operation.id, Some(404));
        return reply::error(404, vec!["Not found".to_string()]);
    };
    let body = match read_body(&cx, body).await {
        Ok(body) => body,
        Err(refused) => {
            cx.shared
                .record(operation.id, Some(refused.status().as_u16()));
            return refused;
        }
    };
    let query: HashMap<String, String> = Query::try_from_uri(&uri)
        .map(|Query(q)| q)
        .unwrap_or_default();
    // The ID the path names, for faults aimed at one device, reservation
    // or key.
    let target = params.get("id").and_then(|id| id.parse().ok());
    let call = Call::new(operation, params, query, body);
    let action = match cx.shared.prepare(call) {
        Ok(action) => action,
        Err(e) => {
            cx.shared.record(operation.id, Some(e.status));
            return reply::refusal(e);
        }
    };
    match cx.shared.exchange(operation, target, action).await {
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

/// The whole request body, at most the configured limit (`413` beyond it,
/// decided from `Content-Length` before reading when there is one), read
/// within the configured time (`408` after it, and the connection closes:
/// the rest of the body is not read). `400` when the body cannot be read.
async fn read_body(cx: &Context, body: Body) -> Result<Bytes, Response> {
    let limit = cx.config().body_limit;
    let too_large = || {
        closing(reply::error(
            413,
            vec![format!("Request body larger than {limit} bytes")],
        ))
    };
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    let timeout = cx.config().body_timeout;
    let read = async {
        let mut stream = body.into_data_stream();
        let mut whole = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                reply::error(400, vec![format!("Cannot read the request body: {e}")])
            })?;
            if whole.len() + chunk.len() > limit {
                return Err(too_large());
            }
            whole.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(whole))
    };
    match tokio::time::timeout(timeout, read).await {
        Ok(read) => read,
        Err(_) => Err(closing(reply::error(
            408,
            vec![format!(
                "Request body not received within {} ms",
                timeout.as_millis()
            )],
        ))),
    }
}

/// `resp`, closing the connection after it (the rest of the request's body
/// is left unread).
fn closing(mut resp: Response) -> Response {
    resp.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    resp
}
