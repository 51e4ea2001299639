//! The world's timed transitions, on the fake's clock: one queue, drained
//! up to now before every action and read (`World::drain`), each
//! transition applied once, in due order, at its own instant.

use std::collections::BTreeMap;

use tokio::time::Instant;
use uuid::Uuid;

use super::Cause;
use crate::model::device::Step;
use crate::model::World;

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

impl World {
    /// Applies every transition due by `now`, earliest first, each at its
    /// own due instant and journaled as [`Cause::Due`] (a transition may
    /// queue the next, which comes out in turn when it too is due). Cheap
    /// when nothing is due.
    pub(crate) fn drain(&mut self, now: Instant) {
        // What the last lock wrote, told to the relations' index (so what
        // waits for it stays small).
        self.sync_links();
        if self.due.next_at().is_none_or(|at| at > now) {
            return;
        }
        let (cause, actor) = (self.journal.cause(), self.journal.actor());
        self.journal.set_cause(Cause::Due);
        self.journal.set_actor(None);
        while let Some((at, due)) = self.due.pop_due(now) {
            match due {
                Due::Device { id, phase, step } => self.device_step(id, phase, step, at),
                Due::Release { id } => self.release_reservation(id, at),
                Due::Route { id, version } => self.settle_route(id, version, at),
                Due::Interconnection { id } => self.activate_interconnection(id, at),
                Due::VirtualCircuit { id, from } => self.circuit_step(id, from, at),
                Due::PortVlanBatch { id, from } => self.batch_step(id, from, at),
                Due::MetalGateway { id } => self.gateway_gone(id, at),
                Due::Terminate { id } => self.terminate_device(id, at),
                Due::SpotRequestEnd { id } => self.end_spot_request(id, at),
            }
        }
        self.journal.set_cause(cause);
        self.journal.set_actor(actor);
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

    mod world {
        use std::time::Duration;

        use tokio::time::Instant;
        use uuid::Uuid;

        use crate::document::WorldDoc;
        use crate::model::device::Device;
        use crate::model::journal::{Cause, Change};
        use crate::model::relations::Kind;
        use crate::model::{Timings, World};

        const PROJECT: Uuid = Uuid::from_u128(0x0b00_0000_0000_4000_8000_0000_0000_0001);
        const RESERVATION: Uuid = Uuid::from_u128(0x0c00_0000_0000_4000_8000_0000_0000_0001);

        fn world(timings: Timings, now: Instant) -> World {
            let doc: WorldDoc = serde_json::from_value(serde_json::json!({
                "projects": [{"id": PROJECT}],
                "plans": [{"slug": "c3.small.x86"}],
                "metros": [{"code": "da"}],
                "facilities": [{"code": "da11", "metro": "da"}],
                "reservations": [{"id": RESERVATION, "project": PROJECT,
                    "plan": "c3.small.x86", "facility": "da11"}]
            }))
            .unwrap();
            let clock = crate::clock::Clock::new(1.0);
            World::from_doc(&doc, timings, clock.wall(), now).unwrap()
        }

        fn device(id: Uuid) -> Device {
            Device::queued(
                id,
                PROJECT,
                Some(RESERVATION),
                ("c3.small.x86".into(), "da11".into()),
                "d".into(),
                "ubuntu_22_04".into(),
            )
        }

        /// `(change, cause, seconds after t0)` of the device's entries.
        fn of(w: &World, id: Uuid, t0: Instant) -> Vec<(Change, Cause, u64)> {
            w.journal
                .entries()
                .filter(|e| e.kind == Kind::Device && e.record == id)
                .map(|e| (e.change, e.cause, (e.at - t0).as_secs()))
                .collect()
        }

        #[tokio::test(start_paused = true)]
        async fn a_load_is_not_journaled_and_a_drain_makes_each_step_once_at_its_instant() {
            let t0 = Instant::now();
            let mut w = world(Timings::default(), t0);
            assert_eq!(
                w.journal.last_seq(),
                0,
                "a loaded world starts its journal empty"
            );
            let id = Uuid::new_v4();
            w.acting("createDevice", None, |w| {
                w.place_device(device(id), false, Vec::new(), t0)
            });
            w.drain(t0 + Duration::from_secs(3));
            w.drain(t0 + Duration::from_secs(3600));
            w.drain(t0 + Duration::from_secs(7200));
            let changes = of(&w, id, t0);
            // The state's changes, between them the steps it reports.
            let states: Vec<_> = changes
                .iter()
                .filter(
                    |(c, _, _)| !matches!(c, Change::Updated(w) if w.starts_with("provisioning.")),
                )
                .copied()
                .collect();
            assert_eq!(
                states,
                vec![
                    (Change::Created, Cause::Operation("createDevice"), 0),
                    (Change::Updated("provisioning"), Cause::Due, 5),
                    (Change::Updated("provisioned"), Cause::Due, 65),
                ]
            );
            let reports: Vec<_> = changes
                .iter()
                .filter(
                    |(c, _, _)| matches!(c, Change::Updated(w) if w.starts_with("provisioning.")),
                )
                .collect();
            assert_eq!(
                reports.len(),
                10,
                "the queued report and nine while provisioning"
            );
            assert!(reports
                .iter()
                .all(|(_, cause, at)| *cause == Cause::Due && *at < 65));
            let d = w.devices.get(&id).unwrap();
            assert_eq!(d.meta.version, 13);
            assert_eq!(d.meta.updated, t0 + Duration::from_secs(65));
            assert_eq!(w.due.len(), 0);
        }

        #[tokio::test(start_paused = true)]
        async fn the_steps_of_a_device_deleted_before_they_are_due_never_happen() {
            let t0 = Instant::now();
            let timings = Timings {
                failed_moved_after: Some(Duration::from_secs(30)),
                ..Timings::default()
            };
            let mut w = world(timings, t0);
            let id = Uuid::new_v4();
            w.place_device(device(id), true, Vec::new(), t0);
            let failed = t0 + Duration::from_secs(65);
            w.drain(failed);
            assert_eq!(
                w.devices.get(&id).unwrap().state(),
                crate::model::DeviceState::Failed
            );
            w.acting("deleteDevice", None, |w| w.delete_device(id, failed))
                .unwrap();
            let before = w.journal.last_seq();
            w.drain(t0 + Duration::from_secs(100_000));
            let after: Vec<(Kind, Change)> = w
                .journal
                .since(before)
                .map(|e| (e.kind, e.change))
                .collect();
            assert_eq!(
                after,
                vec![(Kind::HardwareReservation, Change::Updated("released"))],
                "only the reservation's release: the device's own steps were stale"
            );
            assert!(w.reservations.get(&RESERVATION).unwrap().provisionable());
        }
    }
}
