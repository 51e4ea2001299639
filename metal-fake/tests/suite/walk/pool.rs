//! The walk's pool of names: the IDs earlier replies named, per kind (the
//! collection of their href: `devices`, `ips`, `virtual-networks`, ...),
//! the catalog's slugs, and IP blocks; and the choice of one for a path
//! parameter or a body property: mostly a live one, sometimes a deleted
//! or made-up one. Everything is ordered (no hash maps), so one seed gives
//! one walk.

use std::collections::{BTreeMap, BTreeSet};

use rand::rngs::StdRng;
use rand::Rng;
use serde_json::{json, Value};
use uuid::Uuid;

/// Body properties that name a thing, and the kind they name.
const NAMES: &[(&str, &str)] = &[
    ("project_id", "projects"),
    ("project", "projects"),
    ("device_id", "devices"),
    ("instances_ids", "devices"),
    ("hardware_reservation_id", "hardware-reservations"),
    ("ip_reservation_id", "ips"),
    ("virtual_network_id", "virtual-networks"),
    ("vlan", "virtual-networks"),
    ("vnid", "virtual-networks"),
    ("organization_id", "organizations"),
    ("target_organization_id", "organizations"),
    ("projects_ids", "projects"),
];

/// The IDs and slugs the walk has learned.
#[derive(Default)]
pub struct Pool {
    live: BTreeMap<String, Vec<Uuid>>,
    /// IDs the walk must not delete (the seeded project, organisation,
    /// user and token), so the walk keeps its own access.
    protected: BTreeSet<Uuid>,
    deleted: Vec<Uuid>,
    slugs: BTreeMap<&'static str, BTreeSet<String>>,
    /// `network/cidr` of the IP blocks seen.
    blocks: BTreeSet<String>,
    /// Each hardware reservation's plan slug and metro code.
    reservations: BTreeMap<Uuid, (String, String)>,
    /// Keys made so far (each SSH key the walk sends is new).
    keys: u32,
}

impl Pool {
    /// Learns every ID a reply names: each `href` ending in a UUID, filed
    /// under the path segment before it; IP blocks; reservations' plans.
    pub fn learn(&mut self, value: &Value) {
        match value {
            Value::Array(items) => items.iter().for_each(|v| self.learn(v)),
            Value::Object(map) => {
                if let Some((kind, id)) = map.get("href").and_then(Value::as_str).and_then(href_id)
                {
                    self.add(&kind, id);
                    if kind == "hardware-reservations" {
                        let plan = value.pointer("/plan/slug").and_then(Value::as_str);
                        let metro = value
                            .pointer("/facility/metro/code")
                            .and_then(Value::as_str);
                        if let (Some(p), Some(m)) = (plan, metro) {
                            self.reservations.insert(id, (p.into(), m.into()));
                        }
                    }
                    if kind == "ips" {
                        let net = map.get("network").and_then(Value::as_str);
                        let cidr = map.get("cidr").and_then(Value::as_u64);
                        if let (Some(n), Some(c)) = (net, cidr) {
                            self.blocks.insert(format!("{n}/{c}"));
                        }
                    }
                }
                map.values().for_each(|v| self.learn(v));
            }
            _ => {}
        }
    }

    /// Learns the catalog's slugs from a catalog list reply.
    pub fn learn_slugs(&mut self, what: &'static str, field: &str, body: &Value) {
        let items = body
            .as_object()
            .and_then(|m| m.values().find_map(Value::as_array))
            .cloned()
            .unwrap_or_default();
        for item in items {
            if let Some(s) = item[field].as_str() {
                self.slugs.entry(what).or_default().insert(s.to_string());
            }
        }
    }

    /// Files `id` under `kind`, once.
    pub fn add(&mut self, kind: &str, id: Uuid) {
        if self.deleted.contains(&id) {
            return;
        }
        let ids = self.live.entry(kind.to_string()).or_default();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }

    /// Marks every ID known so far as one the walk must not delete.
    pub fn protect_all(&mut self) {
        self.protected = self.live.values().flatten().copied().collect();
    }

