//! [`Fake`]: the handle on one fake Metal API (cheap to clone, shared by
//! the in-process exchange and the HTTP server), its builder, the
//! generated client over it ([`Fake::api_client`]), and the inspection API
//! tests use.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue};
use axum::Router;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::faults::{FailProvisioning, Fault, RandomFailures, RandomFaults};
use crate::handlers::Handlers;
use crate::model::{Timings, World, WorldSpec};
use crate::router::{self, ServerConfig};
use crate::shared::{Clock, ClockError, Seed, Shared, MAX_TIME_SCALE};
use crate::state::{CallRecord, Snapshot};

/// The token [`Fake::api_client`] sends and the in-process router accepts,
/// unless [`FakeBuilder::token`] says otherwise.
pub const DEFAULT_TOKEN: &str = "metal-fake-token";

/// The base URL of [`Fake::api_client`]: no request leaves the process, so
/// the host is one that cannot resolve.
pub const IN_PROCESS_BASE_URL: &str = "http://metal-fake.invalid/metal/v1";

/// Builds a [`Fake`]: its projects and reservations, plans, facilities,
/// timings, faults, token, and the handlers of operations the model does
/// not serve.
///
/// ```
/// let project = uuid::Uuid::new_v4();
/// let fake = metal_fake::Fake::builder()
///     .project(project)
///     .reservations(3)
///     .plans(["m3.large.x86"])
///     .build();
/// assert_eq!(fake.project(), project);
/// assert_eq!(fake.reservations().len(), 3);
/// ```
#[derive(Clone, Debug)]
pub struct FakeBuilder {
    project: Uuid,
    reservations: usize,
    others: Vec<(Uuid, usize)>,
    plans: Vec<String>,
    facilities: Vec<(String, String)>,
    timings: Timings,
    faults: Vec<Fault>,
    random: Option<RandomFaults>,
    failures: Vec<FailProvisioning>,
    random_failures: Option<RandomFailures>,
    token: String,
    handlers: Handlers,
    rate_limit: Option<u32>,
    world: Option<WorldDoc>,
    time_scale: f64,
}

