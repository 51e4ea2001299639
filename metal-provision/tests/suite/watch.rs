//! `metal_policy::DeviceWatch` and the waiters on it, against the
//! in-process fake on tokio's paused clock: one refresh serves many
//! waiters, a device gone from the list is read once by ID, a failed device
//! ends its waiter at once, the interval adapts within its bounds, a page
//! bound makes a partial snapshot, and dropping the handles stops the task.

use std::sync::Arc;
use std::time::Duration;

use crate::common;
use common::create_beside;
use metal_api::DeviceState;
use metal_fake::{FailProvisioning, Fake, Timings};
use metal_policy::{DeviceQuery, DeviceWatch, Metal, WaitError, Waiter, WatchConfig, WatchError};
use tokio::time::Instant;
use uuid::Uuid;

const ACTIVE: [DeviceState; 1] = [DeviceState::Active];

/// Queued for 10 s, provisioning for 50 s: active a minute after create.
fn fake(reservations: usize) -> metal_fake::FakeBuilder {
    Fake::builder().reservations(reservations).timings(Timings {
        queued: Duration::from_secs(10),
        provisioning: Duration::from_secs(50),
        ..Timings::default()
    })
}

fn metal(fake: &Fake) -> Arc<dyn Metal> {
    Arc::new(fake.client())
}

/// A watch refreshing at least 2 s and at most 16 s apart.
fn watch(fake: &Fake, metal: &Arc<dyn Metal>) -> DeviceWatch {
    let config = WatchConfig::new().interval(Duration::from_secs(2), Duration::from_secs(16));
    DeviceWatch::start(Arc::clone(metal), fake.project(), config).unwrap()
}

/// The gaps between the project lists the fake received.
fn list_gaps(fake: &Fake) -> Vec<Duration> {
    let at: Vec<Instant> = fake
        .calls()
        .iter()
        .filter(|c| c.operation == "findProjectDevices")
        .map(|c| c.at)
        .collect();
    at.windows(2).map(|w| w[1] - w[0]).collect()
}

/// The value of the watch's metric `name` (with `outcome`, when given).
fn metric(registry: &prometheus::Registry, name: &str, outcome: Option<&str>) -> f64 {
    let families = registry.gather();
    let Some(family) = families.iter().find(|f| f.name() == name) else {
        return 0.0;
    };
    family
        .get_metric()
        .iter()
        .filter(|m| {
            outcome.is_none_or(|o| {
                m.get_label()
                    .iter()
                    .any(|l| l.name() == "outcome" && l.value() == o)
            })
        })
        // A counter's gauge reads 0, and a gauge's counter.
        .map(|m| m.get_counter().get_value() + m.get_gauge().get_value())
        .sum()
}

#[tokio::test(start_paused = true)]
async fn one_refresh_serves_many_waiters() {
    let fake = fake(12).build();
    let metal = metal(&fake);
    let mut ids = Vec::new();
    for n in 0..12 {
        ids.push(create_beside(&fake, &format!("web-{n}")).await);
    }
    let watch = watch(&fake, &metal);
    let registry = prometheus::Registry::new();
    watch.register(&registry).unwrap();
    let started = Instant::now();
    let waiter = Waiter::new().watch(watch.clone());
    let ended = waiter
        .wait_for_devices(metal.as_ref(), &ids, &ACTIVE, Duration::from_secs(600))
        .await;
    assert_eq!(ended.len(), 12);
    for (id, ended) in ids.iter().zip(&ended) {
        let device = ended.as_ref().unwrap();
        assert_eq!(
            (device.id, device.state_kind()),
            (Some(*id), Some(DeviceState::Active))
        );
    }
    // No device was read on its own: every wait read the same lists.
    assert_eq!(fake.call_count("findDeviceById"), 0);
    let lists = fake.call_count("findProjectDevices");
    assert_eq!(
        metric(&registry, "equinix_api_watch_refreshes_total", None),
        lists as f64
    );
    assert_eq!(
        metric(&registry, "equinix_api_watch_pages_total", None),
        lists as f64
    );
    // Lists at 0, 2, 6 s (quiet: the interval doubles from the floor), 14
    // (provisioning since 10 s: a change, so the floor again), 16, 20, 28,
    // 44 (quiet, up to the ceiling of 16 s), and 60, where every device is
    // active.
    assert_eq!(lists, 9, "{:?}", list_gaps(&fake));
    assert_eq!(started.elapsed(), Duration::from_secs(60));
    // Polling each device every 2 s would have read 12 x 31 times.
    let snapshot = watch.snapshot();
    assert!(snapshot.is_complete());
    assert_eq!(snapshot.devices().count(), 12);
    // By hostname: exactly that hostname (web-1 is not web-10 or web-11),
    // the index made once and read again.
    for _ in 0..2 {
        let named = |h: &str| -> Vec<_> { snapshot.with_hostname(h).map(|d| d.id).collect() };
        assert_eq!(named("web-1"), vec![Some(ids[1])]);
        assert_eq!(named("web-11"), vec![Some(ids[11])]);
        assert!(named("web-").is_empty() && named("db-0").is_empty());
    }
    // The snapshot's devices are trimmed: of their plan and facility only
    // the link is left (an excluded thing is its href, as the spec says).
    assert!(snapshot.devices().all(|d| {
        d.plan.as_ref().is_none_or(|p| p.slug.is_none())
            && d.facility.as_ref().is_none_or(|f| f.code.is_none())
    }));
    assert_eq!(
        snapshot.listed_at(),
        Some(started + Duration::from_secs(60))
    );
    assert_eq!(
        metric(&registry, "equinix_api_watch_view_age_seconds", None),
        0.0
    );
    // The next list is 2 s after a change.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        metric(&registry, "equinix_api_watch_view_age_seconds", None),
        1.0
    );
}

