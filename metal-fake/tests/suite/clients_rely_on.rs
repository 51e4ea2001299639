//! What real clients send and read, as raw JSON over HTTP against the fake
//! server (every reply checked against `openapi/metal.json`): SSH keys'
//! `owner`, the keys a device gets, a create naming only its reservation,
//! `facility` as one string, `null` for optional fields, reads right after
//! a delete, reinstall's fields, lists that always carry their array. The
//! evidence for each is in `metal_fake::fidelity` ("What real clients rely
//! on"). Time passes on the fake's own clock (`Fake::advance`).

use crate::http;

use crate::common::schema;

use std::time::Duration;

use base64::Engine as _;
use metal_fake::{Fake, ServerConfig, ServerHandle, Timings};
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

const TOKEN: &str = "clients-rely-on-token";

/// The fake server, raw HTTP to it, and the fake behind it.
struct Api {
    fake: Fake,
    server: ServerHandle,
    http: reqwest::Client,
}

impl Api {
    async fn start(fake: Fake) -> Self {
        let config = ServerConfig::new(TOKEN).record_replies(true);
        let server = crate::http::serve(&fake, config).await;
        Self {
            fake,
            server,
            http: http::client(),
        }
    }

    /// A fake whose devices are active two minutes after create.
    async fn default() -> Self {
        Self::start(Fake::builder().reservations(4).build()).await
    }

    /// Sends `body` (raw JSON text, as a client writes it) and returns the
    /// status and the reply's JSON (`null` when there is none).
    async fn raw(&self, method: Method, path: &str, body: Option<&str>) -> (u16, Value) {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.server.base_url()))
            .header("X-Auth-Token", TOKEN);
        if let Some(b) = body {
            request = request
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        let reply = request.send().await.unwrap();
        let status = reply.status().as_u16();
        let text = reply.text().await.unwrap();
        let value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
        };
        (status, value)
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let text = body.map(|b| b.to_string());
        self.raw(method, path, text.as_deref()).await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.call(Method::GET, path, None).await
    }

    /// A `GET` that must succeed.
    async fn read(&self, path: &str) -> Value {
        let (status, body) = self.get(path).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    /// A `POST` that must succeed with 201.
    async fn create(&self, path: &str, body: Value) -> Value {
        let (status, reply) = self.call(Method::POST, path, Some(body.clone())).await;
        assert_eq!(status, 201, "POST {path} {body}: {reply}");
        reply
    }

    fn project(&self) -> Uuid {
        self.fake.project()
    }

    /// The project's reservations, oldest first.
    async fn reservations(&self) -> Vec<Value> {
        let page = self
            .read(&format!(
                "/projects/{}/hardware-reservations?per_page=100",
                self.project()
            ))
            .await;
        page["hardware_reservations"].as_array().unwrap().clone()
    }

    /// Moves the fake's clock on.
    fn advance(&self, by: Duration) {
        self.fake.advance(by).unwrap();
    }

    /// Checks every reply the server sent against the spec.
    fn check_replies(&self) {
        schema::check_all(&self.server.recorded_replies());
    }
}

/// A public key the fake accepts (its body is base64), distinct per `n`.
fn public_key(n: u8) -> String {
    let blob = [b"\x00\x00\x00\x0bssh-ed25519".as_slice(), &[n; 32]].concat();
    let body = base64::engine::general_purpose::STANDARD.encode(blob);
    format!("ssh-ed25519 {body} key-{n}")
}

fn id_of(v: &Value) -> Uuid {
    v["id"].as_str().unwrap().parse().unwrap()
}

fn hrefs(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| s["href"].as_str().unwrap().to_string())
        .collect()
}

fn key_href(id: Uuid) -> String {
    format!("/metal/v1/ssh-keys/{id}")
}

/// A create body on reservation `r` (as listed), naming its plan and
/// metro.
fn create_on(r: &Value, hostname: &str) -> Value {
    json!({
        "hostname": hostname,
        "plan": r["plan"]["slug"],
        "metro": r["facility"]["metro"]["code"],
        "operating_system": "ubuntu_24_04",
        "hardware_reservation_id": r["id"],
    })
}

