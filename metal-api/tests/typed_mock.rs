//! progenitor's typed httpmock extension (`metal_api::mock`, feature
//! `mock`) compiles against this spec and matches what the client sends.
//!
//! Its path matchers are anchored at the server root (`^/devices/...$`),
//! with no room for the `/metal/v1` stem, so a client driven by typed mocks
//! must use the mock server's root as its base URL.
#![cfg(feature = "mock")]

mod common;

use common::*;
use httpmock::MockServer;
use metal_api::mock::MockServerExt;
use metal_api::types;

fn root_client(server: &MockServer) -> metal_api::Client {
    metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.base_url())
        .build()
        .unwrap()
        .client()
        .unwrap()
}

fn device() -> types::Device {
    serde_json::from_value(device_json()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn typed_mocks_match_the_generated_client() {
    let server = MockServer::start_async().await;
    let id = uuid(DEVICE);
    let expected = device();

    let find = server.find_device_by_id(|when, then| {
        when.id(&id).include("project,plan").exclude(None);
        then.ok(&expected);
    });
    let delete = server.delete_device(|when, then| {
        when.id(&id).force_delete(true);
        then.no_content();
    });
    let action = types::DeviceActionInput {
        type_: types::DeviceActionInputType::PowerOff,
        deprovision_fast: None,
        force_delete: None,
        ipxe_script_url: None,
        operating_system: None,
        preserve_data: None,
    };
    let act = server.perform_action(|when, then| {
        when.id(&id).body(&action);
        then.accepted();
    });
    let key_error = types::Error {
        error: None,
        errors: vec!["Key is invalid".into()],
    };
    let create_key = server.create_ssh_key(|when, then| {
        when.body(&types::SshKeyCreateInput {
            label: Some("bad".into()),
            key: Some("not a key".into()),
            instances_ids: vec![],
            tags: vec![],
        });
        then.unprocessable_entity(&key_error);
    });

    let client = root_client(&server);
    let got = client
        .find_device_by_id()
        .id(id)
        .include(metal_api::csv(["project", "plan"]))
        .send()
        .await
        .unwrap()
        .into_inner();
    // What the typed mock serialized decodes back to the same value.
    assert_eq!(got, expected);

    let deleted = client
        .delete_device()
        .id(id)
        .force_delete(true)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);

    let acted = client
        .perform_action()
        .id(id)
        .body(action.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(acted.status(), 202);

    let err = client
        .create_ssh_key()
        .body_map(|b| {
            b.label(Some("bad".to_string()))
                .key(Some("not a key".to_string()))
        })
        .send()
        .await
        .unwrap_err();
    match err {
        metal_api::Error::ErrorResponse(reply) => {
            assert_eq!(reply.status(), 422);
            assert_eq!(reply.into_inner(), key_error);
        }
        other => panic!("expected ErrorResponse, got {other:?}"),
    }

    find.assert_calls(1);
    delete.assert_calls(1);
    act.assert_calls(1);
    create_key.assert_calls(1);
}

#[tokio::test(flavor = "multi_thread")]
async fn typed_mock_query_matchers_reject_other_values() {
    let server = MockServer::start_async().await;
    let id = uuid(DEVICE);
    let strict = server.delete_device(|when, then| {
        when.id(&id).force_delete(None); // no force_delete at all
        then.no_content();
    });
    let err = root_client(&server)
        .delete_device()
        .id(id)
        .force_delete(true)
        .send()
        .await
        .unwrap_err();
    // httpmock answers an unmatched request with a 404 whose JSON body
    // (`{"message": ...}`) decodes as an Error with neither field set.
    assert_eq!(strict.calls(), 0);
    match err {
        metal_api::Error::ErrorResponse(reply) => {
            assert_eq!(reply.status(), 404);
            assert_eq!(reply.into_inner(), types::Error::default());
        }
        other => panic!("expected the unmatched 404, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn typed_mocks_do_not_see_the_metal_v1_stem() {
    let server = MockServer::start_async().await;
    let id = uuid(DEVICE);
    let typed = server.find_device_by_id(|when, then| {
        when.id(&id);
        then.ok(&device());
    });
    // The usual configuration: base URL under /metal/v1.
    let result = client(&server).find_device_by_id().id(id).send().await;
    assert_eq!(typed.calls(), 0);
    assert!(result.is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn typed_mocks_match_list_query_parameters_item_by_item_and_scalar_bodies() {
    use types::FindIpReservationsTypesItem::{PublicIpv4, Vrf};
    let server = MockServer::start_async().await;
    let project = uuid(PROJECT);
    let session = uuid(DEVICE);
    let both = vec![PublicIpv4, Vrf];
    let listed = server.find_ip_reservations(|when, then| {
        // The client sends `types=public_ipv4&types=vrf`; each item is
        // expected as its own key.
        when.id(&project).types(&both);
        then.ok(&types::IpReservationList::default());
    });
    let only_vrf = vec![Vrf];
    let vrf = server.find_ip_reservations(|when, then| {
        when.id(&project).types(&only_vrf);
        then.ok(&types::IpReservationList::default());
    });
    let session_mock = server.update_bgp_session(|when, then| {
        when.id(&session).body(true);
        then.ok();
    });
    let client = root_client(&server);
    client
        .find_ip_reservations()
        .id(project)
        .types(both.clone())
        .send()
        .await
        .unwrap();
    // Without `public_ipv4` the first mock does not match; the second does.
    client
        .find_ip_reservations()
        .id(project)
        .types(only_vrf.clone())
        .send()
        .await
        .unwrap();
    client
        .update_bgp_session()
        .id(session)
        .body(true)
        .send()
        .await
        .unwrap();
    listed.assert_calls(1);
    vrf.assert_calls(1);
    session_mock.assert_calls(1);

    // An empty list is sent as no key at all, and expected so.
    let none: Vec<types::FindIpReservationsTypesItem> = vec![];
    let empty = server.find_ip_reservations(|when, then| {
        when.id(&project)
            .types(&none)
            .per_page(std::num::NonZeroU32::new(2));
        then.ok(&types::IpReservationList::default());
    });
    client
        .find_ip_reservations()
        .id(project)
        .types(none.clone())
        .per_page(2u32)
        .send()
        .await
        .unwrap();
    empty.assert_calls(1);
}