#[tokio::test(start_paused = true)]
async fn the_interval_shrinks_to_the_floor_while_a_watched_device_changes() {
    let fake = fake(1).build();
    let metal = metal(&fake);
    let id = create_beside(&fake, "web-0").await;
    let watch = watch(&fake, &metal);
    let waiter = Waiter::new().watch(watch);
    waiter
        .wait_for_device(metal.as_ref(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap();
    let s = Duration::from_secs;
    // Queued until 10 s: lists at 0, 2, 6, then 14 sees it provisioning
    // (a change, so the next is the floor away), then quiet ones double
    // the gap to the ceiling, until 60 s sees it active.
    assert_eq!(
        list_gaps(&fake),
        vec![s(2), s(4), s(8), s(2), s(4), s(8), s(16), s(16)]
    );
}

#[tokio::test(start_paused = true)]
async fn a_device_gone_from_the_list_is_read_once_then_its_waiter_told() {
    let fake = fake(1).build();
    let metal = metal(&fake);
    let id = create_beside(&fake, "web-0").await;
    let watch = watch(&fake, &metal);
    let waiter = Waiter::new().watch(watch.clone());
    waiter
        .wait_for_device(metal.as_ref(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap();
    // Waiting for a state it will not reach, while it is deleted.
    let wait = waiter.wait_for_device(
        metal.as_ref(),
        id,
        &[DeviceState::Inactive],
        Duration::from_secs(600),
    );
    let delete = async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        metal.delete_device(id).await.unwrap();
    };
    let (err, ()) = tokio::join!(wait, delete);
    let err = err.unwrap_err();
    assert_eq!(err.status(), Some(404), "{err}");
    assert!(matches!(err, WaitError::Api { id: read, .. } if read == id));
    // One read by ID, after a whole list without it.
    assert_eq!(fake.call_count("findDeviceById"), 1);
    assert!(watch.snapshot().device(id).is_none());
}

#[tokio::test(start_paused = true)]
async fn a_device_created_after_the_list_is_not_taken_for_gone() {
    let fake = fake(1).build();
    let metal = metal(&fake);
    let watch = watch(&fake, &metal);
    // The first list, empty, is done before the device exists.
    let empty = watch.refreshed().await.unwrap();
    assert!(empty.is_complete() && empty.devices().count() == 0);
    let id = create_beside(&fake, "web-0").await;
    Waiter::new()
        .watch(watch)
        .wait_for_device(metal.as_ref(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap();
    assert_eq!(fake.call_count("findDeviceById"), 0);
}

#[tokio::test(start_paused = true)]
async fn a_failed_device_ends_its_waiter_at_once() {
    let fake = fake(2)
        .fail_provisioning(FailProvisioning::Hostname("web-1".into()))
        .build();
    let metal = metal(&fake);
    let healthy = create_beside(&fake, "web-0").await;
    let failing = create_beside(&fake, "web-1").await;
    let watch = watch(&fake, &metal);
    let waiter = Waiter::new().watch(watch.clone());
    let started = Instant::now();
    let timeout = Duration::from_secs(3600);
    let (bad, good) = tokio::join!(
        async {
            let err = waiter
                .wait_for_device(metal.as_ref(), failing, &ACTIVE, timeout)
                .await;
            (err, started.elapsed())
        },
        waiter.wait_for_device(metal.as_ref(), healthy, &ACTIVE, timeout),
    );
    let (err, after) = bad;
    match err.unwrap_err() {
        WaitError::Failed { id, device } => {
            assert_eq!(id, failing);
            assert_eq!(device.state_kind(), Some(DeviceState::Failed));
        }
        other => panic!("expected Failed, got {other:?}"),
    }
    // It fails at 60 s, where it would have become active; the list at
    // 60 s (as in the tests above) ends its wait, not the deadline, and
    // the healthy device's wait goes on to its own end.
    assert_eq!(after, Duration::from_secs(60));
    assert_eq!(good.unwrap().state_kind(), Some(DeviceState::Active));
    assert_eq!(fake.call_count("findDeviceById"), 0);
}

#[tokio::test(start_paused = true)]
async fn a_failed_device_the_api_takes_away_is_its_reads_403() {
    let fake = fake(1)
        .timings(Timings {
            queued: Duration::from_secs(10),
            provisioning: Duration::from_secs(50),
            failed_moved_after: Some(Duration::ZERO),
            ..Timings::default()
        })
        .fail_provisioning(FailProvisioning::Hostname("web-0".into()))
        .build();
    let metal = metal(&fake);
    let id = create_beside(&fake, "web-0").await;
    let err = Waiter::new()
        .watch(watch(&fake, &metal))
        .wait_for_device(metal.as_ref(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    assert_eq!(fake.call_count("findDeviceById"), 1);
}

#[tokio::test(start_paused = true)]
async fn a_page_bound_makes_a_partial_snapshot_that_judges_nothing_gone() {
    let fake = fake(5).build();
    let metal = metal(&fake);
    let mut ids = Vec::new();
    for n in 0..5 {
        ids.push(create_beside(&fake, &format!("web-{n}")).await);
    }
    let config = WatchConfig::new()
        .query(DeviceQuery::new().per_page(2).max_pages(2))
        .interval(Duration::from_secs(2), Duration::from_secs(16));
    let watch = DeviceWatch::start(Arc::clone(&metal), fake.project(), config).unwrap();
    let registry = prometheus::Registry::new();
    watch.register(&registry).unwrap();
    let snapshot = watch.refreshed().await.unwrap();
    assert!(!snapshot.is_complete());
    assert_eq!(snapshot.devices().count(), 4);
    let unlisted = *ids
        .iter()
        .find(|id| snapshot.device(**id).is_none())
        .unwrap();
    // The device beyond the bound is never judged gone: its wait ends at
    // the deadline, without a read.
    let err = Waiter::new()
        .watch(watch.clone())
        .wait_for_device(metal.as_ref(), unlisted, &ACTIVE, Duration::from_secs(120))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            WaitError::TimedOut {
                last_state: None,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(fake.call_count("findDeviceById"), 0);
    let refreshes = metric(
        &registry,
        "equinix_api_watch_refreshes_total",
        Some("partial"),
    );
    assert_eq!(
        metric(&registry, "equinix_api_watch_pages_total", None),
        2.0 * refreshes
    );
    assert_eq!(
        fake.call_count("findProjectDevices") as f64,
        2.0 * refreshes
    );
}

#[tokio::test(start_paused = true)]
async fn a_refused_list_ends_the_waits() {
    let fake = fake(1).build();
    let metal = metal(&fake);
    let id = create_beside(&fake, "web-0").await;
    let elsewhere = Uuid::new_v4();
    let watch = DeviceWatch::start(Arc::clone(&metal), elsewhere, WatchConfig::new()).unwrap();
    match watch.refreshed().await {
        Err(e @ WatchError::Refresh { .. }) => assert_eq!(e.status(), Some(404), "{e}"),
        other => panic!("expected a refused refresh, got {other:?}"),
    }
    let err = Waiter::new()
        .watch(watch)
        .wait_for_device(metal.as_ref(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap_err();
    assert!(matches!(err, WaitError::Watch { .. }), "{err:?}");
    assert_eq!(err.status(), Some(404));
}

#[tokio::test(start_paused = true)]
async fn dropping_the_last_handle_stops_the_task() {
    let fake = fake(1).build();
    let metal = metal(&fake);
    let watch = watch(&fake, &metal);
    let clone = watch.clone();
    let waiter = Waiter::new().watch(watch.clone());
    drop(watch);
    // Nothing waits: it refreshes at its ceiling, 16 s, and a clone or a
    // waiter keeps it going.
    tokio::time::sleep(Duration::from_secs(600)).await;
    let alive = fake.call_count("findProjectDevices");
    assert!(alive >= 600 / 16, "{alive} lists");
    drop(clone);
    tokio::time::sleep(Duration::from_secs(600)).await;
    assert!(fake.call_count("findProjectDevices") >= alive + 600 / 16);
    drop(waiter);
    let stopped = fake.call_count("findProjectDevices");
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(fake.call_count("findProjectDevices"), stopped);
}

#[test]
fn a_watch_outside_a_runtime_is_an_error() {
    let fake = fake(1).build();
    let err = DeviceWatch::start(metal(&fake), fake.project(), WatchConfig::new()).unwrap_err();
    assert!(matches!(err, WatchError::NoRuntime), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_device_that_leaves_a_tags_list_but_exists_is_gone() {
    let fake = fake(1).build();
    let metal = metal(&fake);
    let id = create_beside(&fake, "web-0").await;
    let config = WatchConfig::new()
        .tag("provision-run=provision")
        .interval(Duration::from_secs(2), Duration::from_secs(16));
    let watch = DeviceWatch::start(Arc::clone(&metal), fake.project(), config).unwrap();
    let waiter = Waiter::new().watch(watch);
    let wait = waiter.wait_for_device(metal.as_ref(), id, &ACTIVE, Duration::from_secs(600));
    let untag = async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        let update = metal_api::types::DeviceUpdateInput {
            tags: Some(vec!["other".into()]),
            ..Default::default()
        };
        metal.update_device(id, &update).await.unwrap();
    };
    let (err, ()) = tokio::join!(wait, untag);
    match err.unwrap_err() {
        WaitError::Gone { id: gone, device } => {
            assert_eq!(gone, id);
            assert_eq!(device.tags, vec!["other".to_string()]);
        }
        other => panic!("expected Gone, got {other:?}"),
    }
    // Found by its tag at 0 and 2 s, missing at 6 s: read once.
    assert_eq!(fake.call_count("findDeviceById"), 1);
}

#[tokio::test(start_paused = true)]
async fn wait_for_devices_without_a_watch_polls_each() {
    let fake = fake(2).build();
    let metal = metal(&fake);
    let ids = [
        create_beside(&fake, "web-0").await,
        create_beside(&fake, "web-1").await,
    ];
    let ended = Waiter::new()
        .wait_for_devices(metal.as_ref(), &ids, &ACTIVE, Duration::from_secs(30))
        .await;
    // Not active within 30 s: each wait times out on its own.
    assert_eq!(ended.len(), 2);
    for (id, ended) in ids.iter().zip(ended) {
        assert!(
            matches!(ended, Err(WaitError::TimedOut { id: waited, .. }) if waited == *id),
            "{id}"
        );
    }
    assert_eq!(fake.call_count("findProjectDevices"), 0);
    assert!(fake.call_count("findDeviceById") >= 4);
}

/// A watch keeps of each device only what waiters and controllers read
/// (its ID, hostname, state, tags, times, project and reservation), not
/// the ports, events, operating system and creator a list gives whole;
/// `whole_devices` keeps it as listed. The wait returns the device as the
/// watch holds it.
#[tokio::test(start_paused = true)]
async fn a_watch_keeps_what_waiters_read_unless_told_to_keep_devices_whole() {
    let fake = fake(1).build();
    let metal = metal(&fake);
    let id = create_beside(&fake, "web-0").await;
    let slim = watch(&fake, &metal);
    let whole = DeviceWatch::start(
        Arc::clone(&metal),
        fake.project(),
        WatchConfig::new().whole_devices(),
    )
    .unwrap();
    let listed = metal.get_device(id, &Default::default()).await.unwrap();
    assert!(!listed.network_ports.is_empty() && listed.operating_system.is_some());

    let kept = slim.refreshed().await.unwrap().device(id).cloned().unwrap();
    assert_eq!(kept.id, Some(id));
    assert_eq!(kept.hostname.as_deref(), Some("web-0"));
    assert_eq!((&kept.state, &kept.tags), (&listed.state, &listed.tags));
    assert_eq!(kept.created_at, listed.created_at);
    assert!(kept.href.is_some() && kept.project_lite.is_some());
    assert!(kept.network_ports.is_empty() && kept.provisioning_events.is_empty());
    assert!(kept.operating_system.is_none() && kept.created_by.is_none());

    let as_listed = whole
        .refreshed()
        .await
        .unwrap()
        .device(id)
        .cloned()
        .unwrap();
    assert_eq!(as_listed.network_ports, listed.network_ports);
    assert_eq!(as_listed.operating_system, listed.operating_system);

    let waited = Waiter::new()
        .watch(slim)
        .wait_for_device(metal.as_ref(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap();
    assert_eq!(waited.state_kind(), Some(DeviceState::Active));
    assert!(waited.network_ports.is_empty());
}
