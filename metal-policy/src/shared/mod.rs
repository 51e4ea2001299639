//! Limits shared by every process that names the same Redis URL and key
//! prefix (feature `redis`): one rate schedule, one concurrency limit, one
//! throttling pause.
//!
//! Choose it with [`crate::ClientBuilder::shared_limits`]:
//!
//! ```no_run
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use metal_policy::{Client, SharedLimits};
//! let config = metal_api::Config::from_env().build()?;
//! let client = Client::builder()
//!     .config(config)
//!     .parallelism(4)                       // shared: 4 in flight in total
//!     .api_rate(Duration::from_millis(50))  // shared: 20 requests/s in total
//!     .shared_limits(SharedLimits::redis("redis://127.0.0.1:6379/", "metal").processes(3))
//!     .build()?;
//! # drop(client); Ok(()) }
//! ```
//!
//! Every limit is kept in Redis and changed only by Lua scripts
//! ([`redis::Script`]), so each decision is atomic; times are the Redis
//! server's clock (`TIME`), so the processes' clocks need not agree.
//!
//! - **Rate.** GCRA: each request reserves the next instant of one shared
//!   schedule (`{prefix}:tat`), in the order the reservations reach Redis,
//!   and sleeps until then. A wait dropped before its turn (a cancelled or
//!   timed-out call) gives the turn back, as the local limiter does: the
//!   schedule moves back a step when it was the last turn reserved, else
//!   the instant is kept (`{prefix}:freed`) for the next reservation, so
//!   no instant goes to two requests. The give-back runs in the
//!   background after the drop; one that does not reach Redis loses the
//!   turn (capacity lost, never a request above the rate).
//! - **Concurrency.** A semaphore of leases: holders in a sorted set
//!   (`{prefix}:holders`) scored by lease expiry, renewed every third of
//!   the lease while held and removed on release; waiters queue in arrival
//!   order (`{prefix}:queue`, tickets from `{prefix}:seq`) and poll. A
//!   crashed process's slots come back when their leases expire, and its
//!   queue places after [`WAITER_TTL`].
//! - **Learned pace** (with `ClientBuilder::learn_rate`). The spacing a
//!   process learns from a reply's `X-RateLimit-Remaining`/`-Reset` is
//!   kept in `{prefix}:learned` until that reset, and every reservation of
//!   every learning process steps the one schedule by it (never below the
//!   process's own `api_rate`, when it set one). So the processes spend the
//!   server's one budget together, each taking turns from it, rather than
//!   each spending all of it; a process that has seen no reply yet paces by
//!   what another learned. A learned spacing much faster than the one in
//!   force pulls the schedule back and starts a new epoch of it
//!   (`{prefix}:epoch`, the Redis time of the pull), published on the
//!   channel `{prefix}:rebuilt`; every learning process listens there (one
//!   subscription per client, reconnected every retry interval after a
//!   failure), and its waiting turns of an older epoch reserve again, in
//!   the learning process at once and in the others as soon as the
//!   announcement arrives. A turn that misses the announcement (the
//!   subscription was down) keeps its instant, which the new epoch may
//!   hand out again: at most one request per such turn above the pace,
//!   once. `Remaining: 0` moves the schedule to the reset. While
//!   degraded, each process learns locally and spends `1/processes` of the
//!   budget.
//! - **Throttling.** A 429 (or 503 with `Retry-After`) seen by any process
//!   sets `{prefix}:pause` to the pause's end; every process's next turn
//!   waits for it.
//!
//! Not shared: the retry budget ([`crate::RetryBudget`]). Each process
//! keeps its own bucket, so during an outage each process retries at most
//! one bucket's worth.
//!
//! **Failure mode.** Every Redis call has a short timeout
//! ([`SharedLimits::timeout`], default 250 ms). When one fails the client
//! becomes *degraded*: it logs one `warn`, sets
//! `equinix_api_shared_limits_degraded` to 1, and takes turns and slots from
//! local limits instead (the rate divided by [`SharedLimits::processes`],
//! the parallelism divided likewise, at least 1). Every
//! [`SharedLimits::retry_interval`] one turn tries Redis again; when it
//! answers the client logs one `info`, sets the gauge to 0 and uses the
//! shared limits again. A turn or slot is taken from Redis or locally,
//! never both; a Redis call that timed out may still have reserved a turn
//! in Redis that no one uses (capacity lost, never a request counted
//! twice). A Redis that restarts empty forgets the schedule and the
//! leases; held leases are re-registered at their next renewal.

mod backend;
mod config;
mod limits;

pub use config::{
    SharedLimits, DEFAULT_LEASE, DEFAULT_RETRY_INTERVAL, DEFAULT_TIMEOUT, WAITER_TTL,
};
pub(crate) use limits::SharedBackend;
