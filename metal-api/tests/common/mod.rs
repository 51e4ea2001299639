//! Shared fixtures for the wire tests: a client pointed at an httpmock
//! server under `/metal/v1`, a matcher for what every request must carry,
//! and reply bodies shaped like what the Metal API really sends.
#![allow(dead_code)] // each test crate uses its own subset

use httpmock::{Method, MockServer, When};
use serde_json::{json, Value};

/// The auth token every test client sends; tests grep output for it.
pub const TOKEN: &str = "tok-7Hq2-wire-test-secret";
/// The API prefix the client is configured with.
pub const PREFIX: &str = "/metal/v1";

pub const PROJECT: &str = "6f4b3a2c-1d0e-4f5a-8b7c-9d8e7f6a5b4c";
pub const DEVICE: &str = "0b5d4c5e-1c7b-4d1c-9a38-2d1c3c1e7f10";
pub const USER: &str = "5a0b1c2d-3e4f-4a5b-9c6d-7e8f9a0b1c2d";
pub const RESERVATION: &str = "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b";
pub const SSH_KEY: &str = "9c8b7a6f-5e4d-4c3b-8a29-180f7e6d5c4b";
pub const FACILITY: &str = "8e6470b3-b75e-47d1-bb93-45b225750975";
pub const METRO: &str = "d3d6b29f-042d-43b7-b3ce-0bf53d5754ca";

pub fn uuid(text: &str) -> uuid::Uuid {
    text.parse().unwrap()
}

/// A client for `server`, configured the way applications configure it.
pub fn client(server: &MockServer) -> metal_api::Client {
    metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.url(PREFIX))
        .build()
        .unwrap()
        .client()
        .unwrap()
}

/// What every request must carry: method, path under the prefix, the token,
/// our user agent, `Accept: application/json`, and exactly the given raw
/// query string (`None`: no query at all).
pub fn api(when: When, method: Method, path: &str, query: Option<&str>) -> When {
    let query = query.map(str::to_owned);
    when.method(method)
        .path(format!("{PREFIX}{path}"))
        .header("x-auth-token", TOKEN)
        .header(
            "user-agent",
            concat!("metal-api/", env!("CARGO_PKG_VERSION")),
        )
        .header_prefix("user-agent", "metal-api/")
        .header("accept", "application/json")
        .is_true(move |req| req.uri().query().map(str::to_owned) == query)
}

/// A device as `GET /devices/{id}` returns it without `include`: nested
/// objects that were not included are `{"href": ...}` stubs, unset values
/// are `null`.
pub fn device_json() -> Value {
    let mut device = json!({
        "id": DEVICE,
        "short_id": "0b5d4c5e",
        "href": format!("/metal/v1/devices/{DEVICE}"),
        "hostname": "web-1",
        "description": null,
        "state": "active",
        "billing_cycle": "hourly",
        "always_pxe": false,
        "locked": false,
        "spot_instance": false,
        "spot_price_max": null,
        "termination_time": null,
        "network_frozen": false,
        "ipxe_script_url": null,
        "image_url": null,
        "firmware_set_id": null,
        "userdata": "",
        "customdata": {},
        "tags": ["web", "prod"],
        "user": "root",
        "iqn": "iqn.2024-03.net.packet:device.0b5d4c5e",
        "sos": "0b5d4c5e@sos.da11.platformequinix.com",
        "switch_uuid": "5f1c2d3e",
        "bonding_mode": 4,
        "provisioning_percentage": 100.0,
        "created_at": "2024-03-01T10:00:00Z",
        "updated_at": "2024-03-01T10:12:31Z"
    });
    let nested = json!({
        "project": {"href": format!("/metal/v1/projects/{PROJECT}")},
        "project_lite": {"href": format!("/metal/v1/projects/{PROJECT}")},
        "created_by": {"href": format!("/metal/v1/users/{USER}")},
        "hardware_reservation": {"href": format!("/metal/v1/hardware-reservations/{RESERVATION}")},
        "plan": {"href": "/metal/v1/plans/e69c0169-4726-46ea-98f1-939c9e8a3607"}
    });
    merge(&mut device, nested);
    let nested = json!({
        "facility": {
            "id": FACILITY,
            "code": "da11",
            "name": "Dallas DA11",
            "features": ["baremetal", "backend_transfer", "global_ipv4", "layer_2"],
            "ip_ranges": ["2604:1380:4640::/36", "147.28.128.0/18"],
            "address": {"href": "#0688e909-647e-4b21-bdf2-fc056d993fc5"},
            "metro": {"href": format!("/metal/v1/locations/metros/{METRO}")}
        },
        "metro": {"id": METRO, "code": "da", "name": "Dallas", "country": "US"},
        "operating_system": {
            "id": "2d4a8c5e-6f70-4b1a-9c2d-3e4f5a6b7c8d",
            "slug": "ubuntu_22_04",
            "name": "Ubuntu 22.04 LTS",
            "distro": "ubuntu",
            "version": "22.04",
            "preinstallable": false,
            "provisionable_on": ["c3.small.x86", "m3.large.x86"],
            "pricing": {},
            "licensed": false
        }
    });
    merge(&mut device, nested);
    let nested = json!({
        "ip_addresses": [{
            "id": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
            "address_family": 4,
            "netmask": "255.255.255.254",
            "public": true,
            "enabled": true,
            "cidr": 31,
            "management": true,
            "manageable": true,
            "global_ip": false,
            "address": "147.28.130.11",
            "gateway": "147.28.130.10",
            "network": "147.28.130.10",
            "href": "/metal/v1/ips/a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
            "created_at": "2024-03-01T10:01:00Z",
            "assigned_to": {"href": format!("/metal/v1/devices/{DEVICE}")},
            "parent_block": {
                "network": "147.28.130.0",
                "netmask": "255.255.255.240",
                "cidr": 28,
                "href": "/metal/v1/ips/b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e"
            }
        }]
    });
    merge(&mut device, nested);
    let nested = json!({
        "ssh_keys": [{"href": format!("/metal/v1/ssh-keys/{SSH_KEY}")}],
        "volumes": [],
        "network_ports": [{
            "id": "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f",
            "type": "NetworkBondPort",
            "name": "bond0",
            "network_type": "layer3",
            "data": {"bonded": true, "mac": null},
            "disbond_operation_supported": true,
            "virtual_networks": [],
            "href": "/metal/v1/ports/c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f"
        }],
        "actions": [
            {"type": "power_off", "name": "Power Off"},
            {"type": "reboot", "name": "Reboot"}
        ],
        "provisioning_events": [{
            "id": "d4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a",
            "type": "provisioning.104",
            "body": "Installation finished, rebooting server",
            "state": "success",
            "created_at": "2024-03-01T10:11:00Z",
            "modified_by": {},
            "relationships": [{"href": format!("/metal/v1/devices/{DEVICE}")}],
            "interpolated": "Installation finished, rebooting server",
            "href": "/metal/v1/events/d4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a"
        }]
    });
    merge(&mut device, nested);
    device
}

