//! [`Class`], what one exchange means to whoever sent it, and
//! [`classify`], the one function that finds it.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use super::headers::{retry_after, retry_delay};

/// What one exchange means to whoever sent it: whether the server acted,
/// and so what may be done next. Found by [`classify`]; the retry
/// decision, the retry budget's cost and the client-wide pause are read
/// off it, and `metal-fake` describes its faults in these terms.
///
/// ```
/// use metal_policy::{Class, Permanent};
/// assert!(Class::OutcomeUnknown.server_may_have_acted());
/// assert!(!Class::Permanent(Permanent::Refused).is_retriable());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The request never reached the server: it did not act, and any
    /// operation may be sent again.
    NotSent,
    /// The server did not act and asks to be called again later:
    /// `retry_after` is when it said (`Retry-After`, or a 429's
    /// `X-RateLimit-Reset`), if it said.
    Throttled {
        /// The server's delay, when readable.
        retry_after: Option<Duration>,
    },
    /// The request was sent and no usable answer came back (a 5xx, a
    /// timeout, a reset, a reply cut short): the server may have acted.
    OutcomeUnknown,
    /// An answer that sending the same request again cannot change.
    Permanent(Permanent),
}

/// Why a [`Class::Permanent`] answer is permanent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Permanent {
    /// The server refused the request: a 4xx, a 501, or a redirect (never
    /// followed: the token would go along).
    Refused,
    /// The API's answer to a `next-available` create that finds no
    /// hardware reservation (a 503 saying so, without `Retry-After`): the
    /// server did not act, and capacity does not come back on a backoff's
    /// schedule.
    NoReservationAvailable,
    /// A success whose body does not decode as the spec says, or a status
    /// that is neither a success nor an error.
    Undecodable,
    /// A reply body larger than the configured bound.
    TooLarge,
    /// The client's own validation refused the request; nothing was sent.
    Invalid,
}

impl Class {
    /// Whether the server may have acted on the request.
    pub fn server_may_have_acted(self) -> bool {
        matches!(self, Self::OutcomeUnknown)
    }

    /// Whether sending the request again can give another answer (every
    /// class but [`Class::Permanent`]; an unknown outcome only for an
    /// operation that is safe to repeat).
    pub fn is_retriable(self) -> bool {
        !matches!(self, Self::Permanent(_))
    }
}

/// What one exchange came to, as far as its sender saw it: the input of
/// [`classify`].
#[derive(Clone, Copy, Debug)]
pub enum Exchanged<'a> {
    /// A reply arrived, and its body was read or is yet to be.
    Reply {
        /// Its status.
        status: u16,
        /// Its headers.
        headers: &'a HeaderMap,
        /// The `errors` and `error` messages of its body (none for a
        /// success, or a body not read).
        messages: &'a [String],
    },
    /// The request never left.
    NotSent,
    /// The request left and no complete reply came back (a time limit, a
    /// reset, a body cut short).
    NoReply,
    /// A reply whose body is larger than the bound.
    TooLarge,
    /// A success whose body does not decode as the spec says.
    Undecodable,
    /// The request could not be built; nothing was sent.
    Invalid,
}

/// The words of the API's answer to a `next-available` create that finds
/// no hardware reservation.
const NO_RESERVATION_AVAILABLE: &str = "no available hardware reservations";

