//! The conformance suite's targets and scenarios, written once and run
//! against the in-process fake, the policy client over HTTP against the
//! fake server, and (when configured) the real API.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use metal_api::types;
use metal_fake::{Fake, FaultKind, ServerConfig, ServerHandle, Timings};
use metal_policy::{Error, ExponentialBackoff, Fields, KeyOwner, Metal};
use tokio::time::{sleep, Instant};
use uuid::Uuid;

pub mod schema;

/// The token the fake server accepts in these tests.
pub const TOKEN: &str = "conformance-token";
/// Reservations in the fake's project: enough for three pages of 7.
pub const RESERVATIONS: usize = 17;
/// The page size clients use here, so lists span several pages.
pub const PER_PAGE: u32 = 7;

/// Environment variables of the real-API run (all three required):
/// the auth token, the project, and one provisionable hardware reservation
/// in it that the suite may provision, reboot, power-cycle and delete.
pub const ENV_TOKEN: &str = metal_api::config::ENV_AUTH_TOKEN;
/// The project of the real-API run.
pub const ENV_PROJECT: &str = metal_api::config::ENV_PROJECT_ID;
/// The hardware reservation of the real-API run.
pub const ENV_RESERVATION: &str = "METAL_RESERVATION";
/// The operating system slug of the real-API run (default ubuntu_24_04).
pub const ENV_OS: &str = "METAL_OS";

/// Where a scenario runs.
pub struct Target {
    pub name: &'static str,
    pub metal: Arc<dyn Metal>,
    pub project: Uuid,
    /// The fake, for inspection and faults; `None` against the real API.
    pub fake: Option<Fake>,
    pub server: Option<ServerHandle>,
    pub os: String,
    /// How often to poll a device's state, and for how long at most.
    pub poll: Duration,
    pub patience: Duration,
}

fn fast_backoff() -> Arc<ExponentialBackoff> {
    Arc::new(ExponentialBackoff {
        initial_interval: Duration::from_millis(5),
        multiplier: 1.5,
        randomization_factor: 0.0,
        max_interval: Duration::from_millis(50),
        max_elapsed_time: Some(Duration::from_secs(20)),
    })
}

/// The fake every target starts from: [`RESERVATIONS`] reservations.
pub fn fake_builder() -> metal_fake::FakeBuilder {
    Fake::builder().reservations(RESERVATIONS)
}

/// The millisecond timings of the HTTP targets.
pub fn http_timings() -> Timings {
    Timings {
        queued: Duration::from_millis(10),
        provisioning: Duration::from_millis(40),
        power: Duration::from_millis(20),
        reinstall: Duration::from_millis(40),
        reservation_release: Duration::from_millis(60),
        ..Timings::uniform(Duration::from_millis(20))
    }
}

impl Target {
    /// The in-process fake: the policy client over its in-process
    /// exchange, on the paused clock with the default timings.
    pub fn in_process() -> Self {
        Self::in_process_from(fake_builder())
    }

    /// As [`Target::in_process`] with a given fake.
    pub fn in_process_from(builder: metal_fake::FakeBuilder) -> Self {
        let fake = builder.build();
        Self {
            name: "in-process",
            metal: Arc::new(fake.client_with(|c| c.per_page(PER_PAGE)).unwrap()),
            project: fake.project(),
            fake: Some(fake),
            server: None,
            os: "ubuntu_24_04".into(),
            poll: Duration::from_secs(5),
            patience: Duration::from_secs(3600),
        }
    }

    /// The policy client over HTTP against the fake server on
    /// 127.0.0.1 port 0, with millisecond timings and a fast backoff.
    pub async fn http() -> Self {
        Self::http_with(ServerConfig::new(TOKEN)).await
    }

    /// As [`Target::http`] with a given server configuration.
    pub async fn http_with(config: ServerConfig) -> Self {
        Self::http_from(fake_builder().timings(http_timings()), config).await
    }

