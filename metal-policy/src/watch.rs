//! [`DeviceWatch`]: one cache of a project's devices, refreshed by one
//! paged list, that many waiters read instead of each polling its device.
//!
//! It is the informer of kube-rs's `runtime::watcher` and `reflector` (and
//! client-go's shared informer) for an API without a watch: a background
//! task lists the project's devices ([`Metal::query_device_pages`], under
//! the client's own limits and retries, the fields trimmed to what waiters
//! read, by the list's `exclude` and then by the watch, which keeps of each
//! device only [`WatchConfig::whole_devices`]' fields unless told to keep
//! it whole), publishes the list as a [`Snapshot`], and sleeps. A
//! [`Waiter`](crate::Waiter) given the watch ([`Waiter::watch`](crate::Waiter::watch))
//! reads its devices from the snapshots, so the API's load is one list per
//! interval however many devices are waited for.
//!
//! - **Interval.** After a refresh in which a watched device (one a waiter
//!   waits for) changed state or vanished, the next comes after
//!   [`WatchConfig::min_interval`], the floor; after each quiet one the
//!   interval doubles, up to [`WatchConfig::max_interval`]. A refresh that
//!   fails is tried again after the interval, like a quiet one.
//! - **Bounds.** One refresh at a time, of at most
//!   [`DeviceQuery::max_pages`] pages; a list cut there is a partial
//!   snapshot ([`Snapshot::is_complete`] is false), from which no device is
//!   judged gone. One task per watch, which ends when the last clone of the
//!   watch is dropped.
//! - **Gone.** A device a waiter waits for that is missing from a complete
//!   list begun after the wait began is read once by ID: a `404` or `403`
//!   ends the wait with that error ([`WaitError::Api`](crate::WaitError::Api)),
//!   as a poll's read would; a device that reads fine but is no longer
//!   listed (moved to another project, or without the watched tag) ends it
//!   with [`WaitError::Gone`](crate::WaitError::Gone), unless it is in a
//!   state waited for.
//! - **Failed lists.** A list the server refuses (a 4xx) ends every wait on
//!   the watch with [`WaitError::Watch`](crate::WaitError::Watch); a list
//!   that fails otherwise (after the client's retries) is waited through,
//!   and the next refresh tries again.
//! - **Metrics** (with [`DeviceWatch::register`]), each with the constant
//!   label `project`: `equinix_api_watch_refreshes_total{outcome}`
//!   (`complete`, `partial`, `error`), `equinix_api_watch_pages_total`, and
//!   the gauge `equinix_api_watch_view_age_seconds`, the time since the
//!   list of the current snapshot began (read when scraped).
//!
//! ```
//! use std::{sync::Arc, time::Duration};
//! use metal_api::DeviceState;
//! use metal_policy::{DeviceWatch, Metal, WatchConfig, Waiter};
//!
//! async fn until_active(metal: Arc<dyn Metal>, project: uuid::Uuid, ids: &[uuid::Uuid]) -> Result<(), Box<dyn std::error::Error>> {
//!     let watch = DeviceWatch::start(Arc::clone(&metal), project, WatchConfig::new())?;
//!     let waiter = Waiter::new().watch(watch);
//!     let states = [DeviceState::Active];
//!     for done in waiter.wait_for_devices(metal.as_ref(), ids, &states, Duration::from_secs(1800)).await {
//!         done?;
//!     }
//!     Ok(())
//! }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use futures::StreamExt;
use metal_api::types;
use prometheus::core::{Collector, Desc};
use prometheus::proto::MetricFamily;
use prometheus::{Gauge, IntCounter, IntCounterVec, Opts, Registry};
use tokio::sync::watch as channel;
use tokio::time::Instant;
use uuid::Uuid;

use crate::error::Error;
use crate::metal::{DeviceFilter, DeviceQuery, Fields, Metal};

