//! The controller against the in-process fake, on tokio's paused clock.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use std::time::Duration;

use crate::common;
use common::create_beside;
use metal_api::DeviceState;
use metal_fake::{FailProvisioning, Fake, Fault, FaultKind, RandomFaults, Timings};
use metal_policy::{ExponentialBackoff, Fields, Metal, Waiter};
use metal_provision::{audit, cleanup, run, NoProgress, Outcome, RunConfig, RunError, SshKeySpec};
use uuid::Uuid;

/// What the audit finds of `outcome`'s run: devices on the server,
/// duplicates, adopted, lost.
async fn audited(
    metal: &dyn Metal,
    cfg: &RunConfig,
    outcome: &Outcome,
) -> (usize, usize, usize, usize) {
    let a = audit(metal, cfg.project, &cfg.run_tag, &outcome.known())
        .await
        .unwrap();
    (a.on_server, a.duplicates, a.adopted, a.lost)
}

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
    let report = audited(metal.as_ref(), &cfg, &outcome).await;
    assert_eq!(report, (6, 0, 0, 0));
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

/// A fake where the holder of a refused create goes between the refusal
/// and the policy's read of the reservation, on purpose: the first
/// `refused` creates each meet a competitor's device on their reservation
/// (the `Competitor` fault), and every read of a reservation first deletes
/// the competitor's devices and releases their reservations at once, as a
/// duplicate that another run of the name deletes would go. The policy's
/// read then finds nobody holding the reservation, and the create ends
/// with the refusal (`Error::Rejected`, guarantee 4): the window the run
/// must not take for the hostname's outcome.
fn holder_gone_before_the_read(reservations: usize, refused: u32) -> Fake {
    let cell: Arc<std::sync::OnceLock<Fake>> = Arc::default();
    let seen = Arc::clone(&cell);
    let fake = Fake::builder()
        .reservations(reservations)
        .timings(Timings::uniform(Duration::ZERO))
        .fault(Fault::on("createDevice", FaultKind::Competitor).times(refused))
        .handler(
            "findHardwareReservationById",
            move |call: &metal_fake::Call| -> Result<_, metal_fake::ApiError> {
                let id = call.id("id")?;
                let fake = seen.get().ok_or_else(metal_fake::ApiError::not_found)?;
                for d in fake.devices().into_iter().filter_map(|d| d.id) {
                    if fake.is_competitor(d) {
                        assert!(fake.release_competitor(d), "the competitor's device goes");
                    }
                }
                fake.reservations()
                    .into_iter()
                    .find(|r| r.id == Some(id))
                    .ok_or_else(metal_fake::ApiError::not_found)
            },
        )
        .build();
    assert!(cell.set(fake.clone()).is_ok());
    fake
}

#[tokio::test(start_paused = true)]
async fn a_refusal_whose_holder_is_gone_tries_the_reservation_again() {
    let fake = holder_gone_before_the_read(1, 1);
    let cfg = config(&fake, 1);
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.active, 1);
    // The refused create and the one that took the same reservation.
    assert_eq!(fake.call_count("createDevice"), 2);
    assert_eq!(outcome.race_lost, 0);
    let devices = fake.devices();
    assert_eq!(devices.len(), 1, "only the run's device is left");
    assert!(devices[0].tags.contains(&cfg.run_tag));
}

#[tokio::test(start_paused = true)]
async fn a_refusal_on_a_free_reservation_every_time_ends_the_hostname() {
    // Refused on a reservation that then reads free, with no device of the
    // hostname, four times running: the request's own fault, not a race.
    let fake = holder_gone_before_the_read(2, 100);
    let cfg = config(&fake, 1);
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    assert_eq!(outcome.active, 0);
    assert_eq!(fake.call_count("createDevice"), 4);
    assert!(
        matches!(
            &outcome.failures[..],
            [RunError::Create {
                source: metal_policy::Error::Rejected { status: 422, .. },
                ..
            }]
        ),
        "{:?}",
        outcome.failures
    );
    assert!(fake.devices().is_empty());
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
    let cfg = config(&fake, 2);
    let deleted = cleanup(metal.as_ref(), &outcome.device_ids(), &cfg)
        .await
        .unwrap();
    assert_eq!(deleted, 2);
    // Deleted devices are gone, at once or after a deprovisioning lag.
    let listed = metal.list_devices(fake.project()).await.unwrap();
    assert!(listed
        .iter()
        .all(|d| d.state.as_deref() == Some("deprovisioning")));
    tokio::time::sleep(fake.timings().deprovisioning).await;
    assert!(metal.list_devices(fake.project()).await.unwrap().is_empty());
}

