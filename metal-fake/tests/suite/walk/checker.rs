//! The walk's invariants over what it saw, kept apart from the sending so
//! a fabricated sequence can be fed to it (`the_walk_has_teeth`).
//!
//! It follows each thing the walk created (from a `POST` whose reply
//! names a new thing filed where the request path says: `POST
//! /projects/{id}/devices` answering a `/devices/...` href) and each thing
//! a `DELETE` removed, and what else each depends on (the IDs of its
//! request path and body, and the things its reply names at its top
//! level): when one of those goes, the thing's fate is unsure and it is
//! no longer checked.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use uuid::Uuid;

use super::pool::href_id;

/// One call as the walk saw it.
#[derive(Clone, Debug)]
pub struct Call {
    /// The operationId.
    pub op: &'static str,
    /// The HTTP method.
    pub method: &'static str,
    /// The concrete path sent (below `/metal/v1`, without a query).
    pub path: String,
    /// The status; `None` when no reply came.
    pub status: Option<u16>,
    /// The fault label the fake's call log gave the call, if any.
    pub fault: Option<String>,
    /// The IDs the request named (path and body).
    pub named: Vec<Uuid>,
    /// The reply body (`null` if none or not JSON).
    pub body: Value,
}

/// What became of a thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Created and not deleted: it reads 200 and is listed.
    Live,
    /// Deleted: it reads 404 and is not listed.
    Deleted,
    /// Something it depends on went, or a fault hid the outcome.
    Unsure,
}

/// A thing the checker follows.
#[derive(Clone, Debug)]
pub struct Thing {
    /// Its path (its href below `/metal/v1`), when a walkable `GET` reads it.
    pub get: Option<String>,
    /// The list path that lists it, when a walkable `GET` lists there.
    pub list: Option<String>,
    /// The IDs it depends on.
    pub parents: Vec<Uuid>,
    /// What became of it.
    pub fate: Fate,
}

/// Operations that remove the thing their path names without `DELETE`:
/// accepting an invitation or a transfer request consumes it.
pub const CONSUMES: &[&str] = &["acceptInvitation", "acceptTransferRequest"];

/// Operations after which lists of a kind may no longer hold what they
/// held: an accepted transfer moves a project to another organisation.
pub const MOVES: &[(&str, &str)] = &[("acceptTransferRequest", "projects")];

/// Operations after which things of a kind may be gone: an accepted
/// transfer takes the old organisation's invitations to the project.
pub const UNSETTLES: &[(&str, &str)] = &[("acceptTransferRequest", "invitations")];

/// Whether an injected fault spoils the call's outcome (all but latency,
/// which only delays it).
pub fn spoils(fault: Option<&str>) -> bool {
    fault.is_some_and(|f| f != "latency")
}

/// The invariants' state and the violations found.
#[derive(Default)]
pub struct Checker {
    /// The followed things, by ID.
    pub things: BTreeMap<Uuid, Thing>,
    /// Each violation, in the order found.
    pub violations: Vec<String>,
}

impl Checker {
    /// One call's reply: no 5xx (nor a lost reply) but an injected fault's;
    /// creates and deletes followed.
    pub fn reply(
        &mut self,
        call: &Call,
        gettable: impl Fn(&str) -> bool,
        listable: impl Fn(&str) -> bool,
    ) {
        let what = format!("{} {} {}", call.op, call.method, call.path);
        let spoilt = spoils(call.fault.as_deref());
        match (call.status, spoilt) {
            (Some(s), false) if s >= 500 => self.violations.push(format!(
                "{what}: {s} without an injected fault: {}",
                call.body
            )),
            (None, false) => self
                .violations
                .push(format!("{what}: no reply without an injected fault")),
            _ => {}
        }
        let path_ids: Vec<Uuid> = call
            .path
            .split('/')
            .filter_map(|s| s.parse().ok())
            .collect();
        let ok = call.status.is_some_and(|s| s < 300) && !spoilt;
        let removes = call.method == "DELETE" || CONSUMES.contains(&call.op);
        if removes && let Some(id) = path_ids.last() {
            if ok {
                let fate = if call.method == "DELETE" {
                    Fate::Deleted
                } else {
                    Fate::Unsure
                };
                let entry = self.things.entry(*id).or_insert_with(|| Thing {
                    get: gettable(&call.path).then(|| call.path.clone()),
                    list: None,
                    parents: Vec::new(),
                    fate,
                });
                entry.fate = fate;
                self.unsure_below(*id);
            } else if spoilt {
                if let Some(t) = self.things.get_mut(id) {
                    t.fate = Fate::Unsure;
                }
                self.unsure_below(*id);
            }
        }
        if ok || spoilt {
            for (op, kind) in UNSETTLES {
                if *op == call.op {
                    for t in self.things.values_mut() {
                        if t.get
                            .as_deref()
                            .is_some_and(|g| g.starts_with(&format!("/{kind}/")))
                        {
                            t.fate = Fate::Unsure;
                        }
                    }
                }
            }
            if call.op == "acceptTransferRequest" {
                self.transferred(path_ids.last().copied());
            }
            for (op, kind) in MOVES {
                if *op == call.op {
                    for t in self.things.values_mut() {
                        if t.get
                            .as_deref()
                            .is_some_and(|g| g.starts_with(&format!("/{kind}/")))
                        {
                            t.list = None;
                        }
                    }
                }
            }
        }
        if ok && call.method == "POST" {
            self.created(call, &gettable, &listable);
        }
    }

