//! Every record has bounds, as the API validates them: an SSH key's label,
//! body and tags, the keys of one owner, and a device's hostname, tags and
//! free text. A request past them is `422` and changes nothing, so no one
//! request can make every later list large.

use metal_api::types;
use metal_fake::Fake;
use serde_json::json;

/// A valid public key, distinct for each `n`.
fn key(n: usize) -> String {
    use base64::Engine as _;
    let blob = format!("metal-fake test key {n}");
    format!(
        "ssh-ed25519 {} k{n}",
        base64::engine::general_purpose::STANDARD.encode(blob)
    )
}

async fn create_key(fake: &Fake, label: String, key: String, tags: Vec<String>) -> Result<(), u16> {
    let body = types::SshKeyCreateInput {
        key: Some(key),
        label: Some(label),
        tags,
        instances_ids: Vec::new(),
    };
    let project = fake.project();
    fake.api_client()
        .create_project_ssh_key()
        .id(project)
        .body(body)
        .send()
        .await
        .map(|_| ())
        .map_err(|e| e.status().map_or(0, |s| s.as_u16()))
}

#[tokio::test]
async fn ssh_key_labels_bodies_and_tags_are_bounded() {
    let fake = Fake::builder().build();
    assert_eq!(
        create_key(&fake, "l".repeat(256), key(0), Vec::new()).await,
        Err(422)
    );
    let long_key = format!("ssh-ed25519 {} c", "A".repeat(16 * 1024));
    assert_eq!(
        create_key(&fake, "l".into(), long_key, Vec::new()).await,
        Err(422)
    );
    let tags = (0..257).map(|i| format!("t{i}")).collect();
    assert_eq!(create_key(&fake, "l".into(), key(0), tags).await, Err(422));
    assert_eq!(fake.snapshot().world.ssh_keys, 0, "nothing was stored");
    assert_eq!(
        create_key(&fake, "l".repeat(255), key(0), vec!["t".into()]).await,
        Ok(())
    );

    // An update past the bounds is refused the same way.
    let id = fake.world().ssh_keys[0].id;
    let update = types::SshKeyInput {
        key: None,
        label: Some("l".repeat(256)),
        tags: None,
    };
    let refused = fake
        .api_client()
        .update_ssh_key()
        .id(id)
        .body(update)
        .send()
        .await;
    assert_eq!(refused.unwrap_err().status().map(|s| s.as_u16()), Some(422));
    assert_eq!(fake.world().ssh_keys[0].label, "l".repeat(255));
}

#[tokio::test]
async fn one_project_holds_at_most_a_thousand_ssh_keys() {
    let fake = Fake::builder().build();
    for n in 0..1000 {
        assert_eq!(
            create_key(&fake, format!("k{n}"), key(n), Vec::new()).await,
            Ok(()),
            "{n}"
        );
    }
    assert_eq!(
        create_key(&fake, "one more".into(), key(1000), Vec::new()).await,
        Err(422)
    );
    assert_eq!(fake.snapshot().world.ssh_keys, 1000);
}

#[tokio::test]
async fn a_device_s_tags_and_text_are_bounded_on_create_and_update() {
    let fake = Fake::builder().reservations(1).build();
    let reservation = fake.provisionable_reservations()[0];
    let create = |extra: serde_json::Value| {
        let mut body = json!({
            "metro": "da",
            "plan": "c3.small.x86",
            "operating_system": "ubuntu_24_04",
            "hardware_reservation_id": reservation.to_string(),
            "hostname": "web-1",
        });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let body: types::CreateDeviceRequest = serde_json::from_value(body).unwrap();
        let fake = fake.clone();
        async move {
            fake.api_client()
                .create_device()
                .id(fake.project())
                .body(body)
                .send()
                .await
                .map(|d| d.into_inner().id.unwrap())
                .map_err(|e| e.status().map_or(0, |s| s.as_u16()))
        }
    };
    let many: Vec<String> = (0..257).map(|i| format!("t{i}")).collect();
    assert_eq!(create(json!({"tags": many})).await, Err(422));
    assert_eq!(create(json!({"hostname": "h".repeat(256)})).await, Err(422));
    assert_eq!(
        create(json!({"userdata": "u".repeat(256 * 1024 + 1)})).await,
        Err(422)
    );
    assert!(fake.devices().is_empty(), "nothing was created");
    let id = create(json!({"tags": ["web"]})).await.unwrap();
    let update = types::DeviceUpdateInput {
        tags: Some((0..257).map(|i| format!("t{i}")).collect()),
        ..Default::default()
    };
    let refused = fake
        .api_client()
        .update_device()
        .id(id)
        .body(update)
        .send()
        .await;
    assert_eq!(refused.unwrap_err().status().map(|s| s.as_u16()), Some(422));
    assert_eq!(fake.devices()[0].tags, ["web"]);
}
