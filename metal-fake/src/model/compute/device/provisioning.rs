//! What a provisioning device reports, step by step, as the real API's
//! provisioning events: each step a change of the device (journaled, so an
//! event), due at its share of the provisioning time, and kept on the
//! device (its `provisioning_events`) with the ID of its event.
//!
//! The steps and their bodies are the real provisioning's (see
//! [`crate::fidelity`], "Events and the journal"): a recorded create reply
//! listing `provisioning.101` to `.110`, the provisioning system's own
//! phone-home calls (`.104.01`, `.104`, `.105` to `.109`), a recorded
//! events list (`.104.01`, `.110`), and metal-cli's e2e test reading
//! "Queued for provisioning", "Connected to magic install system" and
//! "Provision complete! Your device is ready to go." back.

use std::time::Duration;

use tokio::time::Instant;
use uuid::Uuid;

/// One step a provisioning device reports: its event's `type` and `body`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    pub(crate) kind: &'static str,
    pub(crate) body: &'static str,
}

const fn report(kind: &'static str, body: &'static str) -> Report {
    Report { kind, body }
}

/// Made at once with the device (it is `queued`).
pub(crate) const QUEUED: Report = report("provisioning.queued", "Queued for provisioning");

/// The device leaves `queued` (its state `provisioning`).
pub(crate) const STARTED: Report = report("provisioning.101", "Provisioning started");

/// The steps reported while provisioning, with the share of the
/// provisioning time each comes at.
pub(crate) const DURING: &[(f64, Report)] = &[
    (0.05, report("provisioning.102", "Network configured")),
    (
        0.10,
        report(
            "provisioning.103",
            "Configuration written, restarting device",
        ),
    ),
    (
        0.20,
        report("provisioning.104.01", "Device connected to DHCP system"),
    ),
    (
        0.30,
        report("provisioning.104", "Connected to magic install system"),
    ),
    (
        0.45,
        report("provisioning.105", "Server partitions created"),
    ),
    (
        0.60,
        report("provisioning.106", "Operating system packages installed"),
    ),
    (
        0.75,
        report(
            "provisioning.107",
            "Server networking interfaces configured",
        ),
    ),
    (
        0.85,
        report(
            "provisioning.108",
            "Cloud-init packages installed and configured",
        ),
    ),
    (
        0.95,
        report(
            "provisioning.109",
            "Installation finished, rebooting server",
        ),
    ),
];

/// How many of [`DURING`] a device whose provisioning fails reports: up
/// to the magic install system, where a failed provisioning was seen to
/// stop.
pub(crate) const BEFORE_FAILING: usize = 4;

/// The device is `active` (its provisioning done).
pub(crate) const DONE: Report = report(
    "provisioning.110",
    "Provision complete! Your device is ready to go.",
);

/// Every step of a provisioning that succeeds, in order.
pub(crate) fn planned() -> impl Iterator<Item = Report> {
    [QUEUED, STARTED]
        .into_iter()
        .chain(DURING.iter().map(|(_, r)| *r))
        .chain([DONE])
}

/// The report whose event type is `kind`.
pub(crate) fn by_kind(kind: &str) -> Option<Report> {
    planned().find(|r| r.kind == kind)
}

/// When the step at `share` of a provisioning of `length` that began
/// `after` the phase did is due, from the phase's start.
pub(crate) fn due(after: Duration, length: Duration, share: f64) -> Duration {
    after + length.mul_f64(share)
}

/// A step the device reported: the ID of its event, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reported {
    pub(crate) report: Report,
    pub(crate) event: Uuid,
    pub(crate) at: Instant,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_are_in_order_and_each_type_once() {
        let shares: Vec<f64> = DURING.iter().map(|(s, _)| *s).collect();
        assert!(shares.windows(2).all(|w| w[0] < w[1]), "{shares:?}");
        assert!(shares.iter().all(|s| (0.0..1.0).contains(s)));
        let kinds: Vec<&str> = planned().map(|r| r.kind).collect();
        let mut unique = kinds.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), kinds.len(), "{kinds:?}");
        assert_eq!(kinds.len(), 12);
        assert_eq!(
            by_kind("provisioning.104").map(|r| r.body),
            Some("Connected to magic install system")
        );
        assert_eq!(DURING[BEFORE_FAILING - 1].1.kind, "provisioning.104");
    }
}
