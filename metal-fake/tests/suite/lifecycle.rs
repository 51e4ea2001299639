//! Conformance scenarios for the device lifecycle's unhappy paths (the
//! rows of `metal_fake::fidelity`): refusals while provisioning, devices
//! that fail, the fields a controller waits for, locked devices and
//! `PATCH`, and the reservation's release. Each runs against the in-process
//! fake (the paused clock, default timings) and over HTTP (the same
//! timings, on the fake's own clock, which the scenario moves on between
//! reads instead of sleeping: real time moves it by milliseconds against
//! timings of seconds to minutes, so a loaded machine changes nothing), and
//! every HTTP reply is validated against `openapi/metal.json`. Both must
//! report the same outcome.
//!
//! Requests the policy client cannot express (`PATCH`, a create it would
//! turn into `RaceLost` first) go as raw JSON:
//! in-process through the fake's own exchange, over HTTP with reqwest.

use crate::http;

use crate::common;

use std::time::Duration;

use common::{create_request, Target};
use metal_api::types;
use metal_fake::{FailProvisioning, Fake, FakeBuilder, ServerConfig, Timings};
use metal_policy::{Error, Fields, KeyOwner};
use reqwest::Method;
use serde_json::{json, Value};
use tokio::time::{sleep, Instant};
use uuid::Uuid;

/// A second project, for reservation moves.
const OTHER_PROJECT: Uuid = Uuid::from_u128(0x0123_4567_89ab_4def_8123_4567_89ab_cdef);

/// The lifecycle scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    DeleteWhileProvisioning,
    FailedDeviceBlocksItsReservation,
    FailedDeviceLeavesTheProject,
    DeviceFieldsAControllerWaitsFor,
    LockedDeviceRefuses,
    ReleaseTakesMinutesAndListsMayBeStale,
}

impl Scenario {
    const ALL: [Scenario; 6] = [
        Self::DeleteWhileProvisioning,
        Self::FailedDeviceBlocksItsReservation,
        Self::FailedDeviceLeavesTheProject,
        Self::DeviceFieldsAControllerWaitsFor,
        Self::LockedDeviceRefuses,
        Self::ReleaseTakesMinutesAndListsMayBeStale,
    ];

    fn expected(self) -> &'static str {
        match self {
            Self::DeleteWhileProvisioning => {
                "422 while provisioning; deleted once active; deprovisioning; delete again ok; gone"
            }
            Self::FailedDeviceBlocksItsReservation => {
                "failed without addresses; reservation blocked (422 Server is not provisionable, \
                 race lost); deleted; reservation reused"
            }
            Self::FailedDeviceLeavesTheProject => {
                "failed; then 403 and unlisted; then 404; reservation released"
            }
            Self::DeviceFieldsAControllerWaitsFor => {
                "queued: no addresses, [] arrays, 2 keys, 3 ports, 0%; active: 3 addresses, 100%; \
                 tags kept, then cleared; empty customdata kept"
            }
            Self::LockedDeviceRefuses => {
                "locked by PATCH; delete, reinstall and move refused; unlocked; deleted; key \
                 renamed by PATCH"
            }
            Self::ReleaseTakesMinutesAndListsMayBeStale => {
                "not provisionable once gone; provisionable after the release; list stale, then \
                 agrees"
            }
        }
    }

    /// The fake this scenario needs, in-process and over HTTP alike.
    fn fake(self) -> FakeBuilder {
        let base = Timings::default();
        let timings = match self {
            // With the deprovisioning lag (off by default), whose reads and
            // second delete this scenario checks.
            Self::DeleteWhileProvisioning => Timings {
                deprovisioning: Duration::from_secs(30),
                ..base
            },
            Self::FailedDeviceLeavesTheProject => Timings {
                failed_moved_after: Some(Duration::from_secs(600)),
                failed_forbidden_for: Duration::from_secs(600),
                ..base
            },
            Self::ReleaseTakesMinutesAndListsMayBeStale => Timings {
                stale_reservation_list: Duration::from_secs(60),
                ..base
            },
            _ => base,
        };
        common::fake_builder()
            .other_project(OTHER_PROJECT, 0)
            .timings(timings)
    }

    async fn run(self, t: &Target) -> Result<String, String> {
        match self {
            Self::DeleteWhileProvisioning => delete_while_provisioning(t).await,
            Self::FailedDeviceBlocksItsReservation => failed_blocks_reservation(t).await,
            Self::FailedDeviceLeavesTheProject => failed_leaves_project(t).await,
            Self::DeviceFieldsAControllerWaitsFor => device_fields(t).await,
            Self::LockedDeviceRefuses => locked_refuses(t).await,
            Self::ReleaseTakesMinutesAndListsMayBeStale => release_and_stale_list(t).await,
        }
    }
}

