//! IP reservations and their assignments to devices, as
//! cluster-api-provider-packet, cloud-provider-equinix-metal and
//! Terraform's `metal_reserved_ip_block` and `metal_ip_attachment` use
//! them: request an elastic block, find it by tag, assign its address to
//! a control-plane device, move it, release it. Through the generated
//! client in-process, and over HTTP with every reply checked against the
//! spec.

use crate::common;

use metal_api::types;
use metal_api::variants::{AnyIpReservation, IpAddress};
use metal_fake::document::{Device, IpAssignment, IpReservation, WorldDoc};
use metal_fake::{Fake, ServerConfig};
use serde_json::json;
use uuid::Uuid;

const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
const OTHER_PROJECT: &str = "0b000000-0000-4000-8000-000000000002";
const DA_DEVICE: &str = "0d000000-0000-4000-8000-000000000001";
const DA_DEVICE_2: &str = "0d000000-0000-4000-8000-000000000002";
const SV_DEVICE: &str = "0d000000-0000-4000-8000-000000000003";

fn id(text: &str) -> Uuid {
    text.parse().unwrap()
}

/// Two projects; in the first, two active devices in metro `da` and one
/// in `sv`.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "projects": [{"id": PROJECT}, {"id": OTHER_PROJECT}],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}],
        "devices": [
            {"id": DA_DEVICE, "project": PROJECT, "plan": "c3.small.x86", "facility": "da11", "hostname": "cp-1"},
            {"id": DA_DEVICE_2, "project": PROJECT, "plan": "c3.small.x86", "facility": "da11", "hostname": "cp-2"},
            {"id": SV_DEVICE, "project": PROJECT, "plan": "c3.small.x86", "facility": "sv15", "hostname": "sv-1"}
        ]
    }))
    .unwrap()
}

fn fake() -> Fake {
    Fake::builder().world(world()).build()
}

/// A request as cluster-api-provider-packet's `CreateIP` sends it: one
/// public address, `facility` empty beside the metro, failing rather than
/// waiting for approval, tagged with the cluster.
fn capp_request(metro: &str) -> types::RequestIpReservationRequest {
    serde_json::from_value(json!({
        "type": "public_ipv4",
        "quantity": 1,
        "facility": "",
        "metro": metro,
        "fail_on_approval_required": true,
        "tags": ["cluster-api-provider-packet:cluster-id:demo"]
    }))
    .unwrap()
}

fn request(body: serde_json::Value) -> types::RequestIpReservationRequest {
    serde_json::from_value(body).unwrap()
}

