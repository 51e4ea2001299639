//! The due-queue drained: each timed transition applied to the world at
//! its own instant, journaled as [`Cause::Due`].

use tokio::time::Instant;

use super::{Cause, Due};
use crate::model::World;

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
                Due::BgpDynamicNeighbor { id } => self.settle_neighbor(id, at),
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
            .filter(|(c, _, _)| !matches!(c, Change::Updated(w) if w.starts_with("provisioning.")))
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
            .filter(|(c, _, _)| matches!(c, Change::Updated(w) if w.starts_with("provisioning.")))
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