/// The fields a watch's list leaves out by default: the nested objects a
/// device list expands that a waiter does not read (it reads the ID, state,
/// hostname, tags and creation time).
const TRIMMED: [&str; 4] = ["plan", "facility", "metro", "ip_addresses"];

/// How a [`DeviceWatch`] lists and how often.
///
/// The default lists every device of the project, 1,000 a page (the API's
/// largest page), at most 100 pages a refresh, without the nested `plan`,
/// `facility`, `metro` and `ip_addresses`, and keeps of each device only
/// the fields a waiter reads (see [`WatchConfig::whole_devices`]);
/// refreshes 2 s apart while a watched device changes, doubling to 60 s
/// while none does.
///
/// ```
/// use std::time::Duration;
/// use metal_policy::WatchConfig;
/// let config = WatchConfig::new()
///     .tag("provision-run=web")
///     .interval(Duration::from_secs(5), Duration::from_secs(120));
/// assert_eq!(config.query.filter.tag.as_deref(), Some("provision-run=web"));
/// assert_eq!(config.min_interval, Duration::from_secs(5));
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WatchConfig {
    /// The list each refresh makes.
    pub query: DeviceQuery,
    /// The shortest time between the starts of two refreshes: the floor.
    pub min_interval: Duration,
    /// The longest time between the starts of two refreshes.
    pub max_interval: Duration,
    /// Whether the snapshots keep each device as listed. When false (the
    /// default) they keep only its `id`, `href`, `short_id`, `hostname`,
    /// `description`, `state`, `tags`, `created_at`, `updated_at`,
    /// `provisioning_percentage`, `locked`, `spot_instance`,
    /// `termination_time`, `project`, `project_lite` and
    /// `hardware_reservation` (what waiters and controllers read to tell
    /// devices apart), so that a watch of many devices holds kilobytes a
    /// device, not the tens a whole device takes decoded (its ports,
    /// events, operating system, creator).
    pub whole_devices: bool,
}

impl Default for WatchConfig {
    fn default() -> Self {
        Self {
            query: DeviceQuery::new()
                .fields(Fields {
                    include: Vec::new(),
                    exclude: TRIMMED.iter().map(|s| s.to_string()).collect(),
                })
                .per_page(1000)
                .max_pages(100),
            min_interval: Duration::from_secs(2),
            max_interval: Duration::from_secs(60),
            whole_devices: false,
        }
    }
}

impl WatchConfig {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Watches only the devices carrying `tag`.
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.query.filter = DeviceFilter {
            tag: Some(tag.into()),
            ..self.query.filter
        };
        self
    }

    /// Refreshes lists this instead.
    pub fn query(mut self, query: DeviceQuery) -> Self {
        self.query = query;
        self
    }

    /// Keeps each device whole in the snapshots, as its list gave it (see
    /// [`WatchConfig::whole_devices`]).
    pub fn whole_devices(mut self) -> Self {
        self.whole_devices = true;
        self
    }

    /// Refreshes at least `min` apart (a zero `min` counts as 1 ms) and at
    /// most `max` apart (never less than `min`).
    pub fn interval(mut self, min: Duration, max: Duration) -> Self {
        self.min_interval = min.max(Duration::from_millis(1));
        self.max_interval = max.max(self.min_interval);
        self
    }
}

/// Why a watch could not start, or a refresh did not give a snapshot.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// [`DeviceWatch::start`] was called outside a tokio runtime, which
    /// its task needs.
    #[error("a device watch needs a tokio runtime to run its task in")]
    NoRuntime,
    /// Prometheus refused to make the watch's collectors.
    #[error("making the device watch's metrics: {0}")]
    Metrics(#[source] prometheus::Error),
    /// The refresh's list failed (after the client's own retries).
    #[error("listing the devices of project {project}: {source}")]
    Refresh {
        /// The project watched.
        project: Uuid,
        /// The list's error, shared by everyone who reads it.
        #[source]
        source: Arc<Error>,
    },
}

