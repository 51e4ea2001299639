//! What a handler of one operation gets ([`Call`]) and gives ([`Reply`] or
//! [`ApiError`]), whether the fake's model serves the operation or a test
//! does (see [`crate::FakeBuilder::handler`]).
//!
//! - `reads`: what an operation reads of the query: counted in tests
//!   (every read comes through [`Call::query`]), and declared unread with
//!   why ([`Unread`]), for the coverage test (`crate::coverage`).
//! - `body`: how a request body is read before its operation's type
//!   decodes it (`null` is absent, free-form objects and numbers given as
//!   text), as the real API reads what its clients send.

mod body;
pub(crate) mod reads;

use axum::body::Bytes;
use metal_api::operation::Operation;
use uuid::Uuid;

pub(crate) use reads::Unread;

/// One request to one operation, as its handler sees it: the operation,
/// the path parameters (named as in the spec's path), the query and the
/// body.
#[derive(Clone, Debug)]
pub struct Call {
    operation: &'static Operation,
    params: Params,
    /// Each name once: the last value of a repeated scalar, every value of
    /// a list (see [`Call::list`]) joined with commas.
    query: Vec<(String, String)>,
    body: Bytes,
}

/// The path parameters of one request, by name, in the path's order.
pub(crate) type Params = Vec<(String, String)>;

/// A query's pairs, percent-decoded, in the order they came.
pub(crate) type QueryPairs = Vec<(String, String)>;

impl Call {
    /// A call of `operation` with these path parameters, query pairs (in
    /// the order sent, keys repeated as they came) and body.
    pub(crate) fn new(
        operation: &'static Operation,
        params: Params,
        pairs: QueryPairs,
        body: Bytes,
    ) -> Self {
        Self {
            operation,
            params,
            query: read_query(operation, pairs),
            body,
        }
    }

    /// The operation called.
    pub fn operation(&self) -> &'static Operation {
        self.operation
    }

    /// A path parameter (`"id"` for `/devices/{id}`), percent-decoded.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A query parameter, percent-decoded: the last value if a scalar is
    /// repeated; for a list ([`Call::list`]), its values joined with
    /// commas.
    pub fn query(&self, name: &str) -> Option<&str> {
        // Every read of the query comes here: the coverage test learns
        // from it which parameters each operation honours.
        #[cfg(test)]
        reads::note(name);
        self.peek(name)
    }

    /// A query parameter as [`Call::query`] gives it, without counting as
    /// read: for what repeats the query back (a list's hrefs echo its
    /// filters) and honours nothing.
    pub(crate) fn peek(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The values of a query parameter that takes a list, however the
    /// client sent it: repeated keys (`types=a&types=b`, the spec's
    /// exploded `form` style, as the generated client sends) or one
    /// comma-joined value (`types=a,b`), or both at once; in the order
    /// sent, blanks dropped. A parameter that is not a list of the
    /// operation's ([`metal_api::Operation::lists`]) gives its one value,
    /// split the same way.
    ///
    /// ```
    /// # fn read(call: &metal_fake::Call) {
    /// // `?types=public_ipv4&types=global_ipv4` or `?types=public_ipv4,global_ipv4`
    /// let types: Vec<&str> = call.list("types");
    /// # let _ = types; }
    /// ```
    pub fn list(&self, name: &str) -> Vec<&str> {
        self.query(name)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The request body, as sent.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// A path parameter that names something by ID: only a canonical
    /// hyphenated UUID (`8-4-4-4-12` hex digits) is accepted; anything else
    /// is `404 Not found`, as the API answers for a malformed ID.
    pub fn id(&self, name: &str) -> Result<Uuid, ApiError> {
        self.param(name)
            .filter(|text| text.len() == 36)
            .and_then(|text| Uuid::try_parse(text).ok())
            .ok_or_else(ApiError::not_found)
    }

    /// The body decoded as JSON, read as the real API reads it: `null` is
    /// the same as a field left out (except inside free-form objects such
    /// as `customdata`, which are kept whole), and a free-form object may
    /// come as the text of a JSON object. A body that does not decode is
    /// `422 Invalid request body`.
    ///
    /// ```
    /// # use metal_fake::Call;
    /// # fn read(call: &Call) -> Result<(), metal_fake::ApiError> {
    /// // `{"label": "desk", "tags": null}` decodes as `{"label": "desk"}`.
    /// let body: metal_api::types::SshKeyInput = call.json()?;
    /// # let _ = body; Ok(()) }
    /// ```
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, ApiError> {
        decode(self.json_value()?)
    }

    /// The body as a JSON value, read as [`Call::json`] reads it, before
    /// it is decoded into the operation's type.
    pub(crate) fn json_value(&self) -> Result<serde_json::Value, ApiError> {
        let mut body = serde_json::from_slice(&self.body).map_err(invalid_body)?;
        body::normalize(&mut body);
        Ok(body)
    }

    /// A query parameter, when present and not empty.
    pub(crate) fn text(&self, name: &str) -> Option<String> {
        self.query(name)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    }

    /// A numeric query parameter, `default` when absent; anything but a
    /// non-negative integer is `422`.
    pub(crate) fn number(&self, name: &str, default: u32) -> Result<u32, ApiError> {
        match self.query(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| ApiError::unprocessable(format!("{name} must be a positive integer"))),
        }
    }
}

