//! Limits shared by every process that names the same Redis and key
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
//! # Where the limits live
//!
//! - **One node** (or a proxy in front of several):
//!   [`SharedLimits::redis`]`("redis://host:6379/0", prefix)`.
//! - **Redis Cluster**: [`SharedLimits::redis_cluster`]`([url, url, url],
//!   prefix)`, a few of its nodes as seeds. Every key is
//!   `{prefix}:name`: the braces make the prefix the keys' hash tag, so
//!   they share one slot and each multi-key script runs on that slot's
//!   master (the limits live on one shard; the others hold none of them).
//!   The client follows `MOVED` and `ASK` redirections and re-reads the
//!   slot map after a failover. A prefix must therefore be non-empty and
//!   hold no braces.
//! - **Sentinel**: [`SharedLimits::redis_sentinel`]`("redis://:pw@mymaster/0",
//!   [sentinel urls], prefix)`: the master's URL names the master (its
//!   host part) and carries the master's credentials, TLS mode and
//!   database; each sentinel URL carries the sentinels' own (the first
//!   one's credentials serve them all). Each new connection asks the
//!   sentinels for the master, and checks that it is one (`ROLE`). The
//!   client also listens to a sentinel's `+switch-master` announcements
//!   and connects to the new master as soon as one is announced (a
//!   failover asked for leaves the old master answering, as a master,
//!   until the sentinel demotes it); a master that stops answering
//!   degrades the client until its next probe finds the new one.
//!
//! # TLS
//!
//! `rediss://` URLs connect through rustls, on the ring crypto provider
//! (the HTTP client's default): if no process-wide provider is installed
//! when the client is built, ring is installed; one the application
//! installed first is kept. The server's certificate is checked against
//! the system's roots, or, with [`SharedLimits::ca_file`], against the
//! CA certificates of that PEM file only (a private CA). A server that
//! asks for client certificates gets [`SharedLimits::client_cert`]'s. The
//! files are read when the client is built; a missing or empty one fails
//! the build. There is no way to skip verification.
//!
//! A password is never sent in the clear to another host: a `redis://`
//! URL with a password to a host other than loopback (and any plaintext
//! password through a Sentinel, whose masters are only known at connect
//! time) fails the build unless [`SharedLimits::allow_plaintext_password`]
//! says otherwise, as the API URL's https rule does. No URL, password or
//! certificate is ever logged or printed by `Debug`.
//!
//! # ACL users
//!
//! `redis[s]://user:password@host` logs in as an ACL user. The smallest
//! ACL the client needs is [`SharedLimits::acl`]'s, for prefix `metal`:
//!
//! ```text
//! ACL SETUSER limits on >password resetkeys ~{metal}:* resetchannels &{metal}:rebuilt -@all
//!   +evalsha +script|load +time +get +set +del +incr +zadd +zrem +zscore +zrank +zcard
//!   +zpopmin +zrangebyscore +zremrangebyscore +publish +subscribe +info +ping
//!   +cluster|slots +asking +role
//! ```
//!
//! Its keys and channel only; the scripts by SHA (`EVALSHA`, loaded with
//! `SCRIPT LOAD` after a `NOSCRIPT`; never `EVAL`) and the commands they
//! call (Redis 7 checks those too); `INFO` for the eviction policy;
//! `SUBSCRIBE` for the learned pace's announcements; `PING`, `CLUSTER
//! SLOTS` and `ASKING` for the cluster client; `ROLE` for Sentinel. On
//! Redis 7.2 and later, also `+client|setinfo`: the redis crate names
//! itself on connect, and ignores a refusal, but Redis records it in `ACL
//! LOG` (older servers do not know the command, so the rules leave it
//! out). The tests run every operation as exactly this user, over
//! `redis://` and `rediss://`, on one node and on a cluster, and check that
//! Redis denied nothing (`ACL LOG`).
//!
//! # Eviction
//!
//! Redis may drop keys when it reaches `maxmemory`, which would silently
//! reset the schedule (each reservation would find none and go at once).
//! So:
//!
//! - The limits' keys carry no TTL (expired holders, waiters and turns are
//!   pruned by the scripts instead), so a `volatile-*` policy never picks
//!   them, and `noeviction` never drops anything.
//! - Every new connection reads `maxmemory-policy` (`INFO memory`, allowed
//!   by managed services that refuse `CONFIG GET`). An `allkeys-*`
//!   policy can evict them: the client does not share through that
//!   server, and stays degraded with one warning that names the policy.
//!   If the policy cannot be read (an ACL without `INFO`), one warning
//!   says so and sharing goes on.
//! - A schedule that vanishes under running clients (evicted after a
//!   policy change, deleted, lost in a restart or a failover to a replica
//!   that never had it) is seen by the reservations' replies: the
//!   schedule's `tat` is kept with a marker, `{prefix}:born` (the Redis
//!   time it was made), and one without the other, or a different
//!   `born` than the one this process saw last, means it vanished. Each
//!   time is counted in `equinix_api_shared_limits_vanished_total`; the
//!   first is logged (`warn`), later ones at `debug`. The schedule is
//!   rebuilt from the latest turn this process had seen (so its own turns
//!   are not handed out twice; another process's turns may be, once), and
//!   the next call connects again, reading the policy afresh.
//!
//! # How the limits work
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
//!   failure; in a cluster, to any node, since a cluster forwards every
//!   publication to all its nodes), and its waiting turns of an older
//!   epoch reserve again, in the learning process at once and in the
//!   others as soon as the announcement arrives. A turn that misses the
//!   announcement (the subscription was down) keeps its instant, which the
//!   new epoch may hand out again: at most one request per such turn above
//!   the pace, once. `Remaining: 0` moves the schedule to the reset. While
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
//! # Failure mode
//!
//! Every Redis call has a short timeout ([`SharedLimits::timeout`],
//! default 250 ms). When one fails (Redis down, a wrong password, a
//! cluster shard between master and replica, an `allkeys-*` policy) the
//! client becomes *degraded*: it logs one `warn` (never the password),
//! sets `equinix_api_shared_limits_degraded` to 1, and takes turns and
//! slots from local limits instead (the rate divided by
//! [`SharedLimits::processes`], the parallelism divided likewise, at least
//! 1). Every [`SharedLimits::retry_interval`] one turn tries Redis again
//! (connecting afresh); when it answers the client logs one `info`, sets
//! the gauge to 0 and uses the shared limits again. A turn or slot is
//! taken from Redis or locally, never both; a Redis call that timed out
//! may still have reserved a turn in Redis that no one uses (capacity
//! lost, never a request counted twice). A Redis that restarts empty
//! forgets the schedule (seen, as above) and the leases; held leases are
//! re-registered at their next renewal.
//!
//! In a cluster failover the shard holding the limits is unreachable until
//! its replica takes over (about the cluster's `cluster-node-timeout`,
//! plus the election): the processes run degraded meanwhile, then share
//! again through the new master, which holds the schedule as far as
//! replication had carried it.

mod backend;
mod config;
mod connect;
mod error;
mod eviction;
mod keys;
mod limits;
mod slots;
mod subscribe;
mod turns;

pub use config::{
    SharedLimits, DEFAULT_LEASE, DEFAULT_RETRY_INTERVAL, DEFAULT_TIMEOUT, WAITER_TTL,
};
pub use error::SharedLimitsError;
pub(crate) use limits::SharedBackend;

#[cfg(test)]
mod tests;
