//! One walk: the steps sent to a fresh in-process fake, each reply checked
//! against the spec and fed to the [`Checker`]; audits that read back what
//! the walk made; and the world saved and loaded at the end.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use axum::body::Body;
use metal_api::operation::{Method, Operation};
use metal_api::Exchange;
use metal_fake::{Fake, RecordedReply};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tower::ServiceExt;
use uuid::Uuid;

use super::checker::{spoils, Call, Checker, CONSUMES};
use super::pool::{href_id, Pool};
use super::spec::Spec;
use super::Step;
use crate::common::schema;

/// The strict spec and its documented replies (`schema::documented`).
pub type Docs = (
    Value,
    std::collections::HashMap<(String, u16), Option<String>>,
);

/// The walk's API token.
pub const TOKEN: &str = "walk-token";

/// The fake a walk starts from: a project with six reservations, on-demand
/// machines, the walk's token.
pub fn fake() -> metal_fake::FakeBuilder {
    Fake::builder().token(TOKEN).reservations(6).on_demand(4)
}

/// The fault kinds the walk switches on (every kind but a hung reply, which
/// would pend the walk, and a competitor, which only `createDevice` knows).
const KINDS: &str = r#"[
    {"kind": "not_sent"}, {"kind": "fail_before", "status": 500},
    {"kind": "fail_before", "status": 503}, {"kind": "fail_after", "status": 502},
    {"kind": "throttle", "retry_after_seconds": 1}, {"kind": "latency", "seconds": 0.02},
    {"kind": "drop_after"}, {"kind": "bad_gateway"}, {"kind": "truncated"}
]"#;

/// Operations whose replies the walk does not check against the spec,
/// each with its reason: where the fake follows the real API (or a
/// fidelity row) and the spec says otherwise.
const UNCHECKED: &[(&str, &str)] = &[
    (
        "findIncidents",
        "the spec's 200 has no content; the fake sends `{\"incidents\": []}` (fidelity.rs, the support row)",
    ),
    (
        "findProjectInvitations",
        "the spec's InvitationList lists `Membership`s; the fake lists `Invitation`s, as `findInvitationById` reads them",
    ),
    (
        "findOrganizationInvitations",
        "as findProjectInvitations",
    ),
    (
        "findProjectCustomdata",
        "the spec's 200 has no content; the fake sends the custom data, an object",
    ),
    ("findOrganizationCustomdata", "as findProjectCustomdata"),
    ("findUserCustomdata", "as findProjectCustomdata"),
    (
        "captureScreenshot",
        "the spec's 200 is an image (`application/jpeg`) without a schema; the checker reads JSON bodies",
    ),
    ("findDeviceCustomdata", "as findProjectCustomdata"),
    ("findIPAssignmentCustomdata", "as findProjectCustomdata"),
    ("findIPAddressCustomdata", "as findProjectCustomdata"),
    ("findIPReservationCustomdata", "as findProjectCustomdata"),
    (
        "createUser",
        "the spec's 202 has no content; the fake answers the user made, as other creates do",
    ),
    (
        "getInterconnectionMetros",
        "the spec's metro entry is `allOf` a closed `Metro` and `providers`: no reply passes the strict check (fidelity.rs, the interconnections rows)",
    ),
    (
        "findSpotMarketPrices",
        "the spec's report lists fixed facility codes as properties; the fake's keys are the world's codes (fidelity.rs, the spot market rows)",
    ),
    ("findMetroSpotMarketPrices", "as findSpotMarketPrices, by metro"),
    (
        "createSpotMarketRequest",
        "the spec types `facilities` and `instances` as one href and lacks `plan` and `devices`; the fake sends what Terraform reads (fidelity.rs)",
    ),
    ("listSpotMarketRequests", "as createSpotMarketRequest"),
    ("findSpotMarketRequestById", "as createSpotMarketRequest"),
    (
        "findInterconnectionPortEvents",
        "the spec's reply is one `Event`; the fake sends an `EventList` page, as every event list",
    ),
    ("findVirtualCircuitEvents", "as findInterconnectionPortEvents"),
    (
        "createSelfServiceReservation",
        "the spec's reply lacks the `id` that `findSelfServiceReservation`'s path needs; the fake sends it",
    ),
    ("findSelfServiceReservation", "as createSelfServiceReservation"),
    ("findSelfServiceReservations", "as createSelfServiceReservation"),
];

/// How many items a page of an audit's list asks for.
const PER_PAGE: usize = 50;

