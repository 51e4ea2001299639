//! A stateful in-memory Metal API with fault injection, behind one axum
//! router that serves every operation of `openapi/metal.json`: called
//! in-process without sockets (the fake is a [`metal_api::Exchange`];
//! [`Fake::api_client`] is the generated client over it), or served over
//! HTTP ([`bind`], [`serve`]).
//!
//! # Module guide
//!
//! The public surface is what a test author needs: [`Fake`] and
//! [`FakeBuilder`], faults ([`Fault`], [`FaultKind`], [`RandomFaults`],
//! [`FailProvisioning`], [`RandomFailures`]), the world document
//! ([`document`]), handlers for operations the fake does not model
//! ([`Call`], [`Reply`], [`ApiError`]), the server ([`bind`], [`serve`],
//! [`ServerConfig`], [`ServerHandle`]) and what a test reads back
//! ([`Snapshot`], [`CallRecord`], [`WorldCounts`]). Everything else is
//! private. The modules stand in layers, listed here from the bottom up:
//! a module uses those of its own layer and below, never one above
//! (`cargo xtask layers --check` fails on an arrow running back up
//! without its reason in a `// up:` comment, and on any two files that
//! use each other; there is neither in this crate).
//!
//! 1. The clock.
//!    - `clock`: the fake's one clock; every schedule, settle, timestamp
//!      and call time reads it.
//! 2. What one exchange is made of.
//!    - `call`: what a handler gets ([`Call`]: the request, its body read
//!      as the API reads it, `null` as absent, in `call/body.rs`) and
//!      gives ([`Reply`], [`ApiError`]); which query parameters an
//!      operation reads, and those it declares unread with why.
//!    - `faults`: what can go wrong with one exchange, and when each kind
//!      strikes (before acting, after, around), said once.
//!    - [`fidelity`]: how the fake follows the real API: the evidence for
//!      each behaviour, and what is configurable (doc only).
//! 3. The world.
//!    - `model`: the world, one folder a resource, grouped in families
//!      (`model/compute/device/`, `model/compute/hardware_reservation/`,
//!      `model/compute/capacity/`, `model/compute/spot_market/`,
//!      `model/compute/batch/`, `model/compute/license/`,
//!      `model/compute/self_service_reservation/`,
//!      `model/account/project/`, `model/account/api_key/`,
//!      `model/network/ip_reservation/`, `model/catalog/`, ...): each owns
//!      its record (also its entry in the world document), its rules, its
//!      view (rendered straight to bytes, with `include`/`exclude`), its
//!      table of operations and its owner (for access). The operations
//!      the fake models are the union of the folders' tables. What every
//!      folder shares (the journal's tables and `Meta`, the relations'
//!      `Kind`, `render`, `bounds`) names no folder's rules, view or
//!      operations. `model/world.rs`, the hub, holds every folder's
//!      table, and the folders' rules are methods of the `World`: the
//!      loops through it are the one knot of the crate's graph, and no
//!      two files in it use each other (see "Adding a resource" for the
//!      layers of a folder).
//!    - [`document`]: the world as a JSON document, its schema, and why a
//!      document is refused. It holds the model's records, and the model
//!      loads and saves it: one layer.
//! 4. What all clones of a fake share.
//!    - `store`: the state all clones share, behind one lock; its guard
//!      writes what the world changed to the state file when it lets go.
//!    - [`state`]: the world on disk through a crash: a snapshot and an
//!      append-only log after it, replayed at start.
//!    - `log`: the call log and counters (its snapshot carries the
//!      world's counts).
//!    - `handlers`: which handler serves each operation (the model's, a
//!      test's own, or none: `501`).
//! 5. The request's path.
//!    - `pipeline`: the one path every API request takes, in-process or
//!      over HTTP: auth, rate limit, access, body, prepare, fault, act,
//!      record; each step takes and returns the request's context. The
//!      call log is written by its record step alone. Below its steps,
//!      what they are made of: [`ServerConfig`], the replies as the API
//!      sends them, the per-connection kill signal.
//! 6. The ways in.
//!    - `router`: the axum router built from
//!      [`metal_api::operation::ALL`]; each route hands its operation to
//!      the pipeline.
//!    - `control`: the control API (`/_fake/...`), for tests in any
//!      language, and the console a person opens in a browser
//!      (`/_fake/console`: static files embedded in the crate, reading the
//!      control API's JSON).
//! 7. The whole fake.
//!    - `fake`: [`Fake`] (what a test arranges), its builder, what a test
//!      inspects (grouped in `fake/inspect.rs`), and [`Fake::client`],
//!      the policy client over the fake in-process.
//!    - `in_process`: the [`metal_api::Exchange`] of [`Fake`]: a request
//!      of the operation it is handed goes straight into the pipeline
//!      with it.
//!    - `server`: the router on a TCP listener ([`bind`], [`serve`]).
//!    - `coverage`: what the fake serves of each operation's query
//!      parameters and request variants, and the tests that write
//!      `COVERAGE.md` from the code ([`fidelity::coverage`]) and fail on
//!      a parameter neither read nor declared, or a reply saying the fake
//!      does not model something that the list of variants does not name.
//!
//! # Adding a resource
//!
//! A resource of the Metal API (IP reservations, say) is a folder under
//! `src/model/` and three small edits; nothing else in the crate names
//! resources. Its files stand in layers: each uses only those listed
//! before it (and its folder's `mod.rs`, its collection and table), never
//! one after: a record knows nothing of its rules, its rules nothing of
//! its view or operations. Another folder's files it may use, as long as
//! no two files use each other (`cargo xtask layers --check`) and a
//! record or rules file uses no view or operations, its own or another
//! folder's (what several folders read of a thing, such as a device's
//! own addresses, has a file of its own below its view).
//!
//! 1. `model/<family>/<resource>/record.rs`: the record, deriving `Serialize`,
//!    `Deserialize` and `JsonSchema` (it is also the resource's entry in
//!    the world document, so there is no second type to convert to),
//!    what the world keeps beside it (`Kept { rec, meta: Meta, .. }`, with
//!    `impl Record for Kept`, through `record!`: its `Kind` in
//!    `model/relations/kind.rs`, its `meta`, its `scope`: the project,
//!    organisation and device it concerns, for who sees its events, and
//!    optionally its `label`, how its events' text names it), its plain
//!    accessors, and the bounds of its own that its rules read. It uses
//!    nothing above it: not its rules, operations or view, not the
//!    `World`, not the world document (only the journal's `Meta`,
//!    `Scope` and `record!`, the `Kind`, and other records and values).
//! 2. `model/<family>/<resource>/rules.rs` (when it changes state on its
//!    own rules): the checks of what a request (or a document) says, and
//!    the changes, as `impl World` methods writing through the table.
//! 3. `model/<family>/<resource>/view.rs`: how the API shows it: a struct of
//!    borrowed fields deriving `Serialize`, written straight to bytes;
//!    hrefs, stubs and `include`/`exclude` from `model/render.rs`. A
//!    thing another view includes is named by a stub there, made whole by
//!    the include walk (`model/expand.rs`: a `GET` of its href) or by a
//!    field the including view renders; two views never include each
//!    other.
//! 4. `model/<family>/<resource>/operations.rs`: one `Resource` value: the
//!    collection of its paths (`ips`), its table of operations (each the
//!    spec's operation and a function that reads the `Call` and returns
//!    what it does to the world), its `owner` (which project owns the
//!    thing an `{id}` names, for `403`), and its `load` (check what the
//!    document's entries name, with its rules, refuse with a
//!    [`document::WorldError`]; insert through the table as below) and
//!    `save` (oldest first by `meta.seq`), which it names.
//! 5. `model/<family>/<resource>/mod.rs`: the module list, the re-exports,
//!    its `COLLECTION` (the first segment of its paths and hrefs, which
//!    other folders' views name) and its table: `owned_table! { /// ...
//!    Things of Kept }`. The table's rows are private to the folder:
//!    everyone reads them (a `Table`, through `Deref`), only the folder
//!    writes them (`rows()`), and only the relations' cascade removes one
//!    (`remove_row`). Another folder that must change a thing calls a
//!    function of the thing's folder. Add `filter.rs` when its list takes
//!    filters. Every query parameter the spec gives an operation is read
//!    through [`Call::query`] (or `list`, `text`, `number`), or declared
//!    with the operation (`Modelled::unread`, with why it changes
//!    nothing); the coverage test fails otherwise.
//! 6. `model/<family>/mod.rs`: its `mod` line and one line in the
//!    family's `RESOURCES` (a new family is a folder and one line in
//!    `model/mod.rs`'s `FAMILIES`).
//! 7. `model/world.rs`: the table (`things: thing::Things`), one field.
//! 8. `document.rs`: the document's list, one field (and its bound in
//!    `check_bounds`).
//!
//! Every write goes through the table, with the world's journal, so that
//! the record's `Meta` (`seq`, `version`, `created`, `updated`) is kept
//! and the change is journaled once (and an event, if `model/event/kinds.rs`
//! names it), from inside the folder:
//!
//! ```text
//! w.things.rows().insert(&mut w.journal, id, now, |meta| Kept { rec, meta });
//! w.things.rows().update(&mut w.journal, id, "fields", now, |k| k.rec.name = name);
//! w.things.rows().try_update(&mut w.journal, id, "moved", now, |k| { check?; change; Ok(()) });
//! w.delete_record(Kind::Thing, id, now)  // or remove_record: relations first
//! ```
//!
//! `Table` has no `get_mut`: reads are `get`, `values`, `iter`, `len`.
//! A change that happens later on its own (a state due after a delay)
//! is a `journal::Due` pushed on `w.due` at its instant; `World::drain`
//! applies it once, when the fake's clock passes it, before any action or
//! read sees the world. The journal's `cause` (the operationId) is set
//! by the pipeline around every act.
//!
//! Then `cargo run -p metal-fake --features cli -- --world-schema >
//! metal-fake/world.schema.json`, a row per behaviour in [`fidelity`], and
//! its tests. The operations it models leave the `501` of unmodelled
//! operations; the router, the pipeline, the access step, the call log
//! and the control API need no change. That is 4 new files (6 with rules
//! and filters) and 3 edited ones.
//!
//! # In-process
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let fake = metal_fake::Fake::builder().reservations(2).build();
//! let device = fake
//!     .api_client()
//!     .find_device_by_id()
//!     .id(uuid::Uuid::new_v4())
//!     .send()
//!     .await;
//! assert_eq!(device.unwrap_err().status().map(|s| s.as_u16()), Some(404));
//! # }
//! ```
//!
//! # Over HTTP
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let fake = metal_fake::Fake::builder().build();
//! let config = metal_fake::ServerConfig::new("token").rate_limit(Some(50));
//! let server = metal_fake::bind(fake, "127.0.0.1:0", config).await.unwrap();
//! assert!(server.base_url().ends_with("/metal/v1"));
//! server.shutdown().await;
//! # }
//! ```
//!
//! The server bounds what a client can hold ([`ServerConfig`]): the token
//! is checked before the body is read, and requests without it spend none
//! of the rate limit; bodies over [`DEFAULT_BODY_LIMIT`] (2 MiB) get `413`,
//! bodies slower than [`DEFAULT_BODY_TIMEOUT`] (10 s) `408`; a connection
//! that sends no request head for [`DEFAULT_HEADER_TIMEOUT`] (10 s) is
//! closed, and so is one whose replies wait unread for
//! [`DEFAULT_WRITE_TIMEOUT`] (30 s); at most [`DEFAULT_MAX_CONNECTIONS`]
//! (1024) are served at once,
//! the others waiting unaccepted. Every refusal has the API's error body,
//! `{"errors": [...]}`, but a bad token's `401`, which has the real API's
//! `{"error": "..."}` (see Auth and ownership). A connection task that
//! panics is logged and counted ([`ServerHandle::connection_panics`]);
//! [`ServerHandle::try_shutdown`] returns the server task's own failure.
//!
//! The binary (feature `cli`: `cargo run -p metal-fake --features cli --
//! --help`) serves one fake and prints `metal-fake listening on
//! http://HOST:PORT/metal/v1` first.
//!
//! # The control API
//!
//! Beside `/metal/v1` the router serves a control API, so that a test in
//! any language (a Python or Go tool, a binary run in CI, an operator's
//! script) can arrange a scenario and read what happened, as moto's server
//! mode and LocalStack allow. It needs no API token;
//! [`ServerConfig::control_token`] (the binary's `--control-token`) guards
//! it with its own, sent as `X-Fake-Control-Token`. Without it, anyone who
//! reaches the server can read the world's tokens (`GET /_fake/world`
//! answers them) and replace the world: give a control token whenever the
//! port is reachable by others. Every call gets a JSON
//! reply; bad input gets `400` (the body or query does not decode) or `422`
//! (it decodes but is refused), with `{"errors": [...]}`; an unknown
//! `/_fake/` path `404`, a wrong method `405`.
//!
//! | endpoint | body | does | in Rust |
//! |---|---|---|---|
//! | `POST /_fake/reset` | none | back to the seeded world and faults, empty call log; replies a summary | [`Fake::reset`] |
//! | `GET /_fake/world` | | the world now, a [`document::WorldDoc`] | [`Fake::world`] |
//! | `POST /_fake/world` | a [`document::WorldDoc`] (at most 64 MiB; records within their bounds) | replaces the world (faults and calls stay); replies a summary | [`Fake::load_world`] |
//! | `POST /_fake/faults` | `{"faults": [...], "random": {...}}` (at most 1 MiB; at most 10000 scripted faults pending in all, `422` past them) | adds faults | [`Fake::inject`], [`Fake::set_random_faults`] |
//! | `DELETE /_fake/faults` | none | clears every fault | |
//! | `GET /_fake/calls?operation=&limit=` | | the last `limit` (default 1000) recorded calls: `seq`, `method`, `path`, `query` (`null`: none), `operation`, `status` (`null`: no reply), `error` (the message answered; `null` for a success), `fault`, `at` (RFC 3339); and `total`. Never a header or a body | [`Fake::calls`] |
//! | `GET`/`POST /_fake/clock` | `{"advance_seconds": N}` (0 to a week) | reads or advances the fake's clock | [`Fake::advance`] |
//! | `GET /_fake/state` | | counters ([`Snapshot`]) | [`Fake::snapshot`] |
//!
//! A scripted fault is `{"operation": "createDevice", "nth": 2, "times": 1,
//! "kind": "drop_after"}`: `operation` (absent: any), `target` (an ID the
//! call's path must name, such as one device's: [`Fault::target`]), `nth`
//! and `times` as in [`Fault`]; `kind` is a [`FaultKind::label`] (`not_sent`,
//! `fail_before`, `fail_after`, `throttle`, `latency`, `drop_after`, `hang`,
//! `bad_gateway`, `truncated`, `competitor`), with `status` for
//! `fail_before`/`fail_after`, `retry_after_seconds` for `throttle`,
//! `seconds` for `latency`. Random faults are `{"rate": 0.1, "seed": 7,
//! "kinds": [{"kind": "drop_after"}]}` ([`RandomFaults`]).
//!
//! The fake's clock is tokio's, run [`FakeBuilder::time_scale`] times faster
//! (`--time-scale`), plus every advance; at scale 1 without an advance it
//! is tokio's clock itself, so paused-clock tests stay deterministic. The
//! rate limit and injected latency stay on real time.
//!
//! The binary seeds its world from `--world FILE` (the schema is
//! `metal-fake/world.schema.json`, printed by `--world-schema`; an example
//! is `metal-fake/examples/world.json`), or from `--project` and
//! `--reservations`. With `--state-file FILE` it loads the world from the
//! file when it exists (its log replayed), writes every change to the
//! log beside it before the reply is sent (synced every `--sync-interval`
//! seconds, default 1; 0: before every reply), and writes a new snapshot
//! on SIGINT or SIGTERM ([`state`] says what a crash can lose).
//! `metal-fake/examples/control_api.py` drives all this with the Equinix
//! Python SDK.
//!
//! # Auth and ownership
//!
//! | behaviour | evidence | configurable |
//! |---|---|---|
//! | a bad or missing token: `401` `{"error":"Invalid authentication token"}` (one string, not `errors`) | ansible/ansible issue 38162 | the server's token ([`ServerConfig::new`]), the world's tokens |
//! | a token reading another organisation's project, device, reservation or SSH key: `403` `{"errors":["Access denied for the current authentication token"]}`; an ID that does not exist: `404` | terraform-provider-equinix issue 743 | organisations, projects and tokens in the world document |
//! | `GET /ssh-keys`: the user's keys and those of every project the token sees | Monogon's live test | |
//! | fingerprints: MD5 of the key's base64-decoded body, colon hex, as `ssh-keygen -l -E md5`; a body that is not base64 is `422` | OpenSSH | |
//!
//! The server's configured token sees every project (the simple case); the
//! world's tokens see the projects of their organisations and those named.
//! Each world token is a user (`tokens[].user`; one of its own when it
//! names none), who also sees the organisations it is a member of and the
//! projects of its memberships. API keys made through the API (or seeded,
//! `api_keys[]`) authenticate too: a user key as its user, a project key
//! as its project alone, a read-only key for `GET` only (`403` for any
//! other method); a deleted key's token is `401` (see
//! [`fidelity`], "Accounts, keys and billing").
//! The ownership check reads the path's declared target, and two targets a
//! body names: `createProject`'s `organization_id` (`403` for another
//! organisation's, unless it holds no project yet: a token's access is
//! its projects) and `moveHardwareReservation`'s `project_id` (`403` for
//! another organisation's project). Other bodies naming another
//! organisation's resource (a reservation in a create) are not checked.
//! The fake checks that a key's body is
//! base64, not that the decoded blob is a well-formed key as `ssh-keygen`
//! does.
//!
//! # Operations the model does not serve
//!
//! Every operation of the spec is routed. One the model does not serve
//! answers `501` with `{"errors":["metal-fake does not model
//! <operationId>"]}`; a test serves it with [`FakeBuilder::handler`]. The
//! success status of every reply comes from the spec
//! ([`metal_api::Operation::success`]).
//!
//! # Faults
//!
//! Every exchange, in-process or over HTTP, goes through one place that
//! picks its fault ([`Fault`] scripted per operation and per call, or
//! [`RandomFaults`] from a seed), acts on the model or not, and records the
//! call; the router then puts the outcome on the wire. In-process, a
//! dropped connection fails the request with
//! [`metal_api::ExchangeError::NoReply`], and [`FaultKind::NotSent`] with
//! [`metal_api::ExchangeError::NotSent`]; over HTTP a live listener cannot
//! refuse one request, so the server renders `NotSent` as a connection
//! dropped before acting.
//!
//! # Conformance suite
//!
//! `tests/conformance.rs` runs the same scenarios against the in-process
//! fake, the policy client over HTTP against the fake server, and the real
//! API: an ignored test, run with `--ignored` and `METAL_AUTH_TOKEN`,
//! `METAL_PROJECT_ID` and `METAL_RESERVATION` set (a provisionable
//! reservation the suite may provision, reboot, power-cycle and delete;
//! optional `METAL_API_URL`, `METAL_OS`). `tests/lifecycle.rs` runs the
//! lifecycle scenarios of [`fidelity`] in-process and over HTTP.

