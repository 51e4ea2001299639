//! [`Layer`]: the one place an attempt begins ([`Layer::begin`]: a
//! concurrency slot and a [`Scope`]), and the scopes themselves: each an
//! attempt's view of the hook point, made once and reused.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use metal_api::exchange::{fail, BoxFuture, Exchange};
use metal_api::{ExchangeError, Operation};
use tracing::{field::Empty, Instrument};

use super::steps::{Replied, Steps};
use crate::classify::reply::{api_error, ErrorReply};
use crate::error::AttemptError;
use crate::limit::{self, Held};

/// What an attempt's requests saw, read back when it ends.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The operation of its last request, known as soon as it reached the
    /// hook point.
    pub(crate) operation: Option<&'static Operation>,
    /// That request's reply status, once one came.
    pub(crate) status: Option<u16>,
    /// That reply, when it was an error, as the hook point classified it
    /// (taken by the classification of the operation's result).
    error: Option<ErrorReply>,
}

#[derive(Debug, Default)]
struct State {
    /// Whether an attempt holds the scope.
    active: bool,
    /// Whether one of its requests is in flight (an attempt's requests go
    /// one after another).
    busy: bool,
    timeout: Option<Duration>,
    seen: Seen,
}

/// One attempt's view of the hook point: the exchange of the generated
/// client it hands to the attempt's operation.
pub(crate) struct Scope {
    /// The layer that made it (it holds the scope: never a strong
    /// reference back).
    layer: Weak<Layer>,
    steps: Arc<Steps>,
    state: Mutex<State>,
}

impl Scope {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Plain fields, valid after any panic mid-update.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records that a request of `operation` reached the hook point.
    fn sent(&self, operation: &'static Operation) {
        let mut s = self.lock();
        s.seen.operation = Some(operation);
        s.seen.status = None;
        s.seen.error = None;
    }

    /// Records what the request saw.
    fn replied(&self, replied: Replied) {
        let mut s = self.lock();
        s.seen.status = replied.status;
        s.seen.error = replied.error;
    }

    /// Classifies what a generated operation of this attempt returned,
    /// with what the hook point saw of its reply.
    pub(crate) fn classify<E: serde::Serialize>(&self, error: metal_api::Error<E>) -> AttemptError {
        let (status, reply) = {
            let mut s = self.lock();
            (s.seen.status, s.seen.error.take())
        };
        api_error(error, status, reply.as_ref())
    }
}

impl Exchange for Scope {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        let (own, timeout) = {
            let mut s = self.lock();
            let own = s.active && !s.busy;
            s.busy |= own;
            (own, s.timeout)
        };
        if !own {
            // A client kept past its attempt (the scope idle, or held by
            // another attempt and busy): the request is an attempt of its
            // own, as the raw client's are, and never shares a slot.
            return match self.layer.upgrade() {
                Some(layer) => Box::pin(async move { layer.alone(operation, request).await }),
                None => Box::pin(fail(ExchangeError::NotSent(
                    "the policy client is gone".into(),
                ))),
            };
        }
        let span = tracing::debug_span!(
            "metal_request",
            operation = operation.id,
            otel.kind = "client",
            http.request.method = operation.method.as_str(),
            http.response.status_code = Empty,
            wait_ms = Empty,
        );
        Box::pin(
            async move {
                let _busy = Busy(self);
                self.sent(operation);
                let (result, replied) = self.steps.exchange(operation, request, timeout).await;
                self.replied(replied);
                result
            }
            .instrument(span),
        )
    }
}

/// Marks a scope's request in flight; dropping it (on any path) marks it
/// done.
struct Busy<'a>(&'a Scope);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.lock().busy = false;
    }
}

/// The exchange of the raw client ([`crate::Client::api`]): each request is
/// an attempt of its own, with the client's attempt timeout.
pub(crate) struct Raw(pub(crate) Arc<Layer>);

impl Exchange for Raw {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        Box::pin(self.0.alone(operation, request))
    }
}

/// A scope and the generated client over it.
struct Entry {
    api: metal_api::Client,
    scope: Arc<Scope>,
}

/// Scopes are kept in chunks of 1, 2, 4, ... entries, enough chunks for
/// any index: a reference to one lives as long as the layer, and the
/// scopes never move.
const CHUNKS: usize = usize::BITS as usize;

