//! Conformance scenarios of list filters, `next-available` reservations and
//! reply headers, each run against the
//! in-process fake and against the fake server over HTTP (every reply the
//! server sent checked against `openapi/metal.json`). Each scenario goes
//! through the `Metal` trait where it offers the operation, and through
//! the generated client for the filters it does not.

use crate::http;

use crate::common;

use std::collections::HashSet;

use common::{create_request, wait_state, Target, TOKEN};
use metal_api::types;
use metal_fake::{Fake, FakeBuilder, ServerConfig};
use metal_policy::{DeviceFilter, Error, Fields, KeyOwner};
use uuid::Uuid;

/// Plans, in the order reservation `i` takes plan `i % 2`.
const PLANS: [&str; 2] = ["c3.small.x86", "m3.large.x86"];
/// Facilities and metros, reservation `i` in facility `i % 3`.
const FACILITIES: [(&str, &str); 3] = [("da11", "da"), ("sv15", "sv"), ("ny5", "ny")];
/// Reservations in the project: every plan in every metro, several times.
const RESERVATIONS: usize = 18;
/// The server's (and the in-process fake's) rate limit in these tests.
const RATE: u32 = 1000;

fn world() -> FakeBuilder {
    Fake::builder()
        .reservations(RESERVATIONS)
        .plans(PLANS)
        .facilities(FACILITIES)
        .rate_limit(Some(RATE))
        // An operation the fake does not serve, for its `501`'s headers
        // (the model serves every operation of the account family).
        .unmodelled("findInvitations")
}

async fn target(http: bool) -> Target {
    if http {
        Target::http_from(
            world().timings(common::http_timings()),
            ServerConfig::new(TOKEN).rate_limit(Some(RATE)),
        )
        .await
    } else {
        Target::in_process_from(world())
    }
}

/// The generated client against the same target: in-process, or over
/// HTTP to the same server.
fn raw(t: &Target) -> metal_api::Client {
    match &t.server {
        Some(server) => crate::http::api(server, TOKEN),
        None => t.fake.as_ref().unwrap().api_client(),
    }
}

/// A create request for `reservation` (an ID or `next-available`) with
/// this plan, place and hostname, tagged `tags`.
fn request(
    reservation: &str,
    plan: &str,
    place: Place,
    hostname: &str,
    tags: &[&str],
) -> types::CreateDeviceRequest {
    let tags: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
    match place {
        Place::Metro(m) => types::CreateDeviceRequest::MetroInput(
            types::DeviceCreateInMetroInput::builder()
                .metro(m)
                .plan(plan)
                .operating_system("ubuntu_24_04")
                .hardware_reservation_id(reservation.to_string())
                .hostname(Some(hostname.to_string()))
                .tags(tags)
                .try_into()
                .unwrap(),
        ),
        Place::Facility(f) => types::CreateDeviceRequest::FacilityInput(
            types::DeviceCreateInFacilityInput::builder()
                .facility(vec![f.to_string()])
                .plan(plan)
                .operating_system("ubuntu_24_04")
                .hardware_reservation_id(reservation.to_string())
                .hostname(Some(hostname.to_string()))
                .tags(tags)
                .try_into()
                .unwrap(),
        ),
    }
}

