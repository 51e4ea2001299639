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

#[cfg(test)]
mod tests {
    use super::*;

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
