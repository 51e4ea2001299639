//! Model-based randomized tests: proptest generates sequences of `Metal`
//! calls (creates, reboots, power actions, deletes, a competitor taking
//! reservations, time passing), each with a fault script (faults that hit
//! the next calls) and an optional cancellation point (the call dropped
//! after so long), runs them against the in-process fake on tokio's paused
//! clock, and checks after every step what must be true whatever the
//! faults did:
//!
//! - one device at most per logical create (its own tag), ever;
//! - no device on the server that no create asked for (none lost);
//! - a create that returned a device: it carries the tag, on the
//!   reservation asked for; a lost race: someone else holds it;
//! - a device rebooted at most as often as reboots were asked for it, and
//!   at least as often as they succeeded;
//! - a delete that succeeded: the device is gone or being deleted
//!   (`deprovisioning`, for two seconds);
//! - the client's `in_flight` and `waiting` gauges back to 0 after every
//!   call, cancelled or not;
//! - with no fault and no cancellation, a create on a free reservation
//!   succeeds and one on a held reservation is a lost race.
//!
//! A failure shrinks to a minimal sequence. `PROPERTY_CASES` overrides
//! the case count (default 256, about 7 s in a debug build on 2 cores).

use crate::gauge;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use metal_api::types;
use metal_fake::{Fake, Fault, FaultKind, Timings};
use metal_policy::{Client, Error, Metal};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use uuid::Uuid;

use gauge::gauge;

const RESERVATIONS: usize = 4;

/// One call, or something the world does.
#[derive(Clone, Debug)]
enum Op {
    Create { reservation: usize },
    Reboot { device: usize },
    Power { device: usize, on: bool },
    Delete { device: usize },
    Compete { reservation: usize },
    Wait { millis: u64 },
}

/// One step: an operation, the faults that hit the next calls, and when
/// the call is dropped, if it is.
#[derive(Clone, Debug)]
struct Step {
    op: Op,
    faults: Vec<FaultKind>,
    cancel_after: Option<u64>,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..RESERVATIONS).prop_map(|reservation| Op::Create { reservation }),
        2 => (0..8usize).prop_map(|device| Op::Reboot { device }),
        2 => (0..8usize, any::<bool>()).prop_map(|(device, on)| Op::Power { device, on }),
        2 => (0..8usize).prop_map(|device| Op::Delete { device }),
        1 => (0..RESERVATIONS).prop_map(|reservation| Op::Compete { reservation }),
        2 => (1..8_000u64).prop_map(|millis| Op::Wait { millis }),
    ]
}