#[tokio::test(start_paused = true)]
async fn lifecycle_scenarios_in_process() {
    let mut failures = Vec::new();
    for scenario in Scenario::ALL {
        let t = Target::in_process_from(scenario.fake());
        let got = scenario.run(&t).await;
        if got.as_deref() != Ok(scenario.expected()) {
            failures.push(format!("{scenario:?}: {got:?}"));
        }
    }
    assert!(failures.is_empty(), "in-process: {failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifecycle_scenarios_over_http() {
    let mut failures = Vec::new();
    for scenario in Scenario::ALL {
        let mut t = Target::http_from(scenario.fake(), ServerConfig::new(common::TOKEN)).await;
        // The in-process target's steps and patience, on the fake's clock.
        let in_process = Target::in_process();
        (t.poll, t.patience) = (in_process.poll, in_process.patience);
        let got = scenario.run(&t).await;
        if got.as_deref() != Ok(scenario.expected()) {
            failures.push(format!("{scenario:?}: {got:?}"));
        }
        t.check_replies();
    }
    assert!(failures.is_empty(), "over HTTP: {failures:#?}");
}

// ------------------------------------------------------------ helpers

/// One request as a client outside the policy sends it: in-process through
/// the fake's exchange, over HTTP with reqwest. Its status and JSON body
/// (`Null` when there is none).
async fn raw(t: &Target, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let (base, token) = match &t.server {
        Some(server) => (server.base_url().to_string(), common::TOKEN),
        None => (
            metal_fake::IN_PROCESS_BASE_URL.to_string(),
            metal_fake::DEFAULT_TOKEN,
        ),
    };
    let http = http::client();
    let mut request = http
        .request(method, format!("{base}{path}"))
        .header("x-auth-token", token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let request = request.build().unwrap();
    let response = match (&t.server, &t.fake) {
        (Some(_), _) => http.execute(request).await.unwrap(),
        (None, Some(fake)) => {
            // The fake routes by path and method; the operation is not read.
            let op = &metal_api::operation::FIND_DEVICE_BY_ID;
            metal_api::Exchange::exchange(fake, op, request)
                .await
                .unwrap()
        }
        (None, None) => panic!("raw requests need the fake"),
    };
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap()
    };
    (status, body)
}

/// The API's refusal `status` with exactly `message`, or why not.
fn refused(
    result: Result<impl std::fmt::Debug, Error>,
    status: u16,
    message: &str,
) -> Result<(), String> {
    match result {
        Err(Error::Rejected {
            status: s,
            messages,
            ..
        }) if s == status && messages == [message] => Ok(()),
        other => Err(format!("wanted {status} {message:?}, got {other:?}")),
    }
}

/// A raw reply's status and messages, as [`refused`] checks them.
fn raw_refused(got: (u16, Value), status: u16, message: &str) -> Result<(), String> {
    if got.0 == status && got.1 == json!({ "errors": [message] }) {
        Ok(())
    } else {
        Err(format!("wanted {status} {message:?}, got {got:?}"))
    }
}

fn err(e: Error) -> String {
    e.to_string()
}

async fn device(t: &Target, id: Uuid) -> Result<types::Device, String> {
    t.metal
        .get_device(id, &Fields::default())
        .await
        .map_err(err)
}

/// Creates a device on the first free reservation; returns it and the
/// reservation.
async fn create(t: &Target, hostname: &str) -> Result<(Uuid, Uuid), String> {
    let r = t.reservation(None);
    let request = create_request(t, r, hostname).await?;
    let d = t
        .metal
        .create_device(t.project, &request)
        .await
        .map_err(err)?;
    Ok((d.id.ok_or("created device without id")?, r))
}

/// Now, on the fake's clock (in-process, tokio's paused clock itself).
fn now(t: &Target) -> Instant {
    t.fake.as_ref().map_or_else(Instant::now, Fake::now)
}

/// Between two reads: in-process the paused clock sleeps `t.poll`; over
/// HTTP the fake's clock is moved on by as much, and nothing waits.
async fn pause(t: &Target) {
    match (&t.server, &t.fake) {
        (Some(_), Some(fake)) => {
            fake.advance(t.poll).expect("the fake's clock moves on");
            tokio::task::yield_now().await;
        }
        _ => sleep(t.poll).await,
    }
}

/// Reads with `read` until it has an answer, pausing between reads, for
/// at most the target's patience on the fake's clock; else `what` went
/// wrong.
async fn until<T>(
    t: &Target,
    what: &str,
    mut read: impl AsyncFnMut() -> Result<Option<T>, String>,
) -> Result<T, String> {
    let deadline = now(t) + t.patience;
    loop {
        if let Some(answer) = read().await? {
            return Ok(answer);
        }
        if now(t) > deadline {
            return Err(what.into());
        }
        pause(t).await;
    }
}

/// Waits until the device reports `want`.
async fn wait_state(t: &Target, id: Uuid, want: &str) -> Result<(), String> {
    until(t, &format!("device never reached {want}"), async || {
        Ok((device(t, id).await?.state.as_deref() == Some(want)).then_some(()))
    })
    .await
}

/// Waits until a deleted device is gone (`404`), reading `deprovisioning`
/// until then.
async fn wait_gone(t: &Target, id: Uuid) -> Result<(), String> {
    until(t, "deleted device never went away", async || {
        match t.metal.get_device(id, &Fields::default()).await {
            Err(e) if e.is_not_found() => Ok(Some(())),
            Err(e) => Err(e.to_string()),
            Ok(d) if d.state.as_deref() != Some("deprovisioning") => {
                Err(format!("deleted device reads {:?}", d.state))
            }
            Ok(_) => Ok(None),
        }
    })
    .await
}

/// Waits until the reservation is provisionable.
async fn wait_provisionable(t: &Target, id: Uuid) -> Result<(), String> {
    until(t, "reservation never became provisionable", async || {
        let r = t.metal.get_reservation(id).await.map_err(err)?;
        Ok((r.provisionable == Some(true) && r.device.is_none()).then_some(()))
    })
    .await
}

/// Creates a device on `reservation` and waits until it is active.
async fn provision(t: &Target, reservation: Uuid, hostname: &str) -> Result<Uuid, String> {
    let request = create_request(t, reservation, hostname).await?;
    let device = t
        .metal
        .create_device(t.project, &request)
        .await
        .map_err(err)?;
    let id = device.id.ok_or("created device without id")?;
    wait_state(t, id, "active").await?;
    Ok(id)
}

/// Polls a device until a read is refused with `status`; its messages.
async fn wait_refused(t: &Target, id: Uuid, status: u16) -> Result<Vec<String>, String> {
    until(
        t,
        &format!("device never answered {status}"),
        async || match t.metal.get_device(id, &Fields::default()).await {
            Err(Error::Rejected {
                status: s,
                messages,
                ..
            }) if s == status => Ok(Some(messages)),
            Err(e) if e.status() != Some(403) => Err(e.to_string()),
            _ => Ok(None),
        },
    )
    .await
}

// ------------------------------------------------------------ scenarios

async fn delete_while_provisioning(t: &Target) -> Result<String, String> {
    let (id, _) = create(t, "life-delete").await?;
    let refusal = t.metal.delete_device(id).await;
    refused(
        refusal,
        422,
        "Cannot delete a device while it is provisioning",
    )?;
    let state = device(t, id).await?.state;
    if !matches!(state.as_deref(), Some("queued" | "provisioning")) {
        return Err(format!("after the refusal: {state:?}"));
    }
    wait_state(t, id, "active").await?;
    t.metal.delete_device(id).await.map_err(err)?;
    let state = device(t, id).await?.state;
    if state.as_deref() != Some("deprovisioning") {
        return Err(format!("after the delete: {state:?}"));
    }
    // A delete retried after a lost reply meets a device deprovisioning.
    t.metal.delete_device(id).await.map_err(err)?;
    wait_gone(t, id).await?;
    Ok(Scenario::DeleteWhileProvisioning.expected().into())
}

async fn failed_blocks_reservation(t: &Target) -> Result<String, String> {
    let fake = t.fake.as_ref().ok_or("needs the fake")?;
    fake.fail_provisioning(FailProvisioning::Hostname("life-fail".into()));
    let (id, r) = create(t, "life-fail").await?;
    wait_state(t, id, "failed").await?;
    let d = device(t, id).await?;
    if !d.ip_addresses.is_empty() || d.provisioning_percentage.is_some() {
        return Err(format!(
            "failed device with {} addresses, {:?}%",
            d.ip_addresses.len(),
            d.provisioning_percentage
        ));
    }
    let res = t.metal.get_reservation(r).await.map_err(err)?;
    if res.provisionable != Some(false) || res.device.and_then(|d| d.id) != Some(id) {
        return Err("the reservation does not hold the failed device".into());
    }
    let body = serde_json::to_value(create_request(t, r, "life-again").await?).unwrap();
    let path = format!("/projects/{}/devices", t.project);
    raw_refused(
        raw(t, Method::POST, &path, Some(body)).await,
        422,
        "Server is not provisionable",
    )?;
    let request = create_request(t, r, "life-again").await?;
    match t.metal.create_device(t.project, &request).await {
        Err(Error::RaceLost { device, .. }) if device == Some(id) => {}
        other => return Err(format!("policy create on it: {other:?}")),
    }
    t.metal.delete_device(id).await.map_err(err)?;
    wait_gone(t, id).await?;
    wait_provisionable(t, r).await?;
    // The scripted failure hit one device: the hostname provisions now.
    let again = provision(t, r, "life-fail").await?;
    t.metal.delete_device(again).await.map_err(err)?;
    Ok(Scenario::FailedDeviceBlocksItsReservation.expected().into())
}

async fn failed_leaves_project(t: &Target) -> Result<String, String> {
    let fake = t.fake.as_ref().ok_or("needs the fake")?;
    fake.fail_provisioning(FailProvisioning::NthCreate(1));
    let (id, r) = create(t, "life-moved").await?;
    wait_state(t, id, "failed").await?;
    let messages = wait_refused(t, id, 403).await?;
    if messages != ["You are not authorized to view this device"] {
        return Err(format!("403 with {messages:?}"));
    }
    let listed = t.metal.list_devices(t.project).await.map_err(err)?;
    if listed.iter().any(|d| d.id == Some(id)) {
        return Err("a device that left the project is still listed".into());
    }
    raw_refused(
        raw(t, Method::DELETE, &format!("/devices/{id}"), None).await,
        403,
        "You are not authorized to view this device",
    )?;
    wait_refused(t, id, 404).await?;
    wait_provisionable(t, r).await?;
    Ok(Scenario::FailedDeviceLeavesTheProject.expected().into())
}

async fn device_fields(t: &Target) -> Result<String, String> {
    let key = |label: &str, body: &str| types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some(format!(
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA{body} {label}"
        )),
        label: Some(label.into()),
        tags: vec![],
    };
    let project_key = t
        .metal
        .create_ssh_key(KeyOwner::Project(t.project), &key("life-project", "proj"))
        .await
        .map_err(err)?;
    let user_key = t
        .metal
        .create_ssh_key(KeyOwner::User, &key("life-user", "user"))
        .await
        .map_err(err)?;
    let r = t.reservation(None);
    let mut body = serde_json::to_value(create_request(t, r, "life-fields").await?).unwrap();
    body["tags"] = json!([]);
    body["customdata"] = json!({});
    let (status, d) = raw(
        t,
        Method::POST,
        &format!("/projects/{}/devices", t.project),
        Some(body),
    )
    .await;
    if status != 201 {
        return Err(format!("create: {status} {d}"));
    }
    let want_keys: Vec<Value> = [&project_key, &user_key]
        .iter()
        .map(|k| json!({ "href": format!("/metal/v1/ssh-keys/{}", k.id.unwrap()) }))
        .collect();
    let checks = [
        ("state", d["state"] == "queued"),
        ("ip_addresses", d["ip_addresses"] == json!([])),
        ("tags", d["tags"] == json!([])),
        ("volumes", d["volumes"] == json!([])),
        ("customdata", d["customdata"] == json!({})),
        ("userdata", d["userdata"] == ""),
        ("locked", d["locked"] == false),
        ("user", d["user"] == "root"),
        (
            "switch_uuid",
            d["switch_uuid"].as_str().is_some_and(|s| !s.is_empty()),
        ),
        (
            "provisioning_percentage",
            d["provisioning_percentage"] == 0.0,
        ),
        (
            "network_ports",
            d["network_ports"].as_array().map(Vec::len) == Some(3),
        ),
        ("ssh_keys", d["ssh_keys"].as_array() == Some(&want_keys)),
    ];
    if let Some((field, _)) = checks.iter().find(|(_, ok)| !ok) {
        return Err(format!("created device's {field}: {d}"));
    }
    let id: Uuid = d["id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .ok_or("no id")?;

    wait_state(t, id, "active").await?;
    let active = device(t, id).await?;
    let families: Vec<(Option<i64>, Option<bool>)> = active
        .ip_addresses
        .iter()
        .map(|a| (a.address_family, a.public))
        .collect();
    if families
        != [
            (Some(4), Some(true)),
            (Some(6), Some(true)),
            (Some(4), Some(false)),
        ]
    {
        return Err(format!("active device's addresses: {families:?}"));
    }
    if active.provisioning_percentage != Some(100.0) || active.updated_at <= active.created_at {
        return Err(format!(
            "active device: {:?}%, updated {:?}, created {:?}",
            active.provisioning_percentage, active.updated_at, active.created_at
        ));
    }

    // Tags through the policy client: `Some(vec![])` is sent as `[]` and
    // clears them, `None` leaves them.
    let update = |tags: Option<Vec<String>>, hostname: Option<&str>| types::DeviceUpdateInput {
        tags,
        hostname: hostname.map(str::to_string),
        ..Default::default()
    };
    let tagged = t
        .metal
        .update_device(id, &update(Some(vec!["a".into(), "b".into()]), None))
        .await
        .map_err(err)?;
    let kept = t
        .metal
        .update_device(id, &update(None, Some("life-renamed")))
        .await
        .map_err(err)?;
    let cleared = t
        .metal
        .update_device(id, &update(Some(Vec::new()), None))
        .await
        .map_err(err)?;
    if tagged.tags != ["a", "b"] || kept.tags != ["a", "b"] || !cleared.tags.is_empty() {
        return Err(format!(
            "tag updates: {:?} / {:?} / {:?}",
            tagged.tags, kept.tags, cleared.tags
        ));
    }
    // customdata the same way: set, left alone, cleared with `{}`.
    let custom = |c: Option<Value>| types::DeviceUpdateInput {
        customdata: c.and_then(|c| c.as_object().cloned()),
        ..Default::default()
    };
    let set = t
        .metal
        .update_device(id, &custom(Some(json!({"role": "web"}))))
        .await
        .map_err(err)?;
    let left = t
        .metal
        .update_device(id, &custom(None))
        .await
        .map_err(err)?;
    let emptied = t
        .metal
        .update_device(id, &custom(Some(json!({}))))
        .await
        .map_err(err)?;
    let role = |d: &types::Device| d.customdata.get("role").cloned();
    if role(&set) != Some(json!("web"))
        || role(&left) != Some(json!("web"))
        || !emptied.customdata.is_empty()
    {
        return Err(format!(
            "customdata updates: {:?} / {:?} / {:?}",
            set.customdata, left.customdata, emptied.customdata
        ));
    }
    // Sent as `{}` in the JSON too (an empty map is not left out).
    let path = format!("/devices/{id}");
    let (status, raw_reply) = raw(t, Method::GET, &path, None).await;
    if status != 200 || raw_reply["customdata"] != json!({}) {
        return Err(format!("customdata read: {status} {raw_reply}"));
    }
    t.metal.delete_device(id).await.map_err(err)?;
    wait_gone(t, id).await?;
    Ok(Scenario::DeviceFieldsAControllerWaitsFor.expected().into())
}

async fn locked_refuses(t: &Target) -> Result<String, String> {
    let r = t.reservation(None);
    let id = provision(t, r, "life-locked").await?;
    let path = format!("/devices/{id}");
    let (status, d) = raw(t, Method::PATCH, &path, Some(json!({ "locked": true }))).await;
    if status != 200 || d["locked"] != true {
        return Err(format!("PATCH lock: {status} {d}"));
    }
    refused(
        t.metal.delete_device(id).await,
        422,
        "Cannot delete a locked item",
    )?;
    raw_refused(
        raw(
            t,
            Method::POST,
            &format!("{path}/actions"),
            Some(json!({ "type": "reinstall" })),
        )
        .await,
        422,
        "Cannot reinstall a locked item",
    )?;
    refused(
        t.metal.move_reservation(r, OTHER_PROJECT).await,
        422,
        "Cannot move a locked item",
    )?;
    let (status, d) = raw(t, Method::PATCH, &path, Some(json!({ "locked": false }))).await;
    if status != 200 || d["locked"] != false {
        return Err(format!("PATCH unlock: {status} {d}"));
    }
    t.metal.delete_device(id).await.map_err(err)?;
    wait_gone(t, id).await?;

    let input = types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAApatchAAA life".into()),
        label: Some("life-patch".into()),
        tags: vec![],
    };
    let k = t
        .metal
        .create_ssh_key(KeyOwner::Project(t.project), &input)
        .await
        .map_err(err)?;
    let key_path = format!("/ssh-keys/{}", k.id.ok_or("key without id")?);
    let (status, renamed) = raw(
        t,
        Method::PATCH,
        &key_path,
        Some(json!({ "label": "life-patched" })),
    )
    .await;
    if status != 200 || renamed["label"] != "life-patched" {
        return Err(format!("PATCH key: {status} {renamed}"));
    }
    Ok(Scenario::LockedDeviceRefuses.expected().into())
}