impl WatchError {
    /// The HTTP status of a failed list, when there is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Refresh { source, .. } => source.status(),
            Self::NoRuntime | Self::Metrics(_) => None,
        }
    }
}

/// What one refresh found: the devices of the last list, and whether that
/// list was whole. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    view: Arc<View>,
}

#[derive(Debug, Default)]
struct View {
    /// Each boxed: a decoded device is 5 KB inline even when slim, and a
    /// map's spare capacity (and a list's while it grows) would hold that
    /// much per empty slot.
    devices: HashMap<Uuid, Arc<types::Device>>,
    /// Whether the list of `devices` was read to its end.
    complete: bool,
    /// The refresh whose list `devices` is (0: none yet).
    listed: u64,
    /// When that list began.
    began: Option<Instant>,
    /// The latest refresh, when its list failed; the devices stay those of
    /// the last list that did not.
    error: Option<Arc<Error>>,
    /// The latest refresh, ended.
    refresh: u64,
    /// The IDs of `devices` by hostname, made the first time a snapshot
    /// of this view is asked for one ([`Snapshot::with_hostname`]): once a
    /// refresh, not a scan of every device for each lookup.
    hostnames: OnceLock<HashMap<String, Vec<Uuid>>>,
}

impl Snapshot {
    /// The devices listed, in no particular order.
    pub fn devices(&self) -> impl Iterator<Item = &types::Device> + '_ {
        self.view.devices.values().map(AsRef::as_ref)
    }

    /// The devices listed with exactly this hostname, in no particular
    /// order. The first call on a snapshot indexes its devices by hostname
    /// (later calls, and clones of it, look theirs up), so that a
    /// controller of N hostnames that each read theirs costs N lookups, not
    /// N scans of N devices.
    pub fn with_hostname(&self, hostname: &str) -> impl Iterator<Item = &types::Device> + '_ {
        let index = self.view.hostnames.get_or_init(|| {
            let mut index: HashMap<String, Vec<Uuid>> = HashMap::new();
            for (id, device) in &self.view.devices {
                if let Some(hostname) = &device.hostname {
                    index.entry(hostname.clone()).or_default().push(*id);
                }
            }
            index
        });
        index
            .get(hostname)
            .into_iter()
            .flatten()
            .filter_map(|id| self.view.devices.get(id))
            .map(AsRef::as_ref)
    }

    /// The device with this ID, if listed.
    pub fn device(&self, id: Uuid) -> Option<&types::Device> {
        self.view.devices.get(&id).map(AsRef::as_ref)
    }

    /// Whether the list was read to its end (not cut by
    /// [`DeviceQuery::max_pages`], and a list was read at all): a device
    /// missing from a complete snapshot was not in the project, as
    /// filtered, when its list began.
    pub fn is_complete(&self) -> bool {
        self.view.complete
    }

    /// When the list of these devices began, `None` before the first.
    pub fn listed_at(&self) -> Option<Instant> {
        self.view.began
    }
}

/// A shared, self-refreshing cache of a project's devices: see the
/// [module docs](crate::watch). Cheap to clone; clones share the cache and its one
/// task, which stops when the last clone is dropped.
///
/// ```
/// # async fn demo(metal: std::sync::Arc<dyn metal_policy::Metal>, project: uuid::Uuid) -> Result<(), metal_policy::WatchError> {
/// use metal_policy::{DeviceWatch, WatchConfig};
/// let watch = DeviceWatch::start(metal, project, WatchConfig::new().tag("role=web"))?;
/// let snapshot = watch.refreshed().await?;
/// println!("{} devices", snapshot.devices().count());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct DeviceWatch {
    handle: Arc<Handle>,
}

impl std::fmt::Debug for DeviceWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceWatch")
            .field("project", &self.handle.shared.project)
            .finish_non_exhaustive()
    }
}

