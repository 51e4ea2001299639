//! The in-process [`Transport`]: one exchange with the fake, with every
//! fault turned into exactly the [`AttemptError`] the real HTTP transport
//! gives for that HTTP failure.

use async_trait::async_trait;
use metal_policy::{AttemptError, Request, Response, Transport};

use crate::fake::{Exchange, Fake};
use crate::model::ApiError;

/// Whole seconds, rounded up: what a `Retry-After` header can say.
pub(crate) fn whole_seconds(d: std::time::Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// The classification of an API refusal, as the HTTP transport makes it.
pub(crate) fn refusal(e: ApiError, retry_after: Option<std::time::Duration>) -> AttemptError {
    match e.status {
        429 => AttemptError::Throttled {
            status: 429,
            retry_after,
        },
        s if s >= 500 => AttemptError::Unknown {
            status: Some(s),
            detail: e.messages.join("; "),
            source: None,
        },
        status => AttemptError::Rejected {
            status,
            messages: e.messages,
        },
    }
}

#[async_trait]
impl Transport for Fake {
    async fn send(&self, request: Request) -> Result<Response, AttemptError> {
        match self.shared.exchange(&request).await {
            Exchange::Reply(Ok(response)) => Ok(response),
            Exchange::Reply(Err(e)) => Err(refusal(e, None)),
            Exchange::NotSent => Err(AttemptError::NotSent {
                source: "fake: connection refused".into(),
            }),
            Exchange::Failed { status } => Err(AttemptError::Unknown {
                status: Some(status),
                detail: "fake: injected server error".to_string(),
                source: None,
            }),
            Exchange::Throttled { retry_after } => Err(AttemptError::Throttled {
                status: 429,
                retry_after: Some(std::time::Duration::from_secs(whole_seconds(retry_after))),
            }),
            Exchange::BadGateway => Err(AttemptError::Unknown {
                status: Some(502),
                detail: "fake: HTML 502 from a proxy".to_string(),
                source: None,
            }),
            Exchange::Dropped => Err(AttemptError::Unknown {
                status: None,
                detail: "fake: connection closed before the reply".to_string(),
                source: None,
            }),
            Exchange::Hang => std::future::pending().await,
            // The generated client reads the whole body before decoding; a
            // body cut short is a body error, which carries no status.
            Exchange::Truncated(_) => Err(AttemptError::Unknown {
                status: None,
                detail: "fake: reply body cut short".to_string(),
                source: None,
            }),
        }
    }
}