#[derive(Clone, Copy)]
enum Place {
    Metro(&'static str),
    Facility(&'static str),
}

/// The plan slug and facility code of a reservation.
fn plan_and_facility(r: &types::HardwareReservation) -> (String, String) {
    (
        r.plan
            .as_ref()
            .and_then(|p| p.slug.clone())
            .unwrap_or_default(),
        r.facility
            .as_ref()
            .and_then(|f| f.code.clone())
            .unwrap_or_default(),
    )
}

/// The reservation a device is on (read with the reservation included: a
/// create's reply has it as an href stub).
async fn reservation_of(t: &Target, d: &types::Device) -> Result<Option<Uuid>, String> {
    let id = d.id.ok_or("no id")?;
    let fields = Fields::include(["hardware_reservation"]);
    let d = t
        .metal
        .get_device(id, &fields)
        .await
        .map_err(|e| e.to_string())?;
    Ok(d.hardware_reservation.and_then(|r| r.id))
}

/// The status of a failed generated call, and its reply's headers.
fn failure<E: std::fmt::Debug>(e: metal_api::Error<E>) -> (u16, reqwest::header::HeaderMap) {
    match e {
        metal_api::Error::ErrorResponse(rv) => (rv.status().as_u16(), rv.headers().clone()),
        metal_api::Error::UnexpectedResponse(r) => (r.status().as_u16(), r.headers().clone()),
        other => panic!("no reply: {other:?}"),
    }
}

/// The scenarios, each on a fresh target.
#[derive(Clone, Copy, Debug)]
enum Scenario {
    NextAvailable,
    DeviceFilters,
    ReservationFilters,
    SshKeySearch,
    IncludeExclude,
    Headers,
}

impl Scenario {
    const ALL: [Scenario; 6] = [
        Self::NextAvailable,
        Self::DeviceFilters,
        Self::ReservationFilters,
        Self::SshKeySearch,
        Self::IncludeExclude,
        Self::Headers,
    ];

    async fn run(self, t: &Target) -> Result<(), String> {
        match self {
            Self::NextAvailable => next_available(t).await,
            Self::DeviceFilters => device_filters(t).await,
            Self::ReservationFilters => reservation_filters(t).await,
            Self::SshKeySearch => ssh_key_search(t).await,
            Self::IncludeExclude => include_exclude(t).await,
            Self::Headers => headers(t).await,
        }
    }
}

/// `next-available` takes the oldest provisionable reservation of the
/// plan in the metro or facility asked for; when none is left, the API's
/// 503 without `Retry-After`, which the policy returns at once as
/// `NoReservationAvailable`.
async fn next_available(t: &Target) -> Result<(), String> {
    let all = t
        .metal
        .list_reservations(t.project)
        .await
        .map_err(|e| e.to_string())?;
    let oldest = |plan: &str, facility: &str| {
        all.iter()
            .find(|r| plan_and_facility(r) == (plan.to_string(), facility.to_string()))
            .and_then(|r| r.id)
    };
    let cases = [
        ("m3.large.x86", Place::Metro("sv"), "sv15"),
        ("c3.small.x86", Place::Facility("ny5"), "ny5"),
        ("c3.small.x86", Place::Metro("sv"), "sv15"),
    ];
    for (plan, place, facility) in cases {
        let req = request("next-available", plan, place, "next", &[]);
        let d = t
            .metal
            .create_device(t.project, &req)
            .await
            .map_err(|e| e.to_string())?;
        let on = reservation_of(t, &d).await?;
        if on != oldest(plan, facility) {
            return Err(format!("{plan} in {facility}: on {on:?}"));
        }
    }
    // Three m3 reservations in sv (3 of 18, i % 6 == 1); one is taken.
    for _ in 0..2 {
        let req = request(
            "next-available",
            "m3.large.x86",
            Place::Metro("sv"),
            "more",
            &[],
        );
        t.metal
            .create_device(t.project, &req)
            .await
            .map_err(|e| e.to_string())?;
    }
    let req = request(
        "next-available",
        "m3.large.x86",
        Place::Metro("sv"),
        "late",
        &[],
    );
    match t.metal.create_device(t.project, &req).await {
        Err(Error::NoReservationAvailable { messages }) => {
            let want =
                "There are no available hardware reservations for selected plan and facility";
            if messages != [want] {
                return Err(format!("messages {messages:?}"));
            }
        }
        other => return Err(format!("none left gave {other:?}")),
    }
    // Returned at once: one createDevice request for that call.
    let fake = t.fake.as_ref().ok_or("needs the fake")?;
    if fake.call_count("createDevice") != 6 {
        return Err(format!(
            "{} createDevice calls",
            fake.call_count("createDevice")
        ));
    }
    // On the wire: 503, no Retry-After.
    let e = raw(t)
        .create_device()
        .id(t.project)
        .body(req)
        .send()
        .await
        .err()
        .ok_or("created past the last reservation")?;
    let (status, headers) = failure(e);
    if status != 503 || headers.contains_key("retry-after") {
        return Err(format!("{status} {headers:?}"));
    }
    // An unknown plan or metro finds nothing either.
    let req = request("next-available", "x9.huge", Place::Metro("da"), "none", &[]);
    match t.metal.create_device(t.project, &req).await {
        Err(Error::NoReservationAvailable { .. }) => Ok(()),
        other => Err(format!("unknown plan gave {other:?}")),
    }
}

/// Hostnames of devices, sorted.
fn hostnames(devices: &[types::Device]) -> Vec<String> {
    let mut h: Vec<String> = devices.iter().filter_map(|d| d.hostname.clone()).collect();
    h.sort();
    h
}

/// The hostnames of one page of up to 100 devices, sorted.
async fn names(b: metal_api::builder::FindProjectDevices<'_>) -> Result<Vec<String>, String> {
    Ok(hostnames(&body(b.per_page(100).send()).await?.devices))
}

/// One page of up to 100 reservations.
async fn reservations(
    b: metal_api::builder::FindProjectHardwareReservations<'_>,
) -> Result<Vec<types::HardwareReservation>, String> {
    Ok(body(b.per_page(100).send()).await?.hardware_reservations)
}

/// Device filters, through the trait (tag, hostname) and the generated
/// client (the others), and pagination of a filtered list.
async fn device_filters(t: &Target) -> Result<(), String> {
    let err = |e: Error| e.to_string();
    let made = [
        ("web-1", "m3.large.x86", "sv", "role=web"),
        ("web-2", "c3.small.x86", "da", "role=web"),
        ("store-1", "c3.small.x86", "ny", "role=db"),
    ];
    let mut ids = Vec::new();
    for (host, plan, metro, tag) in made {
        let req = request("next-available", plan, Place::Metro(metro), host, &[tag]);
        let d = t.metal.create_device(t.project, &req).await.map_err(err)?;
        ids.push(d.id.ok_or("no id")?);
    }
    // Eight more devices, so a filtered list spans pages of 7.
    for i in 0..8 {
        let req = request(
            "next-available",
            PLANS[i % 2],
            Place::Facility("any"),
            &format!("batch-{i}"),
            &["batch"],
        );
        t.metal.create_device(t.project, &req).await.map_err(err)?;
    }
    let list = |f: DeviceFilter| async move { t.metal.list_devices_matching(t.project, &f).await };
    let checks = [
        (DeviceFilter::tag("role=web"), vec!["web-1", "web-2"]),
        (DeviceFilter::hostname("WEB"), vec!["web-1", "web-2"]),
        (
            DeviceFilter::tag("role=web").and_hostname("2"),
            vec!["web-2"],
        ),
        (DeviceFilter::tag("role"), vec![]),
    ];
    for (filter, want) in checks {
        let got = hostnames(&list(filter.clone()).await.map_err(err)?);
        if got != want {
            return Err(format!("{filter:?}: {got:?}"));
        }
    }
    let batch = list(DeviceFilter::tag("batch")).await.map_err(err)?;
    if batch.len() != 8 || hostnames(&batch).iter().collect::<HashSet<_>>().len() != 8 {
        return Err(format!("batch: {:?}", hostnames(&batch)));
    }
    for id in &ids {
        wait_state(t, *id, "active").await?;
    }
    // The filters the trait does not offer, with the generated client.
    let api = raw(t);
    let p = t.project;
    let mine = |mut h: Vec<String>| {
        h.retain(|n| !n.starts_with("batch"));
        h
    };
    // A MAC address of web-1's, upper-cased: the filter ignores case.
    let web1 = body(api.find_project_devices().id(p).hostname("web-1").send()).await?;
    let mac = web1
        .devices
        .iter()
        .flat_map(|d| &d.network_ports)
        .find_map(|port| port.data.as_ref()?.mac.clone())
        .ok_or("web-1 has no MAC address")?
        .to_uppercase();
    // web-1's public IPv6 address (no other device's contains it).
    let ipv6 = web1
        .devices
        .iter()
        .flat_map(|d| &d.ip_addresses)
        .find(|a| a.address_family == Some(6))
        .and_then(|a| a.address.clone())
        .ok_or("web-1 has no IPv6 address")?;
    let cases: Vec<(&str, Vec<String>, Vec<&str>)> = vec![
        (
            "search IP address",
            names(api.find_project_devices().id(p).search(ipv6)).await?,
            vec!["web-1"],
        ),
        (
            "mac_address",
            names(api.find_project_devices().id(p).mac_address(mac)).await?,
            vec!["web-1"],
        ),
        (
            "search hostname",
            names(api.find_project_devices().id(p).search("STORE")).await?,
            vec!["store-1"],
        ),
        (
            "search facility",
            mine(names(api.find_project_devices().id(p).search("ny5")).await?),
            vec!["store-1"],
        ),
        (
            "search tag",
            names(api.find_project_devices().id(p).search("role=web")).await?,
            vec!["web-1", "web-2"],
        ),
        (
            "metro",
            mine(names(api.find_project_devices().id(p).metro("sv")).await?),
            vec!["web-1"],
        ),
        (
            "facility",
            mine(names(api.find_project_devices().id(p).facility("ny5")).await?),
            vec!["store-1"],
        ),
        (
            "reserved false",
            names(api.find_project_devices().id(p).reserved(false)).await?,
            vec![],
        ),
        (
            "type ondemand",
            names(api.find_project_devices().id(p).type_("ondemand")).await?,
            vec![],
        ),
        (
            "type spot",
            names(api.find_project_devices().id(p).type_("spot")).await?,
            vec![],
        ),
        // Not in the spec, so not in the generated client.
        (
            "state active",
            mine(
                raw_hostnames(
                    t,
                    &format!("/projects/{p}/devices?state=active&per_page=100"),
                )
                .await?,
            ),
            vec!["store-1", "web-1", "web-2"],
        ),
        (
            "state failed",
            raw_hostnames(t, &format!("/projects/{p}/devices?state=failed")).await?,
            vec![],
        ),
    ];
    for (what, got, want) in cases {
        if got != want {
            return Err(format!("{what}: {got:?}"));
        }
    }
    for all in [
        names(api.find_project_devices().id(p).reserved(true)).await,
        names(api.find_project_devices().id(p).type_("reserved")).await,
    ] {
        if all?.len() != 11 {
            return Err("reserved: not all 11".into());
        }
    }
    // No device of the fake has a termination time.
    let ending = api
        .find_project_devices()
        .id(p)
        .has_termination_time(true)
        .send()
        .await;
    if ending.map(|r| r.into_inner().devices.len()).ok() != Some(0) {
        return Err("has_termination_time=true listed devices".into());
    }
    // A malformed boolean is refused.
    let status = raw_status(t, &format!("/projects/{p}/devices?reserved=maybe")).await;
    if status != 422 {
        return Err(format!("reserved=maybe: {status}"));
    }
    // Pagination after filtering: total counts the matches, next keeps
    // the filter.
    let first = body(
        api.find_project_devices()
            .id(p)
            .tag("batch")
            .per_page(3)
            .send(),
    )
    .await?;
    let meta = first.meta.ok_or("no meta")?;
    let next = meta.next.map(|h| h.href).unwrap_or_default();
    if meta.total != Some(8)
        || meta.last_page != Some(3)
        || !next.contains("tag=batch")
        || !next.contains("page=2")
    {
        return Err(format!(
            "meta total {:?} last {:?} next {next}",
            meta.total, meta.last_page
        ));
    }
    let last = body(
        api.find_project_devices()
            .id(p)
            .tag("batch")
            .per_page(3)
            .page(3)
            .send(),
    )
    .await?;
    if last.devices.len() != 2 || last.meta.and_then(|m| m.next).is_some() {
        return Err("last filtered page".into());
    }
    Ok(())
}

/// Reservation filters: `provisionable=only`, `state`, `facility`,
/// `query`; values outside the spec's enumerations are 422.
async fn reservation_filters(t: &Target) -> Result<(), String> {
    let req = request(
        "next-available",
        "c3.small.x86",
        Place::Metro("da"),
        "held",
        &[],
    );
    let held = t
        .metal
        .create_device(t.project, &req)
        .await
        .map_err(|e| e.to_string())?;
    let held_on = reservation_of(t, &held).await?;
    if held_on.is_none() {
        return Err("held device on no reservation".into());
    }
    let api = raw(t);
    let p = t.project;
    let free = reservations(
        api.find_project_hardware_reservations()
            .id(p)
            .provisionable(types::FindProjectHardwareReservationsProvisionable::Only),
    )
    .await?;
    if free.len() != RESERVATIONS - 1 || free.iter().any(|r| r.id == held_on) {
        return Err(format!("{} provisionable", free.len()));
    }
    // `facility` is not in the spec, so not in the generated client.
    let sv: types::HardwareReservationList = raw_json(
        t,
        &format!("/projects/{p}/hardware-reservations?facility=sv15&per_page=100"),
    )
    .await?;
    let sv = sv.hardware_reservations;
    if sv.len() != RESERVATIONS / 3 || sv.iter().any(|r| plan_and_facility(r).1 != "sv15") {
        return Err(format!("{} in sv15", sv.len()));
    }
    let active = reservations(
        api.find_project_hardware_reservations()
            .id(p)
            .state(types::FindProjectHardwareReservationsState::Active),
    )
    .await?;
    let spare = reservations(
        api.find_project_hardware_reservations()
            .id(p)
            .state(types::FindProjectHardwareReservationsState::Spare),
    )
    .await?;
    if active.len() != RESERVATIONS || !spare.is_empty() {
        return Err(format!("{} active, {} spare", active.len(), spare.len()));
    }
    let m3 = reservations(
        api.find_project_hardware_reservations()
            .id(p)
            .query("m3.LARGE"),
    )
    .await?;
    let by_host =
        reservations(api.find_project_hardware_reservations().id(p).query("held")).await?;
    if m3.len() != RESERVATIONS / 2 || by_host.len() != 1 || by_host[0].id != held_on {
        return Err(format!(
            "query: {} m3, {} by hostname",
            m3.len(),
            by_host.len()
        ));
    }
    // Pagination after filtering.
    let page: types::HardwareReservationList = raw_json(
        t,
        &format!("/projects/{p}/hardware-reservations?facility=sv15&per_page=4"),
    )
    .await?;
    let meta = page.meta.ok_or("no meta")?;
    let next = meta.next.map(|h| h.href).unwrap_or_default();
    if meta.total != Some(6) || !next.contains("facility=sv15") {
        return Err(format!("meta total {:?} next {next}", meta.total));
    }
    // Values outside the spec's enumerations (sent without the typed
    // builder): 422.
    for query in ["provisionable=yes", "state=broken", "per_page=x"] {
        let status = raw_status(t, &format!("/projects/{p}/hardware-reservations?{query}")).await;
        if status != 422 {
            return Err(format!("{query}: {status}"));
        }
    }
    Ok(())
}

/// SSH key search: `search` on the user's keys, `query` on a project's,
/// over key, label and fingerprint.
async fn ssh_key_search(t: &Target) -> Result<(), String> {
    let key = |label: &str, body: &str| types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some(format!("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5{body} {label}")),
        label: Some(label.to_string()),
        tags: vec![],
    };
    let owner = KeyOwner::Project(t.project);
    let alpha = t
        .metal
        .create_ssh_key(owner, &key("alpha-key", "AAAAalphaAAA"))
        .await
        .map_err(|e| e.to_string())?;
    let beta = t
        .metal
        .create_ssh_key(owner, &key("beta-key", "BBBBbetaBBBB"))
        .await
        .map_err(|e| e.to_string())?;
    t.metal
        .create_ssh_key(KeyOwner::User, &key("gamma-key", "CCCCgammaCCC"))
        .await
        .map_err(|e| e.to_string())?;
    let api = raw(t);
    let labels = |l: types::SshKeyList| {
        let mut v: Vec<String> = l.ssh_keys.into_iter().filter_map(|k| k.label).collect();
        v.sort();
        v
    };
    let project = |q: String| {
        let api = api.clone();
        async move {
            body(api.find_project_ssh_keys().id(t.project).query(q).send())
                .await
                .map(labels)
        }
    };
    let user = |q: &'static str| {
        let api = api.clone();
        async move { body(api.find_ssh_keys().search(q).send()).await.map(labels) }
    };
    let fingerprint = beta.fingerprint.clone().ok_or("no fingerprint")?;
    let cases: Vec<(&str, Vec<String>, Vec<&str>)> = vec![
        ("label", project("ALPHA".into()).await?, vec!["alpha-key"]),
        ("key", project("BBBBbeta".into()).await?, vec!["beta-key"]),
        ("fingerprint", project(fingerprint).await?, vec!["beta-key"]),
        (
            "all",
            project("-key".into()).await?,
            vec!["alpha-key", "beta-key"],
        ),
        ("user", user("gamma").await?, vec!["gamma-key"]),
        // `/ssh-keys` also lists the keys of the projects the token sees.
        (
            "user, project's label",
            user("alpha").await?,
            vec!["alpha-key"],
        ),
    ];
    for (what, got, want) in cases {
        if got != want {
            return Err(format!("{what}: {got:?}"));
        }
    }
    drop(alpha);
    Ok(())
}

