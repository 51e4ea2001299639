//! What one run should do: [`RunConfig`], and the run's identity.

use std::time::Duration;

use metal_policy::{Waiter, WatchConfig};
use uuid::Uuid;

/// The longest run name: hostnames are `<name>-<n>`, and the API takes
/// hostnames of up to 63 characters in a label.
pub const MAX_NAME_LEN: usize = 40;

/// The tag every device of the run named `name` carries: how a run started
/// again under the same name finds what an earlier one left.
///
/// ```
/// assert_eq!(metal_provision::run_tag("web"), "provision-run=web");
/// ```
pub fn run_tag(name: &str) -> String {
    format!("provision-run={name}")
}

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
    /// A tag put on every device of this run: how the audit, and a later
    /// run of the same name, find them.
    pub run_tag: String,
    /// The project SSH key to ensure before creating devices.
    pub ssh_key: Option<SshKeySpec>,
    /// How to poll a device until it is active, when the run has no watch
    /// ([`RunConfig::watch`] is `None`).
    pub waiter: Waiter,
    /// How the run's one [`metal_policy::DeviceWatch`] of the project
    /// lists and how often (its tag is always the run's tag): every device
    /// is waited for through it, its first list is the run's view of what
    /// earlier runs left, and waiting holds no worker. `None`: each device
    /// is polled on its own by [`RunConfig::waiter`], holding its worker.
    pub watch: Option<WatchConfig>,
    /// How often to read a device while waiting to delete it.
    pub poll_interval: Duration,
    /// How long one device may take to become active, or to be deleted.
    pub active_timeout: Duration,
    /// How many devices are worked on at once (the policy client still
    /// bounds requests in flight). With a watch a device waiting to become
    /// active is not worked on.
    pub workers: usize,
    /// How many more reservations one hostname may try after its device
    /// failed to provision.
    pub failed_retries: usize,
}

/// Why a run name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("run name {name:?} is not 1 to {MAX_NAME_LEN} ASCII letters, digits and inner hyphens")]
pub struct InvalidName {
    /// The name given.
    pub name: String,
}

impl RunConfig {
    /// The run named `provision` with the defaults: Ubuntu 24.04, 30 min to
    /// become active, one worker per device, two more reservations after a
    /// failed device, and a watch with [`WatchConfig::new`]'s settings
    /// ([`Waiter::new`]'s polling without one).
    pub fn new(project: Uuid, devices: usize) -> Self {
        Self::with_name(project, devices, "provision")
    }

    /// The run named `name` (hostnames `<name>-<n>`, tag [`run_tag`]`(name)`)
    /// with the defaults of [`RunConfig::new`].
    ///
    /// ```
    /// let config = metal_provision::RunConfig::named(uuid::Uuid::nil(), 3, "web").unwrap();
    /// assert_eq!(config.hostname(2), "web-2");
    /// assert!(metal_provision::RunConfig::named(uuid::Uuid::nil(), 3, "-web").is_err());
    /// ```
    pub fn named(project: Uuid, devices: usize, name: &str) -> Result<Self, InvalidName> {
        let ok = !name.is_empty()
            && name.len() <= MAX_NAME_LEN
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !name.starts_with('-')
            && !name.ends_with('-');
        if !ok {
            return Err(InvalidName { name: name.into() });
        }
        Ok(Self::with_name(project, devices, name))
    }

    fn with_name(project: Uuid, devices: usize, name: &str) -> Self {
        Self {
            project,
            devices,
            operating_system: "ubuntu_24_04".into(),
            hostname_prefix: name.into(),
            run_tag: run_tag(name),
            ssh_key: None,
            waiter: Waiter::new(),
            watch: Some(WatchConfig::new()),
            poll_interval: Duration::from_secs(1),
            active_timeout: Duration::from_secs(30 * 60),
            workers: devices.max(1),
            failed_retries: 2,
        }
    }

    /// The hostname of the `n`th device.
    pub fn hostname(&self, n: usize) -> String {
        format!("{}-{n}", self.hostname_prefix)
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
