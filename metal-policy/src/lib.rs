//! The Metal operations a provisioning controller programs against, and the
//! policy that makes them safe to call from a long-running process.
//!
//! Program against [`Metal`] (as `Arc<dyn Metal>`); in production that is a
//! [`Client`], which wraps the generated `metal-api` client so calls survive
//! timeouts, throttling and replies lost after the server acted, without
//! creating anything twice.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use metal_policy::{Client, Metal};
//! let config = metal_api::Config::from_env().build()?;
//! let metal: Arc<dyn Metal> = Arc::new(
//!     Client::builder()
//!         .config(config)
//!         .parallelism(3)
//!         .registry(prometheus::Registry::new())
//!         .build()?,
//! );
//! let devices = metal.list_devices(uuid::Uuid::nil()).await?;
//! # drop(devices); Ok(()) }
//! ```
//!
//! Any operation of the spec, wrapped by a [`Metal`] method or not, runs
//! under the same policy with [`Client::call`]:
//!
//! ```no_run
//! # async fn demo(client: metal_policy::Client) -> Result<(), metal_policy::Error> {
//! // Retried after a 5xx or a timeout, since GET is idempotent.
//! let keys = client.call(|api| api.find_ssh_keys().send()).await?;
//! # drop(keys); Ok(()) }
//! ```
//!
//! # Module guide
//!
//! - [`metal`]: the [`Metal`] trait, [`Fields`] for `include`/`exclude`,
//!   [`DeviceFilter`] for filtered device lists, and [`KeyOwner`].
//! - [`client`]: [`Client`] and [`ClientBuilder`]: the one call path every
//!   operation shares, the generic [`Client::call`] with [`CallOptions`],
//!   pagination, and each typed operation's own recovery (the idempotent
//!   creates, delete, power, move).
//! - [`error`]: [`Error`], what a call returns, and [`AttemptError`], the
//!   classified failure of one attempt.
//! - `exchange` (private): the policy's layer at `metal-api`'s hook point,
//!   which every request passes (rate-limit turn, attempt timeout,
//!   metrics, throttling pause), and the one place an attempt begins (its
//!   slot and its scope, through which what its requests saw comes back).
//! - [`classify`]: the one classification, [`Class`] (not sent,
//!   throttled, outcome unknown, permanent with its [`Permanent`] reason),
//!   found by [`classify::classify`]; the retry decision, the budget's cost
//!   and the client-wide pause are read off it.
//! - [`retry`]: the [`Backoff`] schedule ([`ExponentialBackoff`]), the
//!   client-wide [`RetryBudget`], and the decision after a failed attempt.
//! - `limit` (private): the limits behind one interface (slot, turn,
//!   pause): the FIFO concurrency limit and the client-wide rate limiter.
//! - `metrics` (private): the Prometheus collectors (names listed
//!   below, `equinix_api_*`).
//! - `shared` (feature `redis`): `SharedLimits`, the rate limit, the
//!   concurrency limit and throttling pauses shared by several processes
//!   through Redis (one node, a Redis Cluster or a Sentinel's master, over
//!   TLS or not), with a local fallback while Redis is away.
//! - [`wait`]: [`wait_for_device`], polling a device until it reaches a
//!   state, under the client's limits, with backoff between reads, or
//!   from a watch.
//! - [`watch`]: [`DeviceWatch`], one self-refreshing cache of a project's
//!   devices that many waiters read, instead of each polling its device.
//!
//! # The path of one call
//!
//! 1. A [`Metal`] method, or [`Client::call`], makes attempts with the
//!    generated client. The call is named by its operationId (the
//!    `endpoint` metric label), and is idempotent by its HTTP method
//!    unless the client makes it so (the witness of `create_device`) or
//!    the caller says otherwise ([`CallOptions::idempotent`]).
//! 2. Each attempt waits for a concurrency slot (FIFO), held for the
//!    attempt only, and takes a scope at the hook point: the generated
//!    client it uses, whose requests record what they saw for the
//!    attempt. A request of the raw client is an attempt of its own.
//! 3. Each HTTP request of the attempt passes `metal-api`'s hook point,
//!    where it waits for its turn from the client-wide rate limiter, is
//!    sent under the attempt timeout (the exchange only, never the waits),
//!    and is observed; a throttling reply pauses the whole client. The raw
//!    client of [`Client::api`] passes the same point.
//! 4. Each reply, or failure to get one, is classified once
//!    ([`classify::classify`]); the attempt reads its requests' record
//!    back as a value when it ends, and the decision (retry, or stop) is
//!    read off the failure's [`Class`].
//! 5. A retry is paid from the client-wide retry budget (a throttling
//!    reply's retry is free; an empty budget ends the call at once with
//!    [`Error::RetryBudgetExhausted`]), releases the slot, sleeps (the
//!    backoff's delay, or the server's `Retry-After` when it is longer),
//!    and goes back to step 2, within the optional whole-call deadline. A
//!    call gives up ([`Error::GaveUp`]) after more than
//!    [`retry::MAX_THROTTLED_RETRIES`] throttled retries in a row.
//!
//! What this path costs per request, against the generated client alone,
//! is counted in instructions by `cargo bench -p metal-policy --bench
//! instructions` (valgrind's callgrind), in process and over HTTP.
//!
//! Each call may override the client's deadline, attempt timeout and
//! idempotency, and leave the retry budget out
//! ([`CallOptions::retry_budget`]), with [`CallOptions`]
//! ([`Client::call_with`]), without a second client.
//!
//! # Guarantees, and where they deliberately differ from the reference
//!
//! The reference design is the Go package `wrapngo` (see
//! `shared/reference/`). For each semantic, the one deliberate difference:
//!
//! 1. **Concurrency.** At most `parallelism` attempts are in flight; waiters
//!    are served first come, first served. A call sleeping in backoff holds
//!    no slot, and dropping a call's future at any point releases its slot
//!    and leaves `equinix_api_in_flight`/`equinix_api_waiting` right (RAII
//!    guards). *Reference:* the order of serving pending calls was
//!    documented as undefined (a channel used as a semaphore).
//! 2. **Rate limiting.** Every HTTP request (each page, each lookup inside a
//!    create, each retry) takes its turn, in arrival order, from one limiter
//!    shared by the whole client (`api_rate` spacing, optional `burst`). A
//!    429 (or 503 with `Retry-After`) pauses the *whole* client until the
//!    server's `Retry-After`/`X-RateLimit-Reset` (capped at 5 min; 5 s when
//!    the reply names no time). *Reference:* it created a rate ticker and
//!    never read it, so there was no client-side limit at all. With feature
//!    `redis`, `ClientBuilder::shared_limits` keeps the rate schedule, the
//!    concurrency limit and the pause in Redis, shared by processes (module
//!    `shared`, with its failure mode). With [`ClientBuilder::learn_rate`]
//!    the spacing follows the budget each reply announces
//!    (`X-RateLimit-Remaining` spread evenly until `X-RateLimit-Reset`),
//!    never faster than a configured `api_rate`; the 429 pause stays as the
//!    safety net.
//! 3. **Classification.** Never sent → retry anything; throttled → retry
//!    anything; outcome unknown (5xx, timeout, reset) → retry only
//!    idempotent operations, else [`Error::OutcomeUnknown`]; 3xx (never
//!    followed), 4xx, undecodable success, a reply over the size bound,
//!    client-side validation → returned at once
//!    ([`Error::Rejected`] with the server's messages, [`Error::Decode`],
//!    [`Error::InvalidRequest`]); the backoff or the deadline ending →
//!    [`Error::GaveUp`] / [`Error::DeadlineExceeded`] with the last attempt's
//!    error and the attempt count. One 503 is permanent: "There are no
//!    available hardware reservations for selected plan and facility"
//!    (the answer to a `next-available` create, without `Retry-After`) is
//!    [`Error::NoReservationAvailable`] at once. The server says it did not
//!    act; capacity returns when a device is deleted and its reservation
//!    released (minutes) or more is bought, not on a backoff's schedule;
//!    retrying would hold the call for up to 15 minutes and drain the
//!    client-wide retry budget other calls need; and only the controller
//!    can choose to requeue or to ask for another plan or metro. The same
//!    503 with `Retry-After` is throttling and is retried. *Reference:* it retried everything but
//!    401/403/404/422, including 400s, client-side validation errors and a
//!    reboot whose reply was lost.
//! 4. **Idempotent `create_device`.** The request must name a hardware
//!    reservation ([`Error::NoReservation`] before any request). One witness
//!    tag `wrapngo-idempotency-<uuid>` per call is added to a *clone* of the
//!    request. A first attempt creates at once, one request: no earlier
//!    attempt of ours can be on the reservation, and a reservation someone
//!    else holds refuses the create. The reservation is read (with
//!    `include=device`) only where that read can tell something:
//!    - before an attempt that follows one whose outcome was unknown (a lost
//!      reply, a timeout, a 5xx after sending): our witness → return that
//!      device, not a second; another device → [`Error::RaceLost`]; none →
//!      create;
//!    - after a create refused with 409/422: our witness (an earlier
//!      attempt of ours got there, its create still in flight when we
//!      looked) → that device; another device → [`Error::RaceLost`]; none →
//!      the refusal ([`Error::Rejected`]). "None" is also what a caller
//!      sees when the holder went between the refusal and the read (a
//!      duplicate deleted, a reservation released): the policy knows no
//!      hostnames and cannot tell that from a bad request, so the caller's
//!      own state decides (`metal-provision`'s run lists the hostname and
//!      tries a reservation that reads free again, rather than give up).
//!
//!    So a call costs one request when nothing goes wrong, two when the
//!    reservation was taken, and a read more per attempt after an unknown
//!    outcome.
//!
//!    Across processes the reservation decides: calls naming one
//!    reservation, from any number of processes, create one device between
//!    them, and each other call ends with [`Error::RaceLost`] naming it,
//!    at the cost of its refused create and one read. The policy knows no
//!    hostnames: calls on different reservations for what a controller
//!    means as one machine create a device each, and which to keep is the
//!    controller's rule (`metal-provision`'s controller keeps the earliest
//!    created that becomes active, and deletes the others only behind it).
//!    With `hardware_reservation_id: "next-available"` the API chooses the
//!    reservation, so the witness cannot be read through it: after an
//!    attempt whose outcome is unknown, the next attempt first lists the
//!    project's devices with `?tag=<witness>` and returns the one it finds.
//!    The cost is one filtered list per recovery (one request: at most one
//!    device carries the witness), none on a first attempt. A create
//!    answered "no hardware reservation available" (`503` without
//!    `Retry-After`) is [`Error::NoReservationAvailable`] at once, not
//!    retried (see 3). Limit, the one case left: a create still
//!    in flight at the server when the list runs (the attempt timed out
//!    before the server acted) is not in the list; the retry then creates a
//!    second device, which the reservation-ID path cannot do (the server
//!    refuses a taken reservation). Both carry the witness, the caller's
//!    tags and hostname, so a controller's rule by hostname finds the
//!    second as a duplicate. *Reference:* it appended the tag to
//!    the caller's request and read the reservation without including the
//!    device, so the device's tags were an href stub and the witness check
//!    could not work.
//! 5. **Idempotent SSH key create.** Each attempt lists the owner's keys
//!    first: same label and key → that key; same label, other key →
//!    [`Error::SshKeyLabelConflict`], at once. A create refused with 409/422
//!    (another process created the key or took the label between our list
//!    and our create) lists them again and decides the same way. A label
//!    is required.
//!    *Reference:* the conflict was a plain error, retried for 15 minutes.
//! 6. **Delete, power, move after an unknown outcome.** A 404 from
//!    `delete_device` (or `delete_ssh_key`) on a retry after an unknown
//!    outcome means it is gone: success; a 404 on the first attempt is
//!    [`Error::Rejected`]. `power_on`/`power_off`/`move_reservation` read the
//!    device's state / the reservation's project before trying again, and
//!    succeed if it already is so; a power action refused with 409/422
//!    ("Device must be powered on") succeeds when the device already is in
//!    the asked state. *Reference:* its public delete returned
//!    the 404 of a retry as an error even when its own earlier attempt had
//!    deleted the device (only a test helper swallowed 404s, every one of
//!    them), and power and move were resent blindly.
//! 7. **Pagination.** Lists follow `meta` (`last_page`, else `next`) to the
//!    end with a configurable `per_page` (default 100); a failed page retries
//!    that page only; entries repeated across pages appear once (by id). A
//!    list is bounded by its entries ([`ClientBuilder::max_list_entries`],
//!    else [`Error::ListTooLong`]), and a page that adds nothing new while
//!    more are announced ends it with [`Error::PageRepeats`].
//!    [`Metal::device_pages`] streams page by page. *Reference:* packngo paged
//!    inside one wrapped call, so a failed page restarted the whole list, and
//!    entries shifting between pages could repeat (it only sorted by
//!    hostname to make that less likely).
//! 8. **Metrics and tracing.** With a registry:
//!    `equinix_api_request_duration_seconds` (and, deprecated, the same
//!    histogram as `equinix_api_latency`)
//!    `{endpoint,status_code}` and `equinix_api_requests_total`
//!    `{endpoint,status_code}` per HTTP request, `equinix_api_in_flight`,
//!    `equinix_api_waiting`, `equinix_api_attempts_total{endpoint,outcome}`
//!    per attempt,
//!    `equinix_api_retries_total{endpoint}`,
//!    `equinix_api_rate_limit_wait_seconds`,
//!    `equinix_api_throttled_total{endpoint}`,
//!    `equinix_api_retry_budget_tokens`,
//!    `equinix_api_retry_budget_refused_total{endpoint}`; a [`DeviceWatch`]
//!    registers its own (`equinix_api_watch_*`, see [`watch`]). `endpoint` is
//!    always the operationId. Spans `metal_call{operation,attempts}`,
//!    `metal_attempt{operation,attempt}` and `metal_request{operation}`
//!    carry OpenTelemetry's HTTP client fields (`otel.kind = "client"`,
//!    `http.request.method`, `http.response.status_code` when a reply
//!    came, `http.request.resend_count`, `error.type`) and the rate-limit
//!    wait; the token never appears, and server messages that reach an
//!    error or a log have it replaced by `<redacted>`. *Reference:* several
//!    endpoints were labelled "Unknown", and retries were invisible.
//! 9. **Retry budget.** One token bucket per client
//!    ([`RetryBudget`], default smithy-rs's retry quota: 500 tokens, a
//!    retry costs 5, one after an unknown outcome 10, a success gives 1
//!    back, a retry that succeeds gives its cost back). When it cannot pay
//!    for a retry the call ends at once with
//!    [`Error::RetryBudgetExhausted`] and the last attempt's error. A first
//!    attempt is never refused, and a throttling reply's retry costs
//!    nothing. Per process, also with shared limits. *Reference:* every
//!    call retried for up to 15 minutes during an outage, spending
//!    rate-limit turns that healthy calls needed.
//!
//! Time is tokio's clock ([`tokio::time::Instant`], `sleep`), so all of the
//! above is tested deterministically on a paused clock.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod children;
pub mod classify;
pub mod client;
pub mod error;
mod exchange;
mod limit;
pub mod metal;
mod metrics;
mod redact;
pub mod retry;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod shared;
pub mod wait;
pub mod watch;

pub use classify::{Class, Permanent};
pub use client::{BuildError, CallOptions, Client, ClientBuilder};
pub use error::{AttemptError, BoxError, Error};
pub use metal::{DeviceFilter, DeviceQuery, Fields, KeyOwner, Metal};
#[cfg(feature = "backoff")]
#[cfg_attr(docsrs, doc(cfg(feature = "backoff")))]
pub use retry::backoff::BackoffCrate;
pub use retry::backoff::{Backoff, BackoffFactory, ExponentialBackoff};
pub use retry::budget::RetryBudget;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use shared::SharedLimits;
pub use wait::{wait_for_device, WaitError, Waiter};
pub use watch::{DeviceWatch, Snapshot, WatchConfig, WatchError};