async fn release_and_stale_list(t: &Target) -> Result<String, String> {
    let fake = t.fake.as_ref().ok_or("needs the fake")?;
    let r = t.reservation(None);
    let id = provision(t, r, "life-release").await?;
    let deleted = now(t);
    t.metal.delete_device(id).await.map_err(err)?;
    wait_gone(t, id).await?;
    // Gone, and still not provisionable: the release counts from the
    // delete and lasts longer than deprovisioning.
    let res = t.metal.get_reservation(r).await.map_err(err)?;
    if res.provisionable != Some(false) {
        return Err(format!(
            "provisionable as soon as the device is gone: {res:?}"
        ));
    }
    wait_provisionable(t, r).await?;
    let released = now(t);
    let release = fake.timings().reservation_release;
    if released - deleted < release {
        return Err(format!("released after {:?}", released - deleted));
    }
    let listed = |all: Vec<types::HardwareReservation>| {
        all.into_iter()
            .find(|x| x.id == Some(r))
            .and_then(|x| x.provisionable)
    };
    let first = listed(t.metal.list_reservations(t.project).await.map_err(err)?);
    if first != Some(false) {
        return Err(format!("the list agreed at once: {first:?}"));
    }
    until(t, "the list never agreed", async || {
        let all = t.metal.list_reservations(t.project).await.map_err(err)?;
        Ok((listed(all) == Some(true)).then_some(()))
    })
    .await?;
    let stale = fake.timings().stale_reservation_list;
    if now(t) - deleted < release + stale {
        return Err(format!("the list agreed after {:?}", now(t) - deleted));
    }
    Ok(Scenario::ReleaseTakesMinutesAndListsMayBeStale
        .expected()
        .into())
}
