//! [`FakeBuilder`]: what a [`Fake`] is built with (its world, timings,
//! faults, token, rate limit, clock, and the handlers of operations the
//! model does not serve), and why a build is refused ([`BuildError`]).

use std::sync::Arc;

use axum::http::HeaderValue;
use uuid::Uuid;

use super::{Fake, DEFAULT_TOKEN};
use crate::call::{ApiError, Call, Reply};
use crate::clock::{Clock, MAX_TIME_SCALE};
use crate::document::{CatalogChoice, WorldDoc, WorldError};
use crate::faults::{FailProvisioning, Fault, RandomFailures, RandomFaults};
use crate::handlers::Handlers;
use crate::model::{Timings, World, WorldSpec};
use crate::pipeline::{Pipeline, ServerConfig};
use crate::router;
use crate::state::{StateFile, SyncPolicy};
use crate::store::{Seed, Store};

/// Builds a [`Fake`]: its projects and reservations, plans, facilities,
/// timings, faults, token, and the handlers of operations the model does
/// not serve.
///
/// Its world is the real API's catalog (every metro, facility, plan and
/// operating system of `metal-fake/catalog/`, each plan with machines in
/// every metro it is sold in), an organisation, the main project with its
/// hardware reservations, and the builder's plans and facilities (added
/// to the catalog where it lacks them). [`FakeBuilder::catalog`] with
/// [`CatalogChoice::None`] keeps only the builder's plans and facilities.
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
    /// The first operationId named that the spec lacks.
    unknown: Option<String>,
    /// Machines of each plan in each facility for on-demand devices.
    on_demand: u32,
    /// The catalog the world starts from.
    catalog: CatalogChoice,
    state: Option<StateFile>,
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
    /// [`FakeBuilder::fault`] was given more than
    /// [`crate::MAX_PENDING_FAULTS`] faults.
    #[error("the faults: {0}")]
    Faults(#[source] crate::faults::TooManyFaults),
    /// [`FakeBuilder::handler`] or [`FakeBuilder::unmodelled`] named an
    /// operation that is not an operationId of `openapi/metal.json`.
    #[error("{0:?} is not an operationId of openapi/metal.json")]
    UnknownOperation(String),
    /// The in-process client cannot be made: its TLS backend does not
    /// start (see [`metal_api::Client::over`]).
    #[error("the in-process client: {0}")]
    Client(#[source] metal_api::ConfigError),
    /// The state file of [`FakeBuilder::state_file`] cannot be written.
    #[error("the state file: {0}")]
    State(#[source] crate::state::StateError),
}

impl Fake {
    /// A builder with defaults: one project with 10 reservations of plan
    /// `c3.small.x86` in facility `da11` (metro `da`), default timings, no
    /// faults, token [`DEFAULT_TOKEN`].
    pub fn builder() -> FakeBuilder {
        FakeBuilder::default()
    }
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
            unknown: None,
            on_demand: crate::model::capacity::DEFAULT_ON_DEMAND,
            catalog: CatalogChoice::Metal,
            state: None,
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

    /// The plan slugs reservations cycle through (default `c3.small.x86`),
    /// each with machines in every one of the builder's facilities; a slug
    /// the catalog lacks is added to it.
    pub fn plans<I, S>(mut self, slugs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.plans = slugs.into_iter().map(Into::into).collect();
        self
    }

    /// The `(facility code, metro code)` pairs reservations cycle through
    /// (default `("da11", "da")`); a code the catalog lacks is added to it
    /// (and its metro, if the catalog lacks that too).
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

    /// How many machines of each of the builder's plans each of its
    /// facilities has for on-demand devices (creates without a hardware
    /// reservation), and of each plan in each metro the catalog sells it
    /// in (default 10). A world document ([`FakeBuilder::world`]) says its
    /// own, in `capacity`.
    ///
    /// ```
    /// let fake = metal_fake::Fake::builder().on_demand(0).build();
    /// assert_eq!(fake.world().capacity[0].available, 0);
    /// ```
    pub fn on_demand(mut self, machines: u32) -> Self {
        self.on_demand = machines;
        self
    }

    /// The catalog the world starts from: [`CatalogChoice::Metal`] (the
    /// default: the real API's), or [`CatalogChoice::None`]: only the
    /// builder's plans ([`FakeBuilder::plans`]) and facilities
    /// ([`FakeBuilder::facilities`]) and their metros, the six operating
    /// systems of a world document without any, and no capacity but the
    /// builder's.
    ///
    /// ```
    /// use metal_fake::document::CatalogChoice;
    /// let small = metal_fake::Fake::builder().catalog(CatalogChoice::None).build();
    /// assert_eq!(small.world().plans.len(), 1);
    /// let metal = metal_fake::Fake::builder().build();
    /// assert!(metal.world().plans.len() >= 20);
    /// ```
    pub fn catalog(mut self, catalog: CatalogChoice) -> Self {
        self.catalog = catalog;
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
    /// An `operation` that is not an operationId of `openapi/metal.json`
    /// makes [`FakeBuilder::try_build`] refuse
    /// ([`BuildError::UnknownOperation`]).
    pub fn handler<F, T>(mut self, operation: &str, handler: F) -> Self
    where
        F: Fn(&Call) -> Result<T, ApiError> + Send + Sync + 'static,
        T: serde::Serialize,
    {
        if let Some(op) = self.spec_operation(operation) {
            self.handlers.custom(
                op,
                Arc::new(move |call: &Call| Reply::json(&handler(call)?)),
            );
        }
        self
    }

    /// Serves `operation` as if the fake did not model it: `501` with
    /// `{"errors":["metal-fake does not model <operationId>"]}`, before any
    /// fault (to test how a client meets an operation the fake lacks).
    ///
    /// An `operation` that is not an operationId of `openapi/metal.json`
    /// makes [`FakeBuilder::try_build`] refuse
    /// ([`BuildError::UnknownOperation`]).
    pub fn unmodelled(mut self, operation: &str) -> Self {
        if let Some(op) = self.spec_operation(operation) {
            self.handlers.unmodelled(op);
        }
        self
    }

    /// The operation of the spec with this operationId; an unknown one is
    /// kept, for [`FakeBuilder::try_build`] to refuse.
    fn spec_operation(&mut self, operation: &str) -> Option<&'static metal_api::Operation> {
        let found = metal_api::operation::find(operation);
        if found.is_none() && self.unknown.is_none() {
            self.unknown = Some(operation.to_string());
        }
        found
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

    /// Keeps the fake's world in `state` (see [`crate::state`]): the world
    /// it is built with is written there as the snapshot, and every change
    /// after it to the log, before the reply of the call that made it.
    /// Seed the builder with the world [`StateFile::open`] read (through
    /// [`FakeBuilder::world`]) to go on from it. With
    /// [`crate::state::SyncPolicy::Interval`] the fake syncs the log every
    /// interval on its own when built inside a tokio runtime.
    pub fn state_file(mut self, state: StateFile) -> Self {
        self.state = Some(state);
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
    /// of range, the faults are too many, an operation named is not the
    /// spec's, the in-process client's TLS backend does not start.
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
        if let Some(operation) = self.unknown {
            return Err(BuildError::UnknownOperation(operation));
        }
        let mut token = HeaderValue::from_str(&self.token).map_err(BuildError::Token)?;
        token.set_sensitive(true);
        if !(1.0..=MAX_TIME_SCALE).contains(&self.time_scale) {
            return Err(BuildError::TimeScale(self.time_scale));
        }
        let clock = Clock::new(self.time_scale);
        let now = clock.now();
        let mut world = match &self.world {
            Some(doc) => World::from_doc(doc, self.timings, clock.wall(), now)?,
            None => {
                let mut projects = vec![(self.project, self.reservations)];
                projects.extend(self.others);
                let spec = WorldSpec {
                    projects,
                    plans: self.plans,
                    facilities: self.facilities,
                    timings: self.timings,
                    on_demand: self.on_demand,
                    catalog: self.catalog,
                };
                World::new(&spec, clock.wall(), now)
            }
        };
        let seed = Seed::new(
            world.to_doc(now),
            self.faults,
            self.random,
            self.failures,
            self.random_failures,
        )
        .map_err(BuildError::Faults)?;
        world.devices.set_failures(seed.failure_plan());
        let (writer, interval) = match self.state {
            Some(state) => {
                let interval = match state.sync() {
                    SyncPolicy::Interval(every) => Some(every),
                    SyncPolicy::EveryChange => None,
                };
                let at = clock.wall().wall(now).timestamp_millis();
                let writer = state.start(&seed.world, at).map_err(BuildError::State)?;
                (Some(writer), interval)
            }
            None => (None, None),
        };
        let store = Arc::new(Store::new(world, seed, self.handlers, clock, writer));
        if let Some(every) = interval {
            crate::store::sync_every(&store, every);
        }
        // In-process: the fake's own token, the builder's rate limit (none
        // by default), nothing recorded.
        let config = ServerConfig::new(self.token).rate_limit(self.rate_limit);
        let pipeline = Pipeline::new(store.clone(), config);
        let router = router::router(pipeline.clone());
        let fake = Fake {
            store,
            pipeline,
            router,
            token,
        };
        // Fake::api_client relies on this: the request builder it needs is
        // made once per process, and its outcome kept.
        fake.try_api_client().map_err(BuildError::Client)?;
        Ok(fake)
    }
}