    /// As [`Target::http`] with a given fake and server configuration
    /// (replies are recorded, for [`Target::check_replies`]).
    pub async fn http_from(builder: metal_fake::FakeBuilder, config: ServerConfig) -> Self {
        let fake = builder.build();
        let server = crate::http::serve(&fake, config.record_replies(true)).await;
        let config = crate::http::config(&server, TOKEN);
        let client = metal_policy::Client::builder()
            .config(config)
            .parallelism(4)
            .api_rate(Duration::ZERO)
            .backoff(fast_backoff())
            .attempt_timeout(Some(Duration::from_millis(500)))
            .per_page(PER_PAGE)
            .build()
            .unwrap();
        Self {
            name: "http",
            metal: Arc::new(client),
            project: fake.project(),
            fake: Some(fake),
            server: Some(server),
            os: "ubuntu_24_04".into(),
            poll: Duration::from_millis(10),
            patience: Duration::from_secs(10),
        }
    }

    /// The real API, when its three variables are set.
    pub fn real() -> Option<(Self, Uuid)> {
        let token = std::env::var(ENV_TOKEN).ok()?;
        let project = std::env::var(ENV_PROJECT).ok()?.parse().ok()?;
        let reservation = std::env::var(ENV_RESERVATION).ok()?.parse().ok()?;
        let mut config = metal_api::Config::builder().auth_token(token);
        if let Ok(url) = std::env::var(metal_api::config::ENV_BASE_URL) {
            config = config.base_url(url);
        }
        let client = metal_policy::Client::builder()
            .config(config.build().ok()?)
            .parallelism(1)
            .api_rate(Duration::from_secs(1))
            .per_page(PER_PAGE)
            .build()
            .ok()?;
        Some((
            Self {
                name: "real",
                metal: Arc::new(client),
                project,
                fake: None,
                server: None,
                os: std::env::var(ENV_OS).unwrap_or_else(|_| "ubuntu_24_04".into()),
                poll: Duration::from_secs(15),
                patience: Duration::from_secs(40 * 60),
            },
            reservation,
        ))
    }

    /// A provisionable reservation to use (the fake's first free one).
    pub fn reservation(&self, real: Option<Uuid>) -> Uuid {
        match (&self.fake, real) {
            (_, Some(r)) => r,
            (Some(f), None) => f.provisionable_reservations()[0],
            (None, None) => panic!("no reservation for {}", self.name),
        }
    }

    /// Checks every reply the fake server sent against the spec.
    pub fn check_replies(&self) {
        if let Some(server) = &self.server {
            let replies = server.recorded_replies();
            assert!(!replies.is_empty());
            schema::check_all(&replies);
        }
    }
}

/// Waits until the device reports `want`.
pub async fn wait_state(t: &Target, id: Uuid, want: &str) -> Result<(), String> {
    let deadline = Instant::now() + t.patience;
    loop {
        let d = t
            .metal
            .get_device(id, &Fields::default())
            .await
            .map_err(|e| e.to_string())?;
        if d.state.as_deref() == Some(want) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("device stuck in {:?}, wanted {want}", d.state));
        }
        sleep(t.poll).await;
    }
}

/// Waits until a deleted device is gone (`404`): at once, or after reading
/// as `deprovisioning` for a while (a fake with a deprovisioning lag; some
/// of the real API's reads once did).
pub async fn wait_gone(t: &Target, id: Uuid) -> Result<(), String> {
    let deadline = Instant::now() + t.patience;
    loop {
        match t.metal.get_device(id, &Fields::default()).await {
            Err(e) if e.is_not_found() => return Ok(()),
            Err(e) => return Err(e.to_string()),
            Ok(d) if d.state.as_deref() != Some("deprovisioning") => {
                return Err(format!("deleted device reads {:?}", d.state))
            }
            Ok(_) => {}
        }
        if Instant::now() > deadline {
            return Err("deleted device never went away".into());
        }
        sleep(t.poll).await;
    }
}

/// Waits until the reservation is provisionable.
pub async fn wait_provisionable(t: &Target, id: Uuid) -> Result<(), String> {
    let deadline = Instant::now() + t.patience;
    loop {
        let r = t
            .metal
            .get_reservation(id)
            .await
            .map_err(|e| e.to_string())?;
        if r.provisionable == Some(true) && r.device.is_none() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("reservation never became provisionable".into());
        }
        sleep(t.poll).await;
    }
}