#[tokio::test]
async fn ssh_keys_carry_owner_beside_entity() {
    let api = Api::default().await;
    let p = api.project();
    let user = api.fake.world().user.unwrap();
    let mine = api
        .create("/ssh-keys", json!({"label": "mine", "key": public_key(1)}))
        .await;
    let theirs = api
        .create(
            &format!("/projects/{p}/ssh-keys"),
            json!({"label": "project's", "key": public_key(2)}),
        )
        .await;
    let user_href = json!({ "href": format!("/metal/v1/users/{user}") });
    let project_href = json!({ "href": format!("/metal/v1/projects/{p}") });
    for (key, owner) in [(&mine, &user_href), (&theirs, &project_href)] {
        assert_eq!(key["owner"], *owner, "{key}");
        assert_eq!(key["entity"], *owner, "{key}");
        let read = api.read(&format!("/ssh-keys/{}", id_of(key))).await;
        assert_eq!(read["owner"], *owner, "{read}");
    }
    let listed = api.read("/ssh-keys").await;
    for k in listed["ssh_keys"].as_array().unwrap() {
        assert_eq!(k["owner"], k["entity"], "{k}");
        assert!(k["owner"]["href"].is_string(), "{k}");
    }
    api.check_replies();
}

/// A fake with three project keys and two user keys, and its IDs.
async fn five_keys(api: &Api) -> (Vec<Uuid>, Vec<Uuid>) {
    let p = api.project();
    let mut project = Vec::new();
    for n in 1..=3 {
        let k = api
            .create(
                &format!("/projects/{p}/ssh-keys"),
                json!({"label": format!("project-{n}"), "key": public_key(n)}),
            )
            .await;
        project.push(id_of(&k));
    }
    let mut user = Vec::new();
    for n in 4..=5 {
        let k = api
            .create(
                "/ssh-keys",
                json!({"label": format!("user-{n}"), "key": public_key(n)}),
            )
            .await;
        user.push(id_of(&k));
    }
    (project, user)
}

