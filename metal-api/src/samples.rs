//! One sample call of every operation (feature `samples`), for tests that
//! walk the whole API: through a policy, against a fake, over a recording.
//!
//! [`call`] sends an operation through the generated client with every
//! required parameter and body set to a placeholder its schema accepts
//! (an object's required properties, an enumeration's first value, the
//! nil-like UUID `00000000-0000-4000-8000-000000000001`) and nothing else.
//! The reply is reduced to its status and headers, so one type serves every
//! operation; a placeholder that does not decode as its type (which
//! `cargo xtask generate` rules out) is an [`Error::InvalidRequest`].
//!
//! ```no_run
//! # async fn demo(client: metal_api::Client) {
//! for op in metal_api::operation::ALL {
//!     let reply = metal_api::samples::call(&client, op).await;
//!     println!("{op}: {:?}", reply.map(|r| r.status()));
//! }
//! # }
//! ```

// The generated client's own error type, returned as its methods return it.
#![allow(clippy::result_large_err)]

use serde::de::DeserializeOwned;

use crate::exchange::BoxFuture;
use crate::{types, Error, ResponseValue};

/// What a sample call answers: the reply's status and headers, or the
/// error, without the operation's own body types.
pub type Reply = Result<ResponseValue<()>, Error>;

/// The placeholder `json` for the argument `what`, as the type its builder
/// method takes.
fn sample<T: DeserializeOwned>(what: &str, json: &str) -> Result<T, Error> {
    serde_json::from_str(json).map_err(|e| {
        Error::InvalidRequest(format!("the sample {what} {json} does not decode: {e}"))
    })
}

/// A reply without its body, an error without its typed body.
fn settle<T, E>(reply: Result<ResponseValue<T>, Error<E>>) -> Reply {
    match reply {
        Ok(value) => Ok(ResponseValue::new(
            (),
            value.status(),
            value.headers().clone(),
        )),
        Err(e) => Err(e.into_untyped()),
    }
}

include!("generated/samples.rs");