/// A create request for `reservation`, with its plan and metro read from it.
pub async fn create_request(
    t: &Target,
    reservation: Uuid,
    hostname: &str,
) -> Result<types::CreateDeviceRequest, String> {
    let r = t
        .metal
        .get_reservation(reservation)
        .await
        .map_err(|e| e.to_string())?;
    let plan = r
        .plan
        .and_then(|p| p.slug)
        .ok_or("reservation without plan")?;
    let metro = r
        .facility
        .and_then(|f| f.metro)
        .and_then(|m| m.0.code)
        .ok_or("reservation without metro")?;
    let input: types::DeviceCreateInMetroInput = types::DeviceCreateInMetroInput::builder()
        .metro(metro)
        .plan(plan)
        .operating_system(t.os.clone())
        .hardware_reservation_id(reservation.to_string())
        .hostname(Some(hostname.to_string()))
        .tags(vec!["conformance".to_string()])
        .try_into()
        .map_err(|e| format!("{e}"))?;
    Ok(types::CreateDeviceRequest::MetroInput(input))
}

/// Creates a device on `reservation` and waits until it is active.
pub async fn provision(t: &Target, reservation: Uuid, hostname: &str) -> Result<Uuid, String> {
    let request = create_request(t, reservation, hostname).await?;
    let device = t
        .metal
        .create_device(t.project, &request)
        .await
        .map_err(|e| e.to_string())?;
    let id = device.id.ok_or("created device without id")?;
    wait_state(t, id, "active").await?;
    Ok(id)
}

/// The devices on `reservation` (fake only).
pub fn devices_on(fake: &Fake, reservation: Uuid) -> Vec<types::Device> {
    fake.devices()
        .into_iter()
        .filter(|d| d.hardware_reservation.as_ref().and_then(|r| r.id) == Some(reservation))
        .collect()
}

/// The scenarios every target runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    ProvisionFromReservation,
    ListWithPagination,
    Reboot,
    PowerCycle,
    DeleteAndReuse,
    SshKeyLifecycle,
    RaceLostToCompetitor,
}

impl Scenario {
    pub const ALL: [Scenario; 7] = [
        Self::ProvisionFromReservation,
        Self::ListWithPagination,
        Self::Reboot,
        Self::PowerCycle,
        Self::DeleteAndReuse,
        Self::SshKeyLifecycle,
        Self::RaceLostToCompetitor,
    ];

    /// Whether it needs the fake (fault injection or inspection).
    pub fn needs_fake(self) -> bool {
        matches!(self, Self::RaceLostToCompetitor)
    }

