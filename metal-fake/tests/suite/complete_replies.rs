//! What the fake sends beyond what it used to, where the real API sent it
//! (see "Replies checked both ways" in `metal_fake::fidelity`): an
//! organisation's addresses as a create and an update give them (and the
//! refusal of one a strict client could not read back), a payment
//! method's card as an update gives it, a project's devices and keys, and
//! facilities' IP ranges that hold the addresses devices get. Each reply
//! is also checked against the spec (`schema::check_all`).

use crate::common::schema::Checked;
use crate::http;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::example_world::{ACME_ORG, ACME_PROJECT as PROD};

const TOKEN: &str = "complete-token";

fn world() -> WorldDoc {
    crate::example_world::doc()
}

/// The Terraform provider's organisation resource requires `address`,
/// `city`, `country` and `zip_code`; metalv1 refuses an address without
/// `address`, `country` or `zip_code` (the spec's required): the fake
/// keeps what a create and an update give, and refuses an address it
/// could not send back whole.
#[tokio::test]
async fn an_organisation_keeps_the_addresses_a_create_and_an_update_give() {
    let server = Checked::serve(Fake::builder().world(world()).build()).await;
    let address = json!({"address": "1 Desert Road", "city": "Tucson", "state": "AZ",
                         "zip_code": "85701", "country": "US"});
    let (status, org) = server
        .send(
            "POST",
            "/organizations?include=address,billing_address".into(),
            Some(json!({"name": "road co", "address": address})),
        )
        .await;
    assert_eq!(status, 201, "{org}");
    assert_eq!(org["address"], address);
    // Included and unset: `null`.
    assert_eq!(org.get("billing_address"), Some(&Value::Null), "{org}");
    let id = org["id"].as_str().unwrap().to_string();
    let billing = json!({"address": "PO Box 7", "zip_code": "85702", "country": "US",
                         "coordinates": {"latitude": "32.2", "longitude": "-110.9"}});
    let (status, changed) = server
        .send(
            "PUT",
            format!("/organizations/{id}?include=address,billing_address"),
            Some(json!({"billing_address": billing, "enforce_2fa_at": "2030-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (&changed["address"], &changed["billing_address"]),
        (&address, &billing)
    );
    assert_eq!(changed["enforce_2fa_at"], "2030-01-01T00:00:00Z");
    let (_, read) = server
        .send(
            "GET",
            format!("/organizations/{id}?include=billing_address"),
            None,
        )
        .await;
    assert_eq!(read["billing_address"], billing);
    assert!(
        read.get("address").is_none(),
        "only what is included: {read}"
    );
    // Not included by default (metal-cli's organisation helper asks for
    // both).
    let (_, plain) = server
        .send("GET", format!("/organizations/{id}"), None)
        .await;
    assert!(
        plain.get("address").is_none() && plain.get("billing_address").is_none(),
        "{plain}"
    );
    for (field, body) in [
        (
            "zip_code",
            json!({"address": {"address": "x", "country": "US"}}),
        ),
        (
            "country",
            json!({"billing_address": {"address": "x", "zip_code": "1"}}),
        ),
        (
            "address",
            json!({"address": {"address": " ", "zip_code": "1", "country": "US"}}),
        ),
    ] {
        let (status, refused) = server
            .send("PUT", format!("/organizations/{id}"), Some(body))
            .await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused.to_string().contains(field), "{field}: {refused}");
    }
    let (_, unchanged) = server
        .send("GET", format!("/organizations/{id}?include=address"), None)
        .await;
    assert_eq!(unchanged["address"], address, "a refusal changes nothing");
    server.check_and_stop().await;
}

/// A payment method shows the card an update gives (expiry, billing
/// address) and, while it is the organisation's default, the projects it
/// pays for (each project's `payment_method` names it).
#[tokio::test]
async fn a_payment_method_shows_its_card_and_the_projects_it_pays_for() {
    let server = Checked::serve(Fake::builder().world(world()).build()).await;
    let path = format!("/organizations/{ACME_ORG}/payment-methods");
    let (status, card) = server
        .send(
            "POST",
            path.clone(),
            Some(json!({"name": "visa", "nonce": "n"})),
        )
        .await;
    assert_eq!(status, 201, "{card}");
    let id = card["id"].as_str().unwrap().to_string();
    let mut projects: Vec<&str> = card["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["href"].as_str().unwrap())
        .collect();
    projects.sort_unstable();
    assert_eq!(
        projects,
        [
            "/metal/v1/projects/0b000000-0000-4000-8000-000000000001",
            "/metal/v1/projects/0b000000-0000-4000-8000-000000000002"
        ]
    );
    let (_, project) = server.send("GET", format!("/projects/{PROD}"), None).await;
    assert_eq!(
        project["payment_method"]["href"],
        format!("/metal/v1/payment-methods/{id}")
    );
    let billing = json!({"country_code_alpha2": "US", "postal_code": "85701",
                         "street_address": "1 Desert Road"});
    let (status, changed) = server
        .send(
            "PUT",
            format!("/payment-methods/{id}"),
            Some(json!({"expiration_month": "12", "expiration_year": 2030,
                        "billing_address": billing})),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (
            &changed["expiration_month"],
            &changed["expiration_year"],
            &changed["billing_address"]
        ),
        (&json!("12"), &json!("2030"), &billing)
    );
    let (status, refused) = server
        .send(
            "PUT",
            format!("/payment-methods/{id}"),
            Some(json!({"billing_address": {"postal_code": 85701}})),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    // A second method is no default: it pays for no project.
    let (_, other) = server
        .send("POST", path, Some(json!({"name": "amex", "nonce": "m"})))
        .await;
    assert_eq!(other["projects"], json!([]), "{other}");
    server.check_and_stop().await;
}

/// A project lists its devices and its SSH keys as links (packngo's
/// `Project.Devices` and `Project.SSHKeys`), a new device among them.
#[tokio::test]
async fn a_project_lists_its_devices_and_keys() {
    let server = Checked::serve(Fake::builder().world(world()).build()).await;
    let hrefs = |v: &Value, key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap_or_else(|| panic!("no {key}: {v}"))
            .iter()
            .map(|s| s["href"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, project) = server.send("GET", format!("/projects/{PROD}"), None).await;
    assert_eq!(
        hrefs(&project, "devices"),
        ["/metal/v1/devices/0d000000-0000-4000-8000-000000000001"]
    );
    assert_eq!(
        hrefs(&project, "ssh_keys"),
        ["/metal/v1/ssh-keys/0e000000-0000-4000-8000-000000000002"]
    );
    let (status, device) = server
        .send(
            "POST",
            format!("/projects/{PROD}/devices"),
            Some(
                json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{device}");
    let (_, project) = server.send("GET", format!("/projects/{PROD}"), None).await;
    assert_eq!(
        hrefs(&project, "devices").last().map(String::as_str),
        Some(format!("/metal/v1/devices/{}", device["id"].as_str().unwrap()).as_str())
    );
    server.check_and_stop().await;
}

/// A facility's `ip_ranges` hold the public addresses its devices get.
#[tokio::test(start_paused = true)]
async fn a_facility_s_ip_ranges_hold_its_devices_public_addresses() {
    let fake = Fake::builder().token(TOKEN).world(world()).build();
    fake.advance(std::time::Duration::from_secs(3600)).unwrap();
    let (_, device) = http::in_process(
        &fake,
        TOKEN,
        "GET",
        "/devices/0d000000-0000-4000-8000-000000000001",
        None,
    )
    .await;
    assert_eq!(device["state"], "active", "{device}");
    let ranges: Vec<String> = device["facility"]["ip_ranges"]
        .as_array()
        .unwrap_or_else(|| panic!("no ip_ranges: {device}"))
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    let public: Vec<&Value> = device["ip_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["public"] == true)
        .collect();
    assert_eq!(public.len(), 2, "{device}");
    for address in public {
        let text = address["address"].as_str().unwrap();
        assert!(
            ranges.iter().any(|r| in_range(text, r)),
            "{text} is in none of {ranges:?}"
        );
    }
}

/// Whether address `text` is in `range` (`a.b.c.d/n` or an IPv6 CIDR).
fn in_range(text: &str, range: &str) -> bool {
    let (net, len) = range.split_once('/').unwrap();
    let len: u32 = len.parse().unwrap();
    match (
        text.parse::<std::net::IpAddr>(),
        net.parse::<std::net::IpAddr>(),
    ) {
        (Ok(std::net::IpAddr::V4(a)), Ok(std::net::IpAddr::V4(n))) => {
            let mask = u32::MAX.checked_shl(32 - len).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (Ok(std::net::IpAddr::V6(a)), Ok(std::net::IpAddr::V6(n))) => {
            let mask = u128::MAX.checked_shl(128 - len).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}