/// `exclude` on lists and reads; `include` and `exclude` on the replies of
/// create and update.
async fn include_exclude(t: &Target) -> Result<(), String> {
    let api = raw(t);
    let p = t.project;
    let r = t.reservation(None);
    let req = create_request(t, r, "inc").await?;
    let created = body(
        api.create_device()
            .id(p)
            .include("project")
            .exclude("facility")
            .body(req)
            .send(),
    )
    .await?;
    let project_full = |d: &types::Device| d.project.as_ref().and_then(|p| p.id) == Some(t.project);
    // Excluded: an `{"href": ...}` in its place (the spec's introduction),
    // so nothing of it but its link.
    let facility_excluded = |f: Option<&types::Facility>| f.is_none_or(|f| f.code.is_none());
    let plan_whole = |d: &types::Device| d.plan.as_ref().is_some_and(|p| p.slug.is_some());
    if !project_full(&created)
        || !facility_excluded(created.facility.as_ref())
        || !plan_whole(&created)
    {
        return Err("create reply ignored include/exclude".into());
    }
    let id = created.id.ok_or("no id")?;
    let update = types::DeviceUpdateInput {
        description: Some("changed".into()),
        ..Default::default()
    };
    let updated = body(
        api.update_device()
            .id(id)
            .include("project")
            .body(update.clone())
            .send(),
    )
    .await?;
    let plain = body(api.update_device().id(id).body(update).send()).await?;
    if !project_full(&updated) || project_full(&plain) {
        return Err("update reply ignored include".into());
    }
    let listed = body(api.find_project_devices().id(p).exclude("plan").send()).await?;
    let unexcluded = body(api.find_project_devices().id(p).send()).await?;
    if listed.devices.iter().any(plan_whole) || !unexcluded.devices.iter().all(plan_whole) {
        return Err("list ignored exclude".into());
    }
    let reservations = body(
        api.find_project_hardware_reservations()
            .id(p)
            .exclude("facility")
            .send(),
    )
    .await?;
    if reservations
        .hardware_reservations
        .iter()
        .any(|r| !facility_excluded(r.facility.as_ref()))
    {
        return Err("reservation list ignored exclude".into());
    }
    Ok(())
}

