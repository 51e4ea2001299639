//! Checking a run against the server: devices created twice, devices the
//! run found and kept, hostnames left without a device, and devices of the
//! run's tag under hostnames it was not asked for.

use std::collections::BTreeMap;

use futures::StreamExt;
use metal_api::{types, DeviceState};
use metal_policy::{Error, Metal, WatchConfig};

use crate::controller::Known;

/// What the server holds for one run, compared with what the run knows.
/// Devices being deleted (`deprovisioning`) are left out: they no longer
/// count for their hostname.
///
/// With several runs of one name at work, a device another run made for
/// one of this run's hostnames is neither lost nor unknown: it is that
/// hostname's device, or a duplicate beside it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Devices on the server carrying the run's tag.
    pub on_server: usize,
    /// Devices beyond one per hostname: a hostname's device made twice.
    pub duplicates: usize,
    /// Devices on the server that the run did not create but found and
    /// kept (left by an earlier run of the same name, or made by one
    /// working beside it).
    pub adopted: usize,
    /// Hostnames the run made active that end with no device on the
    /// server: devices lost.
    pub lost: usize,
    /// Devices on the server under hostnames the run was not asked for,
    /// which it neither created nor found.
    pub unknown: usize,
}

/// Compares the devices carrying `run_tag` in a list with what the run
/// knows.
pub fn compare(devices: &[types::Device], run_tag: &str, known: &Known) -> Audit {
    let ours: Vec<&types::Device> = devices
        .iter()
        .filter(|d| d.tags.iter().any(|t| t == run_tag))
        .filter(|d| {
            !matches!(
                d.state_kind(),
                Some(DeviceState::Deprovisioning | DeviceState::Deleted)
            )
        })
        .collect();
    let mut by_hostname: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &ours {
        *by_hostname
            .entry(d.hostname.as_deref().unwrap_or(""))
            .or_default() += 1;
    }
    let found = |d: &&&types::Device| d.id.is_some_and(|id| known.found.contains(&id));
    let created = |d: &&&types::Device| d.id.is_some_and(|id| known.created.contains(&id));
    let asked = |d: &&&types::Device| {
        d.hostname
            .as_deref()
            .is_some_and(|h| known.hostnames.contains_key(h))
    };
    Audit {
        on_server: ours.len(),
        duplicates: by_hostname.values().map(|n| n.saturating_sub(1)).sum(),
        adopted: ours.iter().filter(found).filter(|d| !created(d)).count(),
        lost: known
            .hostnames
            .iter()
            .filter(|(h, active)| active.is_some() && !by_hostname.contains_key(h.as_str()))
            .count(),
        unknown: ours
            .iter()
            .filter(|d| !asked(d) && !found(d) && !created(d))
            .count(),
    }
}

/// Lists the project's devices carrying `run_tag` and compares them with
/// what the run knows. The list is read a page at a time, without the
/// nested objects a device watch leaves out, and keeps of each device
/// only what the comparison reads (ID, hostname, tags, state), so a fleet's
/// audit holds no more than a page of whole devices.
pub async fn audit(
    metal: &dyn Metal,
    project: uuid::Uuid,
    run_tag: &str,
    known: &Known,
) -> Result<Audit, Error> {
    let mut query = WatchConfig::new().tag(run_tag).query;
    query.max_pages = None;
    let mut pages = metal.query_device_pages(project, &query);
    let mut devices = Vec::new();
    while let Some(page) = pages.next().await {
        devices.extend(page?.into_iter().map(|d| types::Device {
            id: d.id,
            hostname: d.hostname,
            tags: d.tags,
            state: d.state,
            ..types::Device::default()
        }));
    }
    Ok(compare(&devices, run_tag, known))
}

