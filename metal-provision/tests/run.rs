//! The controller against the in-process fake, on tokio's paused clock.

use std::collections::HashSet;
use std::sync::Arc;

use metal_fake::{Fake, Fault, FaultKind, RandomFaults};
use metal_policy::Metal;
use metal_provision::{audit, cleanup, run, NoProgress, RunConfig, RunError, SshKeySpec};
use uuid::Uuid;

fn metal(fake: &Fake) -> Arc<dyn Metal> {
    Arc::new(fake.client().clone())
}

fn config(fake: &Fake, devices: usize) -> RunConfig {
    let mut c = RunConfig::new(fake.project(), devices);
    c.ssh_key = Some(SshKeySpec {
        label: "ci".into(),
        key: "ssh-ed25519 AAAA ci".into(),
    });
    c
}

#[tokio::test(start_paused = true)]
async fn provisions_every_device_once_despite_faults() {
    let fake = Fake::builder()
        .reservations(8)
        .random_faults(RandomFaults {
            rate: 0.3,
            seed: 7,
            kinds: FaultKind::recoverable(),
        })
        .build();
    let metal = metal(&fake);
    let cfg = config(&fake, 6);
    let outcome = run(Arc::clone(&metal), &cfg, Arc::new(NoProgress))
        .await
        .unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!((outcome.requested, outcome.active), (6, 6));
    let injected: u64 = fake.snapshot().faults_injected.values().sum();
    assert!(injected > 0, "the run met no fault");

    fake.set_random_faults(None);
    let known: HashSet<Uuid> = outcome.device_ids().into_iter().collect();
    let report = audit(metal.as_ref(), fake.project(), &cfg.run_tag, &known)
        .await
        .unwrap();
    assert_eq!(
        (report.on_server, report.duplicates, report.lost),
        (6, 0, 0)
    );
    // The fake agrees: six devices exist, each on its own reservation.
    assert_eq!(fake.devices().len(), 6);
}

#[tokio::test(start_paused = true)]
async fn a_lost_race_moves_on_to_another_reservation() {
    let fake = Fake::builder()
        .reservations(3)
        .fault(Fault::on("createDevice", FaultKind::Competitor).nth(1))
        .build();
    let cfg = config(&fake, 2);
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    assert_eq!(outcome.race_lost, 1, "{:?}", outcome.failures);
    assert_eq!(outcome.active, 2, "{:?}", outcome.failures);
    // Ours and the competitor's: every reservation is now taken.
    assert_eq!(fake.devices().len(), 3);
    assert!(fake.provisionable_reservations().is_empty());
}

#[tokio::test(start_paused = true)]
async fn more_devices_than_reservations_reports_the_shortfall() {
    let fake = Fake::builder().reservations(2).build();
    let outcome = run(metal(&fake), &config(&fake, 3), Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!(outcome.active, 2);
    assert_eq!(outcome.failures.len(), 1);
    assert!(matches!(
        outcome.failures[0],
        RunError::NoReservationLeft { .. }
    ));
}

#[tokio::test(start_paused = true)]
async fn an_unknown_project_is_one_clear_error() {
    let fake = Fake::builder().reservations(1).build();
    let mut cfg = config(&fake, 1);
    cfg.project = Uuid::new_v4();
    let err = run(metal(&fake), &cfg, Arc::new(NoProgress))
        .await
        .unwrap_err();
    match &err {
        RunError::Project { source, .. } => assert!(source.is_not_found(), "{source}"),
        other => panic!("expected a project error, got {other}"),
    }
    assert!(fake.devices().is_empty());
}

#[tokio::test(start_paused = true)]
async fn cleanup_deletes_what_the_run_created() {
    let fake = Fake::builder().reservations(2).build();
    let metal = metal(&fake);
    let outcome = run(Arc::clone(&metal), &config(&fake, 2), Arc::new(NoProgress))
        .await
        .unwrap();
    let deleted = cleanup(metal.as_ref(), &outcome.device_ids())
        .await
        .unwrap();
    assert_eq!(deleted, 2);
    assert!(metal.list_devices(fake.project()).await.unwrap().is_empty());
}
