//! One test for each operation the policy's `Metal` trait wraps: the request
//! (method, path under `/metal/v1`, auth token, user agent, exact query
//! string, exact JSON body) and the decoding of the reply.
//!
//! Query values are form-encoded by reqwest, so a comma-joined list
//! `include=project,plan` travels as the single pair `include=project%2Cplan`
//! (the server decodes it back to `project,plan`; it is never repeated keys),
//! while a list the spec declares exploded (`categories`, `types`) travels
//! as one key per value.

use crate::common;

use common::*;
use httpmock::{Method, MockServer};
use metal_api::{csv, types};
use serde_json::json;

#[tokio::test]
async fn find_project_by_id() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/projects/{PROJECT}"),
                Some("exclude=devices%2Cmembers&include=organization"),
            )
            .query_param("include", "organization")
            .query_param("exclude", "devices,members");
            then.status(200).json_body(project_json());
        })
        .await;

    let project = client(&server)
        .find_project_by_id()
        .id(uuid(PROJECT))
        .include(csv(["organization"]))
        .exclude(csv(["devices", "members"]))
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(project.status(), 200);
    assert_eq!(project.id, Some(uuid(PROJECT)));
    assert_eq!(project.name.as_deref(), Some("prod"));
    assert_eq!(project.type_.as_deref(), Some("default"));
    assert_eq!(project.devices.len(), 1);
}

#[tokio::test]
async fn find_device_by_id_sends_include_as_one_comma_joined_param() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/devices/{DEVICE}"),
                Some("exclude=root_password&include=project%2Cplan"),
            )
            .query_param("include", "project,plan")
            .query_param_count("^include$", ".*", 1)
            .query_param("exclude", "root_password");
            then.status(200)
                .header("content-type", "application/json; charset=utf-8")
                .json_body(device_json());
        })
        .await;

    let device = client(&server)
        .find_device_by_id()
        .id(uuid(DEVICE))
        .include(csv(["project", "plan"]))
        .exclude(csv(["root_password"]))
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(device.id, Some(uuid(DEVICE)));
    assert_eq!(device.hostname.as_deref(), Some("web-1"));
    assert_eq!(device.state_kind(), Some(metal_api::DeviceState::Active));
    assert_eq!(device.tags, ["web", "prod"]);
    assert_eq!(
        device.ip_addresses[0].address.as_deref(),
        Some("147.28.130.11")
    );
    assert_eq!(device.metro.as_ref().unwrap().code.as_deref(), Some("da"));
}

#[tokio::test]
async fn find_device_by_id_without_include_sends_no_query() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(when, Method::GET, &format!("/devices/{DEVICE}"), None)
                .query_param_missing("include")
                .query_param_missing("exclude");
            then.status(200).json_body(device_json());
        })
        .await;

    let device = client(&server)
        .find_device_by_id()
        .id(uuid(DEVICE))
        .send()
        .await
        .unwrap();
    mock.assert_async().await;
    assert_eq!(device.short_id.as_deref(), Some("0b5d4c5e"));
}

#[tokio::test]
async fn find_project_devices_sends_filters_and_pagination() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/projects/{PROJECT}/devices"),
                Some(
                    "categories=compute&categories=storage&exclude=root_password\
                     &has_termination_time=false\
                     &include=plan%2Cfacility&metro=da&page=3&per_page=50&reserved=true\
                     &search=web&tag=prod",
                ),
            )
            .query_param("include", "plan,facility")
            .query_param("page", "3")
            .query_param("per_page", "50");
            then.status(200).json_body(json!({
                "devices": [device_json(), {"id": PROJECT, "hostname": "web-2", "state": "queued"}],
                "meta": meta_json(3, 4, 37)
            }));
        })
        .await;

    let list = client(&server)
        .find_project_devices()
        .id(uuid(PROJECT))
        .include(csv(["plan", "facility"]))
        .exclude("root_password")
        // Exploded in the spec: one `categories` key per value.
        .categories(vec![
            types::FindProjectDevicesCategoriesItem::Compute,
            types::FindProjectDevicesCategoriesItem::Storage,
        ])
        .metro("da")
        .search("web")
        .tag("prod")
        .reserved(true)
        .has_termination_time(false)
        .page(3u32)
        .per_page(50u32)
        .send()
        .await
        .unwrap()
        .into_inner();

    mock.assert_async().await;
    assert_eq!(list.devices.len(), 2);
    assert_eq!(list.devices[1].hostname.as_deref(), Some("web-2"));
    let meta = list.meta.unwrap();
    assert_eq!(
        (meta.current_page, meta.last_page, meta.total),
        (Some(3), Some(4), Some(37))
    );
    assert!(meta.previous.is_none());
    assert!(meta.next.unwrap().href.ends_with("page=4"));
}