/// A device `early` on the fake's first reservation, just created (queued).
async fn create_early(fake: &Fake, metal: &dyn Metal, cfg: &RunConfig) -> Uuid {
    let reservation = fake.reservations().remove(0);
    let body = metal_provision::controller::create_request(cfg, "early", &reservation).unwrap();
    metal
        .create_device(fake.project(), &body)
        .await
        .unwrap()
        .id
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn cleanup_waits_until_a_device_can_be_deleted() {
    let fake = Fake::builder().reservations(1).build();
    let metal = metal(&fake);
    let cfg = config(&fake, 1);
    let id = create_early(&fake, metal.as_ref(), &cfg).await;
    let started = tokio::time::Instant::now();
    // Queued: the API refuses the delete (422) until provisioning ends.
    let deleted = cleanup(metal.as_ref(), &[id], &cfg).await.unwrap();
    assert_eq!(deleted, 1);
    let t = fake.timings();
    assert!(started.elapsed() >= t.queued + t.provisioning);
    // Gone at once (the fake's default), or deprovisioning with a lag.
    match metal.get_device(id, &Fields::default()).await {
        Err(e) => assert!(e.is_not_found(), "{e}"),
        Ok(d) => assert_eq!(d.state.as_deref(), Some("deprovisioning")),
    }
    let refused = fake.snapshot().requests["deleteDevice"]["422"];
    assert!(refused >= 2, "{refused} refusals");
}

#[tokio::test(start_paused = true)]
async fn a_delete_refused_while_provisioning_is_tried_again_when_provisioning_ended_before_the_read(
) {
    // The refusal's cause goes between the delete and the read: the device
    // is queued when the delete is refused, and the read that looks why
    // (held past the end of provisioning by a latency) finds it active.
    // That refusal is not the delete's outcome: it is tried again. Short
    // timings, so the held read ends well within the client's attempt
    // timeout.
    let fake = Fake::builder()
        .reservations(1)
        .timings(Timings {
            queued: Duration::from_secs(1),
            provisioning: Duration::from_secs(2),
            ..Timings::uniform(Duration::from_secs(1))
        })
        .build();
    let metal = metal(&fake);
    let cfg = config(&fake, 1);
    let id = create_early(&fake, metal.as_ref(), &cfg).await;
    let t = fake.timings();
    let past_provisioning = t.queued + t.provisioning + Duration::from_secs(1);
    fake.inject(Fault::on("findDeviceById", FaultKind::Latency(past_provisioning)).times(1))
        .unwrap();
    let deleted = cleanup(metal.as_ref(), &[id], &cfg).await.unwrap();
    assert_eq!(deleted, 1);
    let deletes = &fake.snapshot().requests["deleteDevice"];
    assert_eq!(deletes.get("422"), Some(&1), "{deletes:?}");
    // Deleted: gone, or deprovisioning for the fake's lag.
    let left: Vec<_> = fake.devices().into_iter().map(|d| d.state).collect();
    assert!(
        left.iter().all(|s| s.as_deref() == Some("deprovisioning")),
        "{left:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn cleanup_does_not_wait_on_a_locked_device() {
    let fake = Fake::builder().reservations(1).build();
    let metal = metal(&fake);
    let cfg = config(&fake, 1);
    let outcome = run(Arc::clone(&metal), &cfg, Arc::new(NoProgress))
        .await
        .unwrap();
    let id = outcome.device_ids()[0];
    let lock = metal_api::types::DeviceUpdateInput {
        locked: Some(true),
        ..Default::default()
    };
    metal.update_device(id, &lock).await.unwrap();
    let started = tokio::time::Instant::now();
    let err = cleanup(metal.as_ref(), &[id], &cfg).await.unwrap_err();
    assert_eq!(err.status(), Some(422), "{err}");
    assert!(started.elapsed() < cfg.poll_interval, "it waited");
}

#[tokio::test(start_paused = true)]
async fn a_failed_device_is_deleted_and_its_hostname_tried_elsewhere() {
    let fake = Fake::builder()
        .reservations(3)
        .fail_provisioning(FailProvisioning::Hostname("provision-0".into()))
        .build();
    let metal = metal(&fake);
    let cfg = config(&fake, 2);
    let outcome = run(Arc::clone(&metal), &cfg, Arc::new(NoProgress))
        .await
        .unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.active, 2);
    assert_eq!(outcome.failed.len(), 1);
    let failed = &outcome.failed[0];
    assert_eq!(failed.hostname, "provision-0");
    assert_eq!(failed.left_behind, None);
    assert!(!outcome.device_ids().contains(&failed.id));
    // Gone from the server: the audit finds the two devices, one per
    // hostname, and nothing else.
    let err = metal
        .get_device(failed.id, &Fields::default())
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    let report = audited(metal.as_ref(), &cfg, &outcome).await;
    assert_eq!(report, (2, 0, 0, 0));
}

#[tokio::test(start_paused = true)]
async fn a_device_the_api_takes_away_after_failing_counts_as_gone() {
    // The failed device leaves the project the moment it fails: the
    // controller's next read is a 403.
    let fake = Fake::builder()
        .reservations(2)
        .timings(Timings {
            failed_moved_after: Some(Duration::ZERO),
            ..Timings::default()
        })
        .fail_provisioning(FailProvisioning::NthCreate(1))
        .build();
    let metal = metal(&fake);
    let outcome = run(Arc::clone(&metal), &config(&fake, 1), Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!((outcome.active, outcome.failed.len()), (1, 1));
    assert_eq!(outcome.failed[0].left_behind, None);
    let err = metal
        .get_device(outcome.failed[0].id, &Fields::default())
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    // The controller never tried to delete it.
    assert_eq!(fake.call_count("deleteDevice"), 0);
}

#[tokio::test(start_paused = true)]
async fn failures_past_the_retries_are_one_error_naming_the_hostname() {
    let fake = Fake::builder()
        .reservations(4)
        .fail_provisioning(FailProvisioning::Hostname("provision-0".into()))
        .fail_provisioning(FailProvisioning::Hostname("provision-0".into()))
        .build();
    let mut cfg = config(&fake, 1);
    cfg.failed_retries = 1;
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    assert_eq!(outcome.active, 0);
    assert_eq!(outcome.failed.len(), 2);
    match &outcome.failures[..] {
        [RunError::ProvisioningFailed {
            hostname, tries, ..
        }] => assert_eq!((hostname.as_str(), *tries), ("provision-0", 2)),
        other => panic!("{other:?}"),
    }
    // Both failed devices were deleted; two reservations are left untouched.
    assert_eq!(fake.provisionable_reservations().len(), 2);
}

/// The devices on the server carrying `tag` that still count (not being
/// deleted), by hostname.
fn live_by_hostname(fake: &Fake, tag: &str) -> BTreeMap<String, Vec<Uuid>> {
    let mut by = BTreeMap::<String, Vec<Uuid>>::new();
    for d in fake.devices() {
        let going = matches!(
            d.state_kind(),
            Some(DeviceState::Deprovisioning | DeviceState::Deleted)
        );
        if d.tags.iter().any(|t| t == tag) && !going {
            by.entry(d.hostname.clone().unwrap_or_default())
                .or_default()
                .extend(d.id);
        }
    }
    by
}

/// A fake whose creates take a second each.
fn slow_creates() -> Fake {
    Fake::builder()
        .reservations(8)
        .fault(Fault::on("createDevice", FaultKind::Latency(Duration::from_secs(1))).times(100))
        .build()
}

/// Runs `cfg` until `crash`, then again to the end: the rerun must adopt
/// exactly the four devices the first run left and create the other two.
async fn a_rerun_adopts_what_a_crashed_run_left(fake: &Fake, cfg: &RunConfig, crash: Duration) {
    let crashed = tokio::time::timeout(crash, run(metal(fake), cfg, Arc::new(NoProgress))).await;
    assert!(crashed.is_err(), "the first run should not have finished");
    let left: HashSet<Uuid> = fake.devices().iter().filter_map(|d| d.id).collect();
    let states: Vec<_> = fake.devices().into_iter().map(|d| d.state).collect();
    assert_eq!(left.len(), 4, "{states:?}");

    // The same command again: the same name, so the same tag and hostnames.
    let metal = metal(fake);
    let outcome = run(Arc::clone(&metal), cfg, Arc::new(NoProgress))
        .await
        .unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.active, 6);
    let adopted: HashSet<Uuid> = outcome.adopted.iter().filter_map(|d| d.id).collect();
    assert_eq!(adopted, left, "it adopts exactly what the first run left");
    assert_eq!(outcome.created.len(), 2);
    // One device per hostname, and nothing else.
    let by = live_by_hostname(fake, &cfg.run_tag);
    assert_eq!(by.len(), 6, "{by:?}");
    assert!(by.values().all(|ids| ids.len() == 1), "{by:?}");
    assert_eq!(fake.devices().len(), 6);
    // The audit says which devices the run did not create.
    let report = audited(metal.as_ref(), cfg, &outcome).await;
    assert_eq!(report, (6, 0, 4, 0));
}

#[tokio::test(start_paused = true)]
async fn a_rerun_after_a_crash_adopts_what_the_first_run_left() {
    // Two workers, each create taking 1 s; with the watch, waiting holds
    // no worker, so 2.5 s in four devices are made (all provisioning),
    // two creates are in flight and none has answered, when the first run
    // stops dead.
    let fake = slow_creates();
    let mut cfg = config(&fake, 6);
    cfg.workers = 2;
    a_rerun_adopts_what_a_crashed_run_left(&fake, &cfg, Duration::from_millis(2500)).await;
}

#[tokio::test(start_paused = true)]
async fn a_polling_rerun_after_a_crash_adopts_what_the_first_run_left() {
    // Without a watch: two workers, each create taking 1 s, each device
    // 65 s to become active, read every second, each worker holding its
    // device while it waits: 90 s in, two devices are active, two
    // provisioning, and two hostnames not started, when the first run
    // stops dead.
    let fake = slow_creates();
    let mut cfg = config(&fake, 6);
    cfg.workers = 2;
    cfg.watch = None;
    cfg.waiter = Waiter::new().poll(ExponentialBackoff {
        initial_interval: Duration::from_secs(1),
        multiplier: 1.0,
        randomization_factor: 0.0,
        max_interval: Duration::from_secs(1),
        max_elapsed_time: None,
    });
    a_rerun_adopts_what_a_crashed_run_left(&fake, &cfg, Duration::from_secs(90)).await;
}

#[tokio::test(start_paused = true)]
async fn two_runs_of_one_name_at_once_end_with_one_device_per_hostname() {
    // Creates take a second, so each run lists the hostnames before the
    // other's devices exist: both send a create for every hostname, each
    // on the same reservation as the other's. The reservation takes one;
    // the other run's create is refused, its lost race looks at the
    // hostname and finds the winner's device, which it adopts.
    let fake = Fake::builder()
        .reservations(12)
        .fault(Fault::on("createDevice", FaultKind::Latency(Duration::from_secs(1))).times(100))
        .build();
    let cfg = config(&fake, 5);
    let (a, b) = tokio::join!(
        run(metal(&fake), &cfg, Arc::new(NoProgress)),
        run(metal(&fake), &cfg, Arc::new(NoProgress)),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    for outcome in [&a, &b] {
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert_eq!(outcome.active, 5);
    }
    let by = live_by_hostname(&fake, &cfg.run_tag);
    assert_eq!(by.len(), 5, "{by:?}");
    assert!(by.values().all(|ids| ids.len() == 1), "{by:?}");
    // Both keep the same device for each hostname.
    let kept =
        |o: &metal_provision::Outcome| -> HashSet<Uuid> { o.device_ids().into_iter().collect() };
    assert_eq!(kept(&a), kept(&b));
    assert_eq!(kept(&a), by.values().flatten().copied().collect());
    // Each hostname's two creates met on one reservation: one device each.
    let created = a.created_ids.len() + b.created_ids.len();
    assert_eq!(created, 5, "{created} devices created");
    assert_eq!(a.race_lost + b.race_lost, 5);
    assert_eq!(a.adopted.len() + b.adopted.len(), 5);
    let removed: HashSet<Uuid> = a.removed.iter().chain(&b.removed).copied().collect();
    let made: HashSet<Uuid> = a.created_ids.union(&b.created_ids).copied().collect();
    assert_eq!(
        removed,
        &made - &kept(&a),
        "every device made and not kept was removed"
    );
    let metal = metal(&fake);
    for outcome in [&a, &b] {
        let report = audited(metal.as_ref(), &cfg, outcome).await;
        assert_eq!(report, (5, 0, outcome.adopted.len(), 0));
    }
    assert_eq!(a.created.len() + a.adopted.len(), 5);
}

#[tokio::test(start_paused = true)]
async fn a_device_is_deleted_only_behind_a_survivor_seen_active() {
    // Another run of the name made two devices of one hostname: the
    // earlier will fail to provision, the later one will become active
    // (and is the one that run keeps). This run's first view prefers the
    // earlier, still queued: it must not delete the later one behind it,
    // or the hostname's survivor is gone. It waits; the earlier fails and
    // is deleted; the later one, active, is kept by both.
    let fake = Fake::builder()
        .reservations(4)
        .fail_provisioning(FailProvisioning::NthCreate(1))
        .build();
    let doomed = create_beside(&fake, "provision-0").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let survivor = create_beside(&fake, "provision-0").await;
    let cfg = config(&fake, 1);
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.device_ids(), [survivor]);
    assert!(outcome.created_ids.is_empty(), "nothing created");
    assert!(outcome.removed.is_empty(), "{:?}", outcome.removed);
    let failed: Vec<Uuid> = outcome.failed.iter().map(|f| f.id).collect();
    assert_eq!(failed, [doomed], "counted once");
    let by = live_by_hostname(&fake, &cfg.run_tag);
    assert_eq!(by.get("provision-0"), Some(&vec![survivor]), "{by:?}");
    assert_eq!(
        audited(metal(&fake).as_ref(), &cfg, &outcome).await,
        (1, 0, 1, 0)
    );
}

#[tokio::test(start_paused = true)]
async fn a_rerun_removes_a_duplicate_an_earlier_run_left() {
    // Two live devices of one hostname and tag, as a run without a stable
    // identity could leave: the rerun keeps the earlier and deletes the
    // other.
    let fake = Fake::builder().reservations(4).build();
    let cfg = config(&fake, 1);
    let mut ids = Vec::new();
    for _ in 0..2 {
        ids.push(create_beside(&fake, "provision-0").await);
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.device_ids(), vec![ids[0]]);
    assert_eq!(outcome.removed, vec![ids[1]]);
    assert!(outcome.created.is_empty());
    let by = live_by_hostname(&fake, &cfg.run_tag);
    assert_eq!(by["provision-0"], vec![ids[0]]);
}

#[tokio::test(start_paused = true)]
async fn a_create_that_got_no_answer_is_found_again_not_made_twice() {
    // The server creates the device and answers 500; the client gives up
    // at once (no retries). The controller pauses, lists the hostname,
    // finds the device and keeps it, instead of reporting a failure and
    // leaving a device it does not know.
    let fake = Fake::builder()
        .reservations(3)
        .fault(Fault::on("createDevice", FaultKind::FailAfter { status: 500 }).nth(1))
        .build();
    let gives_up = fake
        .client_with(|c| {
            c.backoff(Arc::new(ExponentialBackoff {
                max_elapsed_time: Some(Duration::ZERO),
                ..ExponentialBackoff::default()
            }))
        })
        .unwrap();
    let metal: Arc<dyn Metal> = Arc::new(gives_up);
    let cfg = config(&fake, 1);
    let outcome = run(Arc::clone(&metal), &cfg, Arc::new(NoProgress))
        .await
        .unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.active, 1);
    assert_eq!(fake.devices().len(), 1, "made twice");
    let report = audited(metal.as_ref(), &cfg, &outcome).await;
    // The run did not learn that its create succeeded: it found the device.
    assert_eq!(report, (1, 0, 1, 0));
}

