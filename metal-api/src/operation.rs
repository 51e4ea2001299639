//! Every operation's facts, generated from `openapi/metal.json` by
//! `cargo xtask generate`: its operationId, HTTP method, path and success
//! status. Nothing else in the workspace writes these by hand; the policy
//! reads idempotency from the method, the fake routes by method and path,
//! and metrics label requests by operationId.
//!
//! ```
//! use metal_api::operation::{self, Method};
//! let op = operation::find("findDeviceById").expect("in the spec");
//! assert_eq!((op.method, op.path, op.success), (Method::Get, "/devices/{id}", 200));
//! assert!(op.is_idempotent());
//! assert!(!operation::CREATE_DEVICE.is_idempotent());
//! ```

use std::fmt;

/// An HTTP method an operation may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`.
    Get,
    /// `PUT`.
    Put,
    /// `POST`.
    Post,
    /// `DELETE`.
    Delete,
    /// `PATCH`.
    Patch,
    /// `HEAD`.
    Head,
    /// `OPTIONS`.
    Options,
    /// `TRACE`.
    Trace,
}

impl Method {
    /// The method's name on the wire, upper case.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Put => "PUT",
            Self::Post => "POST",
            Self::Delete => "DELETE",
            Self::Patch => "PATCH",
            Self::Head => "HEAD",
            Self::Options => "OPTIONS",
            Self::Trace => "TRACE",
        }
    }

    /// Whether HTTP defines the method as idempotent (RFC 9110, 9.2.2):
    /// repeating it has the effect of doing it once. `POST` and `PATCH` are
    /// not.
    pub fn is_idempotent(self) -> bool {
        !matches!(self, Self::Post | Self::Patch)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One operation of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operation {
    /// The spec's operationId (`findDeviceById`): the `endpoint` label of
    /// every metric and the operation named in errors.
    pub id: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// The path below the base URL, with `{name}` parameters.
    pub path: &'static str,
    /// The lowest 2xx status the spec documents for it.
    pub success: u16,
    /// Its query parameters that take a list (array-valued in the spec:
    /// `types` of `findIPReservations`), which a client sends as repeated
    /// keys (`types=a&types=b`, the spec's `form` style, exploded) or
    /// comma-joined (`types=a,b`).
    pub lists: &'static [&'static str],
}

impl Operation {
    /// Whether repeating it after an unknown outcome is safe, by its method.
    pub fn is_idempotent(&self) -> bool {
        self.method.is_idempotent()
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

include!("generated/operations.rs");