#[tokio::test]
async fn create_device_in_metro_sends_the_body_and_decodes_201() {
    let server = MockServer::start_async().await;
    // The generated request type always sends the spec's defaults
    // (`always_pxe`, `locked`, `no_ssh_keys`, `hardware_reservation_id: ""`
    // and the three default `ip_addresses`); the match is on the exact body.
    let expected_body = json!({
        "metro": "da",
        "plan": "c3.small.x86",
        "operating_system": "ubuntu_22_04",
        "hostname": "web-3",
        "billing_cycle": "hourly",
        "tags": ["web"],
        "userdata": "#cloud-config\n",
        "always_pxe": false,
        "locked": false,
        "no_ssh_keys": false,
        "hardware_reservation_id": "",
        "ip_addresses": [
            {"address_family": 4, "public": true},
            {"address_family": 4, "public": false},
            {"address_family": 6, "public": true}
        ]
    });
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::POST,
                &format!("/projects/{PROJECT}/devices"),
                Some("include=plan"),
            )
            .header("content-type", "application/json")
            .json_body(expected_body);
            let mut reply = device_json();
            reply["hostname"] = json!("web-3");
            reply["state"] = json!("queued");
            then.status(201).json_body(reply);
        })
        .await;

    let body: types::DeviceCreateInMetroInput = types::DeviceCreateInMetroInput::builder()
        .metro("da")
        .plan("c3.small.x86")
        .operating_system("ubuntu_22_04")
        .hostname(Some("web-3".to_string()))
        .billing_cycle(Some(types::DeviceCreateInMetroInputBillingCycle::Hourly))
        .tags(vec!["web".to_string()])
        .userdata(Some("#cloud-config\n".to_string()))
        .try_into()
        .unwrap();
    let created = client(&server)
        .create_device()
        .id(uuid(PROJECT))
        .include("plan")
        .body(types::CreateDeviceRequest::MetroInput(body))
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(created.status(), 201);
    assert_eq!(created.hostname.as_deref(), Some("web-3"));
    assert_eq!(created.state_kind(), Some(metal_api::DeviceState::Queued));
}

#[tokio::test]
async fn update_device_sends_only_the_changed_fields() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::PUT,
                &format!("/devices/{DEVICE}"),
                Some("include=project"),
            )
            .header("content-type", "application/json")
            .json_body(json!({"hostname": "web-1b", "locked": true, "tags": ["a", "b"]}));
            let mut reply = device_json();
            reply["hostname"] = json!("web-1b");
            reply["locked"] = json!(true);
            then.status(200).json_body(reply);
        })
        .await;

    let updated = client(&server)
        .update_device()
        .id(uuid(DEVICE))
        .include("project")
        .body(types::DeviceUpdateInput {
            hostname: Some("web-1b".into()),
            locked: Some(true),
            tags: Some(vec!["a".into(), "b".into()]),
            ..Default::default()
        })
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(updated.hostname.as_deref(), Some("web-1b"));
    assert_eq!(updated.locked, Some(true));
}

#[tokio::test]
async fn update_device_sends_empty_tags_and_customdata_to_clear_them() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(when, Method::PUT, &format!("/devices/{DEVICE}"), None)
                .header("content-type", "application/json")
                .json_body(json!({"tags": [], "customdata": {}}));
            then.status(200).json_body(device_json());
        })
        .await;

    client(&server)
        .update_device()
        .id(uuid(DEVICE))
        .body(types::DeviceUpdateInput {
            tags: Some(vec![]),
            customdata: Some(serde_json::Map::new()),
            ..Default::default()
        })
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
}

#[tokio::test]
async fn delete_device_sends_force_delete_true() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::DELETE,
                &format!("/devices/{DEVICE}"),
                Some("force_delete=true"),
            )
            .query_param("force_delete", "true");
            then.status(204);
        })
        .await;

    let reply = client(&server)
        .delete_device()
        .id(uuid(DEVICE))
        .force_delete(true)
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(reply.status(), 204);
}

