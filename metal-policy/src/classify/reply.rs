//! From what an exchange and the generated client returned to a
//! [`Class`] (through [`classify`]) and then to an [`AttemptError`], the
//! class with its details: the server's messages, the start of a body,
//! the underlying error; and back, an attempt's error read as its class
//! ([`AttemptError::class`]).
//!
//! The hook point reads an error reply's body (bounded by the exchange
//! below it) and classifies the reply with its messages; what fails after
//! it (a body cut short, a success that does not decode, a request the
//! generated client refused) is classified where the generated client
//! returns.

use metal_api::{ExchangeError, ResponseValue};
use reqwest::header::HeaderMap;

use super::class::{classify, Class, Exchanged, Permanent};
use crate::error::{AttemptError, BoxError};

impl AttemptError {
    /// The failure's class, which the retry decision, the retry budget and
    /// the client-wide pause read.
    ///
    /// ```
    /// use metal_policy::{AttemptError, Class};
    /// let e = AttemptError::Throttled { status: 429, retry_after: None };
    /// assert_eq!(e.class(), Class::Throttled { retry_after: None });
    /// ```
    pub fn class(&self) -> Class {
        match self {
            Self::NotSent { .. } => Class::NotSent,
            Self::Throttled { retry_after, .. } => Class::Throttled {
                retry_after: *retry_after,
            },
            Self::Unknown { .. } => Class::OutcomeUnknown,
            Self::Rejected { .. } => Class::Permanent(Permanent::Refused),
            Self::NoReservationAvailable { .. } => {
                Class::Permanent(Permanent::NoReservationAvailable)
            }
            Self::Decode { .. } => Class::Permanent(Permanent::Undecodable),
            Self::InvalidRequest { .. } => Class::Permanent(Permanent::Invalid),
            Self::TooLarge { .. } => Class::Permanent(Permanent::TooLarge),
        }
    }
}

/// How much of a body an error message quotes.
const SNIPPET: usize = 200;

/// What the hook point saw of an error reply: its class, found with the
/// messages of its body, and those messages.
#[derive(Clone, Debug)]
pub(crate) struct ErrorReply {
    /// The reply's status.
    pub(crate) status: u16,
    /// Its class.
    pub(crate) class: Class,
    /// The body's `errors` and `error` messages (for a redirect, where it
    /// pointed).
    pub(crate) messages: Vec<String>,
    /// The start of the body.
    pub(crate) snippet: String,
}

/// Reads an error reply's body, classifies the reply, and gives back a
/// reply with the same head and body for the generated client to read.
/// A body that fails to arrive is the exchange's failure.
pub(crate) async fn read_error_reply(
    response: reqwest::Response,
) -> reqwest::Result<(reqwest::Response, ErrorReply)> {
    let status = response.status();
    let version = response.version();
    let headers = response.headers().clone();
    let body = response.bytes().await?;
    let text = String::from_utf8_lossy(&body);
    let messages = if status.is_redirection() {
        let location = headers
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        vec![redirect_message(location)]
    } else {
        error_messages(&text)
    };
    let class = classify(&Exchanged::Reply {
        status: status.as_u16(),
        headers: &headers,
        messages: &messages,
    })
    // A success reaches here only if the caller misjudged it; a reply
    // that is no error is one the client could not read as a success.
    .unwrap_or(Class::Permanent(Permanent::Undecodable));
    let seen = ErrorReply {
        status: status.as_u16(),
        class,
        messages,
        snippet: snippet(&text),
    };
    let mut head = http::Response::new(reqwest::Body::from(body));
    *head.status_mut() = status;
    *head.version_mut() = version;
    *head.headers_mut() = headers;
    Ok((reqwest::Response::from(head), seen))
}

/// What an exchange's own failure was (`None`: a reqwest error that names
/// none of them), and the status of the reply it refused, if one came.
fn exchange_failure(e: &reqwest::Error) -> Option<(Exchanged<'static>, Option<u16>, Details)> {
    Some(match ExchangeError::find(e)? {
        ExchangeError::NotSent(detail) => (Exchanged::NotSent, None, Details::text(detail)),
        ExchangeError::NoReply(detail) => (Exchanged::NoReply, None, Details::text(detail)),
        ExchangeError::BodyTooLarge { status, limit } => (
            Exchanged::TooLarge,
            Some(*status),
            Details {
                limit: *limit,
                ..Details::default()
            },
        ),
        ExchangeError::Redirect { status, location } => (
            // Any 3xx: refused, never followed.
            Exchanged::Reply {
                status: *status,
                headers: empty_headers(),
                messages: &[],
            },
            Some(*status),
            Details {
                messages: vec![redirect_message(location)],
                ..Details::default()
            },
        ),
        other => (Exchanged::NoReply, None, Details::text(&other.to_string())),
    })
}

