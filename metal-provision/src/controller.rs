//! The provisioning controller: one device per free hardware reservation,
//! created through [`Metal`], waited on until active.
//!
//! A device whose provisioning fails (it reads `failed`, or the API stops
//! showing it to us with a `403` as it moves failed devices away) is a
//! failure of its reservation, not of the device asked for: the run
//! deletes it, waits until it is gone, reports it ([`Outcome::failed`],
//! [`Progress::failed`]) and tries the same hostname on another free
//! reservation, at most [`RunConfig::failed_retries`] times.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::stream::{self, StreamExt};
use metal_api::{types, DeviceState};
use metal_policy::{Error, KeyOwner, Metal};
use uuid::Uuid;

/// What one run should do.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The project whose reservations are used.
    pub project: Uuid,
    /// How many devices to create.
    pub devices: usize,
    /// The operating system slug for every device.
    pub operating_system: String,
    /// Hostnames are `<prefix>-<n>`.
    pub hostname_prefix: String,
    /// A tag put on every device of this run, so the audit can find them.
    pub run_tag: String,
    /// The project SSH key to ensure before creating devices.
    pub ssh_key: Option<SshKeySpec>,
    /// How often to read a device while waiting for it to become active.
    pub poll_interval: Duration,
    /// How long one device may take to become active.
    pub active_timeout: Duration,
    /// How many devices are worked on at once (the policy client still
    /// bounds requests in flight).
    pub workers: usize,
    /// How many more reservations one hostname may try after its device
    /// failed to provision.
    pub failed_retries: usize,
}

impl RunConfig {
    /// A configuration with a fresh run tag and the defaults: Ubuntu 24.04,
    /// hostnames `provision-<n>`, 1 s polls, 30 min to become active, one
    /// worker per device, two more reservations after a failed device.
    pub fn new(project: Uuid, devices: usize) -> Self {
        Self {
            project,
            devices,
            operating_system: "ubuntu_24_04".into(),
            hostname_prefix: "provision".into(),
            run_tag: format!("provision-run-{}", Uuid::new_v4()),
            ssh_key: None,
            poll_interval: Duration::from_secs(1),
            active_timeout: Duration::from_secs(30 * 60),
            workers: devices.max(1),
            failed_retries: 2,
        }
    }
}

/// An SSH key to ensure in the project.
#[derive(Clone, Debug)]
pub struct SshKeySpec {
    /// The key's label.
    pub label: String,
    /// The public key.
    pub key: String,
}

/// Receives progress as the run goes; the example draws bars from it.
pub trait Progress: Send + Sync {
    /// A device was asked for.
    fn requested(&self) {}
    /// A device was created.
    fn created(&self) {}
    /// A device became active.
    fn active(&self) {}
    /// A reservation was lost to another API user; another one is tried.
    fn race_lost(&self) {}
    /// A device failed to provision; it is deleted and, retries allowing,
    /// another reservation is tried.
    fn failed(&self) {}
}

/// Progress that goes nowhere.
#[derive(Debug, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

/// Why a run could not start, or one device failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The project could not be read (bad endpoint, bad token, unknown ID).
    #[error("cannot read project {project}: {source}")]
    Project {
        /// The project.
        project: Uuid,
        /// Why.
        #[source]
        source: Error,
    },
    /// The SSH key could not be ensured.
    #[error("cannot ensure SSH key {label:?}: {source}")]
    SshKey {
        /// Its label.
        label: String,
        /// Why.
        #[source]
        source: Error,
    },
    /// The reservations could not be listed.
    #[error("cannot list the hardware reservations of project {project}: {source}")]
    Reservations {
        /// The project.
        project: Uuid,
        /// Why.
        #[source]
        source: Error,
    },
    /// Every free reservation was taken before this device got one.
    #[error("no provisionable hardware reservation left for {hostname}")]
    NoReservationLeft {
        /// The device that got none.
        hostname: String,
    },
    /// Creating a device failed.
    #[error("creating {hostname}: {source}")]
    Create {
        /// The device.
        hostname: String,
        /// Why.
        #[source]
        source: Error,
    },
    /// Every device tried for this hostname failed to provision (each is in
    /// [`Outcome::failed`]).
    #[error("{hostname}: {tries} devices failed to provision, the last {last}")]
    ProvisioningFailed {
        /// The device asked for.
        hostname: String,
        /// Devices tried, each on its own reservation.
        tries: usize,
        /// The last one.
        last: Uuid,
    },
    /// Waiting for a device failed.
    #[error("waiting for {hostname} ({id}) to become active: {reason}")]
    NotActive {
        /// The device's hostname.
        hostname: String,
        /// The device.
        id: Uuid,
        /// Why (its state, a timeout, or an API error).
        reason: String,
    },
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Devices asked for.
    pub requested: usize,
    /// Devices created, as the API returned them.
    pub created: Vec<types::Device>,
    /// How many of them became active.
    pub active: usize,
    /// Reservations lost to other API users along the way.
    pub race_lost: usize,
    /// Devices that failed to provision, not in [`Outcome::created`].
    pub failed: Vec<FailedDevice>,
    /// What went wrong for devices that did not become active.
    pub failures: Vec<RunError>,
}

