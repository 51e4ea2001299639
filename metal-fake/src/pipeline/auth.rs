//! The auth step: the `X-Auth-Token` of the request's head, checked before
//! anything reads its body. A token is valid when it is the server's
//! configured token (which sees every project) or one of the world's
//! tokens (which sees the projects of its organisations and those named).
//! Without one, `401` with the real API's `{"error": ...}` body, and the
//! rate limit's headers as they stand, spending none of it.

use axum::http::HeaderMap;

use super::{Context, Outcome, Pipeline, Step};
use crate::model::Access;

impl Pipeline {
    /// Sets what the caller sees, or stops with `401`.
    pub(super) fn auth(&self, mut cx: Context, headers: &HeaderMap) -> Step {
        let token = headers.get("x-auth-token").and_then(|v| v.to_str().ok());
        let access = match token {
            Some(t) if t == self.config.token => Some(Access::All),
            Some(t) => self.store.lock().world.access_of(t),
            None => None,
        };
        match access {
            Some(access) => {
                cx.caller = access;
                Ok(cx)
            }
            None => {
                // The budget as it stands, spending none of it.
                cx.rate = self.peek();
                Err(cx.stop(Outcome::Unauthorized))
            }
        }
    }
}