/// Why a finished run did not do what it was asked, if it did not: no
/// device active, fewer active than asked for, or an audit that found
/// duplicates, lost hostnames or unknown devices. One sentence (the parts
/// joined by `; `), for the run's `error:` line; `None` when every device
/// asked for is active and the audit is clean.
pub fn shortfall(requested: usize, active: usize, audit: &Audit) -> Option<String> {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut reasons = Vec::new();
    if active == 0 && requested > 0 {
        reasons.push(format!("no device became active (0/{requested})"));
    } else if active < requested {
        reasons.push(format!(
            "only {active} of {requested} devices became active"
        ));
    }
    if audit.duplicates > 0 || audit.lost > 0 {
        reasons.push(format!(
            "the audit found {} and {}",
            plural(audit.duplicates, "duplicate", "duplicates"),
            plural(audit.lost, "lost device", "lost devices"),
        ));
    }
    if audit.unknown > 0 {
        reasons.push(format!(
            "the audit found {} of the run's tag under a hostname it was not asked for",
            plural(audit.unknown, "device", "devices"),
        ));
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn shortfall_names_every_way_a_run_falls_short() {
        let clean = Audit {
            on_server: 8,
            ..Audit::default()
        };
        assert_eq!(shortfall(8, 8, &clean), None);
        assert_eq!(
            shortfall(8, 0, &clean).as_deref(),
            Some("no device became active (0/8)")
        );
        assert_eq!(
            shortfall(100_000, 5, &clean).as_deref(),
            Some("only 5 of 100000 devices became active")
        );
        let dirty = Audit {
            on_server: 9,
            duplicates: 1,
            lost: 2,
            ..Audit::default()
        };
        assert_eq!(
            shortfall(8, 8, &dirty).as_deref(),
            Some("the audit found 1 duplicate and 2 lost devices")
        );
        assert_eq!(
            shortfall(8, 7, &dirty).as_deref(),
            Some(
                "only 7 of 8 devices became active; the audit found 1 duplicate and 2 lost devices"
            )
        );
        let lost_only = Audit {
            on_server: 9,
            duplicates: 0,
            lost: 1,
            ..Audit::default()
        };
        assert_eq!(
            shortfall(8, 8, &lost_only).as_deref(),
            Some("the audit found 0 duplicates and 1 lost device")
        );
        let unknown = Audit {
            on_server: 9,
            unknown: 2,
            ..Audit::default()
        };
        assert_eq!(
            shortfall(8, 8, &unknown).as_deref(),
            Some(
                "the audit found 2 devices of the run's tag under a hostname it was not asked for"
            )
        );
    }

    fn device(id: Uuid, hostname: &str, tags: &[&str], state: &str) -> types::Device {
        serde_json::from_value(serde_json::json!({
            "id": id, "hostname": hostname, "tags": tags, "state": state
        }))
        .unwrap()
    }

    #[test]
    fn counts_duplicates_adopted_lost_and_unknown_for_this_run_only() {
        let [a, b, c, d, e, f, g] = [(); 7].map(|()| Uuid::new_v4());
        let devices = vec![
            device(a, "p-0", &["run"], "active"),
            device(b, "p-1", &["run"], "active"),
            device(c, "p-1", &["run"], "active"), // made twice, by another run
            device(d, "p-0", &["other"], "active"), // another run's
            device(e, "p-2", &["run"], "provisioning"), // found and kept
            device(f, "p-3", &["run"], "deprovisioning"), // being deleted
            device(g, "p-9", &["run"], "active"), // not a hostname asked for
        ];
        let hostnames = |active: &[(&str, Uuid)]| {
            ["p-0", "p-1", "p-2", "p-3"]
                .iter()
                .map(|h| {
                    let kept = active.iter().find(|(k, _)| k == h).map(|(_, id)| *id);
                    (h.to_string(), kept)
                })
                .collect()
        };
        let known = Known {
            created: [a, b].into(),
            found: [e].into(),
            hostnames: hostnames(&[("p-0", a), ("p-1", b), ("p-2", e), ("p-3", f)]),
        };
        // p-3's device is being deleted and nothing replaces it: lost. The
        // device another run made for p-1 is a duplicate, not unknown.
        assert_eq!(
            compare(&devices, "run", &known),
            Audit {
                on_server: 5,
                duplicates: 1,
                adopted: 1,
                lost: 1,
                unknown: 1,
            }
        );
        // A hostname that fell short (no device active) is not lost: the
        // run says it fell short already.
        let short = Known {
            hostnames: hostnames(&[("p-0", a), ("p-1", b), ("p-2", e)]),
            ..known.clone()
        };
        assert_eq!(compare(&devices, "run", &short).lost, 0);
        // A device the run created is never counted as adopted, nor as
        // unknown, whatever its hostname.
        let both = Known {
            created: [a, b, c, e, g].into(),
            found: [e].into(),
            ..known
        };
        let audit = compare(&devices, "run", &both);
        assert_eq!((audit.adopted, audit.unknown), (0, 0));
    }
}
