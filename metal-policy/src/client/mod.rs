//! [`Client`], the policy client, and its [`ClientBuilder`].
//!
//! - `builder`: the settings, and where limits, metrics and the layer at
//!   the hook point are put together.
//! - `call`: the one call path (slot, attempts, classification, backoff,
//!   deadline) and the generic [`Client::call`] with its [`CallOptions`].
//! - `pages`: complete pagination, page by page.
//! - `typed`: the [`crate::Metal`] methods, thin callers of the generated
//!   builders with their own recovery rules.

mod builder;
mod call;
mod pages;
mod typed;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use builder::{
    BuildError, ClientBuilder, DEFAULT_API_RATE, DEFAULT_PARALLELISM, DEFAULT_PER_PAGE,
};
pub use call::CallOptions;
pub use typed::WITNESS_TAG_PREFIX;

use crate::limit::Limits;
use crate::metrics::Metrics;
use crate::retry::backoff::BackoffFactory;
use crate::retry::budget::Budget;

/// The policy client: implements [`crate::Metal`], and runs any generated
/// operation under the same policy ([`Client::call`]), with the guarantees
/// described in the crate docs. Cheap to clone; clones share every limit.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("per_page", &self.inner.per_page)
            .field("attempt_timeout", &self.inner.attempt_timeout)
            .field("deadline", &self.inner.deadline)
            .finish_non_exhaustive()
    }
}

struct Inner {
    /// The generated client, its requests through the policy's layer.
    api: metal_api::Client,
    limits: Arc<dyn Limits>,
    backoff: Arc<dyn BackoffFactory>,
    attempt_timeout: Option<Duration>,
    deadline: Option<Duration>,
    per_page: u32,
    /// The client-wide retry budget, when on.
    budget: Option<Budget>,
    metrics: Metrics,
}

impl Client {
    /// A builder with the documented defaults.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

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
