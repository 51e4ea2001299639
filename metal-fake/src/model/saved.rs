//! What a change of the world is in its document: the entries the durable
//! log (`crate::state`) writes for the records the journal saw change,
//! and how those entries are found again in a document (by section and
//! key) to replace them.
//!
//! A change is the new state of whatever the world document holds of the
//! record (never the request that made it): one section of the document
//! (`devices`, `ip_reservations`, ...), a key in it, and the entries with
//! that key now (none: it is gone). Most entries are keyed by their `id`;
//! a device's ports by their `device` (all of them at once: a fresh port
//! is not in the document); a capacity pool by its place and plan; the
//! tokens are the whole section. An IP assignment is in its reservation's
//! entry, whose own change the journal records with it.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::journal::Touched;
use super::relations::Kind;
use super::World;

/// One change as the document sees it: the entries of `section` with
/// `key` are now `entries` (`key` absent: the whole section is).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Saved {
    /// The section: a field of [`crate::document::WorldDoc`].
    pub(crate) section: &'static str,
    /// The key of the entries in it ([`key_of`]).
    pub(crate) key: Option<String>,
    /// The entries with that key now.
    pub(crate) entries: Vec<Value>,
}

/// The sections whose entries count time from the instant they were
/// written ([`age`] moves them on).
pub(crate) const AGED: &[&str] = &["devices", "reservations"];

/// The key of `entry` in `section`, as [`Saved::key`] names it.
pub(crate) fn key_of(section: &str, entry: &Value) -> Option<String> {
    let text = |v: &Value| v.as_str().map(str::to_string);
    match section {
        "ports" => text(&entry["device"]),
        "capacity" => Some(pool_key(
            entry["metro"].as_str(),
            entry["facility"].as_str(),
            entry["plan"].as_str().unwrap_or_default(),
        )),
        _ => text(&entry["id"]),
    }
}

fn pool_key(metro: Option<&str>, facility: Option<&str>, plan: &str) -> String {
    match (metro, facility) {
        (Some(m), _) => format!("metro {m} plan {plan}"),
        (None, f) => format!("facility {} plan {plan}", f.unwrap_or_default()),
    }
}

/// `entry` of `section`, written `seconds` ago, as a document written now
/// would have it: a device further into its phase, a reservation nearer
/// its release (released when the time left runs out).
pub(crate) fn age(section: &str, entry: &mut Value, seconds: f64) {
    let Some(fields) = entry.as_object_mut() else {
        return;
    };
    match section {
        "devices" => {
            if let Some(e) = fields.get("state_elapsed_seconds").and_then(Value::as_f64) {
                fields.insert("state_elapsed_seconds".into(), (e + seconds).into());
            }
        }
        "reservations" => {
            if let Some(left) = fields.get("released_in_seconds").and_then(Value::as_f64) {
                if left > seconds {
                    fields.insert("released_in_seconds".into(), (left - seconds).into());
                } else {
                    fields.remove("released_in_seconds");
                }
            }
        }
        _ => {}
    }
}

/// What a saved world leaves out that a replayed one may still name: the
/// devices a spot market request or a batch made that are gone (their
/// removal changes the device, not the list that named it), and the events
/// the journal's ring has dropped since (it keeps the newest
/// [`MAX_JOURNAL`](super::bounds::MAX_JOURNAL)).
pub(crate) fn prune(doc: &mut Value) {
    if let Some(events) = doc.get_mut("events").and_then(Value::as_array_mut) {
        let over = events.len().saturating_sub(super::bounds::MAX_JOURNAL);
        events.drain(..over);
    }
    let devices: HashSet<String> = doc
        .get("devices")
        .and_then(Value::as_array)
        .map(|all| all.iter().filter_map(|d| key_of("devices", d)).collect())
        .unwrap_or_default();
    for section in ["spot_market_requests", "batches"] {
        let entries = doc.get_mut(section).and_then(Value::as_array_mut);
        for entry in entries.into_iter().flatten() {
            if let Some(named) = entry["devices"].as_array_mut() {
                named.retain(|d| d.as_str().is_some_and(|d| devices.contains(d)));
            }
        }
    }
}

