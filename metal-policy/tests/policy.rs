//! The policy's semantics against a scripted in-process transport, on
//! tokio's paused clock.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use metal_api::types;
use metal_policy::{
    AttemptError, Backoff, BackoffFactory, Client, Error, ExponentialBackoff, Fields, KeyOwner,
    Metal, Request, Response, Transport,
};
use tokio::time::Instant;
use uuid::Uuid;

type Handler = dyn Fn(&Request, usize) -> Result<Response, AttemptError> + Send + Sync;

/// A transport that answers with a function of (request, index of this
/// request), optionally takes time, and logs what it saw and when.
struct Script {
    handler: Box<Handler>,
    latency: Duration,
    log: Mutex<Vec<(Instant, Request)>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Script {
    fn new(
        latency: Duration,
        handler: impl Fn(&Request, usize) -> Result<Response, AttemptError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            handler: Box::new(handler),
            latency,
            log: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
        })
    }
    fn requests(&self) -> Vec<Request> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|(_, r)| r.clone())
            .collect()
    }
    fn times(&self) -> Vec<Instant> {
        self.log.lock().unwrap().iter().map(|(t, _)| *t).collect()
    }
    fn count(&self, op: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.operation() == op)
            .count()
    }
}

struct InFlight<'a>(&'a AtomicUsize);
impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait]
impl Transport for Script {
    async fn send(&self, request: Request) -> Result<Response, AttemptError> {
        let n = {
            let mut log = self.log.lock().unwrap();
            log.push((Instant::now(), request.clone()));
            log.len() - 1
        };
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        let _guard = InFlight(&self.in_flight);
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        if !self.latency.is_zero() {
            tokio::time::sleep(self.latency).await;
        }
        (self.handler)(&request, n)
    }
}

/// A fixed delay, forever or for `limit` retries.
struct Fixed(Duration, Option<usize>);
impl BackoffFactory for Fixed {
    fn start(&self) -> Box<dyn Backoff> {
        struct S(Duration, Option<usize>);
        impl Backoff for S {
            fn next_delay(&mut self) -> Option<Duration> {
                match &mut self.1 {
                    Some(0) => None,
                    Some(n) => {
                        *n -= 1;
                        Some(self.0)
                    }
                    None => Some(self.0),
                }
            }
        }
        Box::new(S(self.0, self.1))
    }
}

fn client(t: Arc<Script>) -> metal_policy::ClientBuilder {
    Client::builder()
        .transport(t)
        .api_rate(Duration::ZERO)
        .backoff(Arc::new(Fixed(Duration::from_secs(1), None)))
}

