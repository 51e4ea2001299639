//! [`HttpTransport`]: one [`Request`] as one call of the generated
//! `metal-api` client, its failure classified as an [`AttemptError`].
//!
//! The classification of HTTP replies lives here, once:
//!
//! - connection refused, DNS failure → [`AttemptError::NotSent`];
//! - 429, or 503 with `Retry-After` → [`AttemptError::Throttled`], with the
//!   delay read from `Retry-After` (seconds or HTTP date) or
//!   `X-RateLimit-Reset` (seconds, or a Unix time);
//! - other 5xx (an HTML 502 from a proxy included), 408, timeouts, resets,
//!   bodies cut short → [`AttemptError::Unknown`];
//! - other 4xx → [`AttemptError::Rejected`] with the body's `errors` and
//!   `error` messages;
//! - a success status whose body does not decode → [`AttemptError::Decode`];
//! - the generated client's own parameter validation →
//!   [`AttemptError::InvalidRequest`].
//!
//! One limit of the generated client: for the 4xx statuses the spec
//! documents, it decodes the body as `Error`, and when that body is not
//! JSON it reports the failure without the status. Such a reply becomes
//! [`AttemptError::Decode`] with `status: 0`; it stays permanent, as a 4xx
//! would be, and is never retried.

use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use metal_api::{types, Client as ApiClient, Config, ConfigError, ResponseValue};
use reqwest::header::HeaderMap;

use crate::error::AttemptError;
use crate::transport::{KeyOwner, Request, Response, Transport};

type ApiError = metal_api::Error<types::Error>;

/// The real transport: the generated client over reqwest, configured by
/// [`metal_api::Config`] (token, base URL, timeouts).
#[derive(Clone, Debug)]
pub struct HttpTransport {
    api: ApiClient,
}

impl HttpTransport {
    /// A transport for `config`.
    pub fn new(config: &Config) -> Result<Self, ConfigError> {
        Ok(Self {
            api: config.client()?,
        })
    }
}

// The error is the generated client's own type; it is classified at once.
#[allow(clippy::result_large_err)]
fn ok<T>(r: Result<ResponseValue<T>, ApiError>) -> Result<T, ApiError> {
    r.map(ResponseValue::into_inner)
}