/// Copies every key of `extra` (an object) into `target` (an object).
pub fn merge(target: &mut Value, extra: Value) {
    let (Value::Object(t), Value::Object(e)) = (target, extra) else {
        panic!("merge needs two objects");
    };
    t.extend(e);
}

pub fn project_json() -> Value {
    json!({
        "id": PROJECT,
        "name": "prod",
        "type": "default",
        "href": format!("/metal/v1/projects/{PROJECT}"),
        "created_at": "2023-01-05T09:00:00Z",
        "updated_at": "2024-02-01T09:00:00Z",
        "backend_transfer_enabled": false,
        "customdata": {},
        "tags": [],
        "organization": {"href": "/metal/v1/organizations/f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b"},
        "payment_method": {"href": "/metal/v1/payment-methods/a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d"},
        "bgp_config": {"href": format!("/metal/v1/projects/{PROJECT}/bgp-config")},
        "devices": [{"href": format!("/metal/v1/devices/{DEVICE}")}],
        "members": [{"href": format!("/metal/v1/users/{USER}")}],
        "memberships": [{"href": "/metal/v1/memberships/b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e"}],
        "invitations": [],
        "ssh_keys": [{"href": format!("/metal/v1/ssh-keys/{SSH_KEY}")}],
        "volumes": [],
        "max_devices": {},
        "network_status": {}
    })
}

pub fn reservation_json() -> Value {
    json!({
        "id": RESERVATION,
        "short_id": "2e3f4a5b",
        "href": format!("/metal/v1/hardware-reservations/{RESERVATION}"),
        "created_at": "2023-06-01T00:00:00Z",
        "termination_time": null,
        "custom_rate": 1050.5,
        "provisionable": false,
        "spare": false,
        "need_of_service": false,
        "switch_uuid": "7a8b9c0d",
        "device": {"href": format!("/metal/v1/devices/{DEVICE}")},
        "project": {"href": format!("/metal/v1/projects/{PROJECT}")},
        "plan": {"href": "/metal/v1/plans/e69c0169-4726-46ea-98f1-939c9e8a3607"},
        "facility": {
            "id": FACILITY,
            "code": "da11",
            "address": {"href": "#0688e909-647e-4b21-bdf2-fc056d993fc5"}
        }
    })
}

pub fn ssh_key_json() -> Value {
    json!({
        "id": SSH_KEY,
        "label": "laptop",
        "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB me@laptop",
        "fingerprint": "3b:5d:1f:2c:7e:9a:0b:4c:6d:8e:1f:2a:3b:4c:5d:6e",
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "tags": [],
        "entity": {"href": format!("/metal/v1/users/{USER}")},
        "href": format!("/metal/v1/ssh-keys/{SSH_KEY}")
    })
}

pub fn meta_json(page: i64, last_page: i64, total: i64) -> Value {
    json!({
        "first": {"href": "/metal/v1/projects/x/devices?page=1"},
        "previous": null,
        "self": {"href": format!("/metal/v1/projects/x/devices?page={page}")},
        "next": {"href": format!("/metal/v1/projects/x/devices?page={}", page + 1)},
        "last": {"href": format!("/metal/v1/projects/x/devices?page={last_page}")},
        "current_page": page,
        "last_page": last_page,
        "total": total
    })
}