/// The last clone's drop stops the task.
struct Handle {
    shared: Arc<Shared>,
    task: tokio::task::AbortHandle,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the task and the waiters share.
struct Shared {
    project: Uuid,
    fields: Fields,
    state: Mutex<State>,
    views: channel::Sender<Snapshot>,
    metrics: WatchMetrics,
}

#[derive(Default)]
struct State {
    /// How many waiters wait for each device.
    watched: HashMap<Uuid, usize>,
    /// The latest refresh begun.
    begun: u64,
}

impl Shared {
    /// A poisoned lock only means a waiter panicked while counting; the
    /// counts are still usable.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A waiter's interest in one device, counted while it lives.
pub(crate) struct Interest {
    shared: Arc<Shared>,
    id: Uuid,
    /// The latest refresh begun when the interest was taken: only a list
    /// begun later can show the device gone.
    after: u64,
}

impl Drop for Interest {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        if let Some(n) = state.watched.get_mut(&self.id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                state.watched.remove(&self.id);
            }
        }
    }
}

/// What a waiter reads of the watch about one device.
pub(crate) enum Seen {
    /// Listed, as listed.
    Listed(Box<types::Device>),
    /// Missing from a complete list begun after the wait began.
    Missing,
    /// Not known yet (no list since the wait began, or a partial one).
    Unknown,
    /// The latest refresh was refused (a 4xx): the watch cannot tell.
    Refused(Arc<Error>),
}

impl DeviceWatch {
    /// Starts watching `project` (as `config` filters it) through `metal`:
    /// the first refresh begins at once, in a task on the current tokio
    /// runtime.
    pub fn start(
        metal: Arc<dyn Metal>,
        project: Uuid,
        config: WatchConfig,
    ) -> Result<Self, WatchError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| WatchError::NoRuntime)?;
        let metrics = WatchMetrics::new(project).map_err(WatchError::Metrics)?;
        let (views, _) = channel::channel(Snapshot::default());
        let shared = Arc::new(Shared {
            project,
            fields: config.query.fields.clone(),
            state: Mutex::new(State::default()),
            views,
            metrics,
        });
        let task = runtime.spawn(refresh_loop(Arc::clone(&shared), metal, config));
        Ok(Self {
            handle: Arc::new(Handle {
                shared,
                task: task.abort_handle(),
            }),
        })
    }

    /// The project watched.
    pub fn project(&self) -> Uuid {
        self.handle.shared.project
    }

    /// The latest snapshot (empty and not complete before the first
    /// refresh ends).
    pub fn snapshot(&self) -> Snapshot {
        self.handle.shared.views.borrow().clone()
    }

    /// Waits for the next refresh begun after this call to end, and returns
    /// its snapshot, or the error its list ended with.
    pub async fn refreshed(&self) -> Result<Snapshot, WatchError> {
        let shared = &self.handle.shared;
        let after = shared.lock().begun;
        let mut views = shared.views.subscribe();
        loop {
            {
                let snapshot = views.borrow_and_update();
                if snapshot.view.refresh > after {
                    return match &snapshot.view.error {
                        Some(source) => Err(WatchError::Refresh {
                            project: shared.project,
                            source: Arc::clone(source),
                        }),
                        None => Ok(snapshot.clone()),
                    };
                }
            }
            // The sender lives in `shared`, which this handle keeps.
            if views.changed().await.is_err() {
                return Ok(self.snapshot());
            }
        }
    }

    /// Registers the watch's collectors (see the [module docs](crate::watch)) in
    /// `registry`; a second watch of the same project in one registry is
    /// refused as Prometheus refuses a duplicate.
    pub fn register(&self, registry: &Registry) -> Result<(), prometheus::Error> {
        let m = &self.handle.shared.metrics;
        registry.register(Box::new(m.refreshes.clone()))?;
        registry.register(Box::new(m.pages.clone()))?;
        registry.register(Box::new(Age {
            gauge: m.age.clone(),
            began: Arc::clone(&m.began),
        }))
    }

    /// The fields the watch's devices carry.
    pub(crate) fn fields(&self) -> &Fields {
        &self.handle.shared.fields
    }

    /// Counts a waiter's interest in `id`, until the guard is dropped.
    pub(crate) fn interest(&self, id: Uuid) -> Interest {
        let shared = Arc::clone(&self.handle.shared);
        let after = {
            let mut state = shared.lock();
            *state.watched.entry(id).or_default() += 1;
            state.begun
        };
        Interest { shared, id, after }
    }

    /// A receiver of the snapshots as they are published.
    pub(crate) fn subscribe(&self) -> channel::Receiver<Snapshot> {
        self.handle.shared.views.subscribe()
    }
}

