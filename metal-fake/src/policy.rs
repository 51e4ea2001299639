//! The policy client over the fake, in-process: what a controller under
//! test programs against ([`metal_policy::Metal`]), with the fake's
//! faults, the paused clock, and the same policy and HTTP decoding as in
//! production.

use std::time::Duration;

use crate::fake::Fake;

/// The per-attempt timeout of [`Fake::client`]: the HTTP client's own
/// default request timeout, so a hung reply ends as it would over HTTP.
pub const IN_PROCESS_ATTEMPT_TIMEOUT: Duration = metal_api::config::DEFAULT_REQUEST_TIMEOUT;

impl Fake {
    /// A policy client over this fake, in-process: no rate limit, 4 calls
    /// in flight, the default backoff, [`IN_PROCESS_ATTEMPT_TIMEOUT`] per
    /// exchange. Each call builds a new client with limits of its own;
    /// keep it (clones share them).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use metal_policy::Metal;
    /// let fake = metal_fake::Fake::builder().reservations(2).build();
    /// let metal = fake.client();
    /// assert_eq!(metal.list_reservations(fake.project()).await.unwrap().len(), 2);
    /// # }
    /// ```
    pub fn client(&self) -> metal_policy::Client {
        // The defaults cause no build error: an API client is given,
        // per_page is the default, and no registry is registered into.
        self.client_with(|c| c)
            .unwrap_or_else(|e| unreachable!("the default in-process client builds: {e}"))
    }

    /// [`Fake::client`] adjusted by `configure` (page size, backoff,
    /// timeouts, metrics registry, ...).
    pub fn client_with(
        &self,
        configure: impl FnOnce(metal_policy::ClientBuilder) -> metal_policy::ClientBuilder,
    ) -> Result<metal_policy::Client, metal_policy::BuildError> {
        let builder = metal_policy::Client::builder()
            .api(self.api_client())
            .api_rate(Duration::ZERO)
            .parallelism(4)
            .attempt_timeout(Some(IN_PROCESS_ATTEMPT_TIMEOUT));
        configure(builder).build()
    }
}
