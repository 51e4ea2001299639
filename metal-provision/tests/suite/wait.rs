//! `metal_policy::wait_for_device` against the in-process fake, on tokio's
//! paused clock: a device that becomes active, one that fails, a deadline
//! that passes (also while a read hangs), a device that does not exist,
//! and the polling schedule.

use std::time::Duration;

use crate::common;
use common::create_beside;
use metal_api::DeviceState;
use metal_fake::{FailProvisioning, Fake, Fault, FaultKind, Timings};
use metal_policy::{wait_for_device, ExponentialBackoff, WaitError, Waiter};
use tokio::time::Instant;
use uuid::Uuid;

const ACTIVE: [DeviceState; 1] = [DeviceState::Active];

/// Queued for 10 s, provisioning for 50 s: active a minute after create.
fn fake() -> metal_fake::FakeBuilder {
    Fake::builder().reservations(2).timings(Timings {
        queued: Duration::from_secs(10),
        provisioning: Duration::from_secs(50),
        ..Timings::default()
    })
}

/// Reads every `every`, no jitter.
fn every(every: Duration) -> Waiter {
    Waiter::new().poll(ExponentialBackoff {
        initial_interval: every,
        multiplier: 1.0,
        randomization_factor: 0.0,
        max_interval: every,
        max_elapsed_time: None,
    })
}

#[tokio::test(start_paused = true)]
async fn returns_the_device_once_it_is_active() {
    let fake = fake().build();
    let id = create_beside(&fake, "web-1").await;
    let started = Instant::now();
    let device = every(Duration::from_secs(5))
        .wait_for_device(&fake.client(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap();
    assert_eq!(device.state_kind(), Some(DeviceState::Active));
    assert_eq!(device.id, Some(id));
    // Active at 60 s, seen by the read at 60 s: reads at 0, 5, ..., 60.
    assert_eq!(started.elapsed(), Duration::from_secs(60));
    assert_eq!(fake.call_count("findDeviceById"), 13);
}

#[tokio::test(start_paused = true)]
async fn any_of_several_states_ends_the_wait() {
    let fake = fake().build();
    let id = create_beside(&fake, "web-1").await;
    let device = every(Duration::from_secs(1))
        .wait_for_device(
            &fake.client(),
            id,
            &[DeviceState::Provisioning, DeviceState::Active],
            Duration::from_secs(600),
        )
        .await
        .unwrap();
    assert_eq!(device.state_kind(), Some(DeviceState::Provisioning));
}

#[tokio::test(start_paused = true)]
async fn a_failed_device_is_a_typed_error_at_once() {
    let fake = fake()
        .fail_provisioning(FailProvisioning::Hostname("web-1".into()))
        .build();
    let id = create_beside(&fake, "web-1").await;
    let started = Instant::now();
    let err = every(Duration::from_secs(5))
        .wait_for_device(&fake.client(), id, &ACTIVE, Duration::from_secs(3600))
        .await
        .unwrap_err();
    match &err {
        WaitError::Failed { id: failed, device } => {
            assert_eq!(*failed, id);
            assert_eq!(device.state_kind(), Some(DeviceState::Failed));
        }
        other => panic!("expected Failed, got {other:?}"),
    }
    assert_eq!(err.to_string(), format!("device {id} failed"));
    // It fails where it would have become active, and the wait ends there,
    // not at the deadline.
    assert_eq!(started.elapsed(), Duration::from_secs(60));

    // Waiting for `failed` itself succeeds.
    let device = wait_for_device(
        &fake.client(),
        id,
        &[DeviceState::Failed],
        Duration::from_secs(1),
    )
    .await
    .unwrap();
    assert_eq!(device.state_kind(), Some(DeviceState::Failed));
}

#[tokio::test(start_paused = true)]
async fn the_deadline_ends_the_wait_with_the_last_state() {
    let fake = fake().build();
    let id = create_beside(&fake, "web-1").await;
    let started = Instant::now();
    let err = every(Duration::from_secs(7))
        .wait_for_device(&fake.client(), id, &ACTIVE, Duration::from_secs(30))
        .await
        .unwrap_err();
    match &err {
        WaitError::TimedOut {
            id: waited,
            timeout,
            last_state,
        } => {
            assert_eq!((*waited, *timeout), (id, Duration::from_secs(30)));
            assert_eq!(last_state.as_deref(), Some("provisioning"));
        }
        other => panic!("expected TimedOut, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        format!("device {id} is still provisioning after 30s")
    );
    // Exactly the timeout: reads at 0, 7, 14, 21, 28, then the deadline.
    assert_eq!(started.elapsed(), Duration::from_secs(30));
    assert_eq!(fake.call_count("findDeviceById"), 5);
}

#[tokio::test(start_paused = true)]
async fn a_read_that_hangs_is_bounded_by_the_deadline() {
    let fake = fake()
        .fault(Fault::on("findDeviceById", FaultKind::Hang).times(1000))
        .build();
    let id = create_beside(&fake, "web-1").await;
    let registry = prometheus::Registry::new();
    let client = fake.client_with(|c| c.registry(registry.clone())).unwrap();
    let started = Instant::now();
    let err = wait_for_device(&client, id, &ACTIVE, Duration::from_secs(20))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            WaitError::TimedOut {
                last_state: None,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(started.elapsed(), Duration::from_secs(20));
    let in_flight = registry
        .gather()
        .iter()
        .find(|f| f.name() == "equinix_api_in_flight")
        .map(|f| f.get_metric()[0].get_gauge().get_value());
    assert_eq!(in_flight, Some(0.0), "the abandoned read kept its slot");
}

#[tokio::test(start_paused = true)]
async fn an_unknown_device_is_the_reads_error() {
    let fake = fake().build();
    let id = Uuid::new_v4();
    let err = wait_for_device(&fake.client(), id, &ACTIVE, Duration::from_secs(60))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(404), "{err}");
    assert!(matches!(err, WaitError::Api { id: read, .. } if read == id));
}

#[tokio::test(start_paused = true)]
async fn the_default_schedule_backs_off_between_reads() {
    let fake = fake().build();
    let id = create_beside(&fake, "web-1").await;
    wait_for_device(&fake.client(), id, &ACTIVE, Duration::from_secs(600))
        .await
        .unwrap();
    // Delays from 1 s growing by 1.5 (±20%) to at most 30 s: far fewer
    // reads in the minute than a read a second would make, and more than
    // one read every 30 s.
    let reads = fake.call_count("findDeviceById");
    assert!((5..=14).contains(&reads), "{reads} reads");
}
