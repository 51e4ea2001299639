//! The secrets a client sends (its auth and consumer tokens), and their
//! removal from every server message that reaches an error or a log: a
//! server that echoes the token in an error body must not make the client
//! print it.

use reqwest::header::HeaderMap;

use crate::error::{AttemptError, Error};

/// What a secret is replaced with.
pub(crate) const REDACTED: &str = "<redacted>";

/// Secrets shorter than this are not searched for: they would match
/// ordinary words (a Metal API token is 32 characters).
const MIN_SECRET_LEN: usize = 8;

/// The values of a client's sensitive headers.
#[derive(Clone, Default)]
pub(crate) struct Secrets(Vec<String>);

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} redacted)", self.0.len())
    }
}

impl Secrets {
    /// The values of `headers` marked sensitive (the tokens).
    pub(crate) fn of(headers: &HeaderMap) -> Self {
        Self(
            headers
                .values()
                .filter(|v| v.is_sensitive())
                .filter_map(|v| v.to_str().ok())
                .map(str::trim)
                .filter(|v| v.len() >= MIN_SECRET_LEN)
                .map(str::to_string)
                .collect(),
        )
    }

    /// Replaces every secret in `text`.
    fn scrub(&self, text: &mut String) {
        for secret in &self.0 {
            if text.contains(secret.as_str()) {
                *text = text.replace(secret.as_str(), REDACTED);
            }
        }
    }

    fn scrub_all(&self, texts: &mut [String]) {
        for t in texts {
            self.scrub(t);
        }
    }

    /// `error` with every secret removed from what the server said.
    pub(crate) fn attempt(&self, mut error: AttemptError) -> AttemptError {
        if self.0.is_empty() {
            return error;
        }
        match &mut error {
            AttemptError::Unknown { detail, .. } | AttemptError::Decode { detail, .. } => {
                self.scrub(detail)
            }
            AttemptError::Rejected { messages, .. }
            | AttemptError::NoReservationAvailable { messages } => self.scrub_all(messages),
            AttemptError::InvalidRequest { reason } => self.scrub(reason),
            AttemptError::NotSent { .. }
            | AttemptError::Throttled { .. }
            | AttemptError::TooLarge { .. } => {}
        }
        error
    }

    /// `error` with every secret removed from what the server said.
    pub(crate) fn error(&self, error: Error) -> Error {
        if self.0.is_empty() {
            return error;
        }
        match error {
            Error::Rejected {
                operation,
                status,
                mut messages,
            } => {
                self.scrub_all(&mut messages);
                Error::Rejected {
                    operation,
                    status,
                    messages,
                }
            }
            Error::NoReservationAvailable { mut messages } => {
                self.scrub_all(&mut messages);
                Error::NoReservationAvailable { messages }
            }
            Error::Decode {
                operation,
                status,
                mut detail,
            } => {
                self.scrub(&mut detail);
                Error::Decode {
                    operation,
                    status,
                    detail,
                }
            }
            Error::InvalidRequest {
                operation,
                mut reason,
            } => {
                self.scrub(&mut reason);
                Error::InvalidRequest { operation, reason }
            }
            Error::OutcomeUnknown {
                operation,
                attempts,
                source,
            } => Error::OutcomeUnknown {
                operation,
                attempts,
                source: self.attempt(source),
            },
            Error::GaveUp {
                operation,
                attempts,
                source,
            } => Error::GaveUp {
                operation,
                attempts,
                source: self.attempt(source),
            },
            Error::RetryBudgetExhausted {
                operation,
                attempts,
                last,
            } => Error::RetryBudgetExhausted {
                operation,
                attempts,
                last: self.attempt(last),
            },
            Error::DeadlineExceeded {
                operation,
                attempts,
                last,
            } => Error::DeadlineExceeded {
                operation,
                attempts,
                last: last.map(|e| self.attempt(e)),
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    const TOKEN: &str = "tok-0123456789abcdef";

    fn secrets() -> Secrets {
        let mut h = HeaderMap::new();
        let mut v = HeaderValue::from_static(TOKEN);
        v.set_sensitive(true);
        h.insert("x-auth-token", v);
        h.insert("user-agent", HeaderValue::from_static("metal-api/0.1.0"));
        let mut short = HeaderValue::from_static("t");
        short.set_sensitive(true);
        h.insert("x-consumer-token", short);
        Secrets::of(&h)
    }

    #[test]
    fn only_sensitive_values_of_a_real_length_are_secrets() {
        let s = secrets();
        assert_eq!(s.0, vec![TOKEN.to_string()]);
        assert!(!format!("{s:?}").contains(TOKEN));
    }

    #[test]
    fn every_server_text_loses_the_secret() {
        let s = secrets();
        let said = format!("bad token {TOKEN}, really {TOKEN}");
        let errors = [
            Error::Rejected {
                operation: "op",
                status: 401,
                messages: vec![said.clone()],
            },
            Error::NoReservationAvailable {
                messages: vec![said.clone()],
            },
            Error::Decode {
                operation: "op",
                status: 200,
                detail: said.clone(),
            },
            Error::GaveUp {
                operation: "op",
                attempts: 2,
                source: AttemptError::Unknown {
                    status: Some(500),
                    detail: said.clone(),
                    source: None,
                },
            },
            Error::OutcomeUnknown {
                operation: "op",
                attempts: 1,
                source: AttemptError::Rejected {
                    status: 400,
                    messages: vec![said.clone()],
                },
            },
            Error::RetryBudgetExhausted {
                operation: "op",
                attempts: 3,
                last: AttemptError::Decode {
                    status: 200,
                    detail: said.clone(),
                },
            },
            Error::DeadlineExceeded {
                operation: "op",
                attempts: 3,
                last: Some(AttemptError::InvalidRequest {
                    reason: said.clone(),
                }),
            },
        ];
        for e in errors {
            let e = s.error(e);
            let text = format!("{e} {e:?}");
            assert!(!text.contains(TOKEN), "{text}");
            assert!(
                text.contains("bad token <redacted>, really <redacted>"),
                "{text}"
            );
        }
    }
}