/// What a refusal to follow a redirect says.
fn redirect_message(location: &str) -> String {
    format!("redirect to {location:?} not followed")
}

fn empty_headers() -> &'static HeaderMap {
    static EMPTY: std::sync::OnceLock<HeaderMap> = std::sync::OnceLock::new();
    EMPTY.get_or_init(HeaderMap::new)
}

/// The status of the reply an exchange refused (a redirect, a body over
/// the bound), if its failure is one of those.
pub(crate) fn refused_reply_status(e: &reqwest::Error) -> Option<u16> {
    match ExchangeError::find(e)? {
        ExchangeError::Redirect { status, .. } | ExchangeError::BodyTooLarge { status, .. } => {
            Some(*status)
        }
        _ => None,
    }
}

/// The details an [`AttemptError`] carries beside its class.
#[derive(Default)]
struct Details {
    messages: Vec<String>,
    detail: String,
    source: Option<BoxError>,
    limit: u64,
}

impl Details {
    fn text(detail: &str) -> Self {
        Self {
            detail: detail.to_string(),
            ..Self::default()
        }
    }
}

/// The attempt error of `class`, with its details.
fn attempt_error(class: Class, status: Option<u16>, d: Details) -> AttemptError {
    let code = status.unwrap_or(0);
    match class {
        Class::NotSent => AttemptError::NotSent {
            source: d.source.unwrap_or_else(|| d.detail.into()),
        },
        Class::Throttled { retry_after } => AttemptError::Throttled {
            status: code,
            retry_after,
        },
        Class::OutcomeUnknown => AttemptError::Unknown {
            status,
            detail: if d.messages.is_empty() {
                d.detail
            } else {
                d.messages.join("; ")
            },
            source: d.source,
        },
        Class::Permanent(Permanent::Refused) => AttemptError::Rejected {
            status: code,
            messages: d.messages,
        },
        Class::Permanent(Permanent::NoReservationAvailable) => {
            AttemptError::NoReservationAvailable {
                messages: d.messages,
            }
        }
        Class::Permanent(Permanent::TooLarge) => AttemptError::TooLarge {
            status: code,
            limit: d.limit,
        },
        Class::Permanent(Permanent::Invalid) => AttemptError::InvalidRequest { reason: d.detail },
        // Undecodable, and any reason added later.
        Class::Permanent(_) => AttemptError::Decode {
            status: code,
            detail: d.detail,
        },
    }
}

/// The attempt error of an error reply the hook point classified.
fn of_error_reply(seen: &ErrorReply) -> AttemptError {
    let detail = match seen.class {
        Class::Permanent(Permanent::Undecodable) => {
            format!("status not in the spec; body starts {:?}", seen.snippet)
        }
        _ => seen.snippet.clone(),
    };
    attempt_error(
        seen.class,
        Some(seen.status),
        Details {
            messages: seen.messages.clone(),
            detail,
            ..Details::default()
        },
    )
}

/// Classifies what a generated operation returned. `seen` is what the
/// hook point saw of the attempt's last reply, when one came: its status
/// (for failures that lost it) and, for an error reply, its class and
/// messages.
pub(crate) fn api_error<E: serde::Serialize>(
    error: metal_api::Error<E>,
    status: Option<u16>,
    seen: Option<&ErrorReply>,
) -> AttemptError {
    let failed = |exchanged: Exchanged<'_>, status: Option<u16>, d: Details| {
        let class = classify(&exchanged).unwrap_or(Class::OutcomeUnknown);
        attempt_error(class, status, d)
    };
    match error {
        metal_api::Error::InvalidRequest(reason) => failed(
            Exchanged::Invalid,
            None,
            Details {
                detail: reason,
                ..Details::default()
            },
        ),
        metal_api::Error::CommunicationError(e) => from_reqwest(e),
        metal_api::Error::InvalidUpgrade(e) | metal_api::Error::ResponseBodyError(e) => {
            match exchange_failure(&e) {
                Some((exchanged, s, d)) => failed(exchanged, s.or(status), d),
                None => failed(
                    Exchanged::NoReply,
                    e.status().map(|s| s.as_u16()).or(status),
                    Details {
                        detail: "reply body failed".into(),
                        source: Some(Box::new(e.without_url())),
                        ..Details::default()
                    },
                ),
            }
        }
        metal_api::Error::ErrorResponse(rv) => match seen {
            Some(seen) => of_error_reply(seen),
            None => {
                // A reply that did not pass the hook point (the operation
                // used a client of its own): classified here.
                let status = rv.status().as_u16();
                let headers = rv.headers().clone();
                let messages = messages_of(rv);
                let class = classify(&Exchanged::Reply {
                    status,
                    headers: &headers,
                    messages: &messages,
                })
                .unwrap_or(Class::Permanent(Permanent::Undecodable));
                attempt_error(
                    class,
                    Some(status),
                    Details {
                        messages,
                        ..Details::default()
                    },
                )
            }
        },
        metal_api::Error::UnexpectedResponse(response) => match seen {
            Some(seen) => of_error_reply(seen),
            None => {
                let status = response.status().as_u16();
                let class = classify(&Exchanged::Reply {
                    status,
                    headers: response.headers(),
                    messages: &[],
                })
                .unwrap_or(Class::Permanent(Permanent::Undecodable));
                attempt_error(class, Some(status), Details::default())
            }
        },
        metal_api::Error::InvalidResponsePayload(bytes, e) => match (seen, status) {
            // An error reply whose body is not the documented error:
            // what its status says.
            (Some(seen), _) => of_error_reply(seen),
            (None, s) => {
                let text = String::from_utf8_lossy(&bytes);
                failed(
                    Exchanged::Undecodable,
                    s,
                    Details {
                        detail: format!("{e}; body starts {:?}", snippet(&text)),
                        ..Details::default()
                    },
                )
            }
        },
        metal_api::Error::Custom(detail) => failed(
            Exchanged::NoReply,
            status,
            Details {
                detail,
                ..Details::default()
            },
        ),
    }
}