impl Interest {
    /// What `snapshot` says of the device.
    pub(crate) fn seen(&self, snapshot: &Snapshot) -> Seen {
        let view = &snapshot.view;
        // A refused list leaves the devices of an earlier one, which no
        // later list will update.
        if let Some(e) = view.error.as_ref().filter(|e| refused(e)) {
            return Seen::Refused(Arc::clone(e));
        }
        if let Some(d) = view.devices.get(&self.id) {
            return Seen::Listed(Box::new(types::Device::clone(d)));
        }
        if view.complete && view.listed > self.after {
            Seen::Missing
        } else {
            Seen::Unknown
        }
    }
}

/// Whether a list's error is the server refusing it (a 4xx), which a later
/// list will not change.
fn refused(e: &Error) -> bool {
    matches!(e, Error::Rejected { status, .. } if (400..500).contains(status))
}

/// The task: refresh, publish, sleep, until aborted.
async fn refresh_loop(shared: Arc<Shared>, metal: Arc<dyn Metal>, config: WatchConfig) {
    let floor = config.min_interval.max(Duration::from_millis(1));
    let ceiling = config.max_interval.max(floor);
    // Half the floor, so that the first quiet refresh doubles it to the
    // floor.
    let mut interval = floor / 2;
    loop {
        let began = Instant::now();
        let refresh = {
            let mut state = shared.lock();
            state.begun += 1;
            state.begun
        };
        let listed = list(metal.as_ref(), &shared, &config).await;
        let changed = publish(&shared, refresh, began, listed);
        interval = if changed {
            floor
        } else {
            interval.saturating_mul(2).clamp(floor, ceiling)
        };
        tokio::time::sleep_until(began + interval).await;
    }
}

/// What one refresh's list gave.
enum Listed {
    Complete(Vec<Arc<types::Device>>),
    Partial(Vec<Arc<types::Device>>),
    Failed(Error),
}

/// One list, at most the query's pages.
async fn list(metal: &dyn Metal, shared: &Shared, config: &WatchConfig) -> Listed {
    let mut pages = metal.query_device_pages(shared.project, &config.query);
    let mut devices = Vec::new();
    while let Some(page) = pages.next().await {
        match page {
            Ok(page) if config.whole_devices => {
                shared.metrics.pages.inc();
                devices.extend(page.into_iter().map(Arc::new));
            }
            Ok(page) => {
                shared.metrics.pages.inc();
                devices.extend(page.into_iter().map(|d| Arc::new(slim(d))));
            }
            Err(Error::TooManyPages { .. }) => return Listed::Partial(devices),
            Err(e) => return Listed::Failed(e),
        }
    }
    Listed::Complete(devices)
}