/// A device that failed to provision, and what became of it.
#[derive(Debug)]
pub struct FailedDevice {
    /// Its hostname.
    pub hostname: String,
    /// The device.
    pub id: Uuid,
    /// The reservation it was on.
    pub reservation: Option<Uuid>,
    /// `None` once it is gone (deleted by the run, or taken away by the API
    /// with a `403`); otherwise why it could not be removed (it may still
    /// hold its reservation).
    pub left_behind: Option<String>,
}

impl Outcome {
    /// The IDs of the devices this run created and keeps (failed ones are
    /// in [`Outcome::failed`]).
    pub fn device_ids(&self) -> Vec<Uuid> {
        self.created.iter().filter_map(|d| d.id).collect()
    }

    /// Every device this run created, kept or failed: what an audit should
    /// know.
    pub fn known_ids(&self) -> Vec<Uuid> {
        let failed = self.failed.iter().map(|f| f.id);
        self.device_ids().into_iter().chain(failed).collect()
    }
}

/// Whether a reservation can take a new device now.
pub fn is_free(reservation: &types::HardwareReservation) -> bool {
    reservation.provisionable == Some(true) && reservation.device.is_none()
}

/// Runs the controller: ensures the SSH key, lists free reservations,
/// creates `devices` devices (moving on to another reservation on a lost
/// race), and waits for each to become active.
pub async fn run(
    metal: Arc<dyn Metal>,
    config: &RunConfig,
    progress: Arc<dyn Progress>,
) -> Result<Outcome, RunError> {
    let project = config.project;
    metal
        .get_project(project)
        .await
        .map_err(|source| RunError::Project { project, source })?;

    if let Some(key) = &config.ssh_key {
        let input = types::SshKeyCreateInput {
            label: Some(key.label.clone()),
            key: Some(key.key.clone()),
            instances_ids: Vec::new(),
            tags: Vec::new(),
        };
        metal
            .create_ssh_key(KeyOwner::Project(project), &input)
            .await
            .map_err(|source| RunError::SshKey {
                label: key.label.clone(),
                source,
            })?;
    }

    let reservations = metal
        .list_reservations(project)
        .await
        .map_err(|source| RunError::Reservations { project, source })?;
    let pool: VecDeque<types::HardwareReservation> =
        reservations.into_iter().filter(is_free).collect();
    let pool = Arc::new(Mutex::new(pool));

    let results: Vec<DeviceResult> = stream::iter(0..config.devices)
        .map(|n| {
            let metal = Arc::clone(&metal);
            let pool = Arc::clone(&pool);
            let progress = Arc::clone(&progress);
            async move { provision_one(metal.as_ref(), config, n, &pool, progress.as_ref()).await }
        })
        .buffer_unordered(config.workers.max(1))
        .collect()
        .await;

    let mut outcome = Outcome {
        requested: config.devices,
        ..Outcome::default()
    };
    for r in results {
        outcome.race_lost += r.race_lost;
        outcome.failed.extend(r.failed);
        if let Some(device) = r.device {
            outcome.created.push(device);
        }
        match r.error {
            None => outcome.active += 1,
            Some(e) => outcome.failures.push(e),
        }
    }
    Ok(outcome)
}

struct DeviceResult {
    device: Option<types::Device>,
    race_lost: usize,
    failed: Vec<FailedDevice>,
    error: Option<RunError>,
}