mod call;
mod clock;
mod control;
mod coverage;
pub mod document;
mod fake;
mod faults;
pub mod fidelity;
mod handlers;
mod in_process;
mod log;
mod model;
mod pipeline;
mod router;
mod server;
pub mod state;
mod store;

pub use call::{ApiError, Call, Reply};
pub use clock::ClockError;
pub use fake::{
    BuildError, Fake, FakeBuilder, DEFAULT_TOKEN, IN_PROCESS_ATTEMPT_TIMEOUT, IN_PROCESS_BASE_URL,
};
pub use faults::{
    FailProvisioning, Fault, FaultKind, RandomFailures, RandomFaults, TooManyFaults,
    MAX_PENDING_FAULTS,
};
pub use log::{CallRecord, Snapshot, LOG_CAPACITY, MAX_LOGGED_TEXT};
pub use model::{Timings, WorldCounts};
pub use pipeline::{
    RecordedReply, ServerConfig, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_WRITE_TIMEOUT,
};
pub use server::{bind, serve, ServerHandle};

/// The control API's JSON Schema (draft 7), as shipped in
/// `metal-fake/control.schema.json` and printed by `metal-fake
/// --control-schema` (pretty-printed, with a final newline): every
/// request, query and reply of `/_fake/...` under `definitions`, and under
/// `endpoints` which endpoint takes and answers which. The world document
/// it refers to is [`document::schema`]'s. The Python and Go harnesses
/// check the fields they send and read against it.
///
/// ```
/// let schema = metal_fake::control_schema();
/// assert!(schema.contains("\"POST /_fake/faults\""));
/// ```
pub fn control_schema() -> String {
    control::schema()
}
