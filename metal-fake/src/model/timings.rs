//! How long the device lifecycle takes on the fake's clock.

use std::time::Duration;

/// How long the device lifecycle takes on the fake's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timings {
    /// `queued` lasts this long after a create.
    pub queued: Duration,
    /// Then `provisioning` lasts this long before `active`.
    pub provisioning: Duration,
    /// `powering_off` / `powering_on` last this long.
    pub power: Duration,
    /// `reinstalling` lasts this long.
    pub reinstall: Duration,
    /// After a device is deleted, its reservation becomes provisionable again
    /// after this long.
    pub reservation_release: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Self {
            queued: Duration::from_secs(5),
            provisioning: Duration::from_secs(60),
            power: Duration::from_secs(5),
            reinstall: Duration::from_secs(60),
            reservation_release: Duration::from_secs(30),
        }
    }
}

impl Timings {
    /// Every phase lasts `d` (handy for tests: `Timings::uniform(ms(10))`).
    pub fn uniform(d: Duration) -> Self {
        Self {
            queued: d,
            provisioning: d,
            power: d,
            reinstall: d,
            reservation_release: d,
        }
    }
}
