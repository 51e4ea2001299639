//! The log's records, and their replay onto the snapshot: each change
//! replaces the entries of its section and key, in order; then the
//! entries that count time are moved on to the last record's instant,
//! and what a saved world leaves out is left out.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::saved::{age, key_of, prune, AGED};

/// The version of the log's records this fake writes and reads.
pub(crate) const VERSION: u32 = 1;

/// The first record of a log: which snapshot it follows, and when that
/// snapshot was written.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Header {
    /// [`VERSION`].
    pub(crate) metal_fake_log: u32,
    /// The CRC-32 of the snapshot's bytes: a log follows that snapshot
    /// alone.
    pub(crate) snapshot_crc: u32,
    /// When the snapshot was written, on the fake's clock as its
    /// timestamps show it (milliseconds since the Unix epoch).
    pub(crate) at_ms: i64,
}

/// One record: what one lock of the world changed, written before the
/// lock was let go.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Record {
    /// 1 for the first after the header, one more for each.
    pub(crate) seq: u64,
    /// When it was written, as [`Header::at_ms`].
    pub(crate) at_ms: i64,
    /// The changes, each a section's entries with one key.
    pub(crate) changes: Vec<Change>,
}

/// The entries of `section` with `key` are now `entries` (none: gone;
/// `key` absent: the whole section).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Change {
    /// A field of the world document.
    pub(crate) section: String,
    /// The entries' key (an ID; a port's device; a pool's place and plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) key: Option<String>,
    /// The entries with that key now.
    pub(crate) entries: Vec<Value>,
}

/// The entries of one key in a section, and when they were written.
struct Slot {
    at_ms: i64,
    entries: Vec<Value>,
}

/// A section of the document, by key, in the document's order.
struct Section {
    slots: Vec<Slot>,
    by_key: HashMap<String, usize>,
}

impl Section {
    /// The section `name` of `doc` (taken out of it), written at `at_ms`.
    fn take(doc: &mut Value, name: &str, at_ms: i64) -> Self {
        let mut section = Section {
            slots: Vec::new(),
            by_key: HashMap::new(),
        };
        let entries = match doc.get_mut(name).map(Value::take) {
            Some(Value::Array(entries)) => entries,
            _ => Vec::new(),
        };
        for entry in entries {
            match key_of(name, &entry) {
                Some(key) => match section.by_key.get(&key) {
                    Some(i) => section.slots[*i].entries.push(entry),
                    None => {
                        section.by_key.insert(key, section.slots.len());
                        section.slots.push(Slot {
                            at_ms,
                            entries: vec![entry],
                        });
                    }
                },
                None => section.slots.push(Slot {
                    at_ms,
                    entries: vec![entry],
                }),
            }
        }
        section
    }

    /// The entries with `key` are now `entries`, written at `at_ms`: in
    /// the place of those they replace, else after every other.
    fn set(&mut self, key: Option<&str>, entries: Vec<Value>, at_ms: i64) {
        let slot = Slot { at_ms, entries };
        match key {
            None => {
                self.slots = vec![slot];
                self.by_key.clear();
            }
            Some(key) => match self.by_key.get(key) {
                Some(i) => self.slots[*i] = slot,
                None => {
                    self.by_key.insert(key.to_string(), self.slots.len());
                    self.slots.push(slot);
                }
            },
        }
    }

    /// Its entries in order, each as if written at `now_ms`.
    fn entries(self, name: &str, now_ms: i64) -> Vec<Value> {
        let aged = AGED.contains(&name);
        self.slots
            .into_iter()
            .flat_map(|slot| {
                let seconds = (now_ms - slot.at_ms).max(0) as f64 / 1000.0;
                slot.entries.into_iter().map(move |mut entry| {
                    if aged {
                        age(name, &mut entry, seconds);
                    }
                    entry
                })
            })
            .collect()
    }
}