fn from_reqwest(e: reqwest::Error) -> AttemptError {
    if let Some((exchanged, status, d)) = exchange_failure(&e) {
        let class = classify(&exchanged).unwrap_or(Class::OutcomeUnknown);
        return attempt_error(class, status, d);
    }
    // Strip the URL: it holds no token, but keeps errors short and stable.
    let e = e.without_url();
    let status = e.status().map(|s| s.as_u16());
    let (exchanged, detail) = if e.is_connect() {
        (Exchanged::NotSent, "")
    } else if e.is_builder() {
        (Exchanged::Invalid, "")
    } else if e.is_timeout() {
        (Exchanged::NoReply, "timed out after sending")
    } else {
        (Exchanged::NoReply, "connection failed after sending")
    };
    let class = classify(&exchanged).unwrap_or(Class::OutcomeUnknown);
    let d = match exchanged {
        Exchanged::Invalid => Details::text(&e.to_string()),
        _ => Details {
            detail: detail.into(),
            source: Some(Box::new(e)),
            ..Details::default()
        },
    };
    attempt_error(class, status, d)
}

/// The `errors` and `error` messages of a documented error reply.
fn messages_of<E: serde::Serialize>(rv: ResponseValue<E>) -> Vec<String> {
    serde_json::to_value(rv.into_inner())
        .map(|v| messages_in(&v))
        .unwrap_or_default()
}

/// The `errors`/`error` messages of an error body, when it is JSON.
fn error_messages(text: &str) -> Vec<String> {
    serde_json::from_str::<serde_json::Value>(text)
        .map(|v| messages_in(&v))
        .unwrap_or_default()
}

fn messages_in(v: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = v["errors"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    out.extend(v["error"].as_str().map(str::to_string));
    out
}

fn snippet(text: &str) -> String {
    text.chars().take(SNIPPET).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_from_errors_and_error() {
        assert_eq!(
            error_messages(r#"{"errors":["a","b"],"error":"c"}"#),
            vec!["a", "b", "c"]
        );
        assert!(error_messages("<html>").is_empty());
    }

    #[tokio::test]
    async fn an_error_reply_is_read_classified_and_handed_on_whole() {
        let body = r#"{"errors":["There are no available hardware reservations for selected plan and facility"]}"#;
        let reply = http::Response::builder()
            .status(503)
            .header("x-test", "kept")
            .body(reqwest::Body::from(body))
            .unwrap();
        let (reply, seen) = read_error_reply(reqwest::Response::from(reply))
            .await
            .unwrap();
        assert_eq!(
            seen.class,
            Class::Permanent(Permanent::NoReservationAvailable)
        );
        assert_eq!(seen.messages.len(), 1);
        assert!(matches!(
            of_error_reply(&seen),
            AttemptError::NoReservationAvailable { .. }
        ));
        assert_eq!(reply.status(), 503);
        assert_eq!(reply.headers()["x-test"], "kept");
        assert_eq!(reply.text().await.unwrap(), body);
    }

    #[tokio::test]
    async fn a_redirect_refused_by_the_exchange_is_a_refusal_saying_where() {
        let redirect = ExchangeError::Redirect {
            status: 302,
            location: "http://elsewhere/".into(),
        };
        let e = metal_api::exchange::fail(redirect).await.unwrap_err();
        assert_eq!(refused_reply_status(&e), Some(302));
        let e = from_reqwest(e);
        assert!(
            matches!(&e, AttemptError::Rejected { status: 302, messages } if messages[0].contains("http://elsewhere/")),
            "{e:?}"
        );
    }
}
