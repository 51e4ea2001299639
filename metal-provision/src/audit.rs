//! Checking a run against the server: devices created twice, devices the
//! run found and kept, devices the run does not know about.

use std::collections::BTreeMap;

use metal_api::{types, DeviceState};
use metal_policy::{DeviceFilter, Error, Metal};

use crate::controller::Known;

/// What the server holds for one run, compared with what the run knows.
/// Devices being deleted (`deprovisioning`) are left out: they no longer
/// count for their hostname.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Devices on the server carrying the run's tag.
    pub on_server: usize,
    /// Devices beyond one per hostname: a device created twice.
    pub duplicates: usize,
    /// Devices on the server that the run did not create but found and
    /// kept (left by an earlier run of the same name).
    pub adopted: usize,
    /// Devices on the server that the run neither created nor found.
    pub lost: usize,
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
    Audit {
        on_server: ours.len(),
        duplicates: by_hostname.values().map(|n| n.saturating_sub(1)).sum(),
        adopted: ours.iter().filter(found).filter(|d| !created(d)).count(),
        lost: ours.iter().filter(|d| !found(d) && !created(d)).count(),
    }
}

/// Lists the project's devices carrying `run_tag` and compares them with
/// what the run knows.
pub async fn audit(
    metal: &dyn Metal,
    project: uuid::Uuid,
    run_tag: &str,
    known: &Known,
) -> Result<Audit, Error> {
    let devices = metal
        .list_devices_matching(project, &DeviceFilter::tag(run_tag))
        .await?;
    Ok(compare(&devices, run_tag, known))
}

/// Why a finished run did not do what it was asked, if it did not: no
/// device active, fewer active than asked for, or an audit that found
/// duplicates or lost devices. One sentence (the parts joined by `; `), for
/// the run's `error:` line; `None` when every device asked for is active and
/// the audit is clean.
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
    }

    fn device(id: Uuid, hostname: &str, tags: &[&str], state: &str) -> types::Device {
        serde_json::from_value(serde_json::json!({
            "id": id, "hostname": hostname, "tags": tags, "state": state
        }))
        .unwrap()
    }

    #[test]
    fn counts_duplicates_adopted_and_lost_for_this_run_only() {
        let [a, b, c, d, e, f] = [(); 6].map(|()| Uuid::new_v4());
        let devices = vec![
            device(a, "p-0", &["run"], "active"),
            device(b, "p-1", &["run"], "active"),
            device(c, "p-1", &["run"], "active"), // created twice, and unknown
            device(d, "p-0", &["other"], "active"), // another run's
            device(e, "p-2", &["run"], "provisioning"), // found and kept
            device(f, "p-2", &["run"], "deprovisioning"), // being deleted
        ];
        let known = Known {
            created: [a, b].into(),
            found: [e].into(),
        };
        assert_eq!(
            compare(&devices, "run", &known),
            Audit {
                on_server: 4,
                duplicates: 1,
                adopted: 1,
                lost: 1
            }
        );
        let all = Known {
            created: [a, b, c].into(),
            found: [e].into(),
        };
        assert_eq!(compare(&devices, "run", &all).lost, 0);
        // A device the run created is never counted as adopted.
        let both = Known {
            created: [a, b, c, e].into(),
            found: [e].into(),
        };
        assert_eq!(compare(&devices, "run", &both).adopted, 0);
    }
}
