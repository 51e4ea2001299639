//! What a handler of one operation gets ([`Call`]) and gives ([`Reply`] or
//! [`ApiError`]), whether the fake's model serves the operation or a test
//! does (see [`crate::FakeBuilder::handler`]).

use std::collections::HashMap;

use axum::body::Bytes;
use metal_api::operation::Operation;
use uuid::Uuid;

/// One request to one operation, as its handler sees it: the operation,
/// the path parameters (named as in the spec's path), the query and the
/// body.
#[derive(Clone, Debug)]
pub struct Call {
    operation: &'static Operation,
    params: Params,
    query: HashMap<String, String>,
    body: Bytes,
}

/// The path parameters of one request, by name, in the path's order.
pub(crate) type Params = Vec<(String, String)>;

impl Call {
    /// A call of `operation` with these path parameters, query and body.
    pub(crate) fn new(
        operation: &'static Operation,
        params: Params,
        query: HashMap<String, String>,
        body: Bytes,
    ) -> Self {
        Self {
            operation,
            params,
            query,
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

    /// A query parameter, percent-decoded (the last one if repeated).
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query.get(name).map(String::as_str)
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

    /// The body decoded as JSON; a body that does not decode is
    /// `422 Invalid request body`.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, ApiError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| ApiError::unprocessable(format!("Invalid request body: {e}")))
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

/// A successful reply's body: JSON (a generated `metal_api::types` value,
/// serialized), or none. Its status is the operation's success status
/// ([`Operation::success`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A JSON body.
    Json(Bytes),
    /// No body (`204`, or `202` for an action).
    Empty,
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