fn fault() -> impl Strategy<Value = FaultKind> {
    prop_oneof![
        Just(FaultKind::NotSent),
        Just(FaultKind::FailBefore { status: 503 }),
        Just(FaultKind::FailAfter { status: 502 }),
        Just(FaultKind::Throttle {
            retry_after: Duration::from_secs(1)
        }),
        Just(FaultKind::DropAfter),
        Just(FaultKind::Truncated),
        Just(FaultKind::Hang),
        Just(FaultKind::BadGateway),
        Just(FaultKind::Latency(Duration::from_millis(300))),
        Just(FaultKind::Competitor),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    (
        op(),
        prop::collection::vec(fault(), 0..3),
        prop::option::weighted(0.25, 1..3_000u64),
    )
        .prop_map(|(op, faults, cancel_after)| Step {
            op,
            faults,
            cancel_after,
        })
}

/// What the test knows, beside the fake.
#[derive(Default)]
struct Model {
    /// Every create's tag, and the devices ever seen carrying it.
    creates: BTreeMap<String, BTreeSet<Uuid>>,
    /// Devices the creates returned, in order (operations pick by index).
    devices: Vec<Uuid>,
    /// Reboots asked for, and succeeded, by device.
    reboots_asked: BTreeMap<Uuid, u32>,
    reboots_ok: BTreeMap<Uuid, u32>,
    /// Scripted faults injected so far (some may still wait for a call:
    /// a step whose call stopped early, or made none, leaves them to the
    /// next step's calls).
    injected: u64,
}

fn create_request(fake: &Fake, reservation: Uuid, tag: &str) -> types::CreateDeviceRequest {
    let input: types::DeviceCreateInFacilityInput = types::DeviceCreateInFacilityInput::builder()
        .facility(vec!["da11".to_string()])
        .plan("c3.small.x86")
        .operating_system("ubuntu_24_04")
        .hostname(format!("prop-{}", &tag[..8]))
        .hardware_reservation_id(reservation.to_string())
        .tags(vec![tag.to_string()])
        .try_into()
        .expect("every required field is set");
    let _ = fake;
    input.into()
}

/// The reservation's holder now, from the fake's own records.
fn holder(fake: &Fake, reservation: Uuid) -> Option<types::Device> {
    fake.reservations()
        .into_iter()
        .find(|r| r.id == Some(reservation))
        .and_then(|r| r.device.map(|d| *d))
}

async fn run(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let fake = Fake::builder()
        .reservations(RESERVATIONS)
        .timings(Timings {
            queued: Duration::from_secs(1),
            provisioning: Duration::from_secs(3),
            power: Duration::from_secs(2),
            reinstall: Duration::from_secs(4),
            reservation_release: Duration::ZERO,
            // A deleted device stays, deprovisioning, for a while: still
            // on the server and on its reservation, yet no create's to
            // track any more.
            deprovisioning: Duration::from_secs(2),
            ..Timings::default()
        })
        .build();
    let registry = prometheus::Registry::new();
    let client: Client = fake
        .client_with(|b| {
            b.registry(registry.clone())
                .deadline(Some(Duration::from_secs(120)))
                .attempt_timeout(Some(Duration::from_secs(10)))
        })
        .expect("the client builds");
    let metal: &dyn Metal = &client;
    let reservations = fake.provisionable_reservations();
    let mut model = Model::default();

    for (i, step) in steps.into_iter().enumerate() {
        let hit: u64 = fake.snapshot().faults_injected.values().sum();
        let clean = step.faults.is_empty() && step.cancel_after.is_none() && hit == model.injected;
        for kind in &step.faults {
            fake.inject(Fault::any(kind.clone())).unwrap();
            model.injected += 1;
        }
        let pick = |n: usize| -> Option<Uuid> {
            (!model.devices.is_empty()).then(|| model.devices[n % model.devices.len()])
        };
        let cancel = step.cancel_after.map(Duration::from_millis);
        macro_rules! call {
            ($fut:expr) => {
                match cancel {
                    Some(after) => tokio::time::timeout(after, $fut).await.ok(),
                    None => Some($fut.await),
                }
            };
        }
        match step.op {
            Op::Create { reservation } => {
                let r = reservations[reservation];
                let tag = Uuid::new_v4().to_string();
                model.creates.insert(tag.clone(), BTreeSet::new());
                let free_before = holder(&fake, r).is_none();
                let request = create_request(&fake, r, &tag);
                let result = call!(metal.create_device(fake.project(), &request));
                match result {
                    Some(Ok(d)) => {
                        let id = d.id.expect("a created device has an ID");
                        prop_assert!(d.tags.contains(&tag), "step {i}: the device lacks its tag");
                        let on = holder(&fake, r).and_then(|h| h.id);
                        prop_assert_eq!(on, Some(id), "step {}: not on its reservation", i);
                        model.devices.push(id);
                    }
                    Some(Err(Error::RaceLost { .. })) => {
                        let h = holder(&fake, r);
                        prop_assert!(
                            h.is_some_and(|h| !h.tags.contains(&tag)),
                            "step {i}: a lost race, but the reservation is free or ours"
                        );
                        prop_assert!(
                            !(clean && free_before),
                            "step {i}: a free reservation, no fault, and a lost race"
                        );
                    }
                    other => {
                        prop_assert!(!clean, "step {i}: a clean create ended with {other:?}");
                        // A device may have been made anyway: ours to
                        // track, as a controller would through the tag.
                        if let Some(id) = holder(&fake, r)
                            .filter(|h| h.tags.contains(&tag))
                            .and_then(|h| h.id)
                        {
                            model.devices.push(id);
                        }
                    }
                }
                if clean && free_before {
                    prop_assert!(
                        model
                            .devices
                            .last()
                            .is_some_and(|d| holder(&fake, r).and_then(|h| h.id) == Some(*d)),
                        "step {i}: a clean create on a free reservation made nothing"
                    );
                }
            }
            Op::Reboot { device } => {
                if let Some(d) = pick(device) {
                    *model.reboots_asked.entry(d).or_default() += 1;
                    if let Some(Ok(())) = call!(metal.reboot_device(d)) {
                        *model.reboots_ok.entry(d).or_default() += 1;
                    }
                }
            }
            Op::Power { device, on } => {
                if let Some(d) = pick(device) {
                    let (result, done) = if on {
                        (call!(metal.power_on_device(d)), ["powering_on", "active"])
                    } else {
                        (
                            call!(metal.power_off_device(d)),
                            ["powering_off", "inactive"],
                        )
                    };
                    if let Some(Ok(())) = result {
                        let state = fake_state(&fake, d);
                        prop_assert!(
                            state.as_deref().is_some_and(|s| done.contains(&s)),
                            "step {i}: powered {}, but {state:?}",
                            if on { "on" } else { "off" }
                        );
                    }
                }
            }
            Op::Delete { device } => {
                if let Some(d) = pick(device)
                    && let Some(Ok(())) = call!(metal.delete_device(d))
                {
                    let state = fake_state(&fake, d);
                    prop_assert!(
                        state.as_deref().is_none_or(|s| s == "deprovisioning"),
                        "step {i}: deleted, but {state:?}"
                    );
                }
            }
            Op::Compete { reservation } => {
                let _ = fake.take_reservation(reservations[reservation]);
            }
            Op::Wait { millis } => tokio::time::sleep(Duration::from_millis(millis)).await,
        }
        // Let a hung exchange's timeout or a dropped call's guards settle:
        // nothing else runs on this runtime.
        tokio::task::yield_now().await;
        check(&fake, &registry, &mut model, i)?;
    }
    Ok(())
}

fn fake_state(fake: &Fake, id: Uuid) -> Option<String> {
    fake.devices()
        .into_iter()
        .find(|d| d.id == Some(id))
        .and_then(|d| d.state)
}

/// What must hold after every step.
fn check(
    fake: &Fake,
    registry: &prometheus::Registry,
    model: &mut Model,
    i: usize,
) -> Result<(), TestCaseError> {
    for d in fake.devices() {
        let id = d.id.expect("the fake's devices have IDs");
        if fake.is_competitor(id) {
            continue;
        }
        let tag = d.tags.iter().find(|t| model.creates.contains_key(*t));
        let Some(tag) = tag else {
            return Err(TestCaseError::fail(format!(
                "step {i}: device {id} (tags {:?}) is no create's: lost",
                d.tags
            )));
        };
        let seen = model.creates.get_mut(tag).expect("found above");
        seen.insert(id);
        prop_assert!(
            seen.len() <= 1,
            "step {i}: create {tag} made devices {seen:?}"
        );
        let performed = fake.reboots(id).unwrap_or(0);
        let asked = model.reboots_asked.get(&id).copied().unwrap_or(0);
        let ok = model.reboots_ok.get(&id).copied().unwrap_or(0);
        prop_assert!(
            ok <= performed && performed <= asked,
            "step {i}: device {id} rebooted {performed} times, {asked} asked, {ok} succeeded"
        );
    }
    let (in_flight, waiting) = (
        gauge(registry, "equinix_api_in_flight"),
        gauge(registry, "equinix_api_waiting"),
    );
    prop_assert!(
        in_flight == 0.0 && waiting == 0.0,
        "step {i}: in_flight {in_flight}, waiting {waiting} between calls"
    );
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPERTY_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256)
}