    /// What every target must report: what the `Metal` trait's docs
    /// promise. `PowerCycle`'s second power-off relies on "succeeds if it
    /// already is" (the API answers 422 "Device must be powered on"), and
    /// `RaceLostToCompetitor` on "a reservation taken by someone else is
    /// `RaceLost`" when the taking happens between the client's read and
    /// its create (the API answers the create with 422).
    pub fn expected(self) -> &'static str {
        match self {
            Self::ProvisionFromReservation => "active; reservation holds it; gone after delete",
            Self::ListWithPagination => {
                "reservations listed once each across pages; 2 devices listed"
            }
            Self::Reboot => "rebooted; still active",
            Self::PowerCycle => "inactive; second power-off ok; active again",
            Self::DeleteAndReuse => "deleted; reservation reused by a new device",
            Self::SshKeyLifecycle => "created; dedupe returns same; conflict; updated; deleted",
            Self::RaceLostToCompetitor => "race lost; none of ours on the reservation",
        }
    }

    /// Runs the scenario; `reservation` is the real run's reservation.
    pub async fn run(self, t: &Target, real: Option<Uuid>) -> Result<String, String> {
        let err = |e: Error| e.to_string();
        match self {
            Self::ProvisionFromReservation => {
                let r = t.reservation(real);
                let id = provision(t, r, "conf-provision").await?;
                let res = t.metal.get_reservation(r).await.map_err(err)?;
                let holder = res.device.and_then(|d| d.id);
                if holder != Some(id) {
                    return Err(format!("reservation holds {holder:?}, not {id}"));
                }
                let d = t
                    .metal
                    .get_device(id, &Fields::include(["project"]))
                    .await
                    .map_err(err)?;
                if d.project.and_then(|p| p.id) != Some(t.project) {
                    return Err("device.project not included".into());
                }
                t.metal.delete_device(id).await.map_err(err)?;
                wait_gone(t, id).await?;
                Ok("active; reservation holds it; gone after delete".into())
            }
            Self::ListWithPagination => {
                let all = t.metal.list_reservations(t.project).await.map_err(err)?;
                let mut ids: Vec<Uuid> = all.iter().filter_map(|r| r.id).collect();
                let n = ids.len();
                ids.sort();
                ids.dedup();
                if ids.len() != n || n == 0 {
                    return Err(format!("{n} reservations, {} distinct", ids.len()));
                }
                if let Some(fake) = &t.fake {
                    if n != RESERVATIONS {
                        return Err(format!("{n} reservations, expected {RESERVATIONS}"));
                    }
                    let pages = fake.call_count("findProjectHardwareReservations");
                    let want = RESERVATIONS.div_ceil(PER_PAGE as usize);
                    if pages != want {
                        return Err(format!("{pages} pages fetched, expected {want}"));
                    }
                }
                // Two devices, then list them (fake only: costs money for real).
                if let Some(fake) = &t.fake {
                    let free = fake.provisionable_reservations();
                    let mut made = Vec::new();
                    for (i, r) in free.iter().take(2).enumerate() {
                        let req = create_request(t, *r, &format!("conf-list-{i}")).await?;
                        made.push(t.metal.create_device(t.project, &req).await.map_err(err)?);
                    }
                    let listed = t.metal.list_devices(t.project).await.map_err(err)?;
                    let mut got: Vec<_> = listed.iter().filter_map(|d| d.id).collect();
                    let mut want: Vec<_> = made.iter().filter_map(|d| d.id).collect();
                    got.sort();
                    want.sort();
                    if got != want {
                        return Err(format!("listed {got:?}, made {want:?}"));
                    }
                    return Ok(format!(
                        "reservations listed once each across pages; {} devices listed",
                        got.len()
                    ));
                }
                Ok("reservations listed once each across pages; 2 devices listed".into())
            }
            Self::Reboot => {
                let r = t.reservation(real);
                let id = provision(t, r, "conf-reboot").await?;
                t.metal.reboot_device(id).await.map_err(err)?;
                if let Some(fake) = &t.fake
                    && fake.reboots(id) != Some(1)
                {
                    return Err(format!("{:?} reboots", fake.reboots(id)));
                }
                wait_state(t, id, "active").await?;
                t.metal.delete_device(id).await.map_err(err)?;
                Ok("rebooted; still active".into())
            }
            Self::PowerCycle => {
                let r = t.reservation(real);
                let id = provision(t, r, "conf-power").await?;
                t.metal.power_off_device(id).await.map_err(err)?;
                wait_state(t, id, "inactive").await?;
                t.metal.power_off_device(id).await.map_err(err)?;
                t.metal.power_on_device(id).await.map_err(err)?;
                wait_state(t, id, "active").await?;
                t.metal.delete_device(id).await.map_err(err)?;
                Ok("inactive; second power-off ok; active again".into())
            }
            Self::DeleteAndReuse => {
                let r = t.reservation(real);
                let first = provision(t, r, "conf-reuse-1").await?;
                t.metal.delete_device(first).await.map_err(err)?;
                wait_provisionable(t, r).await?;
                let second = provision(t, r, "conf-reuse-2").await?;
                if second == first {
                    return Err("same device id after reuse".into());
                }
                let res = t.metal.get_reservation(r).await.map_err(err)?;
                if res.device.and_then(|d| d.id) != Some(second) {
                    return Err("reservation does not hold the new device".into());
                }
                t.metal.delete_device(second).await.map_err(err)?;
                Ok("deleted; reservation reused by a new device".into())
            }
            Self::SshKeyLifecycle => {
                let label = format!("conformance-{}", Uuid::new_v4().simple());
                let key = format!(
                    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA{} conf",
                    &label[12..28]
                );
                let input = types::SshKeyCreateInput {
                    instances_ids: vec![],
                    key: Some(key.clone()),
                    label: Some(label.clone()),
                    tags: vec![],
                };
                let owner = KeyOwner::Project(t.project);
                let created = t.metal.create_ssh_key(owner, &input).await.map_err(err)?;
                let again = t.metal.create_ssh_key(owner, &input).await.map_err(err)?;
                if again.id != created.id {
                    return Err("dedupe made a second key".into());
                }
                let other = types::SshKeyCreateInput {
                    key: Some(format!(
                        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5BBBB{} x",
                        &label[12..28]
                    )),
                    ..input.clone()
                };
                match t.metal.create_ssh_key(owner, &other).await {
                    Err(Error::SshKeyLabelConflict { .. }) => {}
                    other => return Err(format!("label conflict gave {other:?}")),
                }
                let listed = t.metal.list_ssh_keys(owner).await.map_err(err)?;
                let same = listed
                    .iter()
                    .filter(|k| k.label.as_deref() == Some(&label))
                    .count();
                if same != 1 {
                    return Err(format!("{same} keys labelled {label}"));
                }
                let id = created.id.ok_or("key without id")?;
                let renamed = format!("{label}-renamed");
                let update = types::SshKeyInput {
                    key: None,
                    label: Some(renamed.clone()),
                    tags: None,
                };
                t.metal.update_ssh_key(id, &update).await.map_err(err)?;
                let got = t.metal.get_ssh_key(id).await.map_err(err)?;
                if got.label.as_deref() != Some(&renamed) {
                    return Err(format!("label after update {:?}", got.label));
                }
                t.metal.delete_ssh_key(id).await.map_err(err)?;
                match t.metal.get_ssh_key(id).await {
                    Err(e) if e.is_not_found() => {}
                    other => return Err(format!("after delete: {other:?}")),
                }
                Ok("created; dedupe returns same; conflict; updated; deleted".into())
            }
            Self::RaceLostToCompetitor => {
                let fake = t.fake.as_ref().ok_or("needs the fake")?;
                let r = t.reservation(real);
                fake.inject(metal_fake::Fault::on("createDevice", FaultKind::Competitor))
                    .unwrap();
                let req = create_request(t, r, "conf-race").await?;
                match t.metal.create_device(t.project, &req).await {
                    Err(Error::RaceLost { reservation, .. }) if reservation == r => {}
                    other => return Err(format!("create gave {other:?}")),
                }
                let on = devices_on(fake, r);
                let ours = on
                    .iter()
                    .filter(|d| d.hostname.as_deref() == Some("conf-race"))
                    .count();
                if ours != 0 || on.len() != 1 {
                    return Err(format!("{ours} of ours, {} in all", on.len()));
                }
                Ok("race lost; none of ours on the reservation".into())
            }
        }
    }
}

