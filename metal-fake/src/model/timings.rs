//! How long the device lifecycle takes on the fake's clock.

use std::time::Duration;

/// How long the device lifecycle takes on the fake's clock.
///
/// The defaults follow the real API's order of magnitude where there is
/// evidence (see [`crate::fidelity`]); tests shorten them, usually with
/// struct update syntax:
///
/// ```
/// use std::time::Duration;
/// let t = metal_fake::Timings {
///     reservation_release: Duration::from_millis(50),
///     ..metal_fake::Timings::uniform(Duration::from_millis(10))
/// };
/// assert_eq!(t.deprovisioning, Duration::from_millis(10));
/// assert_eq!(metal_fake::Timings::default().reservation_release, Duration::from_secs(240));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timings {
    /// `queued` lasts this long after a create.
    pub queued: Duration,
    /// Then `provisioning` lasts this long before `active` (or `failed`).
    pub provisioning: Duration,
    /// `powering_off` / `powering_on` last this long.
    pub power: Duration,
    /// `reinstalling` lasts this long.
    pub reinstall: Duration,
    /// After a delete, the device reads as `deprovisioning` this long, then
    /// it is gone (`404`). Zero, the default, is gone at once, as the real
    /// API's reads after a delete are (Monogon's live test, Terraform's
    /// destroy checks); a lag models the old `deprovisioning` reads.
    pub deprovisioning: Duration,
    /// After a device is deleted, its reservation becomes provisionable again
    /// this long after the delete (default 4 minutes, as packngo issue 139
    /// reports; never before the device is gone).
    pub reservation_release: Duration,
    /// For this long after a reservation's release, the project's
    /// reservation list still shows it as not provisionable while reading
    /// the reservation itself says it is (zero, the default: no stale
    /// reads).
    pub stale_reservation_list: Duration,
    /// When set, a device on a hardware reservation whose provisioning
    /// failed leaves the project this long after it failed: from then on
    /// it answers `403` ("You are not authorized to view this device"), is
    /// no longer listed, and its reservation is released. `None` (the
    /// default): it stays in the project, blocking its reservation, until
    /// it is deleted, as terraform-provider-equinix issue 188 (Equinix,
    /// 2021) says failed reservation devices "remain as failed instances in
    /// the project".
    pub failed_moved_after: Option<Duration>,
    /// The same for an on-demand device whose provisioning failed. Zero,
    /// the default (and in [`Timings::uniform`]): it leaves the project the
    /// moment it fails, as the same issue says failed on-demand devices
    /// "are deleted from the account as soon as the failure is detected"
    /// (and issue 788, 2024: a `403` for a device that failed
    /// provisioning). `None`: it stays in the project, `failed`, until it
    /// is deleted.
    pub failed_on_demand_moved_after: Option<Duration>,
    /// How long a device that left the project answers `403` before it
    /// answers `404`.
    pub failed_forbidden_for: Duration,
    /// After a delete, a Metal Gateway reads `deleting` this long (its
    /// block still held), then it is gone. Zero, the default (and in
    /// [`Timings::uniform`]), is gone at once, as metal-cli's gateway
    /// delete test reads `404` right after the delete; a lag models the
    /// `deleting` reads of 2022 (terraform-provider-equinix PR 138).
    pub gateway_deleting: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Self {
            queued: Duration::from_secs(5),
            provisioning: Duration::from_secs(60),
            power: Duration::from_secs(5),
            reinstall: Duration::from_secs(60),
            deprovisioning: Duration::ZERO,
            reservation_release: Duration::from_secs(240),
            stale_reservation_list: Duration::ZERO,
            failed_moved_after: None,
            failed_on_demand_moved_after: Some(Duration::ZERO),
            failed_forbidden_for: Duration::from_secs(600),
            gateway_deleting: Duration::ZERO,
        }
    }
}

impl Timings {
    /// Every phase lasts `d` (handy for tests: `Timings::uniform(ms(10))`);
    /// no stale reads, a failed reservation's device stays in the project
    /// and a failed on-demand one leaves it at once (as by default), and
    /// deleted gateways go at once.
    pub fn uniform(d: Duration) -> Self {
        Self {
            queued: d,
            provisioning: d,
            power: d,
            reinstall: d,
            deprovisioning: d,
            reservation_release: d,
            stale_reservation_list: Duration::ZERO,
            failed_moved_after: None,
            failed_on_demand_moved_after: Some(Duration::ZERO),
            failed_forbidden_for: d,
            gateway_deleting: Duration::ZERO,
        }
    }
}