/// Why [`FakeBuilder::try_build`] refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The world document of [`FakeBuilder::world`] is refused.
    #[error("the world: {0}")]
    World(#[from] WorldError),
    /// [`FakeBuilder::time_scale`] is not finite or outside 1 to 10000.
    #[error("time scale {0} is not a number from 1 to {MAX_TIME_SCALE}")]
    TimeScale(f64),
    /// The token cannot be an HTTP header value.
    #[error("the token is not a valid header value")]
    Token(#[source] axum::http::header::InvalidHeaderValue),
}

impl Default for FakeBuilder {
    fn default() -> Self {
        Self {
            project: Uuid::new_v4(),
            reservations: 10,
            others: Vec::new(),
            plans: vec!["c3.small.x86".to_string()],
            facilities: vec![("da11".to_string(), "da".to_string())],
            timings: Timings::default(),
            faults: Vec::new(),
            random: None,
            failures: Vec::new(),
            random_failures: None,
            token: DEFAULT_TOKEN.to_string(),
            handlers: Handlers::default(),
            rate_limit: None,
            world: None,
            time_scale: 1.0,
        }
    }
}

impl FakeBuilder {
    /// The main project's ID (random by default).
    pub fn project(mut self, id: Uuid) -> Self {
        self.project = id;
        self
    }

    /// How many hardware reservations the main project holds (default 10).
    pub fn reservations(mut self, n: usize) -> Self {
        self.reservations = n;
        self
    }

    /// Another project, with `reservations` of its own.
    pub fn other_project(mut self, id: Uuid, reservations: usize) -> Self {
        self.others.push((id, reservations));
        self
    }

    /// The plan slugs reservations cycle through (default `c3.small.x86`).
    pub fn plans<I, S>(mut self, slugs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.plans = slugs.into_iter().map(Into::into).collect();
        self
    }

    /// The `(facility code, metro code)` pairs reservations cycle through
    /// (default `("da11", "da")`).
    pub fn facilities<I, S, T>(mut self, pairs: I) -> Self
    where
        I: IntoIterator<Item = (S, T)>,
        S: Into<String>,
        T: Into<String>,
    {
        self.facilities = pairs
            .into_iter()
            .map(|(f, m)| (f.into(), m.into()))
            .collect();
        self
    }

    /// The lifecycle timings.
    pub fn timings(mut self, timings: Timings) -> Self {
        self.timings = timings;
        self
    }

    /// How long after a delete the device's reservation is provisionable
    /// again (default 4 minutes, the real API's order of magnitude); the
    /// same as setting [`Timings::reservation_release`], so give it after
    /// [`FakeBuilder::timings`].
    ///
    /// ```
    /// let fake = metal_fake::Fake::builder()
    ///     .reservation_release(std::time::Duration::from_millis(100))
    ///     .build();
    /// # drop(fake);
    /// ```
    pub fn reservation_release(mut self, after: std::time::Duration) -> Self {
        self.timings.reservation_release = after;
        self
    }

    /// The stale-read mode: for `window` after a reservation's release, the
    /// project's reservation list still shows it as not provisionable while
    /// reading the reservation itself says it is (default: off). The same
    /// as setting [`Timings::stale_reservation_list`]; give it after
    /// [`FakeBuilder::timings`].
    pub fn stale_reservation_list(mut self, window: std::time::Duration) -> Self {
        self.timings.stale_reservation_list = window;
        self
    }

    /// A device whose provisioning will fail (it ends `failed`), named by
    /// hostname or by its place among the creates.
    pub fn fail_provisioning(mut self, fail: FailProvisioning) -> Self {
        self.failures.push(fail);
        self
    }

    /// Provisioning failures drawn at random from a seeded generator.
    ///
    /// ```
    /// let fake = metal_fake::Fake::builder()
    ///     .random_provisioning_failures(metal_fake::RandomFailures { rate: 0.1, seed: 7 })
    ///     .build();
    /// # drop(fake);
    /// ```
    pub fn random_provisioning_failures(mut self, random: RandomFailures) -> Self {
        self.random_failures = Some(random);
        self
    }

    /// A scripted fault, present from the start.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.faults.push(fault);
        self
    }

    /// Random faults from a seeded generator.
    pub fn random_faults(mut self, random: RandomFaults) -> Self {
        self.random = Some(random);
        self
    }

    /// The `X-Auth-Token` the in-process fake accepts and
    /// [`Fake::api_client`] sends (default [`DEFAULT_TOKEN`]). Over HTTP the
    /// server accepts [`ServerConfig`]'s token instead.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = token.into();
        self
    }

    /// A rate limit for the in-process fake, as [`ServerConfig::rate_limit`]
    /// sets one for the server (default none): `per_second` requests a
    /// second, `429` beyond it, and `X-RateLimit-*` headers on every reply,
    /// on tokio's clock (so a paused clock drives it).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let fake = metal_fake::Fake::builder().rate_limit(Some(5)).build();
    /// let reply = fake.api_client().find_project_by_id().id(fake.project()).send().await.unwrap();
    /// assert_eq!(reply.headers()["x-ratelimit-limit"], "5");
    /// # }
    /// ```
    pub fn rate_limit(mut self, per_second: Option<u32>) -> Self {
        self.rate_limit = per_second;
        self
    }

    /// Serves `operation` (the spec's operationId) with `handler`, in place
    /// of the model's handler or of the `501` an operation the fake does not
    /// model answers. An operation added to the spec can be tested against
    /// the fake the same day.
    ///
    /// The handler gets the [`Call`] (path parameters, query, body) and
    /// returns the reply body, serialized as JSON with the operation's
    /// success status from the spec (a value that serializes to `null`, such
    /// as `()`, is no body), or an [`ApiError`] sent as the API's `Error`
    /// body. It goes through everything a modelled operation does: the
    /// token, the rate limit, faults (drawn before it runs; "after" faults
    /// spoil its reply), the call log. It does not see the world; it runs
    /// without the fake's lock, so it may inspect the fake.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use metal_fake::{ApiError, Call, Fake};
    /// use serde_json::json;
    ///
    /// let fake = Fake::builder()
    ///     .handler("findProjectById", |call: &Call| -> Result<_, ApiError> {
    ///         let id = call.id("id")?;
    ///         Ok(json!({ "id": id, "name": "from a test's handler" }))
    ///     })
    ///     .build();
    /// let project = fake
    ///     .api_client()
    ///     .find_project_by_id()
    ///     .id(fake.project())
    ///     .send()
    ///     .await
    ///     .unwrap()
    ///     .into_inner();
    /// assert_eq!(project.name.as_deref(), Some("from a test's handler"));
    /// assert_eq!(fake.call_count("findProjectById"), 1);
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// If `operation` is not an operationId of `openapi/metal.json`.
    pub fn handler<F, T>(mut self, operation: &str, handler: F) -> Self
    where
        F: Fn(&Call) -> Result<T, ApiError> + Send + Sync + 'static,
        T: serde::Serialize,
    {
        let op = spec_operation(operation);
        self.handlers.custom(
            op,
            Arc::new(move |call: &Call| Reply::json(&handler(call)?)),
        );
        self
    }

    /// Serves `operation` as if the fake did not model it: `501` with
    /// `{"errors":["metal-fake does not model <operationId>"]}`, before any
    /// fault (to test how a client meets an operation the fake lacks).
    ///
    /// # Panics
    ///
    /// If `operation` is not an operationId of `openapi/metal.json`.
    pub fn unmodelled(mut self, operation: &str) -> Self {
        self.handlers.unmodelled(spec_operation(operation));
        self
    }

    /// Seeds the fake from a world document (see [`crate::document`]) in
    /// place of [`FakeBuilder::project`], [`FakeBuilder::reservations`],
    /// [`FakeBuilder::other_project`], [`FakeBuilder::plans`] and
    /// [`FakeBuilder::facilities`]. The main project is the document's
    /// first. A reset ([`Fake::reset`]) returns to it.
    pub fn world(mut self, doc: WorldDoc) -> Self {
        self.world = Some(doc);
        self
    }

    /// Runs the fake's clock `scale` times faster than real time (from 1,
    /// the default, to 10000): devices provision and reservations come free
    /// sooner, timestamps move faster. The rate limit and injected latency
    /// stay on real time.
    pub fn time_scale(mut self, scale: f64) -> Self {
        self.time_scale = scale;
        self
    }

    /// Builds the fake. Its clock starts now ([`tokio::time::Instant`]).
    ///
    /// # Panics
    ///
    /// Where [`FakeBuilder::try_build`] fails: the token cannot be an HTTP
    /// header value, the world document is refused, the time scale is out
    /// of range.
    pub fn build(self) -> Fake {
        self.try_build()
            .unwrap_or_else(|e| panic!("metal-fake: cannot build the fake: {e}"))
    }

    /// Builds the fake, or says why it cannot.
    ///
    /// ```
    /// let err = metal_fake::Fake::builder().time_scale(0.5).try_build().unwrap_err();
    /// assert!(matches!(err, metal_fake::BuildError::TimeScale(_)));
    /// ```
    pub fn try_build(self) -> Result<Fake, BuildError> {
        let mut token = HeaderValue::from_str(&self.token).map_err(BuildError::Token)?;
        token.set_sensitive(true);
        if !(1.0..=MAX_TIME_SCALE).contains(&self.time_scale) {
            return Err(BuildError::TimeScale(self.time_scale));
        }
        let clock = Clock::new(self.time_scale);
        let now = clock.now();
        let mut world = match &self.world {
            Some(doc) => World::from_doc(doc, self.timings, now)?,
            None => {
                let mut projects = vec![(self.project, self.reservations)];
                projects.extend(self.others);
                let spec = WorldSpec {
                    projects,
                    plans: self.plans,
                    facilities: self.facilities,
                    timings: self.timings,
                };
                World::new(&spec, now)
            }
        };
        let seed = Seed {
            world: world.to_doc(now),
            faults: self.faults,
            random: self.random,
            failures: self.failures,
            random_failures: self.random_failures,
        };
        world.set_failures(seed.failure_plan());
        let shared = Arc::new(Shared::new(world, seed, self.handlers, clock));
        // In-process: the fake's own token, the builder's rate limit (none
        // by default), nothing recorded.
        let config = ServerConfig::new(self.token).rate_limit(self.rate_limit);
        let (router, _) = router::router(shared.clone(), config);
        Ok(Fake {
            shared,
            router,
            token,
        })
    }
}