#[tokio::test]
async fn perform_action_sends_the_action_type() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::POST,
                &format!("/devices/{DEVICE}/actions"),
                None,
            )
            .header("content-type", "application/json")
            .json_body(json!({"type": "reinstall", "operating_system": "ubuntu_24_04", "preserve_data": true}));
            then.status(202);
        })
        .await;

    let reply = client(&server)
        .perform_action()
        .id(uuid(DEVICE))
        .body(types::DeviceActionInput {
            type_: types::DeviceActionInputType::Reinstall,
            operating_system: Some("ubuntu_24_04".into()),
            preserve_data: Some(true),
            deprovision_fast: None,
            force_delete: None,
            ipxe_script_url: None,
        })
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(reply.status(), 202);
}

#[tokio::test]
async fn perform_action_reboot_body_is_just_the_type() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::POST,
                &format!("/devices/{DEVICE}/actions"),
                None,
            )
            .json_body(json!({"type": "reboot"}));
            then.status(202);
        })
        .await;
    client(&server)
        .perform_action()
        .id(uuid(DEVICE))
        .body_map(|b| b.type_(types::DeviceActionInputType::Reboot))
        .send()
        .await
        .unwrap();
    mock.assert_async().await;
}

#[tokio::test]
async fn find_project_hardware_reservations_sends_state_and_pagination() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/projects/{PROJECT}/hardware-reservations"),
                Some("include=device%2Cplan&page=1&per_page=100&provisionable=only&query=c3&state=active"),
            );
            then.status(200).json_body(json!({
                "hardware_reservations": [reservation_json()],
                "meta": meta_json(1, 1, 1)
            }));
        })
        .await;

    let list = client(&server)
        .find_project_hardware_reservations()
        .id(uuid(PROJECT))
        .include(csv(["device", "plan"]))
        .state(types::FindProjectHardwareReservationsState::Active)
        .provisionable(types::FindProjectHardwareReservationsProvisionable::Only)
        .query("c3")
        .page(1u32)
        .per_page(100u32)
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(list.hardware_reservations.len(), 1);
    assert_eq!(list.hardware_reservations[0].id, Some(uuid(RESERVATION)));
    assert_eq!(list.meta.as_ref().unwrap().total, Some(1));
}

#[tokio::test]
async fn find_hardware_reservation_by_id() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/hardware-reservations/{RESERVATION}"),
                Some("exclude=project&include=device"),
            );
            then.status(200).json_body(reservation_json());
        })
        .await;

    let reservation = client(&server)
        .find_hardware_reservation_by_id()
        .id(uuid(RESERVATION))
        .include("device")
        .exclude("project")
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(reservation.short_id.as_deref(), Some("2e3f4a5b"));
    assert_eq!(reservation.provisionable, Some(false));
    assert_eq!(reservation.custom_rate, Some(1050.5));
}

#[tokio::test]
async fn move_hardware_reservation_sends_the_target_project() {
    let target = "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d";
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::POST,
                &format!("/hardware-reservations/{RESERVATION}/move"),
                Some("include=project"),
            )
            .header("content-type", "application/json")
            .json_body(json!({"project_id": target}));
            let mut reply = reservation_json();
            reply["project"] = json!({"id": target, "name": "staging"});
            then.status(201).json_body(reply);
        })
        .await;

    let moved = client(&server)
        .move_hardware_reservation()
        .id(uuid(RESERVATION))
        .include("project")
        .body(types::MoveHardwareReservationRequest {
            project_id: Some(uuid(target)),
        })
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(moved.status(), 201);
    assert_eq!(moved.project.as_ref().unwrap().id, Some(uuid(target)));
}

#[tokio::test]
async fn find_ssh_keys_sends_search_and_include() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                "/ssh-keys",
                Some("include=entity&search=lap+top"),
            )
            .query_param("search", "lap top");
            then.status(200)
                .json_body(json!({"ssh_keys": [ssh_key_json()]}));
        })
        .await;

    let keys = client(&server)
        .find_ssh_keys()
        .search("lap top")
        .include("entity")
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(keys.ssh_keys.len(), 1);
    assert_eq!(keys.ssh_keys[0].label.as_deref(), Some("laptop"));
}

#[tokio::test]
async fn create_ssh_key_sends_label_and_key() {
    let server = MockServer::start_async().await;
    let key = ssh_key_json()["key"].as_str().unwrap().to_string();
    let expected = json!({"label": "laptop", "key": key, "tags": ["ci"]});
    let mock = server
        .mock_async(|when, then| {
            api(when, Method::POST, "/ssh-keys", None)
                .header("content-type", "application/json")
                .json_body(expected);
            then.status(201).json_body(ssh_key_json());
        })
        .await;

    let created = client(&server)
        .create_ssh_key()
        .body(types::SshKeyCreateInput {
            label: Some("laptop".into()),
            key: Some(key.clone()),
            tags: vec!["ci".into()],
            instances_ids: vec![],
        })
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(created.status(), 201);
    assert_eq!(created.id, Some(uuid(SSH_KEY)));
    assert_eq!(created.key.as_deref(), Some(key.as_str()));
}