/// The operations the fault cases hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultOp {
    CreateDevice,
    DeleteDevice,
    Reboot,
    PowerOff,
    CreateSshKey,
    ListReservations,
    /// The second page of a device list.
    ListDevicesPageTwo,
}

/// Devices made before [`FaultOp::ListDevicesPageTwo`] lists them.
pub const LISTED_DEVICES: usize = PER_PAGE as usize + 2;

impl FaultOp {
    pub const ALL: [FaultOp; 7] = [
        Self::CreateDevice,
        Self::DeleteDevice,
        Self::Reboot,
        Self::PowerOff,
        Self::CreateSshKey,
        Self::ListReservations,
        Self::ListDevicesPageTwo,
    ];

    /// The operationId the fault is scripted on.
    pub fn operation(self) -> &'static str {
        match self {
            Self::CreateDevice => "createDevice",
            Self::DeleteDevice => "deleteDevice",
            Self::Reboot | Self::PowerOff => "performAction",
            Self::CreateSshKey => "createProjectSSHKey",
            Self::ListReservations => "findProjectHardwareReservations",
            Self::ListDevicesPageTwo => "findProjectDevices",
        }
    }

    /// The outcome the contract promises for this fault on `target`.
    pub fn expected(self, kind: &FaultKind, target: &str) -> String {
        // Over HTTP a request cannot be "not sent" on a live listener; the
        // fake drops the connection instead, an unknown outcome.
        let not_sent_is_unknown = target == "http";
        match (self, kind) {
            (Self::CreateDevice, FaultKind::Competitor) => "race lost; 0 of ours".into(),
            (Self::CreateDevice, _) => "ok; exactly 1 device".into(),
            (Self::DeleteDevice, _) => "ok; gone".into(),
            (Self::Reboot, k) => {
                let unknown_before =
                    matches!(k, FaultKind::FailBefore { .. } | FaultKind::BadGateway)
                        || (not_sent_is_unknown && *k == FaultKind::NotSent);
                if unknown_before {
                    "outcome unknown; 0 reboots".into()
                } else if k.applies_change() {
                    "outcome unknown; 1 reboots".into()
                } else {
                    "ok; 1 reboots".into()
                }
            }
            (Self::PowerOff, _) => "ok; inactive".into(),
            (Self::CreateSshKey, _) => "ok; exactly 1 key".into(),
            (Self::ListReservations, _) => format!("ok; {RESERVATIONS} reservations"),
            (Self::ListDevicesPageTwo, _) => format!("ok; {LISTED_DEVICES} devices, each once"),
        }
    }

    /// Runs one fault case on a fresh target: the next call of the
    /// operation gets `kind`.
    pub async fn run(self, t: &Target, kind: &FaultKind) -> Result<String, String> {
        let fake = t.fake.as_ref().ok_or("needs the fake")?;
        let err = |e: Error| e.to_string();
        let r = t.reservation(None);
        let device = match self {
            Self::DeleteDevice | Self::Reboot | Self::PowerOff => {
                Some(provision(t, r, "conf-fault").await?)
            }
            _ => None,
        };
        let request = create_request(t, r, "conf-fault").await?;
        if self == Self::ListDevicesPageTwo {
            for (i, r) in fake
                .provisionable_reservations()
                .iter()
                .take(LISTED_DEVICES)
                .enumerate()
            {
                let req = create_request(t, *r, &format!("conf-page-{i}")).await?;
                t.metal.create_device(t.project, &req).await.map_err(err)?;
            }
            // Page 1 is this operation's first call, page 2 its second.
            fake.inject(metal_fake::Fault::on(self.operation(), kind.clone()).nth(2))
                .unwrap();
        } else {
            fake.inject(metal_fake::Fault::on(self.operation(), kind.clone()))
                .unwrap();
        }
        match self {
            Self::CreateDevice => {
                let result = t.metal.create_device(t.project, &request).await;
                let ours = devices_on(fake, r)
                    .iter()
                    .filter(|d| d.hostname.as_deref() == Some("conf-fault"))
                    .count();
                match result {
                    Ok(d) => {
                        let on = devices_on(fake, r);
                        if on.len() != 1 || on[0].id != d.id {
                            return Err(format!("{} devices on the reservation", on.len()));
                        }
                        if fake.snapshot().world.devices_created != 1 {
                            return Err("created twice".into());
                        }
                        Ok(format!("ok; exactly {ours} device"))
                    }
                    Err(Error::RaceLost { .. }) => Ok(format!("race lost; {ours} of ours")),
                    Err(e) => Err(err(e)),
                }
            }
            Self::DeleteDevice => {
                let id = device.ok_or("no device")?;
                t.metal.delete_device(id).await.map_err(err)?;
                wait_gone(t, id).await?;
                Ok("ok; gone".into())
            }
            Self::Reboot => {
                let id = device.ok_or("no device")?;
                let result = t.metal.reboot_device(id).await;
                let reboots = fake.reboots(id).unwrap_or(0);
                match result {
                    Ok(()) => Ok(format!("ok; {reboots} reboots")),
                    Err(Error::OutcomeUnknown { .. }) => {
                        Ok(format!("outcome unknown; {reboots} reboots"))
                    }
                    Err(e) => Err(err(e)),
                }
            }
            Self::PowerOff => {
                let id = device.ok_or("no device")?;
                t.metal.power_off_device(id).await.map_err(err)?;
                wait_state(t, id, "inactive").await?;
                Ok("ok; inactive".into())
            }
            Self::CreateSshKey => {
                let input = types::SshKeyCreateInput {
                    instances_ids: vec![],
                    key: Some("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAfaultkey conf".into()),
                    label: Some("conformance-fault".into()),
                    tags: vec![],
                };
                let owner = KeyOwner::Project(t.project);
                t.metal.create_ssh_key(owner, &input).await.map_err(err)?;
                let n = fake.snapshot().world.ssh_keys;
                Ok(format!("ok; exactly {n} key"))
            }
            Self::ListReservations => {
                let all = t.metal.list_reservations(t.project).await.map_err(err)?;
                Ok(format!("ok; {} reservations", all.len()))
            }
            Self::ListDevicesPageTwo => {
                let all = t.metal.list_devices(t.project).await.map_err(err)?;
                let mut ids: Vec<Uuid> = all.iter().filter_map(|d| d.id).collect();
                ids.sort();
                ids.dedup();
                if ids.len() != all.len() {
                    return Err(format!("{} listed, {} distinct", all.len(), ids.len()));
                }
                Ok(format!("ok; {} devices, each once", ids.len()))
            }
        }
    }
}