/// The operation of the spec with this operationId.
fn spec_operation(operation: &str) -> &'static metal_api::Operation {
    metal_api::operation::find(operation).unwrap_or_else(|| {
        panic!("metal-fake: {operation:?} is not an operationId of openapi/metal.json")
    })
}

/// A fake Metal API: an in-memory model with device lifecycles and fault
/// injection, behind one router that serves every operation of the spec.
/// Cheap to clone (all clones share one world); `Send + Sync`.
///
/// Call it in-process with the generated client ([`Fake::api_client`]; the
/// fake is itself a [`metal_api::Exchange`]), or serve it over HTTP with
/// [`crate::bind`].
#[derive(Clone)]
pub struct Fake {
    shared: Arc<Shared>,
    router: Router,
    token: HeaderValue,
}

impl std::fmt::Debug for Fake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fake")
            .field("project", &self.shared.project())
            .finish_non_exhaustive()
    }
}

impl Fake {
    /// A builder with defaults: one project with 10 reservations of plan
    /// `c3.small.x86` in facility `da11` (metro `da`), default timings, no
    /// faults, token [`DEFAULT_TOKEN`].
    pub fn builder() -> FakeBuilder {
        FakeBuilder::default()
    }

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
        let mut headers = HeaderMap::new();
        headers.insert("x-auth-token", self.token.clone());
        metal_api::Client::over(IN_PROCESS_BASE_URL, headers, Arc::new(self.clone()))
    }

    /// The router the in-process exchange calls.
    pub(crate) fn router(&self) -> &Router {
        &self.router
    }

    /// The state every clone shares (the HTTP server serves it too).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The main project's ID.
    pub fn project(&self) -> Uuid {
        self.shared.project()
    }

    /// The world now, as a document ([`crate::document`]): what
    /// `GET /_fake/world` answers, and what [`Fake::load_world`] and
    /// [`FakeBuilder::world`] take back.
    pub fn world(&self) -> WorldDoc {
        self.shared.world_doc()
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
        self.shared.load(doc)
    }

    /// Back to the world and faults the fake was built with, with an empty
    /// call log (`POST /_fake/reset`). The clock is not turned back.
    pub fn reset(&self) -> Result<(), WorldError> {
        self.shared.reset()
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
        self.shared.clock().advance(by)
    }

    /// Now, on the fake's clock: tokio's clock, scaled
    /// ([`FakeBuilder::time_scale`]) and advanced ([`Fake::advance`]).
    pub fn now(&self) -> Instant {
        self.shared.now()
    }

    /// Adds a scripted fault.
    pub fn inject(&self, fault: Fault) {
        self.shared.lock().faults.push(fault);
    }

    /// Scripts a provisioning failure from now on (see
    /// [`FakeBuilder::fail_provisioning`]).
    pub fn fail_provisioning(&self, fail: FailProvisioning) {
        self.shared.lock().world.fail_provisioning(fail);
    }

    /// The lifecycle timings the fake was built with.
    pub fn timings(&self) -> Timings {
        self.shared.lock().world.timings()
    }

    /// Replaces the random faults (`None` turns them off).
    pub fn set_random_faults(&self, random: Option<RandomFaults>) {
        self.shared.lock().faults.set_random(random);
    }

    /// A competitor takes this reservation now, if it is free; returns the
    /// competitor's device.
    pub fn take_reservation(&self, reservation: Uuid) -> Option<Uuid> {
        self.shared
            .lock()
            .world
            .take_reservation(reservation, self.shared.now())
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
        self.shared
            .lock()
            .world
            .release_competitor(device, self.shared.now())
    }

    /// Counters and the world's contents now.
    pub fn snapshot(&self) -> Snapshot {
        self.shared.snapshot()
    }

    /// The calls received, oldest first (the last
    /// [`crate::state::LOG_CAPACITY`]).
    pub fn calls(&self) -> Vec<CallRecord> {
        self.calls_since(0)
    }

    /// The calls received after the one numbered `seq` (a
    /// [`CallRecord::seq`] read earlier), oldest first: what a reader
    /// following the log has not seen yet, without copying the rest of
    /// it. `calls_since(0)` is [`Fake::calls`].
    pub fn calls_since(&self, seq: u64) -> Vec<CallRecord> {
        self.shared.lock().stats.log_since(seq)
    }

    /// How many calls of `operation` were received (within the log).
    pub fn call_count(&self, operation: &str) -> usize {
        self.calls()
            .iter()
            .filter(|c| c.operation == operation)
            .count()
    }

    /// Every device, with project and reservation included, oldest first.
    pub fn devices(&self) -> Vec<types::Device> {
        let now = self.shared.now();
        self.shared.lock().world.all_devices(now)
    }

    /// Every hardware reservation, with device and project included.
    pub fn reservations(&self) -> Vec<types::HardwareReservation> {
        let now = self.shared.now();
        self.shared.lock().world.all_reservations(now)
    }

    /// Provisionable reservations of the main project, oldest first.
    pub fn provisionable_reservations(&self) -> Vec<Uuid> {
        let project = self.project();
        self.reservations()
            .into_iter()
            .filter(|r| {
                r.provisionable == Some(true)
                    && r.project.as_ref().and_then(|p| p.id) == Some(project)
            })
            .filter_map(|r| r.id)
            .collect()
    }

    /// How many times a device was rebooted; `None` if it does not exist.
    pub fn reboots(&self, device: Uuid) -> Option<u32> {
        self.shared.lock().world.reboots(device)
    }

    /// Whether a device was placed by an injected competitor.
    pub fn is_competitor(&self, device: Uuid) -> bool {
        self.shared.lock().world.is_competitor(device)
    }
}