/// The body of a generated call's reply, or its error as text.
async fn body<T, E>(
    reply: impl std::future::Future<Output = Result<metal_api::ResponseValue<T>, metal_api::Error<E>>>,
) -> Result<T, String>
where
    metal_api::Error<E>: std::fmt::Display,
{
    reply
        .await
        .map(|r| r.into_inner())
        .map_err(|e| e.to_string())
}

/// The hostnames a device list sent as raw HTTP (or through the in-process
/// router) returns, sorted.
async fn raw_hostnames(t: &Target, path_and_query: &str) -> Result<Vec<String>, String> {
    let list: types::DeviceList = raw_json(t, path_and_query).await?;
    Ok(hostnames(&list.devices))
}

/// The JSON body of a GET sent as raw HTTP (or through the in-process
/// router).
async fn raw_json<T: serde::de::DeserializeOwned>(
    t: &Target,
    path_and_query: &str,
) -> Result<T, String> {
    let resp = raw_send(t, reqwest::Method::GET, path_and_query, Some(TOKEN)).await;
    resp.json().await.map_err(|e| e.to_string())
}

/// A GET of `path_and_query` under the API with the right token, sent as
/// raw HTTP or through the in-process router; its status.
async fn raw_status(t: &Target, path_and_query: &str) -> u16 {
    raw_send(t, reqwest::Method::GET, path_and_query, Some(TOKEN))
        .await
        .status()
        .as_u16()
}