/// One reply: what the walk needs of it.
struct Reply {
    status: Option<u16>,
    fault: Option<String>,
    body: Value,
}

/// A walk in progress.
pub struct Walk<'s> {
    fake: Fake,
    spec: &'s Spec,
    docs: &'s Docs,
    pool: Pool,
    /// The invariants.
    pub checker: Checker,
    faults_on: bool,
    seq: u64,
    /// One line per call, for the failure message.
    pub trace: String,
    /// Calls answered 2xx, for the long run's report.
    pub ok: usize,
    /// Calls sent.
    pub sent: usize,
    validators: std::collections::HashMap<String, jsonschema::Validator>,
}

impl<'s> Walk<'s> {
    /// A fresh fake, and the pool filled from its seeded world.
    pub async fn start(spec: &'s Spec, docs: &'s Docs, fake: metal_fake::FakeBuilder) -> Walk<'s> {
        let fake = fake.build();
        let mut w = Walk {
            fake,
            spec,
            docs,
            pool: Pool::default(),
            checker: Checker::default(),
            faults_on: false,
            seq: 0,
            trace: String::new(),
            ok: 0,
            sent: 0,
            validators: std::collections::HashMap::new(),
        };
        let project = w.fake.project();
        for (path, slug) in [
            ("/plans".to_string(), Some(("plan", "slug"))),
            ("/locations/metros".to_string(), Some(("metro", "code"))),
            ("/operating-systems".to_string(), Some(("os", "slug"))),
            ("/facilities".to_string(), Some(("facility", "code"))),
            ("/user".to_string(), None),
            ("/projects".to_string(), None),
            ("/organizations".to_string(), None),
            ("/user/api-keys".to_string(), None),
            (format!("/projects/{project}/memberships"), None),
            (format!("/projects/{project}/hardware-reservations"), None),
            (format!("/projects/{project}/ips"), None),
        ] {
            let r = w.get(&path).await;
            if let Some((what, field)) = slug {
                w.pool.learn_slugs(what, field, &r.body);
            }
        }
        w.pool.protect_all();
        w
    }

    /// Runs one step.
    pub async fn step(&mut self, step: &Step) {
        match step {
            Step::Call { op, seed } => {
                let op = self.spec.ops[op.index(self.spec.ops.len())];
                let mut rng = StdRng::seed_from_u64(*seed);
                self.call(op, &mut rng).await;
            }
            Step::Named { op, seed } => {
                let op = metal_api::operation::find(op).expect("an operationId of the spec");
                let mut rng = StdRng::seed_from_u64(*seed);
                self.call(op, &mut rng).await;
            }
            Step::FaultsOn { seed, percent } => {
                let body = format!(
                    r#"{{"random": {{"rate": {}, "seed": {seed}, "kinds": {KINDS}}}}}"#,
                    f64::from(*percent) / 100.0
                );
                let (status, reply) = self.control("POST", "/_fake/faults", Some(body)).await;
                assert_eq!(status, 200, "faults refused: {reply}");
                self.faults_on = true;
                let _ = writeln!(self.trace, "faults on ({percent}%, seed {seed})");
            }
            Step::FaultsOff => self.faults_off().await,
            Step::Advance { seconds } => {
                let body = format!(r#"{{"advance_seconds": {seconds}}}"#);
                let (status, reply) = self.control("POST", "/_fake/clock", Some(body)).await;
                assert_eq!(status, 200, "clock refused: {reply}");
                let _ = writeln!(self.trace, "clock +{seconds}s");
            }
            Step::Audit => self.audit().await,
        }
    }

    async fn faults_off(&mut self) {
        if self.faults_on {
            let (status, reply) = self.control("DELETE", "/_fake/faults", None).await;
            assert_eq!(status, 200, "faults not cleared: {reply}");
            self.faults_on = false;
            let _ = writeln!(self.trace, "faults off");
        }
    }

    /// One call of `op`: its path from the pool, its body from its schema
    /// (or the hint table).
    async fn call(&mut self, op: &'static Operation, rng: &mut StdRng) {
        let deleting = op.method == Method::Delete || CONSUMES.contains(&op.id);
        let mut named = Vec::new();
        let mut prev = "";
        let mut path = String::new();
        for seg in op.path.split('/').filter(|s| !s.is_empty()) {
            path.push('/');
            if seg.starts_with('{') {
                let id = self
                    .pool
                    .pick_under(named.last().copied(), prev, deleting, rng);
                named.push(id);
                path.push_str(&id.to_string());
            } else {
                path.push_str(seg);
            }
            prev = seg;
        }
        let body = match hinted(op.id, &mut self.pool, rng) {
            Some(b) => Some(b),
            None => self
                .spec
                .request_schema(op)
                .map(|s| self.spec.body(s, "", &self.pool, rng)),
        };
        if let Some(b) = &body {
            collect_ids(b, &self.pool, &mut named);
        }
        let reply = self.send(op, &path, "", body.clone()).await;
        let call = Call {
            op: op.id,
            method: op.method.as_str(),
            path: path.clone(),
            status: reply.status,
            fault: reply.fault.clone(),
            named,
            body: reply.body.clone(),
        };
        let spec = self.spec;
        self.checker.reply(
            &call,
            |p| spec_get(spec, p).is_some(),
            |p| spec_get(spec, p).is_some(),
        );
        let removed = reply.status.is_some_and(|s| s < 300)
            && !spoils(reply.fault.as_deref())
            && op.method == Method::Delete;
        if let Some(id) = path
            .rsplit('/')
            .next()
            .and_then(|s| s.parse().ok())
            .filter(|_| removed)
        {
            self.pool.deleted(id);
        }
        let _ = writeln!(
            self.trace,
            "{} {path} {} -> {:?}{}",
            op.method.as_str(),
            body.map(|b| b.to_string()).unwrap_or_default(),
            reply.status,
            reply
                .fault
                .map(|f| format!(" (fault {f})"))
                .unwrap_or_default()
        );
    }

    /// A `GET` of `path` (with its query) as the walk's reads send it.
    async fn get(&mut self, path: &str) -> Reply {
        let (bare, query) = path.split_once('?').unwrap_or((path, ""));
        match spec_get(self.spec, bare) {
            Some(op) => self.send(op, bare, query, None).await,
            None => panic!("no walkable GET for {bare}"),
        }
    }

    /// Sends one request; checks its reply against the spec; learns the
    /// IDs it names.
    async fn send(
        &mut self,
        op: &'static Operation,
        path: &str,
        query: &str,
        body: Option<Value>,
    ) -> Reply {
        use std::sync::OnceLock;
        static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
        let q = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        let mut r = CLIENT
            .get_or_init(crate::http::client)
            .request(
                reqwest::Method::from_bytes(op.method.as_str().as_bytes()).unwrap(),
                format!("http://metal-fake.invalid/metal/v1{path}{q}"),
            )
            .header("x-auth-token", TOKEN);
        if let Some(b) = &body {
            r = r.json(b);
        }
        self.sent += 1;
        let (status, content_type, bytes) = match self.fake.exchange(op, r.build().unwrap()).await {
            Ok(reply) => {
                let status = reply.status().as_u16();
                let ct = reply
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .map(String::from);
                (Some(status), ct, reply.bytes().await.ok())
            }
            Err(_) => (None, None, None),
        };
        let records = self.fake.calls_since(self.seq);
        if let Some(last) = records.last() {
            self.seq = last.seq;
        }
        let fault = records.iter().rev().find_map(|c| c.fault).map(String::from);
        let json: Value = bytes
            .as_ref()
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or(Value::Null);
        if let (Some(status), Some(bytes)) = (status, &bytes) {
            let spoiled = matches!(fault.as_deref(), Some("truncated" | "drop_after"));
            if !spoiled {
                let reply = RecordedReply {
                    operation: op.id.to_string(),
                    status,
                    content_type: content_type.clone(),
                    body: bytes.clone(),
                };
                let (spec, docs) = self.docs;
                let beyond = UNCHECKED.iter().any(|(o, _)| *o == op.id);
                if !beyond
                    && let Err(why) = schema::problem(spec, docs, &reply, &mut self.validators)
                {
                    self.checker.violations.push(format!(
                        "{} {path}: the reply is not the spec's: {why}",
                        op.method.as_str()
                    ));
                }
            }
            if status < 300 && !spoils(fault.as_deref()) {
                self.ok += 1;
                self.pool.learn(&json);
            }
        }
        Reply {
            status,
            fault,
            body: json,
        }
    }

    /// A control API call in process (through the fake's router).
    async fn control(&self, method: &str, path: &str, body: Option<String>) -> (u16, Value) {
        let request = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .body(body.map(Body::from).unwrap_or_else(Body::empty))
            .unwrap();
        let reply = self.fake.router().clone().oneshot(request).await.unwrap();
        let status = reply.status().as_u16();
        let bytes = axum::body::to_bytes(reply.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Reads back what the walk made (faults off first, so every read is
    /// conclusive): each followed thing, each list that files one, and
    /// the links between resources.
    pub async fn audit(&mut self) {
        self.faults_off().await;
        let _ = writeln!(self.trace, "audit");
        let mut followed = self.checker.live();
        followed.extend(self.checker.deleted());
        let mut lists = BTreeSet::new();
        for (id, get, list) in followed {
            if let Some(g) = get {
                let r = self.get(&g).await;
                self.checker.got(id, r.status.unwrap_or(0));
            }
            if let Some(l) = list {
                lists.insert(l);
            }
        }
        for list in lists {
            let (ids, total) = self.whole_list(&list).await;
            self.checker.listed(&list, &ids, total);
        }
        self.links().await;
    }

    /// Every page of `list`: the IDs listed and `meta.total`.
    async fn whole_list(&mut self, list: &str) -> (BTreeSet<Uuid>, Option<u64>) {
        let paged = spec_get(self.spec, list).is_some_and(|op| self.spec.pages(op));
        let mut ids = BTreeSet::new();
        let mut total = None;
        for page in 1..=20 {
            let path = if paged {
                format!("{list}?per_page={PER_PAGE}&page={page}")
            } else {
                list.to_string()
            };
            let r = self.get(&path).await;
            let items = r
                .body
                .as_object()
                .and_then(|m| m.values().find_map(Value::as_array))
                .cloned()
                .unwrap_or_default();
            ids.extend(
                items
                    .iter()
                    .filter_map(|i| i["id"].as_str().and_then(|s| s.parse::<Uuid>().ok())),
            );
            total = r
                .body
                .pointer("/meta/total")
                .and_then(Value::as_u64)
                .or(total);
            if !paged || items.len() < PER_PAGE {
                break;
            }
        }
        (ids, total)
    }

    /// The links between resources, over every device and reservation the
    /// walk knows: a device's addresses are in its project's IP list, a
    /// device's ports' VLANs exist, a reservation's device exists and
    /// names it back.
    async fn links(&mut self) {
        let devices: Vec<Uuid> = self.checker_devices();
        for d in devices {
            let r = self.get(&format!("/devices/{d}")).await;
            if r.status != Some(200) {
                continue;
            }
            let device = r.body;
            if let Some(p) = device
                .pointer("/project/href")
                .and_then(Value::as_str)
                .and_then(href_id)
            {
                let (ids, _) = self.whole_list(&format!("/projects/{}/ips", p.1)).await;
                for a in device["ip_addresses"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                {
                    let Some(block) = a
                        .pointer("/parent_block/href")
                        .and_then(Value::as_str)
                        .and_then(href_id)
                    else {
                        continue;
                    };
                    self.checker.link(
                        format!(
                            "device {d}'s address {} is from block {}, not in its project's IP list",
                            a["address"], block.1
                        ),
                        ids.contains(&block.1),
                    );
                }
            }
            for port in device["network_ports"]
                .as_array()
                .cloned()
                .unwrap_or_default()
            {
                for vlan in port["virtual_networks"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                {
                    let Some((_, v)) = vlan["href"].as_str().and_then(href_id) else {
                        continue;
                    };
                    let got = self.get(&format!("/virtual-networks/{v}")).await;
                    self.checker.link(
                        format!(
                            "device {d}'s port {} names VLAN {v}, which reads {:?}",
                            port["name"], got.status
                        ),
                        got.status == Some(200),
                    );
                }
            }
        }
        let project = self.fake.project();
        let r = self
            .get(&format!(
                "/projects/{project}/hardware-reservations?per_page=1000&include=device"
            ))
            .await;
        for res in r.body["hardware_reservations"]
            .as_array()
            .cloned()
            .unwrap_or_default()
        {
            let Some((_, d)) = res
                .pointer("/device/href")
                .and_then(Value::as_str)
                .and_then(href_id)
            else {
                continue;
            };
            let id = res["id"].as_str().unwrap_or_default().to_string();
            let got = self.get(&format!("/devices/{d}")).await;
            let back = got
                .body
                .pointer("/hardware_reservation/href")
                .and_then(Value::as_str)
                .and_then(href_id)
                .map(|(_, i)| i.to_string());
            self.checker.link(
                format!("reservation {id} holds device {d}, which reads {:?} naming reservation {back:?}", got.status),
                got.status == Some(200) && back.as_deref() == Some(id.as_str()),
            );
        }
    }

    /// The devices in the pool (live), at most ten.
    fn checker_devices(&self) -> Vec<Uuid> {
        self.fake
            .devices()
            .iter()
            .filter_map(|d| d.id)
            .filter(|id| self.pool.knows(*id))
            .take(10)
            .collect()
    }

    /// The state file at `path` (the fake's, synced before every reply)
    /// holds the world now: its snapshot with its log replayed is the
    /// world the fake saves, but for the times in a phase and to a release,
    /// which a replay counts to its last record.
    pub async fn state_file_holds_the_world(&mut self, path: &std::path::Path) {
        self.faults_off().await;
        let (status, world) = self.control("GET", "/_fake/world", None).await;
        assert_eq!(status, 200, "{world}");
        let replayed =
            metal_fake::state::StateFile::open(path, metal_fake::state::SyncPolicy::EveryChange)
                .map(|(_, doc)| doc);
        let replayed = match replayed {
            Ok(Some(doc)) => serde_json::to_value(doc).unwrap_or_default(),
            other => {
                self.checker
                    .link(format!("the state file does not load: {other:?}"), false);
                return;
            }
        };
        let untimed = |mut doc: Value| {
            for (section, field) in [
                ("devices", "state_elapsed_seconds"),
                ("reservations", "released_in_seconds"),
            ] {
                for entry in doc
                    .get_mut(section)
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
                {
                    entry.as_object_mut().map(|e| e.remove(field));
                }
            }
            doc
        };
        let (world, replayed) = (untimed(world), untimed(replayed));
        let differ: Vec<&String> = world
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
            .filter(|k| world.get(k.as_str()) != replayed.get(k.as_str()))
            .collect();
        self.checker.link(
            format!("the state file replays to another world: {differ:?} differ"),
            world == replayed,
        );
        let _ = writeln!(self.trace, "state file replayed");
    }

    /// The world saved, loaded again and saved again: equal.
    pub async fn round_trip(&mut self) {
        self.faults_off().await;
        let (s1, saved) = self.control("GET", "/_fake/world", None).await;
        let (s2, loaded) = self
            .control("POST", "/_fake/world", Some(saved.to_string()))
            .await;
        let (s3, again) = self.control("GET", "/_fake/world", None).await;
        self.checker.link(
            format!("world save/load/save answered {s1}/{s2}/{s3}: {loaded}"),
            (s1, s2, s3) == (200, 200, 200),
        );
        self.checker.round_trip(&saved, &again);
        let _ = writeln!(self.trace, "world saved and loaded");
    }
}

/// The walkable `GET` whose path pattern `path` fits.
fn spec_get(spec: &Spec, path: &str) -> Option<&'static Operation> {
    spec.all
        .iter()
        .copied()
        .filter(|op| op.method == Method::Get)
        .find(|op| fits(op.path, path))
}

/// Whether the concrete `path` fits the spec's `pattern`.
pub fn fits(pattern: &str, path: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').collect();
    let g: Vec<&str> = path.split('/').collect();
    p.len() == g.len()
        && p.iter()
            .zip(&g)
            .all(|(p, g)| (p.starts_with('{') && !g.is_empty()) || p == g)
}

/// The IDs in the pool a body names.
fn collect_ids(body: &Value, pool: &Pool, out: &mut Vec<Uuid>) {
    match body {
        Value::String(s) => {
            if let Ok(id) = s.parse::<Uuid>()
                && pool.knows(id)
            {
                out.push(id);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| collect_ids(v, pool, out)),
        Value::Object(m) => m.values().for_each(|v| collect_ids(v, pool, out)),
        _ => {}
    }
}

/// Bodies a schema cannot make valid: a device on a reservation (or on
/// demand) of a plan and metro that fit it; an SSH key that parses.
fn hinted(op: &str, pool: &mut Pool, rng: &mut StdRng) -> Option<Value> {
    let n: u32 = rng.random_range(1..1000);
    match op {
        "createDevice" => {
            let os = pool.slug("os", rng)?;
            let on_reservation = rng.random_bool(0.7);
            match pool.reservation(rng) {
                Some((id, plan, metro)) if on_reservation => Some(json!({
                    "metro": metro, "plan": plan, "operating_system": os,
                    "hostname": format!("walk-{n}"),
                    "hardware_reservation_id": id.to_string(),
                })),
                _ => Some(json!({
                    "metro": pool.slug("metro", rng)?, "plan": pool.slug("plan", rng)?,
                    "operating_system": os, "hostname": format!("walk-{n}"),
                })),
            }
        }
        "createSSHKey" | "createProjectSSHKey" => {
            Some(json!({"label": format!("walk-{n}"), "key": pool.ssh_key()}))
        }
        _ => None,
    }
}