/// The status and messages of a refused call (a status the spec does not
/// list for the operation comes as an unexpected response).
async fn refusal<T: std::fmt::Debug>(
    result: Result<metal_api::ResponseValue<T>, metal_api::Error<types::Error>>,
) -> (u16, Vec<String>) {
    match result {
        Err(metal_api::Error::ErrorResponse(r)) => (r.status().as_u16(), r.into_inner().errors),
        Err(metal_api::Error::UnexpectedResponse(r)) => {
            let status = r.status().as_u16();
            let body: types::Error = r.json().await.unwrap();
            (status, body.errors)
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn plain(r: AnyIpReservation) -> types::IpReservation {
    match r {
        AnyIpReservation::Reservation(r) => *r,
        AnyIpReservation::Vrf(v) => panic!("decoded as a VRF reservation: {v:?}"),
    }
}

async fn reserve(
    api: &metal_api::Client,
    body: types::RequestIpReservationRequest,
) -> types::IpReservation {
    plain(
        api.request_ip_reservation()
            .id(id(PROJECT))
            .body(body)
            .send()
            .await
            .unwrap()
            .into_inner(),
    )
}

async fn assign(api: &metal_api::Client, device: &str, address: &str) -> types::IpAssignment {
    api.create_ip_assignment()
        .id(id(device))
        .body(types::IpAssignmentInput {
            address: address.to_string(),
            customdata: Default::default(),
        })
        .send()
        .await
        .unwrap()
        .into_inner()
}

/// What `findIPAddressById` of `id` answers.
async fn get(
    api: &metal_api::Client,
    id: Uuid,
) -> Result<metal_api::ResponseValue<IpAddress>, metal_api::Error<types::Error>> {
    api.find_ip_address_by_id().id(id).send().await
}

/// What `deleteIPAddress` of `id` answers.
async fn delete(
    api: &metal_api::Client,
    id: Uuid,
) -> Result<metal_api::ResponseValue<()>, metal_api::Error<types::Error>> {
    api.delete_ip_address().id(id).send().await
}

async fn device_addresses(api: &metal_api::Client, device: &str) -> Vec<String> {
    let d = api.find_device_by_id().id(id(device)).send().await.unwrap();
    d.into_inner()
        .ip_addresses
        .into_iter()
        .filter_map(|a| a.address)
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_requested_block_is_an_ip_reservation_created_at_once_and_listed() {
    let fake = fake();
    let api = fake.api_client();
    let r = reserve(&api, capp_request("da")).await;
    assert_eq!(r.type_.as_deref(), Some("public_ipv4"));
    assert_eq!(r.state.as_deref(), Some("created"));
    assert_eq!((r.cidr, r.address_family), (Some(32), Some(4)));
    assert_eq!(r.public, Some(true));
    assert_eq!(r.global_ip, Some(false));
    let address: std::net::Ipv4Addr = r.address.clone().unwrap().parse().unwrap();
    assert_eq!(r.network.as_deref(), r.address.as_deref());
    assert_eq!(r.netmask.as_deref(), Some("255.255.255.255"));
    assert_eq!(
        r.metro.as_ref().and_then(|m| m.code.clone()).as_deref(),
        Some("da")
    );
    assert!(r.facility.is_none(), "an empty facility is no facility");
    assert!(r.assignments.is_empty());
    assert_eq!(
        r.project.as_ref().and_then(|p| p.href.clone()),
        Some(format!("/metal/v1/projects/{PROJECT}"))
    );

    // A block of 8 comes aligned, apart from the first.
    let eight = reserve(
        &api,
        request(json!({"type": "public_ipv4", "quantity": 8, "facility": "da11"})),
    )
    .await;
    assert_eq!(eight.cidr, Some(29));
    assert_eq!(
        eight
            .facility
            .as_ref()
            .and_then(|f| f.code.clone())
            .as_deref(),
        Some("da11")
    );
    assert_eq!(
        eight.metro.as_ref().and_then(|m| m.code.clone()).as_deref(),
        Some("da"),
        "the facility's metro"
    );
    let network: std::net::Ipv4Addr = eight.network.clone().unwrap().parse().unwrap();
    assert_eq!(u32::from(network) % 8, 0);
    assert_ne!(network, address);

    // Found by tag in the project's list, as CAPP and the cloud provider
    // find their control-plane address.
    let list = api
        .find_ip_reservations()
        .id(id(PROJECT))
        .send()
        .await
        .unwrap()
        .into_inner();
    let all: Vec<types::IpReservation> = list.ip_addresses.into_iter().map(plain).collect();
    assert_eq!(all.len(), 2);
    assert!(all[0]
        .tags
        .contains(&"cluster-api-provider-packet:cluster-id:demo".to_string()));
    let meta = list.meta.expect("meta");
    assert_eq!(meta.total, Some(2));
    assert!(
        meta.self_.unwrap().href.contains("per_page=250"),
        "the spec's default page size"
    );
    // The other project's list is its own.
    let other = api
        .find_ip_reservations()
        .id(id(OTHER_PROJECT))
        .send()
        .await
        .unwrap()
        .into_inner();
    assert!(other.ip_addresses.is_empty());

    // Read by ID, it is a reservation (not an assignment, not a VRF block).
    let got = get(&api, r.id.unwrap()).await.unwrap().into_inner();
    assert!(matches!(got, IpAddress::Reservation(_)), "{got:?}");
}

#[tokio::test(start_paused = true)]
async fn an_assigned_address_shows_on_the_device_and_the_reservation() {
    let fake = fake();
    let api = fake.api_client();
    let r = reserve(&api, capp_request("da")).await;
    let address = r.address.clone().unwrap();
    let before = device_addresses(&api, DA_DEVICE).await;

    // CAPP assigns the bare address; Terraform sends CIDR notation.
    let a = assign(&api, DA_DEVICE, &address).await;
    assert_eq!(a.address.as_deref(), Some(address.as_str()));
    assert_eq!(a.cidr, Some(32));
    assert_eq!(a.type_.as_deref(), Some("IPAssignment"));
    assert_eq!(
        a.assigned_to.as_ref().map(|h| h.href.clone()),
        Some(format!("/metal/v1/devices/{DA_DEVICE}"))
    );
    let parent = a.parent_block.clone().unwrap();
    assert_eq!(
        parent.href,
        Some(format!("/metal/v1/ips/{}", r.id.unwrap()))
    );
    assert_eq!(parent.cidr, Some(32));

    // The device's `ip_addresses` (what CAPP's node addresses read) and
    // its assignment list have it after its own addresses.
    let after = device_addresses(&api, DA_DEVICE).await;
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(after.last(), Some(&address));
    let listed = api
        .find_ip_assignments()
        .id(id(DA_DEVICE))
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.ip_addresses.last().and_then(|a| a.id), a.id);
    assert_eq!(listed.ip_addresses.len(), after.len());

    // The reservation names it: a stub, or whole with include=assignments
    // (what the cloud provider asks for, to read the assignment's ID).
    let got = get(&api, r.id.unwrap()).await.unwrap().into_inner();
    let IpAddress::Reservation(got) = got else {
        panic!("{got:?}")
    };
    assert_eq!(got.assignments.len(), 1);
    assert_eq!(
        got.assignments[0].href,
        Some(format!("/metal/v1/ips/{}", a.id.unwrap()))
    );
    assert!(
        got.assignments[0].address.is_none(),
        "a stub unless included"
    );
    let list = api
        .find_ip_reservations()
        .id(id(PROJECT))
        .include("assignments")
        .send()
        .await
        .unwrap()
        .into_inner();
    let full = plain(list.ip_addresses.into_iter().next().unwrap());
    assert_eq!(full.assignments[0].id, a.id);
    assert_eq!(
        full.assignments[0].address.as_deref(),
        Some(address.as_str())
    );

    // Read by ID, the assignment is an assignment.
    let got = get(&api, a.id.unwrap()).await.unwrap().into_inner();
    assert!(matches!(got, IpAddress::Assignment(_)), "{got:?}");

    // A second assignment of it to the same device is refused; to another
    // device it is accepted (the cloud provider's "more than one node
    // assigned" case).
    let (status, messages) = refusal(
        api.create_ip_assignment()
            .id(id(DA_DEVICE))
            .body(types::IpAssignmentInput {
                address: format!("{address}/32"),
                customdata: Default::default(),
            })
            .send()
            .await,
    )
    .await;
    assert_eq!(
        (status, messages[0].as_str()),
        (422, "Address is already assigned to this device")
    );
    let second = assign(&api, DA_DEVICE_2, &format!("{address}/32")).await;
    assert_ne!(second.id, a.id);
}

#[tokio::test(start_paused = true)]
async fn unassigning_frees_the_address_and_the_assignment_reads_404() {
    let fake = fake();
    let api = fake.api_client();
    let r = reserve(&api, capp_request("da")).await;
    let address = r.address.clone().unwrap();
    let a = assign(&api, DA_DEVICE, &address).await;

    // The cloud provider's move: unassign, then assign to another device.
    delete(&api, a.id.unwrap()).await.unwrap();
    let (status, _) = refusal(get(&api, a.id.unwrap()).await).await;
    assert_eq!(
        status, 404,
        "Terraform's metal_ip_attachment reads 404 once it is gone"
    );
    assert!(!device_addresses(&api, DA_DEVICE).await.contains(&address));
    let (status, _) = refusal(delete(&api, a.id.unwrap()).await).await;
    assert_eq!(status, 404);
    assign(&api, DA_DEVICE_2, &address).await;
    assert!(device_addresses(&api, DA_DEVICE_2).await.contains(&address));
}

#[tokio::test(start_paused = true)]
async fn a_reservation_with_assignments_is_not_released() {
    let fake = fake();
    let api = fake.api_client();
    let r = reserve(&api, capp_request("da")).await;
    let a = assign(&api, DA_DEVICE, r.address.as_deref().unwrap()).await;
    let (status, messages) = refusal(delete(&api, r.id.unwrap()).await).await;
    assert_eq!(status, 422);
    assert!(messages[0].contains("has assignments"), "{messages:?}");
    // Still there, still assigned.
    get(&api, r.id.unwrap()).await.unwrap();
    get(&api, a.id.unwrap()).await.unwrap();

    delete(&api, a.id.unwrap()).await.unwrap();
    delete(&api, r.id.unwrap()).await.unwrap();
    let (status, _) = refusal(get(&api, r.id.unwrap()).await).await;
    assert_eq!(status, 404);
    let list = api
        .find_ip_reservations()
        .id(id(PROJECT))
        .send()
        .await
        .unwrap()
        .into_inner();
    assert!(list.ip_addresses.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_deleted_devices_assignments_go_with_it() {
    let fake = fake();
    let api = fake.api_client();
    let r = reserve(&api, capp_request("da")).await;
    let a = assign(&api, DA_DEVICE, r.address.as_deref().unwrap()).await;
    api.delete_device().id(id(DA_DEVICE)).send().await.unwrap();
    fake.advance(std::time::Duration::from_secs(3600)).unwrap();
    let (status, _) = refusal(get(&api, a.id.unwrap()).await).await;
    assert_eq!(status, 404);
    let got = get(&api, r.id.unwrap()).await.unwrap().into_inner();
    let IpAddress::Reservation(got) = got else {
        panic!("{got:?}")
    };
    assert!(got.assignments.is_empty());
    delete(&api, r.id.unwrap()).await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn requests_and_assignments_outside_the_rules_are_refused() {
    let fake = fake();
    let api = fake.api_client();
    let refused = |body: serde_json::Value| {
        let api = api.clone();
        async move {
            refusal(
                api.request_ip_reservation()
                    .id(id(PROJECT))
                    .body(request(body))
                    .send()
                    .await,
            )
            .await
        }
    };
    for (body, says) in [
        (
            json!({"type": "public_ipv4", "quantity": 3, "metro": "da"}),
            "power of 2",
        ),
        (
            json!({"type": "public_ipv4", "quantity": 512, "metro": "da"}),
            "power of 2",
        ),
        (json!({"type": "global_ipv4", "quantity": 8}), "power of 2"),
        (
            json!({"type": "public_ipv4", "quantity": 1}),
            "Metro or facility is required",
        ),
        (
            json!({"type": "public_ipv4", "quantity": 1, "metro": "", "facility": ""}),
            "Metro or facility is required",
        ),
        (
            json!({"type": "public_ipv4", "quantity": 1, "metro": "zz"}),
            "Metro zz was not found",
        ),
        (
            json!({"type": "public_ipv4", "quantity": 1, "metro": "sv", "facility": "da11"}),
            "not in the metro",
        ),
        (
            json!({"type": "global_ipv4", "quantity": 1, "metro": "da"}),
            "takes no metro",
        ),
        (
            json!({"type": "private_ipv4", "quantity": 1, "metro": "da"}),
            "cannot be requested",
        ),
        (
            json!({"type": "elastic", "quantity": 1, "metro": "da"}),
            "type must be one of",
        ),
        (
            json!({"type": "public_ipv4", "quantity": 1, "metro": "da", "tags": vec!["t"; 257]}),
            "Tags are too many",
        ),
    ] {
        let (status, messages) = refused(body.clone()).await;
        assert_eq!(status, 422, "{body}");
        assert!(messages[0].contains(says), "{body}: {messages:?}");
    }
    assert!(api
        .find_ip_reservations()
        .id(id(PROJECT))
        .send()
        .await
        .unwrap()
        .into_inner()
        .ip_addresses
        .is_empty());
    let (status, _) = refusal(
        api.request_ip_reservation()
            .id(Uuid::new_v4())
            .body(capp_request("da"))
            .send()
            .await,
    )
    .await;
    assert_eq!(status, 404, "no such project");

    let assigning = |device: &str, address: String| {
        let api = api.clone();
        let device = id(device);
        async move {
            refusal(
                api.create_ip_assignment()
                    .id(device)
                    .body(types::IpAssignmentInput {
                        address,
                        customdata: Default::default(),
                    })
                    .send()
                    .await,
            )
            .await
        }
    };
    // Addresses outside the project's blocks (packngo issue 183's
    // message), in another metro, not a network, not an address.
    let (status, messages) = assigning(DA_DEVICE, "203.0.113.7".into()).await;
    assert_eq!(
        (status, messages[0].as_str()),
        (422, "Address is not reserved for the project")
    );
    let sv = reserve(
        &api,
        request(json!({"type": "public_ipv4", "quantity": 2, "metro": "sv"})),
    )
    .await;
    let (status, messages) = assigning(DA_DEVICE, sv.address.clone().unwrap()).await;
    assert_eq!(status, 422);
    assert!(messages[0].contains("another metro"), "{messages:?}");
    let odd = {
        let n: std::net::Ipv4Addr = sv.address.clone().unwrap().parse().unwrap();
        format!("{}/31", std::net::Ipv4Addr::from(u32::from(n) + 1))
    };
    let (status, messages) = assigning(SV_DEVICE, odd).await;
    assert_eq!(status, 422);
    assert!(messages[0].contains("not the network"), "{messages:?}");
    let (status, _) = assigning(SV_DEVICE, "not-an-address".into()).await;
    assert_eq!(status, 422);
    let (status, _) = assigning(&Uuid::new_v4().to_string(), sv.address.clone().unwrap()).await;
    assert_eq!(status, 404, "no such device");
    // A whole /31 to one device is fine.
    let a = assign(&api, SV_DEVICE, &format!("{}/31", sv.address.unwrap())).await;
    assert_eq!(a.cidr, Some(31));

    // Below the project's quota of 256 public addresses: 2 above and 252
    // here; then a request that would reach the quota and must not wait
    // is refused, and one that may is pending.
    for quantity in [128, 64, 32, 16, 8, 4] {
        reserve(
            &api,
            request(json!({"type": "public_ipv4", "quantity": quantity, "metro": "da"})),
        )
        .await;
    }
    let (status, messages) = refused(json!({"type": "public_ipv4", "quantity": 2, "metro": "da", "fail_on_approval_required": true})).await;
    assert_eq!(status, 422);
    assert!(
        messages[0].contains("cannot be approved automatically"),
        "{messages:?}"
    );
    let pending = reserve(
        &api,
        request(json!({"type": "public_ipv4", "quantity": 2, "metro": "da"})),
    )
    .await;
    assert_eq!(pending.state.as_deref(), Some("pending"));
    let (status, messages) = assigning(DA_DEVICE, pending.address.clone().unwrap()).await;
    assert_eq!(
        (status, messages[0].as_str()),
        (422, "The IP reservation is not approved yet")
    );
}

#[tokio::test(start_paused = true)]
async fn global_blocks_have_no_metro_and_assign_in_every_metro() {
    let fake = fake();
    let api = fake.api_client();
    let g = reserve(&api, request(json!({"type": "global_ipv4", "quantity": 1}))).await;
    assert_eq!(g.type_.as_deref(), Some("global_ipv4"));
    assert_eq!(g.global_ip, Some(true));
    assert!(g.metro.is_none() && g.facility.is_none());
    let address = g.address.unwrap();
    let a = assign(&api, DA_DEVICE, &address).await;
    assert_eq!(a.global_ip, Some(true));
    assign(&api, SV_DEVICE, &address).await;

    // The `types` filter.
    reserve(&api, capp_request("da")).await;
    let only = |t: types::FindIpReservationsTypesItem| {
        let api = api.clone();
        async move {
            api.find_ip_reservations()
                .id(id(PROJECT))
                .types(vec![t])
                .send()
                .await
                .unwrap()
                .into_inner()
                .ip_addresses
                .into_iter()
                .filter_map(|r| plain(r).type_)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        only(types::FindIpReservationsTypesItem::GlobalIpv4).await,
        ["global_ipv4"]
    );
    assert_eq!(
        only(types::FindIpReservationsTypesItem::PublicIpv4).await,
        ["public_ipv4"]
    );
    assert!(only(types::FindIpReservationsTypesItem::Vrf)
        .await
        .is_empty());
}

#[tokio::test(start_paused = true)]
async fn reservations_and_assignments_round_trip_through_the_world_document() {
    let fake = fake();
    let api = fake.api_client();
    let r = reserve(&api, capp_request("da")).await;
    let a = assign(&api, DA_DEVICE, r.address.as_deref().unwrap()).await;
    let saved = fake.world();
    assert_eq!(saved.ip_reservations.len(), 1);
    assert_eq!(
        saved.ip_reservations[0].assignments,
        [IpAssignment {
            id: a.id.unwrap(),
            device: id(DA_DEVICE),
            address: r.address.as_deref().unwrap().parse().unwrap(),
            cidr: 32
        }]
    );
    let other = Fake::builder().world(saved.clone()).build();
    assert_eq!(other.world(), saved);
    // A block requested in the restored world does not overlap the saved one.
    let again = reserve(&other.api_client(), capp_request("da")).await;
    assert_ne!(again.address, r.address);

    // Refused: blocks that overlap, a misaligned network, an assignment
    // outside its block or to another project's device.
    let refuse = |edit: &dyn Fn(&mut WorldDoc)| {
        let mut doc = saved.clone();
        edit(&mut doc);
        match Fake::builder().world(doc).try_build() {
            Err(metal_fake::BuildError::World(e)) => e.to_string(),
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("accepted"),
        }
    };
    let block = |network: &str, cidr: u8| IpReservation {
        id: Uuid::new_v4(),
        network: network.parse().unwrap(),
        cidr,
        assignments: Vec::new(),
        ..saved.ip_reservations[0].clone()
    };
    let first = saved.ip_reservations[0].network.to_string();
    assert!(refuse(&|d| d.ip_reservations.push(block(&first, 32))).contains("overlaps"));
    assert!(
        refuse(&|d| d.ip_reservations.push(block("198.51.100.1", 31))).contains("not the network")
    );
    assert!(refuse(
        &|d| d.ip_reservations[0].assignments[0].address = "198.51.100.9".parse().unwrap()
    )
    .contains("not a block of its addresses"));
    let stranger = Device {
        id: Uuid::new_v4(),
        project: id(OTHER_PROJECT),
        ..saved.devices[0].clone()
    };
    assert!(refuse(&|d| {
        d.devices.push(stranger.clone());
        d.ip_reservations[0].assignments[0].device = stranger.id;
    })
    .contains("another project"));
}

#[tokio::test]
async fn over_http_the_control_plane_address_flow_matches_the_spec() {
    let fake = fake();
    let server = crate::http::serve(&fake, ServerConfig::new("t").record_replies(true)).await;
    let api = crate::http::api(&server, "t");
    let r = reserve(&api, capp_request("da")).await;
    let g = reserve(
        &api,
        request(json!({"type": "global_ipv4", "quantity": 2, "tags": ["anycast"]})),
    )
    .await;
    let a = assign(&api, DA_DEVICE, r.address.as_deref().unwrap()).await;
    assign(&api, SV_DEVICE, &format!("{}/31", g.address.unwrap())).await;
    for include in [None, Some("assignments,project")] {
        let mut list = api.find_ip_reservations().id(id(PROJECT));
        if let Some(i) = include {
            list = list.include(i);
        }
        assert_eq!(
            list.send().await.unwrap().into_inner().ip_addresses.len(),
            2
        );
    }
    api.find_ip_address_by_id()
        .id(r.id.unwrap())
        .exclude("metro")
        .send()
        .await
        .unwrap();
    get(&api, a.id.unwrap()).await.unwrap();
    api.find_ip_assignments()
        .id(id(DA_DEVICE))
        .send()
        .await
        .unwrap();
    api.find_device_by_id()
        .id(id(DA_DEVICE))
        .send()
        .await
        .unwrap();
    let _ = refusal(delete(&api, r.id.unwrap()).await).await;
    delete(&api, a.id.unwrap()).await.unwrap();
    delete(&api, r.id.unwrap()).await.unwrap();
    let _ = refusal(get(&api, r.id.unwrap()).await).await;
    let replies = server.recorded_replies();
    assert!(replies.len() >= 13);
    common::schema::check_all(&replies);
    server.shutdown().await;
}

/// The `types` of every block the list gives with `types`.
async fn listed_types(
    api: &metal_api::Client,
    types: Vec<types::FindIpReservationsTypesItem>,
) -> Vec<String> {
    let mut listed: Vec<String> = api
        .find_ip_reservations()
        .id(id(PROJECT))
        .types(types)
        .send()
        .await
        .unwrap()
        .into_inner()
        .ip_addresses
        .into_iter()
        .filter_map(|r| plain(r).type_)
        .collect();
    listed.sort();
    listed
}

/// The generated client sends a list as repeated keys
/// (`types=public_ipv4&types=global_ipv4`), as the spec says: every value
/// counts, whichever order, in process and over HTTP.
#[tokio::test]
async fn types_given_twice_list_both_kinds_in_process_and_over_http() {
    use types::FindIpReservationsTypesItem::{GlobalIpv4, PublicIpv4, Vrf};
    let fake = fake();
    let in_process = fake.api_client();
    reserve(&in_process, capp_request("da")).await;
    reserve(
        &in_process,
        request(json!({"type": "global_ipv4", "quantity": 1})),
    )
    .await;
    let server = crate::http::serve(&fake, ServerConfig::new("t")).await;
    let over_http = crate::http::api(&server, "t");
    for api in [&in_process, &over_http] {
        for types in [vec![PublicIpv4, GlobalIpv4], vec![GlobalIpv4, PublicIpv4]] {
            assert_eq!(
                listed_types(api, types).await,
                ["global_ipv4", "public_ipv4"]
            );
        }
        assert_eq!(
            listed_types(api, vec![Vrf, PublicIpv4]).await,
            ["public_ipv4"]
        );
    }
    server.shutdown().await;
}