/// The body that creates `hostname` on `reservation`, in the reservation's
/// facility and plan, tagged with the run's tag, built with the generated
/// builder (which checks that every required field is set).
pub fn create_request(
    config: &RunConfig,
    hostname: &str,
    reservation: &types::HardwareReservation,
) -> Result<types::CreateDeviceRequest, types::error::ConversionError> {
    let facility = reservation
        .facility
        .as_ref()
        .and_then(|f| f.code.clone())
        .unwrap_or_default();
    let plan = reservation
        .plan
        .as_ref()
        .and_then(|p| p.slug.clone())
        .unwrap_or_default();
    let id = reservation.id.map(|id| id.to_string()).unwrap_or_default();
    let input: types::DeviceCreateInFacilityInput = types::DeviceCreateInFacilityInput::builder()
        .facility(vec![facility])
        .plan(plan)
        .operating_system(config.operating_system.clone())
        .hostname(hostname.to_string())
        .hardware_reservation_id(id)
        .tags(vec![config.run_tag.clone()])
        .try_into()?;
    Ok(input.into())
}

fn take(pool: &Mutex<VecDeque<types::HardwareReservation>>) -> Option<types::HardwareReservation> {
    // A poisoned pool only means another worker panicked mid-pop; the queue
    // itself is still consistent, so keep using it.
    pool.lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .pop_front()
}

async fn provision_one(
    metal: &dyn Metal,
    config: &RunConfig,
    n: usize,
    pool: &Mutex<VecDeque<types::HardwareReservation>>,
    progress: &dyn Progress,
) -> DeviceResult {
    let hostname = format!("{}-{n}", config.hostname_prefix);
    let mut result = DeviceResult {
        device: None,
        race_lost: 0,
        failed: Vec::new(),
        error: None,
    };
    progress.requested();
    loop {
        let Some(reservation) = take(pool) else {
            result.error = Some(RunError::NoReservationLeft { hostname });
            return result;
        };
        let request = match create_request(config, &hostname, &reservation) {
            Ok(r) => r,
            Err(e) => {
                result.error = Some(RunError::Create {
                    hostname,
                    source: Error::InvalidRequest {
                        operation: metal_api::operation::CREATE_DEVICE.id,
                        reason: e.to_string(),
                    },
                });
                return result;
            }
        };
        let device = match metal.create_device(config.project, &request).await {
            Ok(device) => device,
            Err(Error::RaceLost { .. }) => {
                result.race_lost += 1;
                progress.race_lost();
                continue;
            }
            Err(source) => {
                result.error = Some(RunError::Create { hostname, source });
                return result;
            }
        };
        progress.created();
        let Some(id) = device.id else {
            result.device = Some(device);
            result.error = Some(RunError::NotActive {
                hostname,
                id: Uuid::nil(),
                reason: "the API returned the device without an ID".into(),
            });
            return result;
        };
        match wait_active(metal, id, config).await {
            Ok(()) => {
                progress.active();
                result.device = Some(device);
                return result;
            }
            Err(Waited::Failed { gone }) => {
                progress.failed();
                let left_behind = if gone {
                    None
                } else {
                    remove_failed(metal, id, config).await.err()
                };
                result.failed.push(FailedDevice {
                    hostname: hostname.clone(),
                    id,
                    reservation: reservation.id,
                    left_behind,
                });
                if result.failed.len() > config.failed_retries {
                    result.error = Some(RunError::ProvisioningFailed {
                        hostname,
                        tries: result.failed.len(),
                        last: id,
                    });
                    return result;
                }
            }
            Err(Waited::Other(reason)) => {
                result.device = Some(device);
                result.error = Some(RunError::NotActive {
                    hostname,
                    id,
                    reason,
                });
                return result;
            }
        }
    }
}

/// Why a device did not become active.
enum Waited {
    /// Its provisioning failed; `gone` when the API already took it away
    /// (`403`, as it answers for devices it moved after a failure; Terraform
    /// and metal-cli treat that as gone too).
    Failed { gone: bool },
    /// A timeout or an API error.
    Other(String),
}

async fn wait_active(metal: &dyn Metal, id: Uuid, config: &RunConfig) -> Result<(), Waited> {
    let deadline = tokio::time::Instant::now() + config.active_timeout;
    loop {
        let device = match metal.get_device(id, &metal_policy::Fields::default()).await {
            Ok(device) => device,
            Err(e) if e.status() == Some(403) => return Err(Waited::Failed { gone: true }),
            Err(e) => return Err(Waited::Other(e.to_string())),
        };
        match device.state_kind() {
            Some(DeviceState::Active) => return Ok(()),
            Some(DeviceState::Failed) => return Err(Waited::Failed { gone: false }),
            _ => {}
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Waited::Other(format!(
                "still {} after {:?}",
                device.state.as_deref().unwrap_or("without a state"),
                config.active_timeout
            )));
        }
        tokio::time::sleep(config.poll_interval).await;
    }
}