    /// A `POST` whose reply is a new thing filed where its path says.
    fn created(
        &mut self,
        call: &Call,
        gettable: &impl Fn(&str) -> bool,
        listable: &impl Fn(&str) -> bool,
    ) {
        let Some(href) = call.body.get("href").and_then(Value::as_str) else {
            return;
        };
        let Some((kind, id)) = href_id(href) else {
            return;
        };
        let last = call.path.rsplit('/').next().unwrap_or_default();
        if kind != last || self.things.contains_key(&id) {
            return;
        }
        let get = href.strip_prefix("/metal/v1").unwrap_or(href).to_string();
        let mut parents = call.named.clone();
        if let Value::Object(map) = &call.body {
            for v in map.values() {
                if let Some((_, p)) = v.get("href").and_then(Value::as_str).and_then(href_id)
                    && p != id
                {
                    parents.push(p);
                }
            }
        }
        self.things.insert(
            id,
            Thing {
                get: gettable(&get).then_some(get),
                list: listable(&call.path).then(|| call.path.clone()),
                parents,
                fate: Fate::Live,
            },
        );
    }

    /// A transfer request accepted (or perhaps, under a fault): its
    /// project now depends on the organisation the request named too, so
    /// that organisation's delete (which takes its empty projects) leaves
    /// the project unsure. A transfer the checker did not follow may have
    /// moved any project: every project is unsure then.
    fn transferred(&mut self, transfer: Option<Uuid>) {
        let named = transfer
            .and_then(|t| self.things.get(&t))
            .map(|t| t.parents.clone());
        let is_project = |t: &Thing| {
            t.get
                .as_deref()
                .is_some_and(|g| g.starts_with("/projects/"))
        };
        match named {
            Some(named) => {
                let projects: Vec<Uuid> = named
                    .iter()
                    .copied()
                    .filter(|p| self.things.get(p).is_some_and(is_project))
                    .collect();
                for p in projects {
                    if let Some(t) = self.things.get_mut(&p) {
                        for n in &named {
                            if *n != p && !t.parents.contains(n) {
                                t.parents.push(*n);
                            }
                        }
                    }
                }
            }
            None => {
                for t in self.things.values_mut() {
                    if is_project(t) && t.fate == Fate::Live {
                        t.fate = Fate::Unsure;
                    }
                }
            }
        }
    }

    /// Every thing that depends on `id`, transitively, is unsure now.
    fn unsure_below(&mut self, id: Uuid) {
        let mut gone = vec![id];
        let mut seen = BTreeSet::new();
        while let Some(g) = gone.pop() {
            if !seen.insert(g) {
                continue;
            }
            for (child, t) in self.things.iter_mut() {
                if t.parents.contains(&g) && *child != g {
                    if t.fate == Fate::Live || t.fate == Fate::Deleted {
                        t.fate = Fate::Unsure;
                    }
                    gone.push(*child);
                }
            }
        }
    }

    /// A read of a followed thing: a live one reads 200, a deleted one 404.
    pub fn got(&mut self, id: Uuid, status: u16) {
        let Some(t) = self.things.get(&id) else {
            return;
        };
        let path = t.get.clone().unwrap_or_default();
        match t.fate {
            Fate::Live if status != 200 => self.violations.push(format!(
                "GET {path}: {status}, but it was created and not deleted"
            )),
            Fate::Deleted if status != 404 => self
                .violations
                .push(format!("GET {path}: {status}, but it was deleted")),
            _ => {}
        }
    }

    /// A whole list (every page): it lists each live thing filed there
    /// and no deleted one; its `meta.total`, when it has one, counts what
    /// it listed.
    pub fn listed(&mut self, list: &str, ids: &BTreeSet<Uuid>, total: Option<u64>) {
        for (id, t) in &self.things {
            match t.fate {
                Fate::Live if t.list.as_deref() == Some(list) && !ids.contains(id) => self
                    .violations
                    .push(format!("GET {list} does not list {id}, created there")),
                Fate::Deleted if ids.contains(id) => self
                    .violations
                    .push(format!("GET {list} lists {id}, which was deleted")),
                _ => {}
            }
        }
        if let Some(total) = total
            && total != ids.len() as u64
        {
            self.violations.push(format!(
                "GET {list}: meta.total {total}, but {} listed",
                ids.len()
            ));
        }
    }

    /// A link between resources: `what` holds when `ok`.
    pub fn link(&mut self, what: String, ok: bool) {
        if !ok {
            self.violations.push(what);
        }
    }

    /// The world saved, loaded again and saved: the two saves are equal.
    pub fn round_trip(&mut self, saved: &Value, again: &Value) {
        if saved != again {
            let keys = |v: &Value| -> BTreeSet<String> {
                v.as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default()
            };
            let differ: Vec<String> = keys(saved)
                .union(&keys(again))
                .filter(|k| saved.get(k.as_str()) != again.get(k.as_str()))
                .cloned()
                .collect();
            self.violations.push(format!(
                "the world saved, loaded and saved again differs in {differ:?}"
            ));
        }
    }

    /// The live things (ID, read path, list path).
    pub fn live(&self) -> Vec<(Uuid, Option<String>, Option<String>)> {
        self.with(Fate::Live)
    }

    /// The deleted things (ID, read path, list path).
    pub fn deleted(&self) -> Vec<(Uuid, Option<String>, Option<String>)> {
        self.with(Fate::Deleted)
    }

    fn with(&self, fate: Fate) -> Vec<(Uuid, Option<String>, Option<String>)> {
        self.things
            .iter()
            .filter(|(_, t)| t.fate == fate)
            .map(|(id, t)| (*id, t.get.clone(), t.list.clone()))
            .collect()
    }
}
