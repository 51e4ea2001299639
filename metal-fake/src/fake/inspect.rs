//! What a test inspects on a [`Fake`]: counters, the call log, devices and
//! reservations as the API shows them, reboots and competitors.

use metal_api::types;
use uuid::Uuid;

use super::Fake;
use crate::log::{CallRecord, Snapshot};

impl Fake {
    /// Counters and the world's contents now.
    pub fn snapshot(&self) -> Snapshot {
        self.store.snapshot()
    }

    /// The calls received, oldest first (the last
    /// [`crate::LOG_CAPACITY`]).
    pub fn calls(&self) -> Vec<CallRecord> {
        self.calls_since(0)
    }

    /// The calls received after the one numbered `seq` (a
    /// [`CallRecord::seq`] read earlier), oldest first: what a reader
    /// following the log has not seen yet, without copying the rest of
    /// it. `calls_since(0)` is [`Fake::calls`].
    pub fn calls_since(&self, seq: u64) -> Vec<CallRecord> {
        self.store.lock().log.log_since(seq)
    }

    /// How many calls of `operation` were received (within the log).
    pub fn call_count(&self, operation: &str) -> usize {
        self.calls()
            .iter()
            .filter(|c| c.operation == operation)
            .count()
    }

    /// Every device, with project and reservation included, oldest first.
    pub fn devices(&self) -> Vec<types::Device> {
        let now = self.store.now();
        let json = self.store.lock().world.all_devices(now);
        decode(&json)
    }

    /// Every hardware reservation, with device and project included.
    pub fn reservations(&self) -> Vec<types::HardwareReservation> {
        let now = self.store.now();
        let json = self.store.lock().world.all_reservations(now);
        decode(&json)
    }

    /// Provisionable reservations of the main project, oldest first.
    pub fn provisionable_reservations(&self) -> Vec<Uuid> {
        let project = self.project();
        self.reservations()
            .into_iter()
            .filter(|r| {
                r.provisionable == Some(true)
                    && r.project.as_ref().and_then(|p| p.id) == Some(project)
            })
            .filter_map(|r| r.id)
            .collect()
    }

    /// How many times a device was rebooted; `None` if it does not exist.
    pub fn reboots(&self, device: Uuid) -> Option<u32> {
        self.store.lock().world.reboots(device)
    }

    /// Whether a device was placed by an injected competitor.
    pub fn is_competitor(&self, device: Uuid) -> bool {
        self.store.lock().world.is_competitor(device)
    }
}

/// The generated types of what the fake renders: the same bytes a client
/// decodes. A view the generated type cannot read is a bug of the fake's;
/// it is logged, and the list comes back empty.
fn decode<T: serde::de::DeserializeOwned>(json: &[u8]) -> Vec<T> {
    serde_json::from_slice(json).unwrap_or_else(|e| {
        tracing::error!("metal-fake: a rendered list does not decode as the generated type: {e}");
        Vec::new()
    })
}