/// `pairs` with each name once: a list of `operation`'s takes every value
/// of its repeated keys, joined with commas in the order sent; any other
/// name keeps its last value.
fn read_query(operation: &Operation, pairs: QueryPairs) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(pairs.len());
    for (name, value) in pairs {
        let list = operation.lists.contains(&name.as_str());
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, kept)) if list => {
                if !value.is_empty() {
                    if !kept.is_empty() {
                        kept.push(',');
                    }
                    kept.push_str(&value);
                }
            }
            Some((_, kept)) => *kept = value,
            None => out.push((name, value)),
        }
    }
    out
}

/// `body` (as [`Call::json_value`] gives it) decoded; `422 Invalid
/// request body` when it does not.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    body: serde_json::Value,
) -> Result<T, ApiError> {
    serde_json::from_value(body).map_err(invalid_body)
}

fn invalid_body(e: serde_json::Error) -> ApiError {
    ApiError::unprocessable(format!("Invalid request body: {e}"))
}

/// A successful reply's body: JSON (a generated `metal_api::types` value,
/// serialized), or none. Its status is the operation's success status
/// ([`Operation::success`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A JSON body.
    Json(Bytes),
    /// No body (`204`, or `202` for an action).
    Empty,
    /// A body of another type than JSON (a screenshot's JPEG), with its
    /// `Content-Type`.
    Bytes {
        /// Its `Content-Type`.
        content_type: &'static str,
        /// The body.
        body: Bytes,
    },
}

impl Reply {
    /// `value` serialized as JSON; a value that serializes to `null` is no
    /// body.
    pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Self, ApiError> {
        let body = serde_json::to_vec(value)
            .map_err(|e| ApiError::new(500, format!("metal-fake: encoding the reply: {e}")))?;
        Ok(if body == b"null" {
            Self::Empty
        } else {
            Self::Json(Bytes::from(body))
        })
    }
}

/// An API refusal: the status and the `errors` of the API's `Error` body
/// (`{"errors": [...]}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The messages.
    pub messages: Vec<String>,
}

impl ApiError {
    /// A refusal with one message.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            messages: vec![message.into()],
        }
    }

    /// `404 Not found`.
    pub fn not_found() -> Self {
        Self::new(404, "Not found")
    }

    /// `422` with `message`.
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(422, message)
    }

    /// `501`: the fake serves no handler for `operation`.
    pub fn not_modelled(operation: &Operation) -> Self {
        Self::new(501, format!("metal-fake does not model {}", operation.id))
    }
}
