//! [`Fake`]: the handle on one fake Metal API (cheap to clone, shared by the
//! in-process transport and the HTTP server), its builder, the exchange
//! every call goes through, and the inspection API tests use.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use metal_api::types;
use metal_policy::{Request, Response};
use tokio::time::Instant;
use uuid::Uuid;

use crate::faults::{Fault, FaultKind, FaultPlan, RandomFaults};
use crate::model::{ApiError, Timings, World, WorldSpec};
use crate::state::{CallRecord, Snapshot, Stats};

/// Builds a [`Fake`]: its projects and reservations, plans, facilities,
/// timings and faults.
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

    /// Builds the fake. Its clock starts now ([`tokio::time::Instant`]).
    /// Its [`metal_policy::Metal`] implementation uses the built-in policy
    /// client (see [`crate::transport::IN_PROCESS_ATTEMPT_TIMEOUT`]).
    pub fn build(self) -> Fake {
        let shared = self.shared();
        let client = crate::transport::policy_client(&shared, |c| c)
            // The only build errors are a missing transport, per_page 0 and a
            // metrics registration; the default settings cause none.
            .expect("the default in-process client always builds");
        Fake { shared, client }
    }

    /// Builds the fake with its built-in policy client adjusted by
    /// `configure` (page size, backoff, timeouts, metrics registry, ...).
    pub fn build_with_client(
        self,
        configure: impl FnOnce(metal_policy::ClientBuilder) -> metal_policy::ClientBuilder,
    ) -> Result<Fake, metal_policy::BuildError> {
        let shared = self.shared();
        let client = crate::transport::policy_client(&shared, configure)?;
        Ok(Fake { shared, client })
    }

    fn shared(self) -> Arc<Shared> {
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
        Arc::new(Shared {
            inner: Mutex::new(Inner {
                world: World::new(&spec, Instant::now()),
                faults,
                stats: Stats::default(),
            }),
            project: self.project,
            plans: spec.plans,
            facilities: spec.facilities,
        })
    }
}

/// A fake Metal API: an in-memory model with device lifecycles and fault
/// injection. Cheap to clone (all clones share one world); `Send + Sync`.
///
/// It is a [`metal_policy::Transport`] (one exchange, failures classified as
/// the real HTTP transport would) and a [`metal_policy::Metal`], and it can
/// be served over HTTP with [`crate::server::serve`].
#[derive(Clone)]
pub struct Fake {
    pub(crate) shared: Arc<Shared>,
    pub(crate) client: metal_policy::Client,
}

impl std::fmt::Debug for Fake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fake")
            .field("project", &self.shared.project)
            .finish_non_exhaustive()
    }
}

/// The state all clones share.
#[derive(Debug)]
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    project: Uuid,
    plans: Vec<String>,
    facilities: Vec<(String, String)>,
}

#[derive(Debug)]
struct Inner {
    world: World,
    faults: FaultPlan,
    stats: Stats,
}

/// What one exchange came to, before it is put on the wire or turned into
/// an [`metal_policy::AttemptError`]. Already recorded in the stats.
#[derive(Debug)]
pub(crate) enum Exchange {
    /// A normal reply (an API refusal is a normal reply too).
    Reply(Result<Response, ApiError>),
    /// Never reached the server; nothing changed.
    NotSent,
    /// An injected error status; `applied` says whether the change was made.
    Failed { status: u16 },
    /// 429 with `Retry-After`; nothing changed.
    Throttled { retry_after: Duration },
    /// A proxy's HTML 502; nothing changed.
    BadGateway,
    /// Applied; the connection dropped before the reply.
    Dropped,
    /// Applied; the reply never comes.
    Hang,
    /// Applied; the reply is cut short.
    Truncated(Result<Response, ApiError>),
}

/// The status the API answers a successful `operation` with.
pub(crate) fn success_status(operation: &str) -> u16 {
    match operation {
        "createDevice" | "createSSHKey" | "createProjectSSHKey" | "moveHardwareReservation" => 201,
        "performAction" => 202,
        "deleteDevice" | "deleteSSHKey" => 204,
        _ => 200,
    }
}

