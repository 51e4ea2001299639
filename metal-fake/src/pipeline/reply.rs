//! Replies as the API sends them: JSON bodies with `Content-Type:
//! application/json; charset=utf-8`, the
//! `Error` body (`{"errors": [...]}`), no body, a proxy's HTML 502, and a
//! body cut short. Each comes with its body's bytes, which the pipeline
//! keeps when it records replies.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use futures::StreamExt;
use metal_api::types;

use crate::call::{ApiError, Reply};

/// A response built here, and its whole body.
pub(crate) type Built = (Response, Bytes);

fn with_body(status: u16, content_type: Option<&'static str>, body: Bytes) -> Built {
    let mut resp = Response::new(Body::from(body.clone()));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Some(ct) = content_type {
        resp.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
    }
    (resp, body)
}

/// The `Content-Type` of every JSON reply, as the real API sends it.
pub(crate) const JSON_CONTENT_TYPE: &str = "application/json; charset=utf-8";

/// A JSON body.
pub(crate) fn json(status: u16, body: Bytes) -> Built {
    with_body(status, Some(JSON_CONTENT_TYPE), body)
}

/// The API's `Error` body.
pub(crate) fn error(status: u16, messages: Vec<String>) -> Built {
    let body = types::Error {
        error: None,
        errors: messages,
    };
    json(status, serde_json::to_vec(&body).unwrap_or_default().into())
}

/// An API refusal.
pub(crate) fn refusal(e: ApiError) -> Built {
    error(e.status, e.messages)
}

/// A handler's result, with the operation's success status.
pub(crate) fn of(success: u16, result: Result<Reply, ApiError>) -> Built {
    match result {
        Ok(Reply::Json(body)) => json(success, body),
        Ok(Reply::Empty) => with_body(success, None, Bytes::new()),
        Ok(Reply::Bytes { content_type, body }) => with_body(success, Some(content_type), body),
        Err(e) => refusal(e),
    }
}

const BAD_GATEWAY_PAGE: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n";

/// A proxy's HTML 502 page.
pub(crate) fn bad_gateway() -> Built {
    with_body(
        502,
        Some("text/html"),
        Bytes::from_static(BAD_GATEWAY_PAGE.as_bytes()),
    )
}

/// The same head with a `Content-Length` of the whole body, and a body that
/// stops halfway with an error: in-process the reader's body read fails;
/// over HTTP hyper sends the head and the first half, then aborts the
/// connection. The body pauses once before failing, so hyper flushes what
/// it has: without the pause it would abort before the head left, and the
/// client would see no reply at all. `None` when the body is too short to
/// cut.
pub(crate) fn truncated((full, body): Built) -> Option<Response> {
    if body.len() <= 1 {
        return None;
    }
    let (mut parts, _) = full.into_parts();
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    let half = futures::stream::iter([Ok(body.slice(..body.len() / 2))]);
    let cut = futures::stream::once(async {
        tokio::task::yield_now().await;
        Err(std::io::Error::other("fake: reply body cut short"))
    });
    Some(Response::from_parts(
        parts,
        Body::from_stream(half.chain(cut)),
    ))
}