#[tokio::test(start_paused = true)]
async fn a_run_waits_through_one_watch_and_waiting_holds_no_worker() {
    // Ten devices and one worker. Polling, the worker would wait out each
    // device's provisioning in turn; with the watch it only creates, and
    // every device is waited for through the same lists.
    let fake = Fake::builder().reservations(10).build();
    let mut cfg = config(&fake, 10);
    cfg.workers = 1;
    let started = tokio::time::Instant::now();
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    let took = started.elapsed();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.active, 10);
    assert_eq!(fake.devices().len(), 10);
    // No device read on its own, and no list per hostname: the lists are
    // the watch's refreshes, a few for the whole fleet.
    assert_eq!(fake.call_count("findDeviceById"), 0);
    let lists = fake.call_count("findProjectDevices");
    assert!(lists < 10, "{lists} lists");
    assert_eq!(fake.call_count("createDevice"), 10);
    // About one provisioning time (the creates take no time here), within
    // the watch's longest interval, 60 s; not ten of them.
    let t = fake.timings();
    let once = t.queued + t.provisioning;
    assert!(
        took >= once && took <= once + Duration::from_secs(60),
        "{took:?}"
    );

    // The same run polling: one worker, so one provisioning after another.
    let fake = Fake::builder().reservations(10).build();
    let mut cfg = config(&fake, 10);
    cfg.workers = 1;
    cfg.watch = None;
    let started = tokio::time::Instant::now();
    let outcome = run(metal(&fake), &cfg, Arc::new(NoProgress)).await.unwrap();
    assert_eq!(outcome.active, 10);
    assert!(started.elapsed() >= once * 10, "{:?}", started.elapsed());
    assert!(fake.call_count("findDeviceById") > 10);
}