/// Publishes what refresh number `refresh` (begun at `began`) listed;
/// returns whether a watched device changed state or vanished.
fn publish(shared: &Shared, refresh: u64, began: Instant, listed: Listed) -> bool {
    let old = shared.views.borrow().clone();
    let old = &old.view;
    let outcome = match &listed {
        Listed::Complete(_) => "complete",
        Listed::Partial(_) => "partial",
        Listed::Failed(_) => "error",
    };
    shared.metrics.refreshes.with_label_values(&[outcome]).inc();
    let view = match listed {
        Listed::Failed(e) => View {
            devices: old.devices.clone(),
            complete: old.complete,
            listed: old.listed,
            began: old.began,
            error: Some(Arc::new(e)),
            refresh,
            hostnames: OnceLock::new(),
        },
        Listed::Complete(list) => View {
            devices: by_id(list, HashMap::new()),
            complete: true,
            listed: refresh,
            began: Some(began),
            error: None,
            refresh,
            hostnames: OnceLock::new(),
        },
        Listed::Partial(list) => View {
            // Devices of earlier lists stay until a whole list drops them.
            devices: by_id(list, old.devices.clone()),
            complete: false,
            listed: refresh,
            began: Some(began),
            error: None,
            refresh,
            hostnames: OnceLock::new(),
        },
    };
    if view.error.is_none() {
        *lock_began(&shared.metrics.began) = Some(began);
    }
    let changed = {
        let state = shared.lock();
        state.watched.keys().any(|id| {
            match (old.devices.get(id), view.devices.get(id)) {
                (Some(before), Some(now)) => before.state != now.state,
                (Some(_), None) => view.complete,
                // Appearing is not a change: a device is listed first
                // when it is new, and then it is still queued.
                (None, _) => false,
            }
        })
    };
    shared.views.send_replace(Snapshot {
        view: Arc::new(view),
    });
    changed
}

/// `device` with only the fields [`WatchConfig::whole_devices`] names.
fn slim(device: types::Device) -> types::Device {
    types::Device {
        id: device.id,
        href: device.href,
        short_id: device.short_id,
        hostname: device.hostname,
        description: device.description,
        state: device.state,
        tags: device.tags,
        created_at: device.created_at,
        updated_at: device.updated_at,
        provisioning_percentage: device.provisioning_percentage,
        locked: device.locked,
        spot_instance: device.spot_instance,
        termination_time: device.termination_time,
        project: device.project,
        project_lite: device.project_lite,
        hardware_reservation: device.hardware_reservation,
        ..types::Device::default()
    }
}

fn by_id(
    list: Vec<Arc<types::Device>>,
    mut into: HashMap<Uuid, Arc<types::Device>>,
) -> HashMap<Uuid, Arc<types::Device>> {
    for d in list {
        if let Some(id) = d.id {
            into.insert(id, d);
        }
    }
    into
}

/// A poisoned lock only means a scrape panicked; the instant is still
/// usable.
fn lock_began(m: &Mutex<Option<Instant>>) -> MutexGuard<'_, Option<Instant>> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A watch's collectors, present with or without a registry.
struct WatchMetrics {
    refreshes: IntCounterVec,
    pages: IntCounter,
    age: Gauge,
    /// When the list of the current snapshot began.
    began: Arc<Mutex<Option<Instant>>>,
}

impl WatchMetrics {
    fn new(project: Uuid) -> Result<Self, prometheus::Error> {
        let opts = |name: &str, help: &str| {
            Opts::new(name, help).const_label("project", project.to_string())
        };
        Ok(Self {
            refreshes: IntCounterVec::new(
                opts(
                    "equinix_api_watch_refreshes_total",
                    "Refreshes of a device watch, by outcome (complete, partial, error).",
                ),
                &["outcome"],
            )?,
            pages: IntCounter::with_opts(opts(
                "equinix_api_watch_pages_total",
                "Pages of devices a device watch has read.",
            ))?,
            age: Gauge::with_opts(opts(
                "equinix_api_watch_view_age_seconds",
                "Seconds since the list of a device watch's current snapshot began.",
            ))?,
            began: Arc::new(Mutex::new(None)),
        })
    }
}

/// The age gauge, set from the snapshot's list start when scraped.
struct Age {
    gauge: Gauge,
    began: Arc<Mutex<Option<Instant>>>,
}

impl Collector for Age {
    fn desc(&self) -> Vec<&Desc> {
        self.gauge.desc()
    }

    fn collect(&self) -> Vec<MetricFamily> {
        if let Some(began) = *lock_began(&self.began) {
            self.gauge.set(began.elapsed().as_secs_f64());
        }
        self.gauge.collect()
    }
}