/// `value` as JSON: the world's records always encode (their maps have
/// string keys, their numbers are finite).
fn json<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The entry of a record found (none when it is gone).
fn one<T: Serialize>(found: Option<T>) -> Vec<Value> {
    found.map(json).into_iter().collect()
}

impl World {
    /// What `touched` (the journal's feed, in order) changed in the world's
    /// document at `now`: one [`Saved`] a section and key, in the order
    /// first touched, each with the entries as they are now.
    pub(crate) fn saved(&self, touched: &[Touched], now: Instant) -> Vec<Saved> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for t in touched {
            let Some((section, key)) = self.saved_place(*t) else {
                continue;
            };
            if let Some((Kind::Project | Kind::Organization, true)) = match t {
                Touched::Record { kind, deleted, .. } => Some((*kind, *deleted)),
                Touched::Pool(_) | Touched::Entry(_) => None,
            } {
                // A token's scope drops a deleted project or organisation
                // (outside the journal: tokens are no table).
                if seen.insert(("tokens", None)) {
                    out.push(("tokens", None));
                }
            }
            if seen.insert((section, key.clone())) {
                out.push((section, key));
            }
        }
        out.into_iter()
            .map(|(section, key)| Saved {
                entries: self.saved_entries(section, key.as_deref(), now),
                section,
                key,
            })
            .collect()
    }

    /// The section and key of what `t` touched (`None`: nothing of the
    /// document, or within another entry the journal saw change too).
    fn saved_place(&self, t: Touched) -> Option<(&'static str, Option<String>)> {
        let (kind, id, device) = match t {
            Touched::Pool(i) => {
                let p = self.capacity.pool(i)?;
                let key = pool_key(p.metro.as_deref(), p.facility.as_deref(), &p.plan);
                return Some(("capacity", Some(key)));
            }
            Touched::Entry(id) => {
                let e = self.journal.get(id).filter(|e| super::event::is_event(e))?;
                return Some(("events", Some(e.id.to_string())));
            }
            Touched::Record {
                kind, id, device, ..
            } => (kind, id, device),
        };
        let section = match kind {
            Kind::Organization => "organizations",
            Kind::Project => "projects",
            Kind::Device => "devices",
            Kind::HardwareReservation => "reservations",
            Kind::SshKey => "ssh_keys",
            Kind::IpReservation => "ip_reservations",
            // In its reservation's entry: changed with it (assigned,
            // unassigned), else named here.
            Kind::IpAssignment => {
                let r = self.ips.assignments().get(&id)?.reservation;
                return Some(("ip_reservations", Some(r.to_string())));
            }
            Kind::VirtualNetwork => "virtual_networks",
            Kind::Port => return Some(("ports", Some(device?.to_string()))),
            Kind::BgpSession => "bgp_sessions",
            Kind::MetalGateway => "metal_gateways",
            Kind::Vrf => "vrfs",
            Kind::VrfRoute => "vrf_routes",
            Kind::BgpDynamicNeighbor => "bgp_dynamic_neighbors",
            Kind::GlobalBgpRange => "global_bgp_ranges",
            Kind::ElasticIp => "elastic_ips",
            Kind::Interconnection => "interconnections",
            Kind::VirtualCircuit => "virtual_circuits",
            Kind::PortVlanBatch => "port_vlan_batches",
            Kind::Token => return Some(("tokens", None)),
            Kind::User => "users",
            Kind::Membership => "memberships",
            Kind::ApiKey => "api_keys",
            Kind::Invitation => "invitations",
            Kind::Transfer => "transfers",
            Kind::Email => "emails",
            Kind::PaymentMethod => "payment_methods",
            Kind::License => "licenses",
            Kind::SpotMarketRequest => "spot_market_requests",
            Kind::Batch => "batches",
            Kind::SelfServiceReservation => "self_service_reservations",
        };
        Some((section, Some(id.to_string())))
    }

    /// The entries of `section` with `key` now.
    fn saved_entries(&self, section: &str, key: Option<&str>, now: Instant) -> Vec<Value> {
        let Some(key) = key else {
            // The tokens, whole.
            return self.tokens.iter().map(|t| json(&t.rec)).collect();
        };
        if section == "capacity" {
            return self
                .capacity
                .pools()
                .iter()
                .filter(|p| pool_key(p.metro.as_deref(), p.facility.as_deref(), &p.plan) == key)
                .map(json)
                .collect();
        }
        let Ok(id) = Uuid::try_parse(key) else {
            return Vec::new();
        };
        match section {
            "events" => one(self.journal.get(id).map(|e| super::event::saved(self, e))),
            "organizations" => one(self.organizations.get(&id).map(|k| &k.rec)),
            "projects" => one(self.projects.get(&id).map(|k| &k.rec)),
            "devices" => one(self.devices.get(&id).map(|d| super::device::entry(d, now))),
            "reservations" => one(self
                .reservations
                .get(&id)
                .map(|r| super::hardware_reservation::entry(r, now))),
            "ssh_keys" => one(self.ssh_keys.get(&id).map(|k| &k.rec)),
            "ip_reservations" => one(self
                .ips
                .reservations()
                .get(&id)
                .map(|r| super::ip_reservation::entry(self, r))),
            "virtual_networks" => one(self.vlans.get(&id).map(|k| &k.rec)),
            "ports" => self.saved_ports_of(id).into_iter().map(json).collect(),
            "bgp_sessions" => one(self.bgp_sessions.get(&id).map(|k| &k.rec)),
            "metal_gateways" => one(self.gateways.get(&id).map(|k| &k.rec)),
            "vrfs" => one(self.vrfs.get(&id).map(|k| &k.rec)),
            "vrf_routes" => one(self.vrf_routes.get(&id).map(|k| &k.rec)),
            "bgp_dynamic_neighbors" => one(self.bgp_dynamic_neighbors.get(&id).map(|k| &k.rec)),
            "global_bgp_ranges" => one(self.global_bgp_ranges.get(&id).map(|k| &k.rec)),
            "elastic_ips" => one(self.elastic_ips.get(&id).map(|k| &k.rec)),
            "interconnections" => one(self.interconnections.get(&id).map(|k| &k.rec)),
            "virtual_circuits" => one(self.virtual_circuits.get(&id).map(|k| &k.rec)),
            "port_vlan_batches" => one(self.port_vlan_batches.get(&id).map(|k| &k.rec)),
            "users" => one(self.users.get(&id).map(|k| &k.rec)),
            "memberships" => one(self.memberships.get(&id).map(|k| &k.rec)),
            "api_keys" => one(self.api_keys.get(&id).map(|k| &k.rec)),
            "invitations" => one(self.invitations.get(&id).map(|k| &k.rec)),
            "transfers" => one(self.transfers.get(&id).map(|k| &k.rec)),
            "emails" => one(self.emails.get(&id).map(|k| &k.rec)),
            "payment_methods" => one(self.payment_methods.get(&id).map(|k| &k.rec)),
            "licenses" => one(self.licenses.get(&id).map(|k| &k.rec)),
            "spot_market_requests" => one(self
                .spot_requests
                .get(&id)
                .map(|r| super::compute::spot_market::request::entry(self, r))),
            "batches" => one(self
                .batches
                .get(&id)
                .map(|b| super::compute::batch::entry(self, b))),
            "self_service_reservations" => {
                one(self.self_service_reservations.get(&id).map(|k| &k.rec))
            }
            _ => Vec::new(),
        }
    }
}