/// Classifies one exchange; `None` for a success.
///
/// | what came of it | class |
/// |---|---|
/// | not sent (connection refused, DNS) | [`Class::NotSent`] |
/// | 429; 503 with `Retry-After` | [`Class::Throttled`] |
/// | 503 "no available hardware reservations" without `Retry-After` | [`Permanent::NoReservationAvailable`] |
/// | 501 | [`Permanent::Refused`] |
/// | other 5xx, 408, no reply, a body cut short | [`Class::OutcomeUnknown`] |
/// | 3xx (never followed), other 4xx | [`Permanent::Refused`] |
/// | a body over the bound | [`Permanent::TooLarge`] |
/// | a success that does not decode; 1xx or past 599 | [`Permanent::Undecodable`] |
/// | refused by the client's validation | [`Permanent::Invalid`] |
///
/// A 429's delay is its `Retry-After` (seconds or an HTTP date), else its
/// `X-RateLimit-Reset` (seconds, or a Unix time); a 503's only its
/// `Retry-After`, since `X-RateLimit-Reset` comes with every reply of the
/// API.
///
/// ```
/// use metal_policy::classify::{classify, Exchanged};
/// use metal_policy::{Class, Permanent};
/// let mut headers = reqwest::header::HeaderMap::new();
/// headers.insert("retry-after", "7".parse().unwrap());
/// let throttled = Exchanged::Reply { status: 429, headers: &headers, messages: &[] };
/// assert_eq!(
///     classify(&throttled),
///     Some(Class::Throttled { retry_after: Some(std::time::Duration::from_secs(7)) })
/// );
/// let none = reqwest::header::HeaderMap::new();
/// let refused = Exchanged::Reply { status: 404, headers: &none, messages: &[] };
/// assert_eq!(classify(&refused), Some(Class::Permanent(Permanent::Refused)));
/// assert_eq!(classify(&Exchanged::NoReply), Some(Class::OutcomeUnknown));
/// ```
pub fn classify(exchanged: &Exchanged<'_>) -> Option<Class> {
    classify_at(exchanged, SystemTime::now())
}

/// [`classify`] with the wall clock's `now`, for `Retry-After` dates.
pub(crate) fn classify_at(exchanged: &Exchanged<'_>, now: SystemTime) -> Option<Class> {
    Some(match *exchanged {
        Exchanged::NotSent => Class::NotSent,
        Exchanged::NoReply => Class::OutcomeUnknown,
        Exchanged::TooLarge => Class::Permanent(Permanent::TooLarge),
        Exchanged::Undecodable => Class::Permanent(Permanent::Undecodable),
        Exchanged::Invalid => Class::Permanent(Permanent::Invalid),
        Exchanged::Reply {
            status,
            headers,
            messages,
        } => match status {
            200..=299 => return None,
            429 => Class::Throttled {
                retry_after: retry_delay(headers, now),
            },
            503 => match retry_after(headers, now) {
                Some(d) => Class::Throttled {
                    retry_after: Some(d),
                },
                None if says_no_reservation(messages) => {
                    Class::Permanent(Permanent::NoReservationAvailable)
                }
                None => Class::OutcomeUnknown,
            },
            501 => Class::Permanent(Permanent::Refused),
            408 | 500..=599 => Class::OutcomeUnknown,
            300..=499 => Class::Permanent(Permanent::Refused),
            _ => Class::Permanent(Permanent::Undecodable),
        },
    })
}