/// Sequences of cases the generator reaches rarely, kept as plain tests:
/// each runs on every `cargo test`, whatever proptest draws.
#[test]
fn regressions() {
    let step = |op, faults: Vec<FaultKind>| Step {
        op,
        faults,
        cancel_after: None,
    };
    let cases: Vec<(&str, Vec<Step>)> = vec![
        (
            // A reboot with no device to reboot makes no call, so its
            // faults are left for the next step's create (the latency for
            // its reservation check, the competitor for the create
            // itself): the model must expect them there.
            "a fault left by a step without a call",
            vec![
                step(
                    Op::Reboot { device: 0 },
                    vec![
                        FaultKind::Latency(Duration::from_millis(300)),
                        FaultKind::Competitor,
                    ],
                ),
                step(Op::Create { reservation: 0 }, Vec::new()),
            ],
        ),
        (
            // A deleted device is still on the server, deprovisioning and
            // holding its reservation, after its delete succeeded; a
            // create there is a lost race, and the device is no create's
            // to lose.
            "a create on a reservation whose device is deprovisioning",
            vec![
                step(Op::Create { reservation: 0 }, Vec::new()),
                step(Op::Wait { millis: 5_000 }, Vec::new()),
                step(Op::Delete { device: 0 }, Vec::new()),
                step(Op::Create { reservation: 0 }, Vec::new()),
                step(Op::Wait { millis: 3_000 }, Vec::new()),
                step(Op::Create { reservation: 0 }, Vec::new()),
            ],
        ),
    ];
    for (what, steps) in cases {
        if let Err(e) = run_paused(steps) {
            panic!("{what}: {e}");
        }
    }
}

/// Runs a sequence on a fresh runtime with tokio's clock paused.
fn run_paused(steps: Vec<Step>) -> Result<(), TestCaseError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime")
        .block_on(run(steps))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn calls_under_faults_and_cancellation_keep_the_guarantees(
        steps in prop::collection::vec(step(), 1..24)
    ) {
        run_paused(steps)?;
    }
}