#[async_trait]
impl Transport for HttpTransport {
    async fn send(&self, request: Request) -> Result<Response, AttemptError> {
        let api = &self.api;
        let result = match request {
            Request::GetProject { id } => ok(api.find_project_by_id().id(id).send().await)
                .map(|p| Response::Project(Box::new(p))),
            Request::GetDevice {
                id,
                include,
                exclude,
            } => {
                let mut b = api.find_device_by_id().id(id);
                if let Some(i) = include {
                    b = b.include(i);
                }
                if let Some(e) = exclude {
                    b = b.exclude(e);
                }
                ok(b.send().await).map(|d| Response::Device(Box::new(d)))
            }
            Request::ListDevices {
                project,
                page,
                per_page,
                include,
            } => {
                let mut b = api
                    .find_project_devices()
                    .id(project)
                    .page(page)
                    .per_page(per_page);
                if let Some(i) = include {
                    b = b.include(i);
                }
                ok(b.send().await).map(Response::Devices)
            }
            Request::CreateDevice { project, body } => {
                ok(api.create_device().id(project).body(body).send().await)
                    .map(|d| Response::Device(Box::new(d)))
            }
            Request::UpdateDevice { id, body } => {
                ok(api.update_device().id(id).body(body).send().await)
                    .map(|d| Response::Device(Box::new(d)))
            }
            Request::DeviceAction { id, action } => {
                let body = types::DeviceActionInput {
                    deprovision_fast: None,
                    force_delete: None,
                    ipxe_script_url: None,
                    operating_system: None,
                    preserve_data: None,
                    type_: action,
                };
                ok(api.perform_action().id(id).body(body).send().await).map(|()| Response::Empty)
            }
            Request::DeleteDevice { id, force } => {
                ok(api.delete_device().id(id).force_delete(force).send().await)
                    .map(|()| Response::Empty)
            }
            Request::ListReservations {
                project,
                page,
                per_page,
                include,
            } => {
                let mut b = api
                    .find_project_hardware_reservations()
                    .id(project)
                    .page(page)
                    .per_page(per_page);
                if let Some(i) = include {
                    b = b.include(i);
                }
                ok(b.send().await).map(Response::Reservations)
            }
            Request::GetReservation { id, include } => {
                let mut b = api.find_hardware_reservation_by_id().id(id);
                if let Some(i) = include {
                    b = b.include(i);
                }
                ok(b.send().await).map(|r| Response::Reservation(Box::new(r)))
            }
            Request::MoveReservation { id, project } => {
                let body = types::MoveHardwareReservationRequest {
                    project_id: Some(project),
                };
                ok(api
                    .move_hardware_reservation()
                    .id(id)
                    .body(body)
                    .send()
                    .await)
                .map(|r| Response::Reservation(Box::new(r)))
            }
            Request::ListSshKeys { owner } => match owner {
                KeyOwner::User => ok(api.find_ssh_keys().send().await),
                KeyOwner::Project(p) => ok(api.find_project_ssh_keys().id(p).send().await),
            }
            .map(Response::SshKeys),
            Request::GetSshKey { id } => ok(api.find_ssh_key_by_id().id(id).send().await)
                .map(|k| Response::SshKey(Box::new(k))),
            Request::CreateSshKey { owner, body } => match owner {
                KeyOwner::User => ok(api.create_ssh_key().body(body).send().await),
                KeyOwner::Project(p) => {
                    ok(api.create_project_ssh_key().id(p).body(body).send().await)
                }
            }
            .map(|k| Response::SshKey(Box::new(k))),
            Request::UpdateSshKey { id, body } => {
                ok(api.update_ssh_key().id(id).body(body).send().await)
                    .map(|k| Response::SshKey(Box::new(k)))
            }
            Request::DeleteSshKey { id } => {
                ok(api.delete_ssh_key().id(id).send().await).map(|()| Response::Empty)
            }
        };
        match result {
            Ok(r) => Ok(r),
            Err(e) => Err(classify_api_error(e).await),
        }
    }
}

/// Maps the generated client's error to an [`AttemptError`].
async fn classify_api_error(error: ApiError) -> AttemptError {
    match error {
        metal_api::Error::InvalidRequest(reason) => AttemptError::InvalidRequest { reason },
        metal_api::Error::CommunicationError(e) => classify_reqwest(e),
        metal_api::Error::InvalidUpgrade(e) | metal_api::Error::ResponseBodyError(e) => {
            AttemptError::Unknown {
                status: e.status().map(|s| s.as_u16()),
                detail: "reply body failed".into(),
                source: Some(Box::new(e.without_url())),
            }
        }
        metal_api::Error::ErrorResponse(rv) => {
            let status = rv.status().as_u16();
            let delay = retry_delay(rv.headers(), SystemTime::now());
            let body = rv.into_inner();
            let mut messages = body.errors;
            messages.extend(body.error);
            from_status(status, delay, messages, String::new())
        }
        metal_api::Error::UnexpectedResponse(resp) => {
            let status = resp.status().as_u16();
            let delay = retry_delay(resp.headers(), SystemTime::now());
            let text = resp.text().await.unwrap_or_default();
            let messages = error_messages(&text);
            from_status(status, delay, messages, snippet(&text))
        }
        metal_api::Error::InvalidResponsePayload(bytes, e) => AttemptError::Decode {
            status: 0,
            detail: format!(
                "{e}; body starts {:?}",
                snippet(&String::from_utf8_lossy(&bytes))
            ),
        },
        metal_api::Error::Custom(detail) => AttemptError::Unknown {
            status: None,
            detail,
            source: None,
        },
    }
}

