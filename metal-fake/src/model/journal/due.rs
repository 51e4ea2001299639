//! The world's timed transitions, on the fake's clock: one queue, drained
//! up to now before every action and read (`World::drain`, in `drain`),
//! each transition applied once, in due order, at its own instant.

use std::collections::BTreeMap;

use tokio::time::Instant;
use uuid::Uuid;

use crate::model::device::Step;

/// One timed transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    /// A device's phase moves on; stale (and skipped) unless the device
    /// is still in the phase `phase` numbers.
    Device { id: Uuid, phase: u64, step: Step },
    /// A hardware reservation becomes provisionable again; stale unless
    /// its release is still due at this instant.
    Release { id: Uuid },
    /// A VRF route's configuration is done; stale unless the route is
    /// still at `version`.
    Route { id: Uuid, version: u64 },
    /// A requested interconnection becomes active; stale unless it is
    /// still requested.
    Interconnection { id: Uuid },
    /// A virtual circuit moves on from `from` (activating: active;
    /// deleting: gone); stale unless it is still in `from`.
    VirtualCircuit {
        id: Uuid,
        from: crate::model::virtual_circuit::VirtualCircuitStatus,
    },
    /// A device's `termination_time` has come: it is deleted; stale when
    /// it is gone.
    Terminate { id: Uuid },
    /// A spot market request's `end_at` comes: its spot instances still
    /// there end (are deleted).
    SpotRequestEnd { id: Uuid },
    /// A port VLAN assignment batch moves on from `from` (queued: in
    /// progress; in progress: applied); stale unless it is still there.
    PortVlanBatch {
        id: Uuid,
        from: crate::model::port_vlan_batch::BatchState,
    },
    /// A deleted Metal Gateway is gone; stale unless it is still
    /// deleting.
    MetalGateway { id: Uuid },
    /// A BGP dynamic neighbour's configuration is done (`ready`); stale
    /// unless it is still pending.
    BgpDynamicNeighbor { id: Uuid },
}

/// The queue of timed transitions, earliest first; among transitions due
/// at one instant, the one queued first.
#[derive(Debug, Default)]
pub(crate) struct DueQueue {
    queue: BTreeMap<(Instant, u64), Due>,
    queued: u64,
}

impl DueQueue {
    /// Queues `due` at `at`.
    pub(crate) fn push(&mut self, at: Instant, due: Due) {
        self.queued += 1;
        self.queue.insert((at, self.queued), due);
    }

    /// The earliest transition due by `now`, taken out of the queue.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<(Instant, Due)> {
        let entry = self.queue.first_entry()?;
        if entry.key().0 > now {
            return None;
        }
        let ((at, _), due) = entry.remove_entry();
        Some((at, due))
    }

    /// When the next transition is due.
    pub(crate) fn next_at(&self) -> Option<Instant> {
        self.queue.keys().next().map(|(at, _)| *at)
    }

    /// How many transitions are queued.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn transitions_come_out_once_in_due_order_and_not_before_they_are_due() {
        let mut q = DueQueue::default();
        let t0 = Instant::now();
        let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        q.push(t0 + Duration::from_secs(10), Due::Release { id: a });
        q.push(t0 + Duration::from_secs(5), Due::Release { id: b });
        q.push(t0 + Duration::from_secs(5), Due::Release { id: c });
        assert_eq!(q.next_at(), Some(t0 + Duration::from_secs(5)));
        assert_eq!(q.pop_due(t0), None, "nothing due yet");
        let now = t0 + Duration::from_secs(7);
        let mut out = Vec::new();
        while let Some(d) = q.pop_due(now) {
            out.push(d);
        }
        let at5 = t0 + Duration::from_secs(5);
        assert_eq!(
            out,
            vec![(at5, Due::Release { id: b }), (at5, Due::Release { id: c })],
            "due order, then queue order"
        );
        assert_eq!(q.pop_due(now), None, "each once");
        assert_eq!(q.len(), 1);
        assert_eq!(
            q.pop_due(t0 + Duration::from_secs(60)),
            Some((t0 + Duration::from_secs(10), Due::Release { id: a }))
        );
    }
}
