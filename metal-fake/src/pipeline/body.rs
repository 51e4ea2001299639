//! The body step: the request's body, read only once the request has
//! passed the token, the rate limit and ownership, within the configured
//! size (`413` beyond it, decided from `Content-Length` before reading
//! when there is one) and time (`408` after it). Either refusal closes the
//! connection, leaving the rest of the body unread.

use axum::body::{Body, Bytes, HttpBody};
use futures::StreamExt;

use super::{Context, Outcome, Pipeline, Step};
use crate::call::ApiError;

impl Pipeline {
    /// Reads the whole body of the request.
    pub(super) async fn body(&self, cx: Context, body: Body) -> Step<(Context, Bytes)> {
        let limit = self.config.body_limit;
        let too_large = || {
            Outcome::Closing(ApiError::new(
                413,
                format!("Request body larger than {limit} bytes"),
            ))
        };
        if body.size_hint().lower() > limit as u64 {
            return Err(cx.stop(too_large()));
        }
        let timeout = self.config.body_timeout;
        let read = async {
            let mut stream = body.into_data_stream();
            let mut whole = Vec::new();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| {
                    Outcome::Reply(Err(ApiError::new(
                        400,
                        format!("Cannot read the request body: {e}"),
                    )))
                })?;
                if whole.len() + chunk.len() > limit {
                    return Err(too_large());
                }
                whole.extend_from_slice(&chunk);
            }
            Ok(Bytes::from(whole))
        };
        match tokio::time::timeout(timeout, read).await {
            Ok(Ok(body)) => Ok((cx, body)),
            Ok(Err(outcome)) => Err(cx.stop(outcome)),
            Err(_) => Err(cx.stop(Outcome::Closing(ApiError::new(
                408,
                format!(
                    "Request body not received within {} ms",
                    timeout.as_millis()
                ),
            )))),
        }
    }
}
