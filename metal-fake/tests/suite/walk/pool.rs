//! The walk's pool of names: the IDs earlier replies named, per kind (the
//! collection of their href: `devices`, `ips`, `virtual-networks`, ...),
//! the catalog's slugs, IP blocks, VLANs' vxlans and VRFs' ranges; and
//! the choice of one for a path parameter or a body property: mostly a
//! live one, sometimes a deleted or made-up one; and values of the forms
//! the variants' bodies need (a VRF circuit's subnet in a VRF's range,
//! a peer ASN, an MD5 password, a cloud provider's account). Everything is ordered (no hash maps), so one seed gives
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
    ("vrf", "vrfs"),
    ("vrf_id", "vrfs"),
    ("vrfs", "vrfs"),
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
    /// The `vxlan` numbers of the VLANs seen (a shared connection's
    /// `vlans` name them).
    vxlans: BTreeSet<u64>,
    /// The IPv4 ranges of the VRFs seen (a VRF circuit's `subnet` and a
    /// VRF block's `network` lie in one).
    vrf_ranges: BTreeSet<String>,
    /// The IDs seen under another's href (`/connections/A/ports/B`: B of
    /// kind `ports` under A), for a path that names both.
    children: BTreeMap<(Uuid, String), Vec<Uuid>>,
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
                    // The parent an href names is live too (a connection,
                    // whose replies carry no href of their own).
                    if let Some((parent_kind, parent)) = map
                        .get("href")
                        .and_then(Value::as_str)
                        .and_then(href_parent)
                    {
                        self.add(&parent_kind, parent);
                        let under = self.children.entry((parent, kind.clone())).or_default();
                        if !under.contains(&id) {
                            under.push(id);
                        }
                    }
                    if kind == "hardware-reservations" {
                        let plan = value.pointer("/plan/slug").and_then(Value::as_str);
                        let metro = value
                            .pointer("/facility/metro/code")
                            .and_then(Value::as_str);
                        if let (Some(p), Some(m)) = (plan, metro) {
                            self.reservations.insert(id, (p.into(), m.into()));
                        }
                    }
                    if kind == "virtual-networks"
                        && let Some(v) = map.get("vxlan").and_then(Value::as_u64)
                    {
                        self.vxlans.insert(v);
                    }
                    if kind == "vrfs" {
                        let ranges = map.get("ip_ranges").and_then(Value::as_array);
                        for r in ranges.into_iter().flatten().filter_map(Value::as_str) {
                            if !r.contains(':') {
                                self.vrf_ranges.insert(r.to_string());
                            }
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

    /// An ID of `kind` under `parent` (the path's previous ID) when the
    /// pool has seen some there, eight in ten; else as [`Pool::pick`].
    pub fn pick_under(
        &self,
        parent: Option<Uuid>,
        kind: &str,
        deleting: bool,
        rng: &mut StdRng,
    ) -> Uuid {
        let under: Vec<Uuid> = parent
            .and_then(|p| self.children.get(&(p, kind.to_string())))
            .map(|ids| {
                ids.iter()
                    .copied()
                    .filter(|id| !self.deleted.contains(id))
                    .collect()
            })
            .unwrap_or_default();
        if !under.is_empty() && rng.random_range(0..10) < 8 {
            return under[rng.random_range(0..under.len())];
        }
        self.pick(kind, deleting, rng)
    }

    /// Whether `id` is in the pool (live).
    pub fn knows(&self, id: Uuid) -> bool {
        self.live.values().any(|ids| ids.contains(&id))
    }

    /// A value for the body property `name` when the pool has what it
    /// names: an ID, a slug, an IP block, an SSH key.
    pub fn hint(&self, name: &str, schema: &Value, rng: &mut StdRng) -> Option<Value> {
        let stringy = schema["type"].as_str().is_none_or(|t| t == "string");
        if let Some((_, kind)) = NAMES.iter().find(|(n, _)| *n == name)
            && stringy
            && schema.get("enum").is_none()
        {
            return Some(json!(self.pick(kind, false, rng).to_string()));
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
            // A shared connection's VLANs, by vxlan.
            "vlans" if schema["type"] == "integer" && !self.vxlans.is_empty() => {
                let all: Vec<&u64> = self.vxlans.iter().collect();
                Some(json!(all[rng.random_range(0..all.len())]))
            }
            // A VRF's ranges: a /24 of 10.0.0.0/8 (some collide, as a
            // client's may).
            "ip_ranges" if stringy => {
                Some(json!(format!("10.{}.0.0/24", rng.random_range(1..250))))
            }
            // A VRF circuit's subnet: a /31 or /30 in a VRF's range.
            "subnet" if stringy => {
                let prefix = 30 + rng.random_range(0..2);
                self.in_vrf_range(rng, prefix)
            }
            // A VRF block's network: a /29's in a VRF's range (its `cidr`
            // is drawn apart, so it is sometimes refused).
            "network" if stringy => self.in_vrf_range(rng, 29).and_then(|v| {
                v.as_str()
                    .and_then(|t| t.split('/').next())
                    .map(|n| json!(n))
            }),
            // Plain strings in the spec that take a few values only: a
            // connection's redundancy and speed, an IP request's type.
            "redundancy" if stringy => {
                Some(json!(["primary", "redundant"][rng.random_range(0..2)]))
            }
            // Both a shared connection's and a dedicated port's but 50Mbps.
            "speed" if stringy => Some(json!(
                ["50Mbps", "1Gbps", "10Gbps", "10Gbps"][rng.random_range(0..4)]
            )),
            "facility_id" if stringy => slug("facility", rng),
            // A VRF circuit's addresses left to the API, as Terraform
            // sends them.
            "metal_ip" | "customer_ip" | "subnet_ipv6" | "metal_ipv6" | "customer_ipv6"
                if stringy =>
            {
                Some(json!(""))
            }
            "type"
                if stringy
                    && schema.get("x-known-values").is_none()
                    && schema.get("enum").is_none() =>
            {
                let types = [
                    "public_ipv4",
                    "global_ipv4",
                    "private_ipv4",
                    "public_ipv6",
                    "vrf",
                ];
                Some(json!(types[rng.random_range(0..types.len())]))
            }
            // An IP request's quantity (a power of 2) and a block's size.
            "quantity" if schema["type"] == "integer" => Some(json!(1 << rng.random_range(0..4))),
            // /29 most often (a VRF block takes /22 to /29, its network
            // drawn on a /29 boundary), else /30 or /31 (a device's own
            // block, an assignment).
            "cidr" if schema["type"] == "integer" => {
                Some(json!([29, 29, 29, 30, 31][rng.random_range(0..5)]))
            }
            "peer_asn" if schema["type"] == "integer" => {
                Some(json!(rng.random_range(64512..65535)))
            }
            "md5" if stringy => Some(json!(format!(
                "Walk{}x",
                rng.random_range(100_000..999_999)
            ))),
            "account_id" if stringy => Some(json!(format!(
                "{:012}",
                rng.random_range(0..1_000_000_000_000u64)
            ))),
            _ => None,
        }
    }

    /// A block of `prefix` bits at a random aligned place of a VRF range
    /// seen, in CIDR form.
    fn in_vrf_range(&self, rng: &mut StdRng, prefix: u32) -> Option<Value> {
        let all: Vec<&String> = self.vrf_ranges.iter().collect();
        if all.is_empty() {
            return None;
        }
        let range = all[rng.random_range(0..all.len())];
        let (net, bits) = range.split_once('/')?;
        let net: std::net::Ipv4Addr = net.parse().ok()?;
        let bits: u32 = bits.parse().ok()?;
        if bits > prefix {
            return None;
        }
        let blocks = 1u32 << (prefix - bits).min(16);
        let offset = rng.random_range(0..blocks) << (32 - prefix);
        let first = std::net::Ipv4Addr::from(u32::from(net) + offset);
        Some(json!(format!("{first}/{prefix}")))
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

/// The kind and ID an href names before its last one
/// (`/connections/A/ports/B`: `connections`, A).
fn href_parent(href: &str) -> Option<(String, Uuid)> {
    let mut parts = href.trim_end_matches('/').rsplit('/');
    parts.next()?;
    parts.next()?;
    let id = parts.next()?.parse().ok()?;
    Some((parts.next()?.to_string(), id))
}

/// The kind (the path segment before it) and ID an href ends in.
pub fn href_id(href: &str) -> Option<(String, Uuid)> {
    let mut parts = href.trim_end_matches('/').rsplit('/');
    let id = parts.next()?.parse().ok()?;
    let kind = parts.next()?;
    Some((kind.to_string(), id))
}