fn classify_reqwest(e: reqwest::Error) -> AttemptError {
    // Strip the URL: it holds no token, but keeps errors short and stable.
    let e = e.without_url();
    if e.is_connect() {
        AttemptError::NotSent {
            source: Box::new(e),
        }
    } else if e.is_builder() {
        AttemptError::InvalidRequest {
            reason: e.to_string(),
        }
    } else {
        let detail = if e.is_timeout() {
            "timed out after sending"
        } else {
            "connection failed after sending"
        };
        AttemptError::Unknown {
            status: e.status().map(|s| s.as_u16()),
            detail: detail.into(),
            source: Some(Box::new(e)),
        }
    }
}

/// Classifies a non-success status.
pub(crate) fn from_status(
    status: u16,
    retry_after: Option<Duration>,
    messages: Vec<String>,
    body: String,
) -> AttemptError {
    match status {
        429 => AttemptError::Throttled {
            status,
            retry_after,
        },
        503 if retry_after.is_some() => AttemptError::Throttled {
            status,
            retry_after,
        },
        408 | 500..=599 => AttemptError::Unknown {
            status: Some(status),
            detail: if messages.is_empty() {
                body
            } else {
                messages.join("; ")
            },
            source: None,
        },
        400..=499 => AttemptError::Rejected { status, messages },
        _ => AttemptError::Decode {
            status,
            detail: format!("status not in the spec; body starts {body:?}"),
        },
    }
}

/// The `errors`/`error` messages of an error body, when it is JSON.
fn error_messages(text: &str) -> Vec<String> {
    match serde_json::from_str::<types::Error>(text) {
        Ok(e) => {
            let mut m = e.errors;
            m.extend(e.error);
            m
        }
        Err(_) => Vec::new(),
    }
}

fn snippet(text: &str) -> String {
    text.chars().take(200).collect()
}

/// When the server says to come back: `Retry-After` (delta seconds or an
/// HTTP date), else `X-RateLimit-Reset` (delta seconds, or a Unix time when
/// the number is large). `now` is the wall clock, for dates.
pub(crate) fn retry_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(v) = text("retry-after") {
        if let Ok(secs) = v.parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        if let Ok(at) = httpdate::parse_http_date(v) {
            return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
        }
    }
    if let Some(v) = text("x-ratelimit-reset") {
        if let Ok(n) = v.parse::<u64>() {
            // More than a year of seconds: a Unix timestamp, not a delta.
            if n > 365 * 24 * 3600 {
                let at = SystemTime::UNIX_EPOCH + Duration::from_secs(n);
                return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
            }
            return Some(Duration::from_secs(n));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retry_after_seconds_date_and_reset() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            retry_delay(&headers(&[("retry-after", "7")]), now),
            Some(Duration::from_secs(7))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(42));
        assert_eq!(
            retry_delay(&headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(42))
        );
        assert_eq!(
            retry_delay(&headers(&[("x-ratelimit-reset", "1700000013")]), now),
            Some(Duration::from_secs(13))
        );
        assert_eq!(
            retry_delay(&headers(&[("x-ratelimit-reset", "9")]), now),
            Some(Duration::from_secs(9))
        );
        assert_eq!(retry_delay(&headers(&[("retry-after", "soon")]), now), None);
    }

    #[test]
    fn statuses_classify() {
        assert!(matches!(
            from_status(429, None, vec![], String::new()),
            AttemptError::Throttled { status: 429, .. }
        ));
        assert!(matches!(
            from_status(503, Some(Duration::from_secs(1)), vec![], String::new()),
            AttemptError::Throttled { status: 503, .. }
        ));
        assert!(matches!(
            from_status(503, None, vec![], String::new()),
            AttemptError::Unknown {
                status: Some(503),
                ..
            }
        ));
        assert!(matches!(
            from_status(502, None, vec![], "<html>".into()),
            AttemptError::Unknown {
                status: Some(502),
                ..
            }
        ));
        for s in [400, 401, 403, 404, 409, 422] {
            assert!(matches!(
                from_status(s, None, vec!["m".into()], String::new()),
                AttemptError::Rejected { status, .. } if status == s
            ));
        }
    }
}