#[tokio::test]
async fn find_ssh_key_by_id() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/ssh-keys/{SSH_KEY}"),
                Some("include=entity"),
            );
            then.status(200).json_body(ssh_key_json());
        })
        .await;

    let key = client(&server)
        .find_ssh_key_by_id()
        .id(uuid(SSH_KEY))
        .include("entity")
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(
        key.fingerprint.as_deref(),
        Some("3b:5d:1f:2c:7e:9a:0b:4c:6d:8e:1f:2a:3b:4c:5d:6e")
    );
    assert!(key.entity.as_ref().unwrap().href.contains(USER));
}

#[tokio::test]
async fn update_ssh_key_sends_the_new_label() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(when, Method::PUT, &format!("/ssh-keys/{SSH_KEY}"), None)
                .header("content-type", "application/json")
                .json_body(json!({"label": "desk"}));
            let mut reply = ssh_key_json();
            reply["label"] = json!("desk");
            then.status(200).json_body(reply);
        })
        .await;

    let updated = client(&server)
        .update_ssh_key()
        .id(uuid(SSH_KEY))
        .body(types::SshKeyInput {
            label: Some("desk".into()),
            key: None,
            tags: None,
        })
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(updated.label.as_deref(), Some("desk"));
}

#[tokio::test]
async fn delete_ssh_key() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(when, Method::DELETE, &format!("/ssh-keys/{SSH_KEY}"), None);
            then.status(204);
        })
        .await;

    let reply = client(&server)
        .delete_ssh_key()
        .id(uuid(SSH_KEY))
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(reply.status(), 204);
}

#[tokio::test]
async fn find_project_ssh_keys_sends_query() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/projects/{PROJECT}/ssh-keys"),
                Some("include=entity&query=deploy"),
            );
            let mut key = ssh_key_json();
            key["entity"] = json!({"href": format!("/metal/v1/projects/{PROJECT}")});
            then.status(200).json_body(json!({"ssh_keys": [key]}));
        })
        .await;

    let keys = client(&server)
        .find_project_ssh_keys()
        .id(uuid(PROJECT))
        .query("deploy")
        .include("entity")
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert!(keys.ssh_keys[0]
        .entity
        .as_ref()
        .unwrap()
        .href
        .contains(PROJECT));
}

#[tokio::test]
async fn create_project_ssh_key_sends_the_body() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::POST,
                &format!("/projects/{PROJECT}/ssh-keys"),
                Some("include=entity"),
            )
            .header("content-type", "application/json")
            .json_body(json!({
                "label": "deploy",
                "key": "ssh-ed25519 AAAAdeploy",
                "instances_ids": [DEVICE]
            }));
            let mut reply = ssh_key_json();
            reply["label"] = json!("deploy");
            reply["entity"] = json!({"href": format!("/metal/v1/projects/{PROJECT}")});
            then.status(201).json_body(reply);
        })
        .await;

    let created = client(&server)
        .create_project_ssh_key()
        .id(uuid(PROJECT))
        .include("entity")
        .body(types::SshKeyCreateInput {
            label: Some("deploy".into()),
            key: Some("ssh-ed25519 AAAAdeploy".into()),
            instances_ids: vec![uuid(DEVICE)],
            tags: vec![],
        })
        .send()
        .await
        .unwrap();

    mock.assert_async().await;
    assert_eq!(created.status(), 201);
    assert_eq!(created.label.as_deref(), Some("deploy"));
}

#[tokio::test]
async fn consumer_token_and_custom_user_agent_travel_as_headers() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            when.method(Method::GET)
                .path(format!("{PREFIX}/ssh-keys"))
                .header("x-auth-token", TOKEN)
                .header("x-consumer-token", "consumer-xyz")
                .header("user-agent", "my-app/2.0");
            then.status(200).json_body(json!({"ssh_keys": []}));
        })
        .await;
    let client = metal_api::Config::builder()
        .auth_token(TOKEN)
        .consumer_token("consumer-xyz")
        .user_agent("my-app/2.0")
        .base_url(format!("{}/", server.url(PREFIX)))
        .build()
        .unwrap()
        .client()
        .unwrap();
    let keys = client.find_ssh_keys().send().await.unwrap();
    mock.assert_async().await;
    assert!(keys.ssh_keys.is_empty());
}
