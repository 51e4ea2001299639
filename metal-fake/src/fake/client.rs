//! The policy client over the fake, in-process: what a controller under
//! test programs against ([`metal_policy::Metal`]), with the fake's
//! faults, the paused clock, and the same policy and HTTP decoding as in
//! production.
//!
//! # Testing a controller
//!
//! A controller takes `Arc<dyn Metal>`; its test gives it the fake's
//! client, scripts a fault, and checks the fake's own records. Here the
//! create's reply is lost after the server acted, on tokio's paused clock
//! (the retry's backoff takes no real time):
//!
//! ```
//! use std::sync::Arc;
//! use metal_api::types;
//! use metal_fake::{Fake, Fault, FaultKind};
//! use metal_policy::{Error, Metal};
//!
//! /// The controller under test: one device on a reservation.
//! async fn provision_one(
//!     metal: Arc<dyn Metal>,
//!     project: uuid::Uuid,
//!     reservation: uuid::Uuid,
//! ) -> Result<types::Device, Error> {
//!     let input: types::DeviceCreateInMetroInput = types::DeviceCreateInMetroInput::builder()
//!         .metro("da")
//!         .plan("c3.small.x86")
//!         .operating_system("ubuntu_24_04")
//!         .hardware_reservation_id(reservation.to_string())
//!         .hostname(Some("web-1".to_string()))
//!         .try_into()
//!         .map_err(|e: types::error::ConversionError| Error::InvalidRequest {
//!             operation: metal_api::operation::CREATE_DEVICE.id,
//!             reason: e.to_string(),
//!         })?;
//!     metal
//!         .create_device(project, &types::CreateDeviceRequest::MetroInput(input))
//!         .await
//! }
//!
//! #[tokio::main(flavor = "current_thread", start_paused = true)]
//! async fn main() {
//!     let fake = Fake::builder().reservations(1).build();
//!     fake.inject(Fault::on("createDevice", FaultKind::DropAfter)).unwrap();
//!     let reservation = fake.provisionable_reservations()[0];
//!
//!     let device = provision_one(Arc::new(fake.client()), fake.project(), reservation)
//!         .await
//!         .expect("the lost reply is recovered");
//!
//!     // The create was sent once; the retry found the device by its
//!     // witness instead of creating a second one.
//!     assert_eq!(fake.call_count("createDevice"), 1);
//!     assert_eq!(fake.devices().len(), 1);
//!     assert_eq!(device.id, fake.devices()[0].id);
//! }
//! ```

use std::time::Duration;

use super::Fake;

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