#[tokio::test]
async fn a_device_gets_exactly_the_keys_named() {
    let api = Api::default().await;
    let p = api.project();
    let (project, user) = five_keys(&api).await;
    let reservations = api.reservations().await;
    let devices = format!("/projects/{p}/devices");

    // One project key named: that key only (the Terraform provider's
    // `project_ssh_key_ids`; Monogon's shepherd names its own key).
    let mut body = create_on(&reservations[0], "one-project-key");
    body["project_ssh_keys"] = json!([project[1]]);
    let d = api.create(&devices, body).await;
    assert_eq!(hrefs(&d["ssh_keys"]), [key_href(project[1])]);
    let read = api.read(&format!("/devices/{}", id_of(&d))).await;
    assert_eq!(hrefs(&read["ssh_keys"]), [key_href(project[1])]);

    // The user by ID: every key of the user; a user key by ID: that key.
    let user_id = api.fake.world().user.unwrap();
    let mut body = create_on(&reservations[1], "the-users-keys");
    body["user_ssh_keys"] = json!([user_id]);
    body["project_ssh_keys"] = json!([project[0]]);
    let d = api.create(&devices, body).await;
    assert_eq!(
        hrefs(&d["ssh_keys"]),
        [key_href(project[0]), key_href(user[0]), key_href(user[1])]
    );
    let mut body = create_on(&reservations[2], "one-user-key");
    body["user_ssh_keys"] = json!([user[1]]);
    let d = api.create(&devices, body).await;
    assert_eq!(hrefs(&d["ssh_keys"]), [key_href(user[1])]);

    // `ssh_keys` by their text: an existing key is that key, a new one
    // becomes a key of the project.
    let mut body = create_on(&reservations[3], "keys-by-text");
    body["ssh_keys"] = json!([
        {"label": "again", "key": public_key(3)},
        {"label": "brand new", "key": public_key(9)},
    ]);
    let d = api.create(&devices, body).await;
    let keys = api.read(&format!("/projects/{p}/ssh-keys")).await;
    let new = keys["ssh_keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["label"] == "brand new")
        .map(id_of)
        .expect("the new key is the project's");
    assert_eq!(hrefs(&d["ssh_keys"]), [key_href(project[2]), key_href(new)]);
    api.check_replies();
}

#[tokio::test]
async fn a_key_the_world_does_not_have_is_refused_and_nothing_is_made() {
    let api = Api::default().await;
    let p = api.project();
    let (_, user) = five_keys(&api).await;
    let r = &api.reservations().await[0];
    let devices = format!("/projects/{p}/devices");
    let cases = [
        ("project_ssh_keys", json!([Uuid::new_v4()])),
        // A user key is not one of the project's.
        ("project_ssh_keys", json!([user[0]])),
        ("user_ssh_keys", json!([Uuid::new_v4()])),
    ];
    for (field, value) in cases {
        let mut body = create_on(r, "refused");
        body[field] = value.clone();
        body["ssh_keys"] = json!([{"label": "not made", "key": public_key(7)}]);
        let (status, reply) = api.call(Method::POST, &devices, Some(body)).await;
        assert_eq!(status, 422, "{field} {value}: {reply}");
    }
    let listed = api.read(&devices).await;
    assert_eq!(listed["devices"], json!([]));
    let keys = api.read(&format!("/projects/{p}/ssh-keys")).await;
    assert_eq!(keys["ssh_keys"].as_array().unwrap().len(), 3, "{keys}");
    assert!(api.reservations().await[0]["provisionable"] == true);
    api.check_replies();
}

#[tokio::test]
async fn a_device_gets_every_project_and_user_key_when_none_is_named_and_none_with_no_ssh_keys() {
    let api = Api::default().await;
    let p = api.project();
    let (project, user) = five_keys(&api).await;
    // A key of another project is never attached.
    let other = Uuid::new_v4();
    let api = {
        let mut doc = api.fake.world();
        doc.projects.push(metal_fake::document::Project {
            organization: doc.organizations.first().map(|o| o.id),
            ..metal_fake::document::Project::new(other)
        });
        doc.ssh_keys.push(metal_fake::document::SshKey {
            id: Uuid::new_v4(),
            project: Some(other),
            label: "elsewhere".into(),
            key: public_key(8),
            tags: Vec::new(),
        });
        api.fake.load_world(&doc).unwrap();
        api
    };
    let reservations = api.reservations().await;
    let devices = format!("/projects/{p}/devices");
    let all: Vec<String> = project.iter().chain(&user).map(|k| key_href(*k)).collect();

    let d = api
        .create(&devices, create_on(&reservations[0], "every-key"))
        .await;
    assert_eq!(hrefs(&d["ssh_keys"]), all);
    // Empty lists name nothing: the same as leaving them out.
    let mut body = create_on(&reservations[1], "empty-lists");
    body["project_ssh_keys"] = json!([]);
    body["user_ssh_keys"] = json!([]);
    body["ssh_keys"] = json!([]);
    let d = api.create(&devices, body).await;
    assert_eq!(hrefs(&d["ssh_keys"]), all);

    let mut body = create_on(&reservations[2], "no-keys");
    body["no_ssh_keys"] = json!(true);
    let d = api.create(&devices, body).await;
    assert_eq!(d["ssh_keys"], json!([]));
    // Keys named still go with `no_ssh_keys`: it turns off the default.
    let mut body = create_on(&reservations[3], "named-and-no-keys");
    body["no_ssh_keys"] = json!(true);
    body["project_ssh_keys"] = json!([project[0]]);
    let d = api.create(&devices, body).await;
    assert_eq!(hrefs(&d["ssh_keys"]), [key_href(project[0])]);
    api.check_replies();
}

/// A fake with four reservations in two facilities (`da11` in `da`,
/// `sv15` in `sv`, alternating), the project's devices path, and the
/// reservations.
async fn two_facilities() -> (Api, String, Vec<Value>) {
    let fake = Fake::builder()
        .reservations(4)
        .facilities([("da11", "da"), ("sv15", "sv")])
        .build();
    let api = Api::start(fake).await;
    let devices = format!("/projects/{}/devices", api.project());
    let reservations = api.reservations().await;
    (api, devices, reservations)
}

#[tokio::test]
async fn a_create_naming_only_the_reservation_takes_its_facility_and_metro() {
    let (api, devices, reservations) = two_facilities().await;
    for r in &reservations[..2] {
        // What Monogon's shepherd sends: no metro, no facility.
        let d = api
            .create(
                &devices,
                json!({
                    "hostname": "shepherd",
                    "plan": r["plan"]["slug"],
                    "operating_system": "ubuntu_24_04",
                    "hardware_reservation_id": r["id"],
                    "project_id": api.project(),
                    "tags": ["wrapngo-idempotency-x"],
                }),
            )
            .await;
        assert_eq!(d["facility"]["code"], r["facility"]["code"], "{d}");
        assert_eq!(d["metro"]["code"], r["facility"]["metro"]["code"], "{d}");
    }
    // `next-available` has to be told where to choose.
    let (status, reply) = api
        .call(
            Method::POST,
            &devices,
            Some(json!({
                "plan": "c3.small.x86",
                "operating_system": "ubuntu_24_04",
                "hardware_reservation_id": "next-available",
            })),
        )
        .await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(reply["errors"], json!(["metro or facility is required"]));
    api.check_replies();
}

#[tokio::test]
async fn facility_is_one_string_or_a_list() {
    let (api, devices, reservations) = two_facilities().await;
    let body = |r: &Value, facility: Value| {
        json!({
            "plan": r["plan"]["slug"],
            "operating_system": "ubuntu_24_04",
            "hardware_reservation_id": r["id"],
            "facility": facility,
        })
    };
    let r = &reservations[0];
    let d = api
        .create(&devices, body(r, r["facility"]["code"].clone()))
        .await;
    assert_eq!(d["facility"]["code"], r["facility"]["code"]);
    let r = &reservations[1];
    let d = api
        .create(&devices, body(r, json!(["nowhere", r["facility"]["code"]])))
        .await;
    assert_eq!(d["facility"]["code"], r["facility"]["code"]);
    let r = &reservations[2];
    let d = api.create(&devices, body(r, json!("any"))).await;
    assert_eq!(d["facility"]["code"], r["facility"]["code"]);
    // A facility that is not the reservation's is still refused, as one
    // string or in a list; and `next-available` takes one string too.
    let r = &reservations[3];
    let elsewhere = if r["facility"]["code"] == "da11" {
        "sv15"
    } else {
        "da11"
    };
    for facility in [json!(elsewhere), json!([elsewhere])] {
        let (status, reply) = api
            .call(Method::POST, &devices, Some(body(r, facility)))
            .await;
        assert_eq!(status, 422, "{reply}");
    }
    let mut next = body(r, r["facility"]["code"].clone());
    next["hardware_reservation_id"] = json!("next-available");
    let d = api.create(&devices, next).await;
    assert_eq!(
        d["hardware_reservation"]["href"],
        format!(
            "/metal/v1/hardware-reservations/{}",
            r["id"].as_str().unwrap()
        )
    );
    api.check_replies();
}

#[tokio::test]
async fn null_is_the_same_as_leaving_a_field_out() {
    let api = Api::default().await;
    let p = api.project();
    let r = &api.reservations().await[0];
    // As packngo writes a device without tags (`"tags": null`), with every
    // other optional field null too.
    let create = format!(
        r#"{{"hostname": "nulls", "plan": {plan}, "metro": {metro},
            "operating_system": "ubuntu_24_04", "hardware_reservation_id": {id},
            "tags": null, "description": null, "userdata": null, "customdata": null,
            "ipxe_script_url": null, "billing_cycle": null, "locked": null,
            "always_pxe": null, "project_ssh_keys": null, "user_ssh_keys": null,
            "ssh_keys": null, "no_ssh_keys": null, "ip_addresses": null,
            "features": null, "storage": null, "spot_instance": null,
            "termination_time": null, "facility": null}}"#,
        plan = r["plan"]["slug"],
        metro = r["facility"]["metro"]["code"],
        id = r["id"],
    );
    let (status, d) = api
        .raw(
            Method::POST,
            &format!("/projects/{p}/devices"),
            Some(&create),
        )
        .await;
    assert_eq!(status, 201, "{d}");
    assert_eq!(
        (d["tags"].clone(), d["locked"].clone()),
        (json!([]), json!(false))
    );
    let device = id_of(&d);
    api.advance(Duration::from_secs(120));

    // An update with nulls leaves those fields as they are.
    let path = format!("/devices/{device}");
    let (status, _) = api
        .call(
            Method::PUT,
            &path,
            Some(json!({"tags": ["a"], "description": "kept"})),
        )
        .await;
    assert_eq!(status, 200);
    let (status, d) = api
        .raw(
            Method::PUT,
            &path,
            Some(r#"{"hostname": "renamed", "tags": null, "description": null, "customdata": null, "locked": null}"#),
        )
        .await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["hostname"], "renamed");
    assert_eq!(d["tags"], json!(["a"]));
    assert_eq!(d["description"], "kept");

    // Inside free-form custom data, null is the caller's data; custom data
    // as JSON text (packngo's `CustomData string`) is the object.
    let (status, d) = api
        .raw(
            Method::PUT,
            &path,
            Some(r#"{"customdata": {"a": null, "b": {"c": null}}}"#),
        )
        .await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["customdata"], json!({"a": null, "b": {"c": null}}));
    let (status, d) = api
        .raw(
            Method::PUT,
            &path,
            Some(r#"{"customdata": "{\"from\": \"packngo\"}"}"#),
        )
        .await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["customdata"], json!({"from": "packngo"}));
    let (status, d) = api
        .raw(
            Method::PUT,
            &path,
            Some(r#"{"customdata": "not an object"}"#),
        )
        .await;
    assert_eq!(status, 422, "{d}");

    // SSH keys: a generated client's `"tags": null, "instances_ids": null`.
    let (status, k) = api
        .raw(
            Method::POST,
            "/ssh-keys",
            Some(&format!(
                r#"{{"label": "nulls", "key": "{}", "tags": null, "instances_ids": null}}"#,
                public_key(1)
            )),
        )
        .await;
    assert_eq!(status, 201, "{k}");
    assert_eq!(k["tags"], json!([]));
    let key = format!("/ssh-keys/{}", id_of(&k));
    let (status, k) = api
        .raw(
            Method::PUT,
            &key,
            Some(r#"{"label": null, "key": null, "tags": null}"#),
        )
        .await;
    assert_eq!(status, 200, "{k}");
    assert_eq!(k["label"], "nulls");
    // A required field that is null is as missing as one left out.
    let (status, reply) = api
        .raw(
            Method::POST,
            &format!("/devices/{device}/actions"),
            Some(r#"{"type": null}"#),
        )
        .await;
    assert_eq!(status, 422, "{reply}");
    api.check_replies();
}

#[tokio::test]
async fn a_deleted_device_reads_404_at_once_and_its_reservation_is_held_for_the_release_delay() {
    let release = Duration::from_secs(240);
    let api = Api::default().await;
    let p = api.project();
    let r = api.reservations().await[0].clone();
    let d = api
        .create(&format!("/projects/{p}/devices"), create_on(&r, "gone"))
        .await;
    let path = format!("/devices/{}", id_of(&d));
    api.advance(Duration::from_secs(120));
    assert_eq!(api.read(&path).await["state"], "active");
    let (status, _) = api.call(Method::DELETE, &path, None).await;
    assert_eq!(status, 204);
    // Read right after, as wrapngo's live test and Terraform's destroy
    // check do.
    let (status, body) = api.get(&path).await;
    assert_eq!(status, 404, "{body}");
    let listed = api.read(&format!("/projects/{p}/devices")).await;
    assert_eq!(listed["devices"], json!([]));
    // A second delete finds nothing.
    let (status, _) = api.call(Method::DELETE, &path, None).await;
    assert_eq!(status, 404);
    // The reservation holds no device but is not provisionable yet.
    let reservation = format!("/hardware-reservations/{}", r["id"].as_str().unwrap());
    let held = api.read(&reservation).await;
    assert_eq!(
        (held["provisionable"].clone(), held.get("device")),
        (json!(false), Some(&Value::Null))
    );
    let (status, reply) = api
        .call(
            Method::POST,
            &format!("/projects/{p}/devices"),
            Some(create_on(&r, "too-soon")),
        )
        .await;
    assert_eq!(status, 422, "{reply}");
    api.advance(release - Duration::from_secs(1));
    assert_eq!(api.read(&reservation).await["provisionable"], false);
    api.advance(Duration::from_secs(1));
    assert_eq!(api.read(&reservation).await["provisionable"], true);
    api.create(&format!("/projects/{p}/devices"), create_on(&r, "again"))
        .await;
    api.check_replies();
}

#[tokio::test]
async fn the_old_deprovisioning_lag_is_configurable() {
    let timings = Timings {
        deprovisioning: Duration::from_secs(30),
        ..Timings::default()
    };
    let api = Api::start(Fake::builder().reservations(1).timings(timings).build()).await;
    let p = api.project();
    let r = api.reservations().await[0].clone();
    let d = api
        .create(&format!("/projects/{p}/devices"), create_on(&r, "lag"))
        .await;
    let path = format!("/devices/{}", id_of(&d));
    api.advance(Duration::from_secs(120));
    let (status, _) = api.call(Method::DELETE, &path, None).await;
    assert_eq!(status, 204);
    assert_eq!(api.read(&path).await["state"], "deprovisioning");
    api.advance(Duration::from_secs(30));
    assert_eq!(api.get(&path).await.0, 404);
    api.check_replies();
}

#[tokio::test]
async fn reinstall_installs_the_operating_system_asked_for_and_reads_its_other_fields() {
    let reinstall = Duration::from_secs(60);
    let api = Api::default().await;
    let p = api.project();
    let r = api.reservations().await[0].clone();
    let d = api
        .create(&format!("/projects/{p}/devices"), create_on(&r, "os"))
        .await;
    let device = format!("/devices/{}", id_of(&d));
    let actions = format!("{device}/actions");
    api.advance(Duration::from_secs(120));

    // metal-cli's `device reinstall -O ubuntu_24_04 --preserve-data`.
    let (status, reply) = api
        .call(
            Method::POST,
            &actions,
            Some(json!({"type": "reinstall", "operating_system": "debian_12", "preserve_data": true})),
        )
        .await;
    assert_eq!(status, 202, "{reply}");
    let read = api.read(&device).await;
    assert_eq!(read["state"], "reinstalling");
    assert_eq!(read["operating_system"]["slug"], "debian_12");
    api.advance(reinstall - Duration::from_secs(1));
    assert_eq!(api.read(&device).await["state"], "reinstalling");
    api.advance(Duration::from_secs(1));
    assert_eq!(api.read(&device).await["state"], "active");

    // Without `operating_system`: the device's own again. With
    // `deprovision_fast`: the wipe skipped, half the time.
    let (status, _) = api
        .call(
            Method::POST,
            &actions,
            Some(json!({"type": "reinstall", "deprovision_fast": true})),
        )
        .await;
    assert_eq!(status, 202);
    let read = api.read(&device).await;
    assert_eq!(read["operating_system"]["slug"], "debian_12");
    assert_eq!(read["provisioning_percentage"], 50.0);
    api.advance(reinstall / 2);
    assert_eq!(api.read(&device).await["state"], "active");

    // The fields are read with their types: a flag that is not a boolean
    // is refused, and nothing starts.
    let (status, reply) = api
        .call(
            Method::POST,
            &actions,
            Some(json!({"type": "reinstall", "preserve_data": "yes"})),
        )
        .await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(api.read(&device).await["state"], "active");
    api.check_replies();
}

#[tokio::test]
async fn lists_carry_their_array_when_empty() {
    let fake = Fake::builder().reservations(0).build();
    let api = Api::start(fake).await;
    let p = api.project();
    for (path, key) in [
        ("/ssh-keys".to_string(), "ssh_keys"),
        (format!("/projects/{p}/ssh-keys"), "ssh_keys"),
        (format!("/projects/{p}/devices"), "devices"),
        (
            format!("/projects/{p}/hardware-reservations"),
            "hardware_reservations",
        ),
        // Filtered to nothing.
        (format!("/projects/{p}/devices?hostname=none"), "devices"),
    ] {
        let body = api.read(&path).await;
        assert_eq!(body[key], json!([]), "{path}: {body}");
    }
    // An SSH key without tags has `tags: []`.
    let k = api
        .create("/ssh-keys", json!({"label": "bare", "key": public_key(1)}))
        .await;
    assert_eq!(k["tags"], json!([]));
    api.check_replies();
}

#[tokio::test]
async fn projects_are_listed_created_read_updated_and_deleted_with_their_organization() {
    let api = Api::default().await;
    let main = api.project();
    let org = api.read(&format!("/projects/{main}")).await["organization"]["href"].clone();
    assert!(org
        .as_str()
        .unwrap()
        .starts_with("/metal/v1/organizations/"));
    // Created in the caller's organisation, with its tags and custom data.
    let made = api
        .create(
            "/projects",
            json!({"name": "web", "tags": ["a"], "customdata": {"k": 1}}),
        )
        .await;
    let id = id_of(&made);
    assert_eq!(made["name"], "web");
    assert_eq!(made["organization"]["href"], org);
    assert_eq!(made["tags"], json!(["a"]));
    assert_eq!(made["customdata"], json!({"k": 1}));
    let listed = api.read("/projects").await;
    assert_eq!(listed["meta"]["total"], 2);
    assert_eq!(
        listed["projects"][1]["id"],
        json!(id.to_string()),
        "oldest first"
    );
    let by_name = api.read("/projects?name=web").await;
    assert_eq!(by_name["projects"].as_array().unwrap().len(), 1);
    // PATCH (packngo) and PUT (the spec) update; a field left out stays.
    for method in [Method::PATCH, Method::PUT] {
        let (status, updated) = api
            .call(
                method,
                &format!("/projects/{id}"),
                Some(json!({"name": "web2", "backend_transfer_enabled": true})),
            )
            .await;
        assert_eq!(status, 200, "{updated}");
        assert_eq!(updated["name"], "web2");
        assert_eq!(updated["tags"], json!(["a"]));
        assert_eq!(updated["backend_transfer_enabled"], true);
    }
    // A name is required.
    let (status, _) = api.call(Method::POST, "/projects", Some(json!({}))).await;
    assert_eq!(status, 422);
    // `organization_id` (packngo, the SDKs) picks the organisation; one the
    // world lacks is refused and nothing is made.
    let org_id = org
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let named = api
        .create("/projects", json!({"name": "o", "organization_id": org_id}))
        .await;
    assert_eq!(named["organization"]["href"], org);
    let (status, _) = api
        .call(
            Method::POST,
            "/projects",
            Some(json!({"name": "x", "organization_id": Uuid::new_v4()})),
        )
        .await;
    assert_eq!(status, 422);
    let (status, _) = api
        .call(
            Method::DELETE,
            &format!("/projects/{}", id_of(&named)),
            None,
        )
        .await;
    assert_eq!(status, 204);
    // A project holding reservations is not deleted; an empty one is.
    let (status, body) = api
        .call(Method::DELETE, &format!("/projects/{main}"), None)
        .await;
    assert_eq!(status, 422, "{body}");
    let (status, _) = api
        .call(Method::DELETE, &format!("/projects/{id}"), None)
        .await;
    assert_eq!(status, 204);
    assert_eq!(api.get(&format!("/projects/{id}")).await.0, 404);
    assert_eq!(api.read("/projects").await["meta"]["total"], 1);
    // The saved world keeps the projects, tags and all.
    let doc = api.fake.world();
    assert_eq!(doc.projects.len(), 1);
    api.check_replies();
}

#[tokio::test]
async fn organizations_are_listed_and_read_with_their_projects() {
    let api = Api::default().await;
    let main = api.project();
    let list = api.read("/organizations").await;
    assert_eq!(list["organizations"].as_array().unwrap().len(), 1, "{list}");
    let org = &list["organizations"][0];
    assert_eq!(
        org["projects"],
        json!([{"href": format!("/metal/v1/projects/{main}")}])
    );
    let id = id_of(org);
    let one = api.read(&format!("/organizations/{id}")).await;
    assert_eq!(one["name"], org["name"]);
    let projects = api.read(&format!("/organizations/{id}/projects")).await;
    assert_eq!(projects["projects"][0]["id"], json!(main.to_string()));
    assert_eq!(
        api.get(&format!("/organizations/{}", Uuid::new_v4()))
            .await
            .0,
        404
    );
    api.check_replies();
}

#[tokio::test]
async fn the_current_user_is_the_world_s_with_the_main_project_as_default() {
    let api = Api::default().await;
    let user = api.read("/user").await;
    let doc = api.fake.world();
    assert_eq!(user["id"], json!(doc.user.unwrap().to_string()));
    assert_eq!(user["default_project_id"], json!(api.project().to_string()));
    // The same user owns the user's SSH keys.
    let k = api
        .create("/ssh-keys", json!({"label": "mine", "key": public_key(3)}))
        .await;
    assert_eq!(k["owner"]["href"], user["href"]);
    api.check_replies();
}

#[tokio::test]
async fn plans_operating_systems_metros_and_facilities_are_the_world_s() {
    let mut doc = metal_fake::document::WorldDoc {
        catalog: metal_fake::document::CatalogChoice::None,
        ..Default::default()
    };
    doc.metros.push(metal_fake::document::Metro {
        code: "am".into(),
        ..Default::default()
    });
    doc.facilities.push(metal_fake::document::Facility {
        code: "am6".into(),
        metro: "am".into(),
        ..Default::default()
    });
    doc.plans.push(metal_fake::document::Plan {
        slug: "m3.large.x86".into(),
        ..Default::default()
    });
    doc.operating_systems
        .push(metal_fake::document::OperatingSystem {
            slug: "ubuntu_24_04".into(),
            ..Default::default()
        });
    let api = Api::start(Fake::builder().world(doc).build()).await;
    let plans = api.read("/plans").await;
    assert_eq!(plans["plans"][0]["slug"], "m3.large.x86");
    assert_eq!(api.read("/plans?slug=none").await["plans"], json!([]));
    let os = api.read("/operating-systems").await;
    assert_eq!(os["operating_systems"].as_array().unwrap().len(), 1);
    assert_eq!(os["operating_systems"][0]["slug"], "ubuntu_24_04");
    assert_eq!(os["operating_systems"][0]["distro"], "ubuntu");
    assert_eq!(os["operating_systems"][0]["version"], "24.04");
    let metros = api.read("/locations/metros").await;
    assert_eq!(metros["metros"][0]["code"], "am");
    let facilities = api.read("/facilities").await;
    assert_eq!(facilities["facilities"][0]["code"], "am6");
    assert_eq!(facilities["facilities"][0]["metro"]["code"], "am");
    // A world without operating systems lists the built-in ones.
    let plain = Api::default().await;
    let os = plain.read("/operating-systems").await;
    assert!(os["operating_systems"].as_array().unwrap().len() > 1);
    api.check_replies();
    plain.check_replies();
}

#[tokio::test]
async fn bgp_config_is_empty_while_off_and_set_once_requested() {
    let api = Api::default().await;
    let p = api.project();
    let path = format!("/projects/{p}/bgp-config");
    assert_eq!(api.read(&path).await, json!({}));
    let (status, body) = api
        .call(
            Method::POST,
            &format!("/projects/{p}/bgp-configs"),
            Some(json!({"asn": 65000, "deployment_type": "local", "md5": null})),
        )
        .await;
    assert_eq!(status, 204, "{body}");
    let on = api.read(&path).await;
    assert_eq!(on["asn"], 65000);
    assert_eq!(on["deployment_type"], "local");
    assert_eq!(on["status"], "enabled");
    assert_eq!(on["project"]["href"], format!("/metal/v1/projects/{p}"));
    // A global one awaits review; a bad deployment type is refused.
    let (status, _) = api
        .call(
            Method::POST,
            &format!("/projects/{p}/bgp-configs"),
            Some(json!({"asn": 65001, "deployment_type": "global"})),
        )
        .await;
    assert_eq!(status, 204);
    assert_eq!(api.read(&path).await["status"], "requested");
    let (status, _) = api
        .call(
            Method::POST,
            &format!("/projects/{p}/bgp-configs"),
            Some(json!({"asn": 65001, "deployment_type": "both"})),
        )
        .await;
    assert_eq!(status, 422);
    // The world document keeps it.
    let doc = api.fake.world();
    assert_eq!(doc.projects[0].bgp_config.as_ref().unwrap().asn, 65001);
    assert_eq!(
        api.get(&format!("/projects/{}/bgp-config", Uuid::new_v4()))
            .await
            .0,
        404
    );
    api.check_replies();
}