/// One request, as raw HTTP to the server or through the in-process
/// router (the fake is a `metal_api::Exchange`).
async fn raw_send(
    t: &Target,
    method: reqwest::Method,
    path_and_query: &str,
    token: Option<&str>,
) -> reqwest::Response {
    use metal_api::Exchange;
    let base = match &t.server {
        Some(s) => s.base_url().to_string(),
        None => metal_fake::IN_PROCESS_BASE_URL.to_string(),
    };
    let url = reqwest::Url::parse(&format!("{base}{path_and_query}")).unwrap();
    let mut request = reqwest::Request::new(method, url);
    if let Some(token) = token {
        let token = match &t.server {
            Some(_) => token.to_string(),
            None => metal_fake::DEFAULT_TOKEN.to_string(),
        };
        request
            .headers_mut()
            .insert("x-auth-token", token.parse().unwrap());
    }
    match (&t.server, &t.fake) {
        (Some(_), _) => http::client().execute(request).await.unwrap(),
        (None, Some(fake)) => fake
            .exchange(&metal_api::operation::FIND_PROJECT_BY_ID, request)
            .await
            .unwrap(),
        (None, None) => panic!("no fake"),
    }
}

/// Every reply, refusals included, carries `X-Request-Id` (unique),
/// `X-RateLimit-Limit`, `-Remaining` and `-Reset` (a Unix time), and JSON
/// with `charset=utf-8`; a 401 spends none of the budget.
async fn headers(t: &Target) -> Result<(), String> {
    use reqwest::Method;
    let p = t.project;
    let cases: [(Method, String, Option<&str>, u16); 6] = [
        (Method::GET, format!("/projects/{p}"), Some(TOKEN), 200),
        (
            Method::GET,
            format!("/devices/{}", Uuid::new_v4()),
            Some(TOKEN),
            404,
        ),
        (Method::GET, "/nowhere".into(), Some(TOKEN), 404),
        // packngo PATCHes projects, so PATCH is served there; not on a
        // project's device list.
        (
            Method::PATCH,
            format!("/projects/{p}/devices"),
            Some(TOKEN),
            405,
        ),
        (Method::GET, "/invitations".into(), Some(TOKEN), 501),
        (
            Method::POST,
            format!("/projects/{p}/devices"),
            Some(TOKEN),
            422,
        ),
    ];
    let mut ids = HashSet::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let check = |resp: &reqwest::Response, ids: &mut HashSet<String>| -> Result<u64, String> {
        let h = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let what = format!("{} {:?}", resp.status(), resp.headers());
        if h("content-type").as_deref() != Some("application/json; charset=utf-8") {
            return Err(format!("content type: {what}"));
        }
        if !h("x-request-id").is_some_and(|id| ids.insert(id)) {
            return Err(format!("request id missing or repeated: {what}"));
        }
        if h("x-ratelimit-limit") != Some(RATE.to_string()) {
            return Err(format!("limit: {what}"));
        }
        let reset: u64 = h("x-ratelimit-reset")
            .and_then(|v| v.parse().ok())
            .ok_or(format!("reset: {what}"))?;
        if reset < now || reset > now + 3600 {
            return Err(format!("reset is not a Unix time near now: {what}"));
        }
        h("x-ratelimit-remaining")
            .and_then(|v| v.parse().ok())
            .ok_or(format!("remaining: {what}"))
    };
    for (method, path, token, status) in cases {
        let resp = raw_send(t, method.clone(), &path, token).await;
        if resp.status().as_u16() != status {
            return Err(format!("{method} {path}: {}", resp.status()));
        }
        check(&resp, &mut ids)?;
    }
    // Two 401s in a row: the budget is shown, not spent.
    let first = raw_send(t, Method::GET, &format!("/projects/{p}"), None).await;
    let second = raw_send(t, Method::GET, &format!("/projects/{p}"), None).await;
    if first.status() != 401 || second.status() != 401 {
        return Err(format!("without a token: {}", first.status()));
    }
    let (a, b) = (check(&first, &mut ids)?, check(&second, &mut ids)?);
    if b < a {
        return Err(format!("a 401 spent the budget: {a} then {b}"));
    }
    // An authorised request spends one.
    let spent = raw_send(t, Method::GET, &format!("/projects/{p}"), Some(TOKEN)).await;
    let c = check(&spent, &mut ids)?;
    if t.server.is_none() && c + 1 != b {
        return Err(format!(
            "an authorised request did not spend one: {b} then {c}"
        ));
    }
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn list_scenarios_in_process() {
    let mut failures = Vec::new();
    for scenario in Scenario::ALL {
        let t = target(false).await;
        if let Err(e) = scenario.run(&t).await {
            failures.push(format!("{scenario:?}: {e}"));
        }
    }
    assert!(failures.is_empty(), "in-process: {failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_scenarios_over_http() {
    let mut failures = Vec::new();
    for scenario in Scenario::ALL {
        let t = target(true).await;
        if let Err(e) = scenario.run(&t).await {
            failures.push(format!("{scenario:?}: {e}"));
        }
        t.check_replies();
    }
    assert!(failures.is_empty(), "over HTTP: {failures:#?}");
}