fn device(id: Uuid, tags: &[&str]) -> types::Device {
    types::Device {
        id: Some(id),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

fn device_with_state(id: Uuid, state: &str) -> types::Device {
    types::Device {
        id: Some(id),
        state: Some(state.into()),
        ..Default::default()
    }
}

fn unknown() -> AttemptError {
    AttemptError::Unknown {
        status: Some(502),
        detail: "bad gateway".into(),
        source: None,
    }
}

fn not_sent() -> AttemptError {
    AttemptError::NotSent {
        source: "connection refused".into(),
    }
}

fn rejected(status: u16) -> AttemptError {
    AttemptError::Rejected {
        status,
        messages: vec![format!("server says {status}")],
    }
}

fn ok_device() -> Result<Response, AttemptError> {
    Ok(Response::Device(Box::new(device(Uuid::nil(), &[]))))
}

// ---------------------------------------------------------------- 1. concurrency

#[tokio::test(start_paused = true)]
async fn parallelism_bounds_in_flight_and_serves_waiters_fifo() {
    let t = Script::new(Duration::from_secs(10), |_, _| ok_device());
    let c = client(t.clone()).parallelism(2).build().unwrap();
    let ids: Vec<Uuid> = (0..6).map(|_| Uuid::new_v4()).collect();
    let mut tasks = Vec::new();
    for id in &ids {
        let c = c.clone();
        let id = *id;
        tasks.push(tokio::spawn(async move {
            c.get_device(id, &Fields::default()).await
        }));
        tokio::task::yield_now().await; // queue in this order
    }
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    assert_eq!(t.max_in_flight.load(Ordering::SeqCst), 2);
    let seen: Vec<Uuid> = t
        .requests()
        .into_iter()
        .map(|r| match r {
            Request::GetDevice { id, .. } => id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(seen, ids, "FIFO");
    let times = t.times();
    let t0 = times[0];
    assert_eq!(times[4] - t0, Duration::from_secs(20));
}

#[tokio::test(start_paused = true)]
async fn a_call_sleeping_in_backoff_holds_no_slot() {
    let a = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        // `a` fails once; its retry comes after a 100 s backoff.
        Request::GetDevice { id, .. } if *id == a => Err(not_sent()),
        _ => ok_device(),
    });
    let c = client(t.clone())
        .parallelism(1)
        .backoff(Arc::new(Fixed(Duration::from_secs(100), Some(1))))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let ca = c.clone();
    let first = tokio::spawn(async move { ca.get_device(a, &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(100),
        "{:?}",
        t0.elapsed()
    );
    assert!(matches!(
        first.await.unwrap(),
        Err(Error::GaveUp { attempts: 2, .. })
    ));
}

fn gauge(registry: &prometheus::Registry, name: &str) -> f64 {
    registry
        .gather()
        .into_iter()
        .find(|f| f.name() == name)
        .map(|f| f.get_metric()[0].get_gauge().get_value())
        .unwrap_or(f64::NAN)
}

#[tokio::test(start_paused = true)]
async fn dropping_calls_anywhere_releases_slots_and_gauges() {
    let sleeper = Uuid::new_v4();
    let t = Script::new(Duration::from_secs(3600), move |r, _| match r {
        Request::GetDevice { id, .. } if *id == sleeper => Err(not_sent()),
        _ => ok_device(),
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .parallelism(1)
        .registry(registry.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(3600), None)))
        .build()
        .unwrap();
    // One in flight, one waiting for the slot.
    let c1 = c.clone();
    let in_flight =
        tokio::spawn(async move { c1.get_device(Uuid::new_v4(), &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    let c2 = c.clone();
    let waiting =
        tokio::spawn(async move { c2.get_device(Uuid::new_v4(), &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 1.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 1.0);
    in_flight.abort();
    waiting.abort();
    let _ = in_flight.await;
    let _ = waiting.await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 0.0);

    // One sleeping in backoff (after a 1 h attempt), then dropped.
    let c3 = c.clone();
    let backing_off = tokio::spawn(async move { c3.get_device(sleeper, &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(3601)).await;
    assert_eq!(
        gauge(&registry, "equinix_api_in_flight"),
        0.0,
        "no slot while sleeping"
    );
    backing_off.abort();
    let _ = backing_off.await;
    // The slot is free: a new call goes straight in.
    let start = Instant::now();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert_eq!(
        start.elapsed(),
        Duration::from_secs(3600),
        "only its own latency"
    );
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 0.0);
}

// ---------------------------------------------------------------- 2. rate limiting

#[tokio::test(start_paused = true)]
async fn every_request_takes_its_turn_from_the_shared_limiter() {
    let project = Uuid::new_v4();
    let reservation = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |r, n| match r {
        Request::ListDevices { page, .. } => Ok(Response::Devices(types::DeviceList {
            devices: vec![device(Uuid::new_v4(), &[])],
            meta: Some(types::Meta {
                last_page: Some(3),
                current_page: Some(i64::from(*page)),
                ..Default::default()
            }),
        })),
        Request::GetReservation { .. } => Ok(Response::Reservation(Box::default())),
        Request::CreateDevice { .. } if n == 4 => Err(unknown()),
        _ => ok_device(),
    });
    let c = client(t.clone())
        .parallelism(4)
        .api_rate(Duration::from_secs(2))
        .backoff(Arc::new(Fixed(Duration::ZERO, None)))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let request = create_request(reservation);
    let (list, created) =
        tokio::join!(c.list_devices(project), c.create_device(project, &request),);
    assert_eq!(list.unwrap().len(), 3);
    created.unwrap();
    // 3 pages + lookup + create (unknown) + lookup + create = 7 requests,
    // each 2 s after the previous one, whoever made it.
    let mut times: Vec<Duration> = t.times().into_iter().map(|t| t - t0).collect();
    times.sort();
    let expected: Vec<Duration> = (0..7).map(|i| Duration::from_secs(2 * i)).collect();
    assert_eq!(times, expected);
}

#[tokio::test(start_paused = true)]
async fn a_throttling_reply_slows_the_whole_client_for_retry_after() {
    let t = Script::new(Duration::ZERO, |_, n| {
        if n == 0 {
            Err(AttemptError::Throttled {
                status: 429,
                retry_after: Some(Duration::from_secs(30)),
            })
        } else {
            ok_device()
        }
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .parallelism(2)
        .registry(registry.clone())
        .build()
        .unwrap();
    let t0 = Instant::now();
    let c1 = c.clone();
    let first =
        tokio::spawn(async move { c1.get_device(Uuid::new_v4(), &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    // Another call, which never saw the 429, also waits.
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    first.await.unwrap().unwrap();
    let times: Vec<Duration> = t.times().into_iter().map(|t| t - t0).collect();
    assert_eq!(times.len(), 3);
    assert_eq!(times[0], Duration::ZERO);
    assert!(times[1] >= Duration::from_secs(30), "{times:?}");
    assert!(times[2] >= Duration::from_secs(30), "{times:?}");
    let throttled = registry
        .gather()
        .into_iter()
        .find(|f| f.name() == "equinix_api_throttled_total")
        .unwrap();
    assert_eq!(throttled.get_metric()[0].get_counter().get_value(), 1.0);
}

// ---------------------------------------------------------------- 3. classification

#[tokio::test(start_paused = true)]
async fn reboot_with_unknown_outcome_is_not_repeated() {
    let t = Script::new(Duration::ZERO, |_, _| Err(unknown()));
    let c = client(t.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(1), Some(3))))
        .build()
        .unwrap();
    let err = c.reboot_device(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                operation: "performAction",
                attempts: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn reboot_never_sent_is_retried() {
    let t = Script::new(Duration::ZERO, |_, n| {
        if n == 0 {
            Err(not_sent())
        } else {
            Ok(Response::Empty)
        }
    });
    let c = client(t.clone()).build().unwrap();
    c.reboot_device(Uuid::new_v4()).await.unwrap();
    assert_eq!(t.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn idempotent_read_retries_unknown_outcomes() {
    let t = Script::new(Duration::ZERO, |_, n| {
        if n < 2 {
            Err(unknown())
        } else {
            ok_device()
        }
    });
    let c = client(t.clone()).build().unwrap();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert_eq!(t.requests().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn rejections_return_at_once_with_the_server_messages() {
    for status in [400, 401, 403, 404, 409, 422] {
        let t = Script::new(Duration::ZERO, move |_, _| Err(rejected(status)));
        let c = client(t.clone()).build().unwrap();
        let err = c
            .get_device(Uuid::new_v4(), &Fields::default())
            .await
            .unwrap_err();
        match err {
            Error::Rejected {
                operation,
                status: s,
                messages,
            } => {
                assert_eq!((operation, s), ("findDeviceById", status));
                assert_eq!(messages, vec![format!("server says {status}")]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(t.requests().len(), 1, "HTTP {status} not retried");
    }
}

#[tokio::test(start_paused = true)]
async fn decode_and_invalid_request_are_permanent() {
    let t = Script::new(Duration::ZERO, |_, n| {
        if n == 0 {
            Err(AttemptError::Decode {
                status: 200,
                detail: "bad".into(),
            })
        } else {
            Err(AttemptError::InvalidRequest {
                reason: "bad id".into(),
            })
        }
    });
    let c = client(t.clone()).build().unwrap();
    assert!(matches!(
        c.get_project(Uuid::new_v4()).await,
        Err(Error::Decode { status: 200, .. })
    ));
    assert!(matches!(
        c.get_project(Uuid::new_v4()).await,
        Err(Error::InvalidRequest {
            operation: "findProjectById",
            ..
        })
    ));
    assert_eq!(t.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn default_backoff_gives_up_after_fifteen_minutes_with_the_last_error() {
    let t = Script::new(Duration::ZERO, |_, _| Err(unknown()));
    let c = Client::builder()
        .transport(t.clone())
        .api_rate(Duration::ZERO)
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c
        .get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap_err();
    let elapsed = t0.elapsed();
    match err {
        Error::GaveUp {
            attempts,
            source: AttemptError::Unknown {
                status: Some(502), ..
            },
            ..
        } => {
            assert_eq!(attempts as usize, t.requests().len());
            assert!(attempts > 10, "{attempts}");
        }
        other => panic!("{other:?}"),
    }
    assert!(elapsed <= Duration::from_secs(15 * 60), "{elapsed:?}");
    assert!(elapsed >= Duration::from_secs(10 * 60), "{elapsed:?}");
}

#[tokio::test(start_paused = true)]
async fn deadline_ends_the_call_with_the_last_error() {
    let t = Script::new(Duration::ZERO, |_, _| Err(not_sent()));
    let c = client(t.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(10), None)))
        .deadline(Some(Duration::from_secs(25)))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c.get_project(Uuid::new_v4()).await.unwrap_err();
    assert_eq!(t0.elapsed(), Duration::from_secs(25));
    assert!(
        matches!(
            err,
            Error::DeadlineExceeded {
                attempts: 3,
                last: Some(AttemptError::NotSent { .. }),
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn attempt_timeout_is_an_unknown_outcome() {
    let t = Script::new(Duration::from_secs(60), |_, _| Ok(Response::Empty));
    let c = client(t.clone())
        .attempt_timeout(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    // Not idempotent: the timed-out reboot is not repeated.
    let err = c.reboot_device(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(err, Error::OutcomeUnknown { attempts: 1, .. }),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 1);
}

// ---------------------------------------------------------------- 4. create_device

fn create_request(reservation: Uuid) -> types::CreateDeviceRequest {
    types::CreateDeviceRequest::MetroInput(types::DeviceCreateInMetroInput {
        always_pxe: false,
        billing_cycle: None,
        customdata: Default::default(),
        description: None,
        features: vec![],
        hardware_reservation_id: reservation.to_string(),
        hostname: Some("node-1".into()),
        ip_addresses: vec![],
        ipxe_script_url: None,
        locked: false,
        metro: "am".into(),
        network_frozen: None,
        no_ssh_keys: false,
        operating_system: "custom_ipxe".into(),
        plan: "m3.small.x86".into(),
        private_ipv4_subnet_size: None,
        project_ssh_keys: vec![],
        public_ipv4_subnet_size: None,
        spot_instance: None,
        spot_price_max: None,
        ssh_keys: vec![],
        storage: None,
        tags: vec!["caller-tag".into()],
        termination_time: None,
        user_ssh_keys: vec![],
        userdata: None,
    })
}

fn tags_of(body: &types::CreateDeviceRequest) -> Vec<String> {
    match body {
        types::CreateDeviceRequest::MetroInput(m) => m.tags.clone(),
        types::CreateDeviceRequest::FacilityInput(f) => f.tags.clone(),
    }
}

#[tokio::test(start_paused = true)]
async fn create_device_without_a_reservation_sends_nothing() {
    let t = Script::new(Duration::ZERO, |_, _| ok_device());
    let c = client(t.clone()).build().unwrap();
    for bad in ["", "not-a-uuid"] {
        let mut req = create_request(Uuid::nil());
        if let types::CreateDeviceRequest::MetroInput(m) = &mut req {
            m.hardware_reservation_id = bad.into();
        }
        assert!(matches!(
            c.create_device(Uuid::new_v4(), &req).await,
            Err(Error::NoReservation)
        ));
    }
    assert!(t.requests().is_empty());
}

#[tokio::test(start_paused = true)]
async fn create_device_after_unknown_outcome_finds_its_own_device() {
    let reservation = Uuid::new_v4();
    let created = Uuid::new_v4();
    // The server creates the device but the reply is lost.
    let stored: Arc<Mutex<Option<types::Device>>> = Arc::default();
    let s = stored.clone();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::GetReservation { id, include } => {
            assert_eq!(*id, reservation);
            assert_eq!(include.as_deref(), Some("device"));
            Ok(Response::Reservation(Box::new(
                types::HardwareReservation {
                    id: Some(reservation),
                    device: s.lock().unwrap().clone().map(Box::new),
                    ..Default::default()
                },
            )))
        }
        Request::CreateDevice { body, .. } => {
            let tags: Vec<&str> = tags_of(body).iter().map(|_| "").collect();
            let _ = tags;
            *s.lock().unwrap() = Some(types::Device {
                id: Some(created),
                tags: tags_of(body),
                ..Default::default()
            });
            Err(unknown())
        }
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let request = create_request(reservation);
    let before = request.clone();
    let d = c.create_device(Uuid::new_v4(), &request).await.unwrap();
    assert_eq!(d.id, Some(created));
    assert_eq!(request, before, "the caller's request is not changed");
    assert_eq!(t.count("createDevice"), 1, "created once");
    assert_eq!(t.count("findHardwareReservationById"), 2);
    let witness: Vec<String> = d
        .tags
        .iter()
        .filter(|t| t.starts_with("wrapngo-idempotency-"))
        .cloned()
        .collect();
    assert_eq!(witness.len(), 1);
    assert!(Uuid::parse_str(&witness[0]["wrapngo-idempotency-".len()..]).is_ok());
    assert!(d.tags.contains(&"caller-tag".to_string()));
}

#[tokio::test(start_paused = true)]
async fn create_device_witness_is_reused_on_every_attempt() {
    let reservation = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |r, n| match r {
        Request::GetReservation { .. } => Ok(Response::Reservation(Box::default())),
        Request::CreateDevice { .. } if n < 4 => Err(not_sent()),
        Request::CreateDevice { body, .. } => Ok(Response::Device(Box::new(types::Device {
            tags: tags_of(body),
            ..Default::default()
        }))),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap();
    let witnesses: Vec<Vec<String>> = t
        .requests()
        .iter()
        .filter_map(|r| match r {
            Request::CreateDevice { body, .. } => Some(tags_of(body)),
            _ => None,
        })
        .collect();
    assert_eq!(witnesses.len(), 3);
    assert!(witnesses.iter().all(|w| w == &witnesses[0] && w.len() == 2));
}

#[tokio::test(start_paused = true)]
async fn create_device_on_a_reservation_taken_by_someone_else_is_race_lost() {
    let reservation = Uuid::new_v4();
    let theirs = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::GetReservation { .. } => Ok(Response::Reservation(Box::new(
            types::HardwareReservation {
                device: Some(Box::new(device(
                    theirs,
                    &["wrapngo-idempotency-someone-else"],
                ))),
                ..Default::default()
            },
        ))),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::RaceLost { reservation: r, device: Some(d) } if r == reservation && d == theirs),
        "{err:?}"
    );
    assert_eq!(t.count("createDevice"), 0);
}

// ---------------------------------------------------------------- 5. SSH keys

fn key(label: &str, key: &str) -> types::SshKey {
    types::SshKey {
        id: Some(Uuid::new_v4()),
        label: Some(label.into()),
        key: Some(key.into()),
        ..Default::default()
    }
}

fn key_input(label: &str, k: &str) -> types::SshKeyCreateInput {
    types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some(k.into()),
        label: Some(label.into()),
        tags: vec![],
    }
}

#[tokio::test(start_paused = true)]
async fn ssh_key_with_same_label_and_key_is_returned_not_created() {
    let existing = key("deploy", "ssh-ed25519 AAAA");
    let e = existing.clone();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::ListSshKeys {
            owner: KeyOwner::Project(_),
        } => Ok(Response::SshKeys(types::SshKeyList {
            ssh_keys: vec![key("other", "x"), e.clone()],
        })),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let k = c
        .create_ssh_key(
            KeyOwner::Project(Uuid::new_v4()),
            &key_input("deploy", "ssh-ed25519 AAAA"),
        )
        .await
        .unwrap();
    assert_eq!(k, existing);
    assert_eq!(t.count("createProjectSSHKey"), 0);
}

#[tokio::test(start_paused = true)]
async fn ssh_key_label_conflict_is_permanent() {
    let existing = key("deploy", "ssh-ed25519 OLD");
    let e = existing.clone();
    let t = Script::new(Duration::ZERO, move |_, _| {
        Ok(Response::SshKeys(types::SshKeyList {
            ssh_keys: vec![e.clone()],
        }))
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_ssh_key(KeyOwner::User, &key_input("deploy", "ssh-ed25519 NEW"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::SshKeyLabelConflict { label, existing: Some(id) } if label == "deploy" && Some(*id) == existing.id),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 1, "not retried");
}

#[tokio::test(start_paused = true)]
async fn ssh_key_created_after_lost_reply_is_found_on_retry() {
    let stored: Arc<Mutex<Vec<types::SshKey>>> = Arc::default();
    let s = stored.clone();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::ListSshKeys { .. } => Ok(Response::SshKeys(types::SshKeyList {
            ssh_keys: s.lock().unwrap().clone(),
        })),
        Request::CreateSshKey { body, .. } => {
            s.lock().unwrap().push(key(
                body.label.as_deref().unwrap(),
                body.key.as_deref().unwrap(),
            ));
            Err(unknown())
        }
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let k = c
        .create_ssh_key(KeyOwner::User, &key_input("deploy", "k"))
        .await
        .unwrap();
    assert_eq!(k.label.as_deref(), Some("deploy"));
    assert_eq!(t.count("createSSHKey"), 1);
    assert_eq!(stored.lock().unwrap().len(), 1);
}

// ---------------------------------------------------------------- 6. delete, power, move

#[tokio::test(start_paused = true)]
async fn delete_device_404_after_unknown_outcome_is_success() {
    let t = Script::new(Duration::ZERO, |_, n| {
        if n == 0 {
            Err(unknown())
        } else {
            Err(rejected(404))
        }
    });
    let c = client(t.clone()).build().unwrap();
    c.delete_device(Uuid::new_v4()).await.unwrap();
    assert_eq!(t.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn delete_device_404_on_first_attempt_is_rejected() {
    let t = Script::new(Duration::ZERO, |_, _| Err(rejected(404)));
    let c = client(t.clone()).build().unwrap();
    let err = c.delete_device(Uuid::new_v4()).await.unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    // Not after an unknown outcome either when the first failure was "not sent".
    let t = Script::new(Duration::ZERO, |_, n| {
        if n == 0 {
            Err(not_sent())
        } else {
            Err(rejected(404))
        }
    });
    let c = client(t.clone()).build().unwrap();
    assert!(c
        .delete_device(Uuid::new_v4())
        .await
        .unwrap_err()
        .is_not_found());
}

#[tokio::test(start_paused = true)]
async fn power_off_after_unknown_outcome_checks_the_state_first() {
    let id = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::DeviceAction { .. } => Err(unknown()),
        Request::GetDevice { .. } => Ok(Response::Device(Box::new(device_with_state(
            id,
            "powering_off",
        )))),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.power_off_device(id).await.unwrap();
    assert_eq!(t.count("performAction"), 1, "not sent twice");
    assert_eq!(t.count("findDeviceById"), 1);
}

#[tokio::test(start_paused = true)]
async fn power_on_after_unknown_outcome_repeats_when_still_off() {
    let id = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |r, n| match r {
        Request::DeviceAction { action, .. } => {
            assert_eq!(*action, types::DeviceActionInputType::PowerOn);
            if n == 0 {
                Err(unknown())
            } else {
                Ok(Response::Empty)
            }
        }
        Request::GetDevice { .. } => Ok(Response::Device(Box::new(device_with_state(
            id, "inactive",
        )))),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.power_on_device(id).await.unwrap();
    let ops: Vec<&str> = t.requests().iter().map(Request::operation).collect();
    assert_eq!(ops, ["performAction", "findDeviceById", "performAction"]);
}

#[tokio::test(start_paused = true)]
async fn move_reservation_after_unknown_outcome_succeeds_if_already_moved() {
    let id = Uuid::new_v4();
    let target = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::MoveReservation { .. } => Err(unknown()),
        Request::GetReservation { .. } => Ok(Response::Reservation(Box::new(
            types::HardwareReservation {
                id: Some(id),
                project: Some(types::Project {
                    id: Some(target),
                    ..Default::default()
                }),
                ..Default::default()
            },
        ))),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let hr = c.move_reservation(id, target).await.unwrap();
    assert_eq!(hr.id, Some(id));
    assert_eq!(t.count("moveHardwareReservation"), 1);
}

// ---------------------------------------------------------------- 7. pagination

fn page_of(ids: &[Uuid], page: u32, last: i64) -> Response {
    Response::Devices(types::DeviceList {
        devices: ids.iter().map(|i| device(*i, &[])).collect(),
        meta: Some(types::Meta {
            current_page: Some(i64::from(page)),
            last_page: Some(last),
            ..Default::default()
        }),
    })
}

#[tokio::test(start_paused = true)]
async fn list_follows_every_page_retries_only_the_failed_page_and_dedupes() {
    let ids: Vec<Uuid> = (0..5).map(|_| Uuid::new_v4()).collect();
    let i = ids.clone();
    let failed = Arc::new(AtomicUsize::new(0));
    let f = failed.clone();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::ListDevices {
            page: 1,
            per_page: 2,
            ..
        } => Ok(page_of(&i[0..2], 1, 3)),
        Request::ListDevices {
            page: 2,
            per_page: 2,
            ..
        } => {
            if f.fetch_add(1, Ordering::SeqCst) == 0 {
                Err(unknown())
            } else {
                // An entry of page 1 shows again (the list shifted).
                Ok(page_of(&[i[1], i[2], i[3]], 2, 3))
            }
        }
        Request::ListDevices {
            page: 3,
            per_page: 2,
            ..
        } => Ok(page_of(&i[4..5], 3, 3)),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).per_page(2).build().unwrap();
    let got: Vec<Uuid> = c
        .list_devices(Uuid::new_v4())
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id.unwrap())
        .collect();
    assert_eq!(got, ids);
    let pages: Vec<u32> = t
        .requests()
        .iter()
        .map(|r| match r {
            Request::ListDevices { page, .. } => *page,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(pages, [1, 2, 2, 3], "page 1 is not fetched again");
}

#[tokio::test(start_paused = true)]
async fn device_pages_streams_page_by_page_following_next() {
    let t = Script::new(Duration::ZERO, |r, _| match r {
        Request::ListDevices { page, .. } => Ok(Response::Devices(types::DeviceList {
            devices: vec![device(Uuid::new_v4(), &[])],
            meta: Some(types::Meta {
                next: (*page < 4).then(|| types::Href {
                    href: format!("/x?page={}", page + 1),
                }),
                ..Default::default()
            }),
        })),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let mut stream = c.device_pages(Uuid::new_v4());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(t.requests().len(), 1, "lazily, one page at a time");
    let rest: Vec<_> = stream.collect().await;
    assert_eq!(rest.len(), 3);
    assert_eq!(t.requests().len(), 4);
}

// ---------------------------------------------------------------- 8. metrics

#[tokio::test(start_paused = true)]
async fn metrics_label_each_request_by_operation_and_outcome() {
    let t = Script::new(Duration::from_millis(300), |r, n| match r {
        Request::GetDevice { .. } if n == 0 => Err(unknown()),
        Request::GetDevice { .. } => ok_device(),
        Request::DeleteSshKey { .. } => Ok(Response::Empty),
        _ => Err(rejected(404)),
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .api_rate(Duration::from_secs(2))
        .registry(registry.clone())
        .build()
        .unwrap();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    c.delete_ssh_key(Uuid::new_v4()).await.unwrap();
    let _ = c.get_project(Uuid::new_v4()).await;
    let text = prometheus::TextEncoder::new()
        .encode_to_string(&registry.gather())
        .unwrap();
    for line in [
        r#"equinix_api_latency_count{endpoint="findDeviceById",status_code="502"} 1"#,
        r#"equinix_api_latency_count{endpoint="findDeviceById",status_code="200"} 1"#,
        r#"equinix_api_latency_count{endpoint="deleteSSHKey",status_code="204"} 1"#,
        r#"equinix_api_latency_count{endpoint="findProjectById",status_code="404"} 1"#,
        r#"equinix_api_attempts_total{endpoint="findDeviceById",outcome="unknown"} 1"#,
        r#"equinix_api_attempts_total{endpoint="findDeviceById",outcome="ok"} 1"#,
        r#"equinix_api_attempts_total{endpoint="findProjectById",outcome="rejected"} 1"#,
        r#"equinix_api_retries_total{endpoint="findDeviceById"} 1"#,
        "equinix_api_rate_limit_wait_seconds_count 4",
        "equinix_api_in_flight 0",
        "equinix_api_waiting 0",
    ] {
        assert!(text.contains(line), "missing {line}\n{text}");
    }
    assert!(
        !text.to_lowercase().contains("endpoint=\"unknown"),
        "no endpoint is unknown"
    );
    // Requests 2..4 waited for the limiter: the histogram's sum shows it.
    assert!(text.contains("equinix_api_rate_limit_wait_seconds_sum"));
    // The latency was observed on the paused clock: 0.3 s each.
    assert!(
        text.contains(r#"equinix_api_latency_sum{endpoint="deleteSSHKey",status_code="204"} 0.3"#),
        "{text}"
    );
}

#[test]
fn registering_twice_in_one_registry_is_a_build_error() {
    let registry = prometheus::Registry::new();
    let t = Script::new(Duration::ZERO, |_, _| ok_device());
    client(t.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    assert!(matches!(
        client(t).registry(registry).build(),
        Err(metal_policy::client::BuildError::Metrics(_))
    ));
    assert!(matches!(
        Client::builder().build(),
        Err(metal_policy::client::BuildError::NoTransport)
    ));
}

#[test]
fn exponential_default_matches_the_documented_values() {
    let d = ExponentialBackoff::default();
    assert_eq!(d.initial_interval, Duration::from_millis(500));
    assert_eq!(d.multiplier, 1.5);
    assert_eq!(d.randomization_factor, 0.5);
    assert_eq!(d.max_interval, Duration::from_secs(60));
    assert_eq!(d.max_elapsed_time, Some(Duration::from_secs(900)));
}

#[tokio::test(start_paused = true)]
async fn power_off_refused_because_already_off_is_success() {
    let id = Uuid::new_v4();
    let state = Arc::new(Mutex::new("inactive"));
    let s = state.clone();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::DeviceAction { .. } => Err(AttemptError::Rejected {
            status: 422,
            messages: vec!["Device must be powered on".into()],
        }),
        Request::GetDevice { .. } => Ok(Response::Device(Box::new(device_with_state(
            id,
            &s.lock().unwrap(),
        )))),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.power_off_device(id).await.unwrap();
    assert_eq!(t.count("performAction"), 1);
    // Refused while in another state: the rejection stands.
    *state.lock().unwrap() = "provisioning";
    let err = c.power_off_device(id).await.unwrap_err();
    assert!(
        matches!(err, Error::Rejected { status: 422, .. }),
        "{err:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn create_device_refused_because_a_competitor_took_the_reservation_is_race_lost() {
    let reservation = Uuid::new_v4();
    let theirs = Uuid::new_v4();
    let taken = Arc::new(Mutex::new(false));
    let tk = taken.clone();
    let t = Script::new(Duration::ZERO, move |r, _| match r {
        Request::GetReservation { .. } => {
            let device = tk
                .lock()
                .unwrap()
                .then(|| Box::new(device(theirs, &["not-ours"])));
            Ok(Response::Reservation(Box::new(
                types::HardwareReservation {
                    device,
                    ..Default::default()
                },
            )))
        }
        Request::CreateDevice { .. } => {
            // The competitor gets there between our read and our create.
            *tk.lock().unwrap() = true;
            Err(AttemptError::Rejected {
                status: 422,
                messages: vec![
                    "Hardware reservation already has a device provisioned on it".into(),
                ],
            })
        }
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::RaceLost { device: Some(d), .. } if d == theirs),
        "{err:?}"
    );
    assert_eq!(t.count("createDevice"), 1);
}

#[tokio::test(start_paused = true)]
async fn create_device_422_with_the_reservation_still_free_is_rejected() {
    let t = Script::new(Duration::ZERO, |r, _| match r {
        Request::GetReservation { .. } => Ok(Response::Reservation(Box::default())),
        Request::CreateDevice { .. } => Err(rejected(422)),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_device(Uuid::new_v4(), &create_request(Uuid::new_v4()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Rejected { status: 422, .. }),
        "{err:?}"
    );
    assert_eq!(t.count("createDevice"), 1);
}