/// `snapshot` (an object: a world document written at `base_ms`) with
/// `records` applied in order, as a document written at the last record's
/// instant.
pub(crate) fn replay(mut snapshot: Value, base_ms: i64, records: &[Record]) -> Value {
    let now_ms = records.last().map_or(base_ms, |r| r.at_ms).max(base_ms);
    let mut sections: HashMap<String, Section> = HashMap::new();
    for name in AGED {
        sections.insert(
            name.to_string(),
            Section::take(&mut snapshot, name, base_ms),
        );
    }
    for record in records {
        for change in &record.changes {
            let section = sections
                .entry(change.section.clone())
                .or_insert_with(|| Section::take(&mut snapshot, &change.section, base_ms));
            section.set(change.key.as_deref(), change.entries.clone(), record.at_ms);
        }
    }
    if let Some(fields) = snapshot.as_object_mut() {
        for (name, section) in sections {
            let entries = section.entries(&name, now_ms);
            fields.insert(name, Value::Array(entries));
        }
    }
    prune(&mut snapshot);
    snapshot
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(section: &str, key: Option<&str>, entries: Value) -> Change {
        Change {
            section: section.into(),
            key: key.map(String::from),
            entries: serde_json::from_value(entries).unwrap(),
        }
    }

    #[test]
    fn changes_replace_their_entries_in_place_append_new_ones_and_remove_gone_ones() {
        let snapshot = json!({
            "ssh_keys": [{"id": "a", "label": "1"}, {"id": "b", "label": "2"}, {"id": "c", "label": "3"}],
            "ports": [{"device": "d", "name": "eth0"}, {"device": "d", "name": "eth1"}],
            "tokens": [{"token": "t"}],
            "projects": [{"id": "p"}]
        });
        let records = vec![
            Record {
                seq: 1,
                at_ms: 0,
                changes: vec![
                    change("ssh_keys", Some("b"), json!([{"id": "b", "label": "two"}])),
                    change("ssh_keys", Some("e"), json!([{"id": "e", "label": "new"}])),
                    change("ssh_keys", Some("a"), json!([])),
                    change(
                        "ports",
                        Some("d"),
                        json!([{"device": "d", "name": "bond0"}]),
                    ),
                ],
            },
            Record {
                seq: 2,
                at_ms: 0,
                changes: vec![
                    change("tokens", None, json!([])),
                    change(
                        "ssh_keys",
                        Some("e"),
                        json!([{"id": "e", "label": "newer"}]),
                    ),
                ],
            },
        ];
        let doc = replay(snapshot, 0, &records);
        assert_eq!(
            doc["ssh_keys"],
            json!([{"id": "b", "label": "two"}, {"id": "c", "label": "3"}, {"id": "e", "label": "newer"}])
        );
        assert_eq!(doc["ports"], json!([{"device": "d", "name": "bond0"}]));
        assert_eq!(doc["tokens"], json!([]));
        assert_eq!(doc["projects"], json!([{"id": "p"}]), "untouched");
    }

    #[test]
    fn time_counting_entries_move_on_to_the_last_record_and_gone_devices_leave_the_lists() {
        let snapshot = json!({
            "devices": [{"id": "d1", "state_elapsed_seconds": 10.0}, {"id": "d2", "state_elapsed_seconds": 0.0}],
            "reservations": [{"id": "r1", "released_in_seconds": 30.0}, {"id": "r2", "released_in_seconds": 5.0}],
            "spot_market_requests": [{"id": "s", "devices": ["d1", "d2"]}]
        });
        let records = vec![
            Record {
                seq: 1,
                at_ms: 4_000,
                changes: vec![change(
                    "devices",
                    Some("d2"),
                    json!([{"id": "d2", "state_elapsed_seconds": 1.0}]),
                )],
            },
            Record {
                seq: 2,
                at_ms: 10_000,
                changes: vec![change("devices", Some("d1"), json!([]))],
            },
        ];
        let doc = replay(snapshot, 0, &records);
        // Written at 0 s and 4 s; now is the last record's 10 s.
        assert_eq!(
            doc["devices"],
            json!([{"id": "d2", "state_elapsed_seconds": 7.0}])
        );
        assert_eq!(
            doc["reservations"],
            json!([{"id": "r1", "released_in_seconds": 20.0}, {"id": "r2"}])
        );
        assert_eq!(doc["spot_market_requests"][0]["devices"], json!(["d2"]));
    }
}
