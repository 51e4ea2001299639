//! [`Fake`]: the handle on one fake Metal API (cheap to clone, shared by
//! the in-process exchange and the HTTP server), and what a test arranges
//! with it.
//!
//! - `builder`: [`FakeBuilder`] and [`BuildError`] (and [`Fake::builder`]:
//!   the builder stands above the fake it builds).
//! - `inspect`: what a test reads back (counters, calls, devices).
//! - `client`: [`Fake::client`], the policy client over the fake.

mod builder;
mod client;
mod inspect;

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue};
use axum::Router;
use tokio::time::Instant;
use uuid::Uuid;

pub use builder::{BuildError, FakeBuilder};
pub use client::IN_PROCESS_ATTEMPT_TIMEOUT;

use crate::clock::ClockError;
use crate::document::{WorldDoc, WorldError};
use crate::faults::{FailProvisioning, Fault, RandomFaults, TooManyFaults};
use crate::model::Timings;
use crate::pipeline::Pipeline;
use crate::store::Store;

/// The token [`Fake::api_client`] sends and the in-process router accepts,
/// unless [`FakeBuilder::token`] says otherwise.
pub const DEFAULT_TOKEN: &str = "metal-fake-token";

/// The base URL of [`Fake::api_client`]: no request leaves the process, so
/// the host is one that cannot resolve.
pub const IN_PROCESS_BASE_URL: &str = "http://metal-fake.invalid/metal/v1";

/// A fake Metal API: an in-memory model with device lifecycles and fault
/// injection, behind one router that serves every operation of the spec.
/// Cheap to clone (all clones share one world); `Send + Sync`.
///
/// Call it in-process with the generated client ([`Fake::api_client`]; the
/// fake is itself a [`metal_api::Exchange`]), or serve it over HTTP with
/// [`crate::bind`].
#[derive(Clone)]
pub struct Fake {
    store: Arc<Store>,
    pipeline: Pipeline,
    router: Router,
    token: HeaderValue,
}

impl std::fmt::Debug for Fake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fake")
            .field("project", &self.store.project())
            .finish_non_exhaustive()
    }
}

impl Fake {
    /// The generated client over this fake, in-process: no sockets, tokio's
    /// paused clock usable, every fault injectable. Its base URL is
    /// [`IN_PROCESS_BASE_URL`] and it sends the fake's token.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let fake = metal_fake::Fake::builder().reservations(2).build();
    /// let page = fake
    ///     .api_client()
    ///     .find_project_hardware_reservations()
    ///     .id(fake.project())
    ///     .send()
    ///     .await
    ///     .unwrap();
    /// assert_eq!(page.hardware_reservations.len(), 2);
    /// # }
    /// ```
    pub fn api_client(&self) -> metal_api::Client {
        // A fake exists only when try_build made this same client: the
        // request builder it needs is made once per process and its outcome
        // kept (metal_api::Client::over), so this cannot fail now.
        self.try_api_client()
            .unwrap_or_else(|e| unreachable!("metal-fake: try_build made this client: {e}"))
    }

    /// [`Fake::api_client`], or why it cannot be made.
    fn try_api_client(&self) -> Result<metal_api::Client, metal_api::ConfigError> {
        let mut headers = HeaderMap::new();
        headers.insert("x-auth-token", self.token.clone());
        metal_api::Client::over(IN_PROCESS_BASE_URL, headers, Arc::new(self.clone()))
    }

    /// The fake's router, as the HTTP server serves it: every operation
    /// under `/metal/v1` behind the token and the rate limit, and the
    /// control API. A test can mount it in an axum app of its own, or call
    /// it as a [`tower::Service`] without sockets.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use tower::ServiceExt;
    /// let fake = metal_fake::Fake::builder().build();
    /// let request = axum::http::Request::get("/_fake/state")
    ///     .body(axum::body::Body::empty())
    ///     .unwrap();
    /// let reply = fake.router().clone().oneshot(request).await.unwrap();
    /// assert_eq!(reply.status(), 200);
    /// # }
    /// ```
    pub fn router(&self) -> &Router {
        &self.router
    }

    /// The state every clone shares (the HTTP server serves it too).
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The pipeline the in-process exchange hands requests to.
    pub(crate) fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The main project's ID.
    pub fn project(&self) -> Uuid {
        self.store.project()
    }

    /// The world now, as a document ([`crate::document`]): what
    /// `GET /_fake/world` answers, and what [`Fake::load_world`] and
    /// [`FakeBuilder::world`] take back.
    pub fn world(&self) -> WorldDoc {
        self.store.world_doc()
    }

