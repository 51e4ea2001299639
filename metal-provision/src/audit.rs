//! Checking a run against the server: devices created twice, devices the
//! run does not know about.

use std::collections::{BTreeMap, HashSet};

use metal_api::types;
use metal_policy::{Error, Metal};
use uuid::Uuid;

/// What the server holds for one run, compared with what the run knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Devices on the server carrying the run's tag.
    pub on_server: usize,
    /// Devices beyond one per hostname: a device created twice.
    pub duplicates: usize,
    /// Devices on the server that the run does not know about.
    pub lost: usize,
}

/// Compares the devices carrying `run_tag` in a list with the IDs the run
/// knows.
pub fn compare(devices: &[types::Device], run_tag: &str, known: &HashSet<Uuid>) -> Audit {
    let ours: Vec<&types::Device> = devices
        .iter()
        .filter(|d| d.tags.iter().any(|t| t == run_tag))
        .collect();
    let mut by_hostname: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &ours {
        *by_hostname
            .entry(d.hostname.as_deref().unwrap_or(""))
            .or_default() += 1;
    }
    Audit {
        on_server: ours.len(),
        duplicates: by_hostname.values().map(|n| n.saturating_sub(1)).sum(),
        lost: ours
            .iter()
            .filter(|d| d.id.is_none_or(|id| !known.contains(&id)))
            .count(),
    }
}

/// Lists the project's devices and compares them with what the run knows.
pub async fn audit(
    metal: &dyn Metal,
    project: Uuid,
    run_tag: &str,
    known: &HashSet<Uuid>,
) -> Result<Audit, Error> {
    let devices = metal.list_devices(project).await?;
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
        };
        assert_eq!(
            shortfall(8, 8, &lost_only).as_deref(),
            Some("the audit found 0 duplicates and 1 lost device")
        );
    }

    fn device(id: Uuid, hostname: &str, tags: &[&str]) -> types::Device {
        serde_json::from_value(serde_json::json!({
            "id": id, "hostname": hostname, "tags": tags
        }))
        .unwrap()
    }

    #[test]
    fn counts_duplicates_and_lost_for_this_run_only() {
        let (a, b, c, d) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        let devices = vec![
            device(a, "p-0", &["run"]),
            device(b, "p-1", &["run"]),
            device(c, "p-1", &["run"]),   // created twice, and unknown
            device(d, "p-0", &["other"]), // another run's
        ];
        let known: HashSet<Uuid> = [a, b].into();
        assert_eq!(
            compare(&devices, "run", &known),
            Audit {
                on_server: 3,
                duplicates: 1,
                lost: 1
            }
        );
        let all: HashSet<Uuid> = [a, b, c].into();
        assert_eq!(compare(&devices, "run", &all).lost, 0);
    }
}