/// The policy's layer: its steps, and the scopes attempts run in.
pub(crate) struct Layer {
    /// Itself, for the scopes it makes.
    me: Weak<Layer>,
    steps: Arc<Steps>,
    /// The caller's client: each scope's client is it over the scope.
    base: metal_api::Client,
    /// The attempt timeout of the raw client's requests.
    raw_timeout: Option<Duration>,
    chunks: [OnceLock<Box<[OnceLock<Entry>]>>; CHUNKS],
    /// The scopes no attempt holds, and how many have been made.
    free: Mutex<(Vec<usize>, usize)>,
}

/// The chunk and the offset of scope `i`.
fn locate(i: usize) -> (usize, usize) {
    let k = (i + 1).ilog2() as usize;
    (k, i + 1 - (1 << k))
}

impl Layer {
    /// A layer of `steps` over the caller's client `base`; the raw
    /// client's requests get `raw_timeout`.
    pub(crate) fn new(
        steps: Steps,
        base: metal_api::Client,
        raw_timeout: Option<Duration>,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            me: me.clone(),
            steps: Arc::new(steps),
            base,
            raw_timeout,
            chunks: std::array::from_fn(|_| OnceLock::new()),
            free: Mutex::new((Vec::new(), 0)),
        })
    }

    /// One request as an attempt of its own: the raw client's.
    async fn alone(
        &self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> reqwest::Result<reqwest::Response> {
        let begun = self.begin(self.raw_timeout).await;
        begun.scope().exchange(operation, request).await
    }

    /// Begins an attempt: waits for a concurrency slot (FIFO, with
    /// `equinix_api_waiting` up meanwhile), then takes a free scope whose
    /// requests get `timeout`. Both are given back when the returned
    /// [`Begun`] is dropped (on any path: a dropped call gives them back
    /// too). The one place a slot is taken.
    pub(crate) async fn begin(&self, timeout: Option<Duration>) -> Begun<'_> {
        let slot = limit::acquire(&*self.steps.limits, &self.steps.metrics).await;
        let index = {
            let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
            match free.0.pop() {
                Some(i) => i,
                None => {
                    free.1 += 1;
                    free.1 - 1
                }
            }
        };
        let (k, offset) = locate(index);
        let chunk =
            self.chunks[k].get_or_init(|| (0..1usize << k).map(|_| OnceLock::new()).collect());
        let entry = chunk[offset].get_or_init(|| {
            let scope = Arc::new(Scope {
                layer: self.me.clone(),
                steps: self.steps.clone(),
                state: Mutex::new(State::default()),
            });
            Entry {
                api: self.base.with_exchange(scope.clone()),
                scope,
            }
        });
        {
            let mut s = entry.scope.lock();
            s.active = true;
            s.timeout = timeout;
            s.seen = Seen::default();
        }
        Begun {
            layer: self,
            index,
            entry,
            slot: Some(slot),
        }
    }
}

/// A begun attempt: its slot and its scope, until dropped.
pub(crate) struct Begun<'a> {
    layer: &'a Layer,
    index: usize,
    entry: &'a Entry,
    slot: Option<Held>,
}

impl<'a> Begun<'a> {
    /// The generated client the attempt's operation uses.
    pub(crate) fn api(&self) -> &'a metal_api::Client {
        &self.entry.api
    }

    /// The attempt's scope.
    pub(crate) fn scope(&self) -> &'a Scope {
        &self.entry.scope
    }

    /// Ends the attempt: what its requests saw.
    pub(crate) fn finish(mut self) -> Seen {
        let seen = std::mem::take(&mut self.entry.scope.lock().seen);
        // The slot goes back now, before any sleep.
        self.slot = None;
        seen
    }
}

impl Drop for Begun<'_> {
    fn drop(&mut self) {
        {
            let mut s = self.entry.scope.lock();
            s.active = false;
            s.seen = Seen::default();
        }
        self.slot = None;
        self.layer
            .free
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .push(self.index);
    }
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn scopes_fill_chunks_of_doubling_size() {
        let got: Vec<(usize, usize)> = (0..7).map(locate).collect();
        assert_eq!(
            got,
            [(0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (2, 3)]
        );
        assert_eq!(locate(usize::MAX - 1).0, 63);
    }
}