fn status_of(operation: &str, result: &Result<Response, ApiError>) -> u16 {
    match result {
        Ok(_) => success_status(operation),
        Err(e) => e.status,
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock is held leaves the model as it was between
        // two whole operations at worst; keep serving rather than poison.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a call that never reached the model (auth, rate limit, bad
    /// request).
    pub(crate) fn record(&self, operation: &str, status: Option<u16>) {
        let mut inner = self.lock();
        inner.stats.record(operation, status, None, Instant::now());
    }

    /// Runs one exchange: picks its fault, waits any added latency, acts on
    /// the model (or not), and records the call.
    pub(crate) async fn exchange(&self, request: &Request) -> Exchange {
        let op = request.operation();
        let arrived = Instant::now();
        let fault = self.lock().faults.next(op);
        if let Some(FaultKind::Latency(d)) = &fault {
            tokio::time::sleep(*d).await;
        }
        let label = fault.as_ref().map(FaultKind::label);
        let mut inner = self.lock();
        let now = Instant::now();
        let before = match &fault {
            Some(FaultKind::NotSent) => Some((None, Exchange::NotSent)),
            Some(FaultKind::FailBefore { status }) => {
                Some((Some(*status), Exchange::Failed { status: *status }))
            }
            Some(FaultKind::Throttle { retry_after }) => Some((
                Some(429),
                Exchange::Throttled {
                    retry_after: *retry_after,
                },
            )),
            Some(FaultKind::BadGateway) => Some((Some(502), Exchange::BadGateway)),
            _ => None,
        };
        if let Some((status, exchange)) = before {
            inner.stats.record(op, status, label, arrived);
            return exchange;
        }
        if let (Some(FaultKind::Competitor), Request::CreateDevice { body, .. }) = (&fault, request)
        {
            let id = match body {
                types::CreateDeviceRequest::MetroInput(b) => &b.hardware_reservation_id,
                types::CreateDeviceRequest::FacilityInput(b) => &b.hardware_reservation_id,
            };
            if let Ok(id) = Uuid::parse_str(id) {
                inner.world.take_reservation(id, now);
            }
        }
        let result = inner.world.handle(request, now);
        let (status, exchange) = match fault {
            Some(FaultKind::FailAfter { status }) => (Some(status), Exchange::Failed { status }),
            Some(FaultKind::DropAfter) => (None, Exchange::Dropped),
            Some(FaultKind::Hang) => (None, Exchange::Hang),
            Some(FaultKind::Truncated) => {
                (Some(status_of(op, &result)), Exchange::Truncated(result))
            }
            _ => (Some(status_of(op, &result)), Exchange::Reply(result)),
        };
        inner.stats.record(op, status, label, arrived);
        exchange
    }
}

impl Fake {
    /// A builder with defaults: one project with 10 reservations of plan
    /// `c3.small.x86` in facility `da11` (metro `da`), default timings, no
    /// faults.
    pub fn builder() -> FakeBuilder {
        FakeBuilder::default()
    }

    /// The policy client this fake's [`metal_policy::Metal`] implementation
    /// delegates to (over the in-process transport, no rate limit).
    pub fn client(&self) -> &metal_policy::Client {
        &self.client
    }

    /// The main project's ID.
    pub fn project(&self) -> Uuid {
        self.shared.project
    }

    /// The plan slugs reservations cycle through.
    pub fn plans(&self) -> &[String] {
        &self.shared.plans
    }

    /// The `(facility, metro)` codes reservations cycle through.
    pub fn facilities(&self) -> &[(String, String)] {
        &self.shared.facilities
    }

    /// Adds a scripted fault.
    pub fn inject(&self, fault: Fault) {
        self.shared.lock().faults.push(fault);
    }

    /// Removes every scripted fault not yet used.
    pub fn clear_faults(&self) {
        self.shared.lock().faults.clear();
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

    /// Counters and the world's contents now.
    pub fn snapshot(&self) -> Snapshot {
        let inner = self.shared.lock();
        inner.stats.snapshot(inner.world.counts(Instant::now()))
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