    /// Replaces the world with `doc`'s. Faults and the call log stay; a
    /// refused document changes nothing.
    ///
    /// ```
    /// let fake = metal_fake::Fake::builder().reservations(1).build();
    /// let saved = fake.world();
    /// let mut empty = saved.clone();
    /// empty.reservations.clear();
    /// fake.load_world(&empty).unwrap();
    /// assert!(fake.reservations().is_empty());
    /// fake.load_world(&saved).unwrap();
    /// assert_eq!(fake.reservations().len(), 1);
    /// ```
    pub fn load_world(&self, doc: &WorldDoc) -> Result<(), WorldError> {
        self.store.load(doc)
    }

    /// Syncs the state file's log to the disk ([`FakeBuilder::state_file`];
    /// nothing without one): every change answered so far is on the disk
    /// when it returns. The error of an earlier write, if one failed.
    pub fn sync_state(&self) -> Result<(), crate::state::StateError> {
        self.store.sync_state()
    }

    /// Writes the world now as the state file's snapshot, with an empty
    /// log after it (what the binary does on SIGINT and SIGTERM; nothing
    /// without a state file).
    pub fn save_state(&self) -> Result<(), crate::state::StateError> {
        self.store.save_state()
    }

    /// Back to the world and faults the fake was built with, with an empty
    /// call log (`POST /_fake/reset`). The clock is not turned back.
    pub fn reset(&self) -> Result<(), WorldError> {
        self.store.reset()
    }

    /// Moves the fake's clock on by `by` (`POST /_fake/clock`): devices
    /// provision, power transitions end and reservations come free as if
    /// that time had passed. Returns the total advance; refused past ten
    /// years in all.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::time::Duration;
    /// let fake = metal_fake::Fake::builder().build();
    /// let before = fake.now();
    /// fake.advance(Duration::from_secs(600)).unwrap();
    /// assert!(fake.now() >= before + Duration::from_secs(600));
    /// # }
    /// ```
    pub fn advance(&self, by: Duration) -> Result<Duration, ClockError> {
        self.store.clock().advance(by)
    }

    /// Now, on the fake's clock: tokio's clock, scaled
    /// ([`FakeBuilder::time_scale`]) and advanced ([`Fake::advance`]).
    pub fn now(&self) -> Instant {
        self.store.now()
    }

    /// Adds a scripted fault; refused when [`crate::MAX_PENDING_FAULTS`]
    /// are pending already (the control API's bound).
    ///
    /// ```
    /// use metal_fake::{Fault, FaultKind};
    /// let fake = metal_fake::Fake::builder().build();
    /// fake.inject(Fault::on("findDeviceById", FaultKind::BadGateway)).unwrap();
    /// ```
    pub fn inject(&self, fault: Fault) -> Result<(), TooManyFaults> {
        self.store.lock().faults.extend(vec![fault])
    }

    /// Scripts a provisioning failure from now on (see
    /// [`FakeBuilder::fail_provisioning`]).
    pub fn fail_provisioning(&self, fail: FailProvisioning) {
        self.store.lock().world.devices.fail_provisioning(fail);
    }

    /// The lifecycle timings the fake was built with.
    pub fn timings(&self) -> Timings {
        self.store.lock().world.timings()
    }

    /// Replaces the random faults (`None` turns them off).
    pub fn set_random_faults(&self, random: Option<RandomFaults>) {
        self.store.lock().faults.set_random(random);
    }

    /// A competitor takes this reservation now, if it is free; returns the
    /// competitor's device.
    pub fn take_reservation(&self, reservation: Uuid) -> Option<Uuid> {
        self.store
            .lock()
            .world
            .take_reservation(reservation, self.store.now())
    }

    /// A competitor gives its device back: the device is deleted and its
    /// reservation released, with no API call (so nothing is logged or
    /// rate limited). `false` if `device` is not a competitor's.
    ///
    /// A device still provisioning cannot be deleted yet (`false`), as
    /// through the API.
    ///
    /// ```
    /// use std::time::Duration;
    /// let fake = metal_fake::Fake::builder()
    ///     .reservations(1)
    ///     .timings(metal_fake::Timings::uniform(Duration::ZERO))
    ///     .build();
    /// let reservation = fake.provisionable_reservations()[0];
    /// let device = fake.take_reservation(reservation).unwrap();
    /// assert!(fake.release_competitor(device));
    /// assert!(fake.devices().is_empty());
    /// assert!(!fake.release_competitor(device));
    /// ```
    pub fn release_competitor(&self, device: Uuid) -> bool {
        self.store
            .lock()
            .world
            .release_competitor(device, self.store.now())
    }
}