/// Deletes a failed device and waits until it is gone (`404`, or `403`
/// once the API has taken it away), so that an audit does not find it
/// beside its replacement; at most [`RunConfig::active_timeout`].
async fn remove_failed(metal: &dyn Metal, id: Uuid, config: &RunConfig) -> Result<(), String> {
    let gone = |e: &Error| matches!(e.status(), Some(403 | 404));
    match metal.delete_device(id).await {
        Ok(()) => {}
        Err(e) if gone(&e) => return Ok(()),
        Err(e) => return Err(format!("deleting it: {e}")),
    }
    let deadline = tokio::time::Instant::now() + config.active_timeout;
    loop {
        match metal.get_device(id, &metal_policy::Fields::default()).await {
            Err(e) if gone(&e) => return Ok(()),
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

/// Deletes the given devices, one after the other; returns how many were
/// deleted. A device the API will not delete yet (`422` while it is still
/// queued, provisioning or reinstalling) is tried again every
/// [`RunConfig::poll_interval`], for at most [`RunConfig::active_timeout`];
/// a device already gone (`404`) counts as deleted. Any other refusal (a
/// locked device's `422`, say), or the wait running out, ends the cleanup
/// with that refusal.
pub async fn cleanup(metal: &dyn Metal, ids: &[Uuid], config: &RunConfig) -> Result<usize, Error> {
    let mut deleted = 0;
    for id in ids {
        let deadline = tokio::time::Instant::now() + config.active_timeout;
        loop {
            match metal.delete_device(*id).await {
                Ok(()) => break,
                Err(e) if e.is_not_found() => break,
                Err(e) if e.status() == Some(422) && tokio::time::Instant::now() < deadline => {
                    if !still_provisioning(metal, *id).await {
                        return Err(e);
                    }
                    tokio::time::sleep(config.poll_interval).await;
                }
                Err(e) => return Err(e),
            }
        }
        deleted += 1;
    }
    Ok(deleted)
}

/// Whether the device is in a state the API refuses deletes in until it
/// ends: queued, provisioning or reinstalling.
async fn still_provisioning(metal: &dyn Metal, id: Uuid) -> bool {
    let busy = [
        DeviceState::Queued,
        DeviceState::Provisioning,
        DeviceState::Reinstalling,
    ];
    metal
        .get_device(id, &metal_policy::Fields::default())
        .await
        .is_ok_and(|d| d.state_kind().is_some_and(|s| busy.contains(&s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body as the controller built it before, with `json!`.
    fn by_json(
        config: &RunConfig,
        hostname: &str,
        facility: &str,
        plan: &str,
        id: &str,
    ) -> types::CreateDeviceRequest {
        serde_json::from_value(serde_json::json!({
            "facility": [facility],
            "plan": plan,
            "operating_system": config.operating_system,
            "hostname": hostname,
            "hardware_reservation_id": id,
            "tags": [config.run_tag],
        }))
        .unwrap()
    }

    #[test]
    fn the_builder_makes_the_body_json_made() {
        let config = RunConfig::new(Uuid::new_v4(), 1);
        let id = Uuid::new_v4();
        let reservation: types::HardwareReservation = serde_json::from_value(serde_json::json!({
            "id": id,
            "facility": {"code": "da11"},
            "plan": {"slug": "c3.small.x86"},
            "provisionable": true,
        }))
        .unwrap();
        let built = create_request(&config, "provision-3", &reservation).unwrap();
        assert_eq!(
            built,
            by_json(
                &config,
                "provision-3",
                "da11",
                "c3.small.x86",
                &id.to_string()
            )
        );
        assert!(matches!(
            built,
            types::CreateDeviceRequest::FacilityInput(_)
        ));
        // The same bytes on the wire.
        assert_eq!(
            serde_json::to_value(&built).unwrap(),
            serde_json::to_value(by_json(
                &config,
                "provision-3",
                "da11",
                "c3.small.x86",
                &id.to_string()
            ))
            .unwrap()
        );

        // A reservation without facility, plan or ID: empty strings, as before
        // (the API refuses them, with its own message).
        let bare = types::HardwareReservation::default();
        assert_eq!(
            create_request(&config, "provision-0", &bare).unwrap(),
            by_json(&config, "provision-0", "", "", "")
        );
    }
}
