//! [`Client`]: the handle every clone shares, and the raw client it hands
//! out.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::exchange::Layer;
use crate::metrics::Metrics;
use crate::redact::Secrets;
use crate::retry::backoff::BackoffFactory;
use crate::retry::budget::Budget;

/// The policy client: implements [`crate::Metal`], and runs any generated
/// operation under the same policy ([`Client::call`]), with the guarantees
/// described in the crate docs. Cheap to clone; clones share every limit.
#[derive(Clone)]
pub struct Client {
    pub(super) inner: Arc<Inner>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("per_page", &self.inner.per_page)
            .field("max_list_entries", &self.inner.max_list_entries)
            .field("attempt_timeout", &self.inner.attempt_timeout)
            .field("deadline", &self.inner.deadline)
            .finish_non_exhaustive()
    }
}

pub(super) struct Inner {
    /// The generated client, its requests through the policy's layer.
    pub(super) api: metal_api::Client,
    /// The policy's layer at the hook point, where attempts begin.
    pub(super) layer: Arc<Layer>,
    pub(super) backoff: Arc<dyn BackoffFactory>,
    pub(super) attempt_timeout: Option<Duration>,
    pub(super) deadline: Option<Duration>,
    pub(super) per_page: u32,
    /// The most distinct entries one list may have.
    pub(super) max_list_entries: usize,
    /// The client-wide retry budget, when on.
    pub(super) budget: Option<Budget>,
    pub(super) metrics: Metrics,
    /// The tokens the client sends, removed from what servers say.
    pub(super) secrets: Secrets,
}

impl Client {
    /// The generated client, with every request it sends under this
    /// client's limits: a concurrency slot and a rate-limit turn each, the
    /// metrics under its operationId, and a pause of the whole client on a
    /// 429. One attempt per request, no retries; [`Client::call`] adds
    /// them.
    ///
    /// ```no_run
    /// # async fn demo(client: metal_policy::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let project = client.api().find_project_by_id().id(uuid::Uuid::nil()).send().await?;
    /// # drop(project); Ok(()) }
    /// ```
    pub fn api(&self) -> &metal_api::Client {
        &self.inner.api
    }
}
