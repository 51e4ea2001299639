//! [`Fake`]: the handle on one fake Metal API (cheap to clone, shared by
//! the in-process exchange and the HTTP server), its builder, the
//! generated client over it ([`Fake::api_client`]), and the inspection API
//! tests use.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue};
use axum::Router;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use crate::call::{ApiError, Call, Reply};
use crate::faults::{Fault, FaultPlan, RandomFaults};
use crate::handlers::Handlers;
use crate::model::{Timings, World, WorldSpec};
use crate::router::{self, ServerConfig};
use crate::shared::Shared;
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
    token: String,
    handlers: Handlers,
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
            token: DEFAULT_TOKEN.to_string(),
            handlers: Handlers::default(),
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

    /// Builds the fake. Its clock starts now ([`tokio::time::Instant`]).
    ///
    /// # Panics
    ///
    /// If the token cannot be an HTTP header value.
    pub fn build(self) -> Fake {
        let mut token = HeaderValue::from_str(&self.token)
            .unwrap_or_else(|e| panic!("metal-fake: the token is not a header value: {e}"));
        token.set_sensitive(true);
        let mut projects = vec![(self.project, self.reservations)];
        projects.extend(self.others);
        let spec = WorldSpec {
            projects,
            plans: self.plans,
            facilities: self.facilities,
            timings: self.timings,
        };
        let mut faults = FaultPlan::new(self.random);
        for f in self.faults {
            faults.push(f);
        }
        let world = World::new(&spec, Instant::now());
        let shared = Arc::new(Shared::new(world, faults, self.handlers, self.project));
        // In-process: the fake's own token, no rate limit, nothing recorded.
        let (router, _) = router::router(shared.clone(), ServerConfig::new(self.token));
        Fake {
            shared,
            router,
            token,
        }
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

    /// Adds a scripted fault.
    pub fn inject(&self, fault: Fault) {
        self.shared.lock().faults.push(fault);
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
            .take_reservation(reservation, Instant::now())
    }

    /// A competitor gives its device back: the device is deleted and its
    /// reservation released, with no API call (so nothing is logged or
    /// rate limited). `false` if `device` is not a competitor's.
    ///
    /// ```
    /// let fake = metal_fake::Fake::builder().reservations(1).build();
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
            .release_competitor(device, Instant::now())
    }

    /// Counters and the world's contents now.
    pub fn snapshot(&self) -> Snapshot {
        self.shared.snapshot()
    }

    /// The calls received, oldest first (the last
    /// [`crate::state::LOG_CAPACITY`]).
    pub fn calls(&self) -> Vec<CallRecord> {
        self.shared.lock().stats.log()
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
        self.shared.lock().world.all_devices(Instant::now())
    }

    /// Every hardware reservation, with device and project included.
    pub fn reservations(&self) -> Vec<types::HardwareReservation> {
        self.shared.lock().world.all_reservations(Instant::now())
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