fn says_no_reservation(messages: &[String]) -> bool {
    messages
        .iter()
        .any(|m| m.to_ascii_lowercase().contains(NO_RESERVATION_AVAILABLE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::headers::rate_reading;
    use crate::classify::test_headers as headers;

    fn reply(status: u16, headers: &HeaderMap, messages: &[String]) -> Option<Class> {
        classify(&Exchanged::Reply {
            status,
            headers,
            messages,
        })
    }

    #[test]
    fn statuses_classify() {
        let none = HeaderMap::new();
        for s in [200, 201, 202, 204] {
            assert_eq!(reply(s, &none, &[]), None);
        }
        assert_eq!(
            reply(429, &none, &[]),
            Some(Class::Throttled { retry_after: None })
        );
        assert_eq!(
            reply(503, &headers(&[("retry-after", "1")]), &[]),
            Some(Class::Throttled {
                retry_after: Some(Duration::from_secs(1))
            })
        );
        for s in [408, 500, 502, 503, 504] {
            assert_eq!(reply(s, &none, &[]), Some(Class::OutcomeUnknown), "{s}");
        }
        for s in [301, 302, 400, 401, 403, 404, 409, 422, 501] {
            assert_eq!(
                reply(s, &none, &["m".into()]),
                Some(Class::Permanent(Permanent::Refused)),
                "{s}"
            );
        }
        for s in [100, 600] {
            assert_eq!(
                reply(s, &none, &[]),
                Some(Class::Permanent(Permanent::Undecodable))
            );
        }
        assert_eq!(classify(&Exchanged::NotSent), Some(Class::NotSent));
        assert_eq!(classify(&Exchanged::NoReply), Some(Class::OutcomeUnknown));
        assert_eq!(
            classify(&Exchanged::TooLarge),
            Some(Class::Permanent(Permanent::TooLarge))
        );
        assert_eq!(
            classify(&Exchanged::Undecodable),
            Some(Class::Permanent(Permanent::Undecodable))
        );
        assert_eq!(
            classify(&Exchanged::Invalid),
            Some(Class::Permanent(Permanent::Invalid))
        );
    }

    #[test]
    fn no_reservation_available_is_permanent_only_without_retry_after() {
        let none = HeaderMap::new();
        let msg = vec![
            "There are no available hardware reservations for selected plan and facility".into(),
        ];
        let permanent = Some(Class::Permanent(Permanent::NoReservationAvailable));
        assert_eq!(reply(503, &none, &msg), permanent);
        // With Retry-After it is throttling, retried after that time.
        assert_eq!(
            reply(503, &headers(&[("retry-after", "3")]), &msg),
            Some(Class::Throttled {
                retry_after: Some(Duration::from_secs(3))
            })
        );
        // The rate-limit headers every reply carries do not make it
        // throttling.
        let rate = headers(&[
            ("x-ratelimit-limit", "10"),
            ("x-ratelimit-remaining", "9"),
            ("x-ratelimit-reset", "1700000013"),
        ]);
        assert_eq!(reply(503, &rate, &msg), permanent);
        assert_eq!(reply(503, &rate, &[]), Some(Class::OutcomeUnknown));
        // Another 503 stays an unknown outcome; another status with the
        // message is what its status says.
        assert_eq!(
            reply(503, &none, &["Service Unavailable".into()]),
            Some(Class::OutcomeUnknown)
        );
        assert_eq!(reply(500, &none, &msg), Some(Class::OutcomeUnknown));
    }

    #[test]
    fn only_an_unknown_outcome_may_have_acted_and_only_permanent_is_final() {
        let all = [
            Class::NotSent,
            Class::Throttled { retry_after: None },
            Class::OutcomeUnknown,
            Class::Permanent(Permanent::Refused),
        ];
        let acted: Vec<bool> = all.iter().map(|c| c.server_may_have_acted()).collect();
        assert_eq!(acted, [false, false, true, false]);
        let retriable: Vec<bool> = all.iter().map(|c| c.is_retriable()).collect();
        assert_eq!(retriable, [true, true, true, false]);
    }

    #[test]
    fn hostile_numbers_never_overflow_a_time() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let huge = [
            u64::MAX.to_string(),
            (i64::MAX as u64 + 1).to_string(),
            i64::MAX.to_string(),
        ];
        for n in &huge {
            for name in ["x-ratelimit-reset", "retry-after"] {
                let h = headers(&[(name, n)]);
                // Whatever each says, reading it never panics.
                let _ = retry_delay(&h, now);
                for status in [429, 503] {
                    let reply = Exchanged::Reply {
                        status,
                        headers: &h,
                        messages: &[],
                    };
                    let _ = classify_at(&reply, now);
                }
            }
            let h = headers(&[("x-ratelimit-remaining", "5"), ("x-ratelimit-reset", n)]);
            let _ = rate_reading(&h, || now);
        }
        // A Unix time past what the clock holds is unreadable.
        for n in [u64::MAX.to_string(), (i64::MAX as u64 + 1).to_string()] {
            let h = headers(&[("x-ratelimit-remaining", "5"), ("x-ratelimit-reset", &n)]);
            assert_eq!(rate_reading(&h, || now), None, "{n}");
            assert_eq!(retry_delay(&h, now), None, "{n}");
        }
        // Retry-After in seconds holds any u64.
        assert_eq!(
            retry_delay(&headers(&[("retry-after", &u64::MAX.to_string())]), now),
            Some(Duration::from_secs(u64::MAX))
        );
        // Negative numbers are not numbers of seconds.
        for n in ["-1", "-9223372036854775808"] {
            assert_eq!(retry_delay(&headers(&[("retry-after", n)]), now), None);
            assert_eq!(
                retry_delay(&headers(&[("x-ratelimit-reset", n)]), now),
                None
            );
            assert_eq!(
                rate_reading(
                    &headers(&[("x-ratelimit-remaining", n), ("x-ratelimit-reset", "9")]),
                    || now
                ),
                None
            );
        }
    }
}
