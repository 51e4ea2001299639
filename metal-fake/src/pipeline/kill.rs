//! The per-connection kill signal: how a handler drops its own connection
//! (the "dropped connection" faults). Over HTTP the accept loop closes the
//! socket when it fires; in-process the exchange fails the request with the
//! matching [`metal_api::ExchangeError`].

use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// Why a handler dropped its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kill {
    /// Before the request reached the server: nothing changed. Over HTTP a
    /// live listener cannot refuse one request, so it is a plain drop.
    NotSent,
    /// After acting, before any reply.
    NoReply,
}

/// A request extension: fires once, read by whoever carries the request
/// (the connection, or the in-process exchange).
#[derive(Clone, Debug, Default)]
pub(crate) struct ConnKill(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    notify: Notify,
    why: Mutex<Option<Kill>>,
}

impl ConnKill {
    /// Drops the connection for `why`.
    pub(crate) fn fire(&self, why: Kill) {
        *self.0.why.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        // Stores a permit when nobody waits yet.
        self.0.notify.notify_one();
    }

    /// Waits until the signal fires; says why.
    pub(crate) async fn fired(&self) -> Kill {
        self.0.notify.notified().await;
        self.0
            .why
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .unwrap_or(Kill::NoReply)
    }
}