    /// Forgets `id` as live: it was deleted.
    pub fn deleted(&mut self, id: Uuid) {
        for ids in self.live.values_mut() {
            ids.retain(|i| *i != id);
        }
        if !self.deleted.contains(&id) {
            self.deleted.push(id);
        }
    }

    /// An ID of `kind` for a path or a body: eight in ten a live one (not
    /// a protected one when `deleting`), one in ten a deleted one, else a
    /// made-up one.
    pub fn pick(&self, kind: &str, deleting: bool, rng: &mut StdRng) -> Uuid {
        let roll = rng.random_range(0..10);
        let live: Vec<Uuid> = self
            .live
            .get(kind)
            .map(|ids| {
                ids.iter()
                    .copied()
                    .filter(|id| !(deleting && self.protected.contains(id)))
                    .collect()
            })
            .unwrap_or_default();
        if roll < 8 && !live.is_empty() {
            return live[rng.random_range(0..live.len())];
        }
        if roll == 8 && !self.deleted.is_empty() {
            return self.deleted[rng.random_range(0..self.deleted.len())];
        }
        Uuid::from_u128(rng.random())
    }

    /// Whether `id` is in the pool (live).
    pub fn knows(&self, id: Uuid) -> bool {
        self.live.values().any(|ids| ids.contains(&id))
    }

    /// A value for the body property `name` when the pool has what it
    /// names: an ID, a slug, an IP block, an SSH key.
    pub fn hint(&self, name: &str, schema: &Value, rng: &mut StdRng) -> Option<Value> {
        let stringy = schema["type"].as_str().is_none_or(|t| t == "string");
        if let Some((_, kind)) = NAMES.iter().find(|(n, _)| *n == name) {
            if stringy && schema.get("enum").is_none() {
                return Some(json!(self.pick(kind, false, rng).to_string()));
            }
        }
        let slug = |what: &str, rng: &mut StdRng| self.slug(what, rng).map(Value::String);
        match name {
            "metro" if stringy => slug("metro", rng),
            "facility" if stringy => slug("facility", rng),
            "plan" if stringy => slug("plan", rng),
            "operating_system" if stringy => slug("os", rng),
            "address" if stringy && !self.blocks.is_empty() => {
                let blocks: Vec<&String> = self.blocks.iter().collect();
                Some(json!(blocks[rng.random_range(0..blocks.len())]))
            }
            _ => None,
        }
    }

    /// A reservation to provision on, with its plan and metro.
    pub fn reservation(&self, rng: &mut StdRng) -> Option<(Uuid, String, String)> {
        let all: Vec<_> = self.reservations.iter().collect();
        (!all.is_empty()).then(|| {
            let (id, (p, m)) = all[rng.random_range(0..all.len())];
            (*id, p.clone(), m.clone())
        })
    }

    /// A slug of `what` (`metro`, `plan`, `os`, `facility`).
    pub fn slug(&self, what: &str, rng: &mut StdRng) -> Option<String> {
        let all: Vec<&String> = self.slugs.get(what)?.iter().collect();
        (!all.is_empty()).then(|| all[rng.random_range(0..all.len())].clone())
    }

    /// A new, well-formed ed25519 public key (each call another).
    pub fn ssh_key(&mut self) -> String {
        use base64::Engine;
        self.keys += 1;
        let mut blob = Vec::new();
        for part in [&b"ssh-ed25519"[..], &[0u8; 32][..]] {
            blob.extend_from_slice(&(part.len() as u32).to_be_bytes());
            blob.extend_from_slice(part);
        }
        let n = blob.len();
        blob[n - 4..].copy_from_slice(&self.keys.to_be_bytes());
        let body = base64::engine::general_purpose::STANDARD.encode(blob);
        format!("ssh-ed25519 {body} walk-{}", self.keys)
    }
}

/// The kind (the path segment before it) and ID an href ends in.
pub fn href_id(href: &str) -> Option<(String, Uuid)> {
    let mut parts = href.trim_end_matches('/').rsplit('/');
    let id = parts.next()?.parse().ok()?;
    let kind = parts.next()?;
    Some((kind.to_string(), id))
}
