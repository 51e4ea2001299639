//! Deleting devices: failed ones and duplicates during a run, duplicates
//! another run of the name made after this one settled
//! ([`remove_duplicates`]), and every kept one in [`cleanup`].

use std::collections::HashMap;

use metal_api::{types, DeviceState};
use metal_policy::{DeviceFilter, Error, Fields, Metal};
use uuid::Uuid;

use super::survivor::behind;
use super::{Outcome, RunConfig};

/// Whether an error says a failed device is gone for us: `404`, or the
/// `403` the API answers for a failed device it has taken away (Terraform
/// and metal-cli treat that as gone too).
fn failed_gone(e: &Error) -> bool {
    matches!(e.status(), Some(403 | 404))
}

/// Deletes `id`, trying again every [`RunConfig::poll_interval`] while the
/// API refuses (`422`) because the device is still queued, provisioning or
/// reinstalling, for at most [`RunConfig::active_timeout`]. A device
/// already gone (`404`) counts as deleted. A refusal whose cause is gone by
/// the time the device is read (it finished provisioning in between) is
/// tried again at once; a refusal of a device that was not provisioning
/// before it either (a locked device's `422`, say), or the wait running
/// out, is returned.
pub(super) async fn delete_when_possible(
    metal: &dyn Metal,
    id: Uuid,
    config: &RunConfig,
) -> Result<(), Error> {
    let deadline = tokio::time::Instant::now() + config.active_timeout;
    // The last refusal came while the device read as not provisioning.
    let mut refused_idle = false;
    loop {
        match metal.delete_device(id).await {
            Ok(()) => return Ok(()),
            Err(e) if e.is_not_found() => return Ok(()),
            Err(e) if e.status() == Some(422) && tokio::time::Instant::now() < deadline => {
                match still_provisioning(metal, id).await {
                    Some(true) => {
                        refused_idle = false;
                        tokio::time::sleep(config.poll_interval).await;
                    }
                    // Not provisioning now: the refusal's cause may have
                    // ended between the delete and the read, so once more;
                    // refused twice so, the refusal is not about it.
                    Some(false) if refused_idle => return Err(e),
                    Some(false) => refused_idle = true,
                    // The read got no answer: wait, and ask again.
                    None => tokio::time::sleep(config.poll_interval).await,
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// Deletes a failed device and waits until it is gone (`404`, or `403`
/// once the API has taken it away), so that an audit does not find it
/// beside its replacement; at most [`RunConfig::active_timeout`].
pub(super) async fn remove_failed(
    metal: &dyn Metal,
    id: Uuid,
    config: &RunConfig,
) -> Result<(), String> {
    match delete_when_possible(metal, id, config).await {
        Ok(()) => {}
        Err(e) if failed_gone(&e) => return Ok(()),
        Err(e) => return Err(format!("deleting it: {e}")),
    }
    let deadline = tokio::time::Instant::now() + config.active_timeout;
    loop {
        match metal.get_device(id, &Fields::default()).await {
            Err(e) if failed_gone(&e) => return Ok(()),
            Err(e) => return Err(format!("waiting for it to go: {e}")),
            Ok(d) if tokio::time::Instant::now() >= deadline => {
                return Err(format!(
                    "still {} after {:?}",
                    d.state.as_deref().unwrap_or("without a state"),
                    config.active_timeout
                ))
            }
            Ok(_) => tokio::time::sleep(config.poll_interval).await,
        }
    }
}

/// Deletes, for every hostname the run made active, the other devices of
/// its tag and hostname that one list of them shows, when the run's device
/// is active and still the survivor there (see the controller's docs):
/// what another run of the same name created after this one settled, and
/// has not removed yet. Each is deleted as [`cleanup`] deletes, and added
/// to [`Outcome::removed`]; returns how many.
///
/// A run that ends while another of its name still works may meet such a
/// device in its audit; this settles it from the same rule every run
/// applies, without waiting for the other run.
pub async fn remove_duplicates(
    metal: &dyn Metal,
    config: &RunConfig,
    outcome: &mut Outcome,
) -> Result<usize, Error> {
    let listed = metal
        .list_devices_matching(config.project, &DeviceFilter::tag(config.run_tag.clone()))
        .await?;
    let mut by_hostname: HashMap<String, Vec<types::Device>> = HashMap::new();
    for d in listed {
        let tagged = d.tags.contains(&config.run_tag);
        if let (true, Some(h)) = (tagged, d.hostname.clone()) {
            by_hostname.entry(h).or_default().push(d);
        }
    }
    let mut removed = 0;
    for (hostname, kept) in &outcome.hostnames {
        let (Some(kept), Some(devices)) = (kept, by_hostname.remove(hostname)) else {
            continue;
        };
        for id in behind(devices, *kept) {
            delete_when_possible(metal, id, config).await?;
            outcome.removed.push(id);
            removed += 1;
        }
    }
    Ok(removed)
}

/// Deletes the given devices, one after the other; returns how many were
/// deleted. A device the API will not delete yet (`422` while it is still
/// queued, provisioning or reinstalling) is tried again every
/// [`RunConfig::poll_interval`], for at most [`RunConfig::active_timeout`];
/// a device already gone (`404`) counts as deleted. Any other refusal (a
/// locked device's `422`, say), or the wait running out, ends the cleanup
/// with that refusal.
pub async fn cleanup(metal: &dyn Metal, ids: &[Uuid], config: &RunConfig) -> Result<usize, Error> {
    for id in ids {
        delete_when_possible(metal, *id, config).await?;
    }
    Ok(ids.len())
}

/// Whether the device is in a state the API refuses deletes in until it
/// ends: queued, provisioning or reinstalling; `None` when the read fails.
async fn still_provisioning(metal: &dyn Metal, id: Uuid) -> Option<bool> {
    let busy = [
        DeviceState::Queued,
        DeviceState::Provisioning,
        DeviceState::Reinstalling,
    ];
    metal
        .get_device(id, &Fields::default())
        .await
        .ok()
        .map(|d| d.state_kind().is_some_and(|s| busy.contains(&s)))
}
