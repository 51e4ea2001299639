//! The account family over the API: organisations made, changed and
//! deleted (refused while they hold projects), invitations accepted into
//! memberships (the member then sees the project) or declined,
//! memberships changed and removed, transfer requests accepted (the
//! project moves) or declined, emails, payment methods, two-factor and the
//! rest of the long tail with the refusals clients met.

use metal_fake::document::User;
use metal_fake::Fake;
use serde_json::{json, Value};

use crate::example_world::{
    self, call, ACME, ACME_ORG, ACME_STAGING, GLOBEX, GLOBEX_ORG, GLOBEX_PROJECT,
};

/// The example world, with a user of its own for a new token.
fn fake() -> Fake {
    let mut doc = example_world::doc();
    let road = uuid::Uuid::new_v4();
    doc.users.push(User {
        id: road,
        first_name: "Road".into(),
        last_name: "Runner".into(),
        email: "road@runner.example".into(),
        phone_number: None,
        timezone: None,
        customdata: Default::default(),
        two_factor: false,
    });
    doc.tokens.push(metal_fake::document::Token {
        token: "road-token".into(),
        organizations: vec![],
        projects: vec![],
        user: Some(road),
    });
    Fake::builder().world(doc).build()
}

fn ids(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key}: {list}"))
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn an_organisation_is_made_changed_and_deleted_with_its_empty_projects() {
    let fake = fake();
    let (status, org) = call(
        &fake,
        "road-token",
        "POST",
        "/organizations",
        json!({"name": "road co"}),
    )
    .await;
    assert_eq!(status, 201, "{org}");
    assert!(org["created_at"].is_string(), "metal-cli reads it: {org}");
    let id = org["id"].as_str().unwrap().to_string();
    // Its maker sees it, another organisation does not.
    let (_, mine) = call(&fake, "road-token", "GET", "/organizations", Value::Null).await;
    assert_eq!(ids(&mine, "organizations"), [id.as_str()]);
    assert_eq!(
        call(
            &fake,
            GLOBEX,
            "GET",
            &format!("/organizations/{id}"),
            Value::Null
        )
        .await
        .0,
        403
    );
    let (status, changed) = call(
        &fake,
        "road-token",
        "PUT",
        &format!("/organizations/{id}"),
        json!({"description": "beep", "customdata": {"k": 1}}),
    )
    .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (changed["name"].as_str(), changed["description"].as_str()),
        (Some("road co"), Some("beep"))
    );
    let (_, data) = call(
        &fake,
        "road-token",
        "GET",
        &format!("/organizations/{id}/customdata"),
        Value::Null,
    )
    .await;
    assert_eq!(data, json!({"k": 1}));
    let (status, blank) = call(
        &fake,
        "road-token",
        "PUT",
        &format!("/organizations/{id}"),
        json!({"name": " "}),
    )
    .await;
    assert_eq!(status, 422, "{blank}");
    // A project of it; its maker sees it.
    let (status, project) = call(
        &fake,
        "road-token",
        "POST",
        &format!("/organizations/{id}/projects"),
        json!({"name": "desert"}),
    )
    .await;
    assert_eq!(status, 201, "{project}");
    let project = project["id"].as_str().unwrap().to_string();
    let (_, projects) = call(
        &fake,
        "road-token",
        "GET",
        &format!("/organizations/{id}/projects"),
        Value::Null,
    )
    .await;
    assert_eq!(ids(&projects, "projects"), [project.as_str()]);
    let (status, devices) = call(
        &fake,
        "road-token",
        "GET",
        &format!("/organizations/{id}/devices"),
        Value::Null,
    )
    .await;
    assert_eq!((status, devices["devices"].clone()), (200, json!([])));
    // Deleted with the empty project it holds, as metal-cli's project test
    // cleans up (the organisation first, its project never deleted).
    assert_eq!(
        call(
            &fake,
            "road-token",
            "DELETE",
            &format!("/organizations/{id}"),
            Value::Null
        )
        .await
        .0,
        204
    );
    assert_eq!(
        call(
            &fake,
            "road-token",
            "GET",
            &format!("/projects/{project}"),
            Value::Null
        )
        .await
        .0,
        404
    );
    assert_eq!(
        call(
            &fake,
            "road-token",
            "GET",
            &format!("/organizations/{id}"),
            Value::Null
        )
        .await
        .0,
        404
    );
    // The world saves and loads again.
    let saved = fake.world();
    assert_eq!(Fake::builder().world(saved.clone()).build().world(), saved);
}

#[tokio::test(start_paused = true)]
async fn an_accepted_invitation_is_a_membership_and_the_member_sees_the_project() {
    let fake = fake();
    let project_of = |v: &Value| v["projects"][0]["href"].as_str().unwrap().to_string();
    let (status, invitation) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_STAGING}/invitations"),
        json!({"invitee": "road@runner.example", "roles": ["collaborator"]}),
    )
    .await;
    assert_eq!(status, 201, "{invitation}");
    assert!(project_of(&invitation).ends_with(ACME_STAGING));
    let id = invitation["id"].as_str().unwrap().to_string();
    // Another organisation neither reads nor accepts it.
    assert_eq!(
        call(
            &fake,
            GLOBEX,
            "GET",
            &format!("/invitations/{id}"),
            Value::Null
        )
        .await
        .0,
        403
    );
    assert_eq!(
        call(
            &fake,
            GLOBEX,
            "PUT",
            &format!("/invitations/{id}"),
            json!({})
        )
        .await
        .0,
        403
    );
    // The invitee reads it among its own, and does not see the project yet.
    let (_, mine) = call(&fake, "road-token", "GET", "/invitations", Value::Null).await;
    assert_eq!(ids(&mine, "invitations"), [id.as_str()]);
    assert_eq!(
        call(
            &fake,
            "road-token",
            "GET",
            &format!("/projects/{ACME_STAGING}"),
            Value::Null
        )
        .await
        .0,
        403
    );
    let (_, listed) = call(
        &fake,
        ACME,
        "GET",
        &format!("/organizations/{ACME_ORG}/invitations"),
        Value::Null,
    )
    .await;
    assert_eq!(ids(&listed, "invitations"), [id.as_str()]);
    // Accepted: a membership, and the project is seen.
    let (status, membership) = call(
        &fake,
        "road-token",
        "PUT",
        &format!("/invitations/{id}"),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{membership}");
    assert_eq!(membership["roles"], json!(["collaborator"]));
    assert_eq!(
        call(
            &fake,
            "road-token",
            "GET",
            &format!("/projects/{ACME_STAGING}"),
            Value::Null
        )
        .await
        .0,
        200
    );
    assert_eq!(
        call(
            &fake,
            "road-token",
            "GET",
            &format!("/invitations/{id}"),
            Value::Null
        )
        .await
        .0,
        404
    );
    let (_, members) = call(
        &fake,
        ACME,
        "GET",
        &format!("/projects/{ACME_STAGING}/memberships"),
        Value::Null,
    )
    .await;
    let m = ids(&members, "memberships");
    assert_eq!(m.len(), 1, "{members}");
    // Roles change; a role the API does not have is refused.
    let (status, changed) = call(
        &fake,
        ACME,
        "PUT",
        &format!("/memberships/{}", m[0]),
        json!({"role": ["admin"]}),
    )
    .await;
    assert_eq!((status, changed["roles"].clone()), (200, json!(["admin"])));
    assert_eq!(
        call(
            &fake,
            ACME,
            "PUT",
            &format!("/memberships/{}", m[0]),
            json!({"role": ["owner"]})
        )
        .await
        .0,
        422
    );
    assert_eq!(
        call(
            &fake,
            GLOBEX,
            "GET",
            &format!("/memberships/{}", m[0]),
            Value::Null
        )
        .await
        .0,
        403
    );
    // The member sees acme's people now, and the world saves and loads.
    let saved = fake.world();
    assert_eq!(saved.memberships.len(), 1);
    assert_eq!(Fake::builder().world(saved.clone()).build().world(), saved);
    // Removed: the project is another's again.
    assert_eq!(
        call(
            &fake,
            ACME,
            "DELETE",
            &format!("/memberships/{}", m[0]),
            Value::Null
        )
        .await
        .0,
        204
    );
    assert_eq!(
        call(
            &fake,
            "road-token",
            "GET",
            &format!("/projects/{ACME_STAGING}"),
            Value::Null
        )
        .await
        .0,
        403
    );
    // A declined invitation goes; one not for the caller is refused.
    let (_, second) = call(
        &fake,
        ACME,
        "POST",
        &format!("/organizations/{ACME_ORG}/invitations"),
        json!({"invitee": "road@runner.example"}),
    )
    .await;
    let second = second["id"].as_str().unwrap().to_string();
    assert_eq!(
        call(
            &fake,
            ACME,
            "PUT",
            &format!("/invitations/{second}"),
            json!({})
        )
        .await
        .0,
        403
    );
    assert_eq!(
        call(
            &fake,
            "road-token",
            "DELETE",
            &format!("/invitations/{second}"),
            Value::Null
        )
        .await
        .0,
        204
    );
    assert_eq!(
        call(
            &fake,
            ACME,
            "GET",
            &format!("/invitations/{second}"),
            Value::Null
        )
        .await
        .0,
        404
    );
    let (status, bad) = call(
        &fake,
        ACME,
        "POST",
        &format!("/organizations/{ACME_ORG}/invitations"),
        json!({"invitee": "nobody"}),
    )
    .await;
    assert_eq!(status, 422, "{bad}");
}

/// Found by the walk: a project moved by a transfer left its old
/// organisation's invitation naming it, and the saved world no longer
/// loaded ("names project of its organization"). The invitation goes, as
/// it goes with a deleted project.
#[tokio::test(start_paused = true)]
async fn a_transfer_takes_the_old_organizations_invitations_to_the_project() {
    let fake = fake();
    let (status, invited) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_STAGING}/invitations"),
        json!({"invitee": "someone@example.com"}),
    )
    .await;
    assert_eq!(status, 201, "{invited}");
    let invitation = invited["id"].as_str().unwrap().to_string();
    let (status, transfer) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_STAGING}/transfers"),
        json!({"target_organization_id": GLOBEX_ORG}),
    )
    .await;
    assert_eq!(status, 201, "{transfer}");
    let id = transfer["id"].as_str().unwrap();
    assert_eq!(
        call(&fake, GLOBEX, "PUT", &format!("/transfers/{id}"), json!({}))
            .await
            .0,
        204
    );
    assert_eq!(
        call(
            &fake,
            ACME,
            "GET",
            &format!("/invitations/{invitation}"),
            Value::Null
        )
        .await
        .0,
        404
    );
    let saved = fake.world();
    fake.load_world(&saved).unwrap();
    assert_eq!(fake.world(), saved);
}

#[tokio::test(start_paused = true)]
async fn an_accepted_transfer_moves_the_project_and_a_declined_one_goes() {
    let fake = fake();
    let (status, transfer) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_STAGING}/transfers"),
        json!({"target_organization_id": GLOBEX_ORG}),
    )
    .await;
    assert_eq!(status, 201, "{transfer}");
    let id = transfer["id"].as_str().unwrap().to_string();
    // One open request a project.
    let (status, _) = call(
        &fake,
        ACME,
        "POST",
        &format!("/projects/{ACME_STAGING}/transfers"),
        json!({"target_organization_id": GLOBEX_ORG}),
    )
    .await;
    assert_eq!(status, 422);
    // The target organisation sees it and accepts; acme may not accept.
    let (_, listed) = call(
        &fake,
        GLOBEX,
        "GET",
        &format!("/organizations/{GLOBEX_ORG}/transfers"),
        Value::Null,
    )
    .await;
    assert_eq!(ids(&listed, "transfers"), [id.as_str()]);
    assert_eq!(
        call(&fake, ACME, "PUT", &format!("/transfers/{id}"), json!({}))
            .await
            .0,
        403
    );
    assert_eq!(
        call(&fake, GLOBEX, "PUT", &format!("/transfers/{id}"), json!({}))
            .await
            .0,
        204
    );
    let (status, moved) = call(
        &fake,
        GLOBEX,
        "GET",
        &format!("/projects/{ACME_STAGING}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 200, "{moved}");
    assert!(moved["organization"]["href"]
        .as_str()
        .unwrap()
        .ends_with(GLOBEX_ORG));
    assert_eq!(
        call(
            &fake,
            ACME,
            "GET",
            &format!("/projects/{ACME_STAGING}"),
            Value::Null
        )
        .await
        .0,
        403
    );
    // Declined: it goes.
    let (_, back) = call(
        &fake,
        GLOBEX,
        "POST",
        &format!("/projects/{GLOBEX_PROJECT}/transfers"),
        json!({"target_organization_id": ACME_ORG}),
    )
    .await;
    let back = back["id"].as_str().unwrap().to_string();
    assert_eq!(
        call(
            &fake,
            ACME,
            "DELETE",
            &format!("/transfers/{back}"),
            Value::Null
        )
        .await
        .0,
        204
    );
    assert_eq!(
        call(
            &fake,
            GLOBEX,
            "GET",
            &format!("/transfers/{back}"),
            Value::Null
        )
        .await
        .0,
        404
    );
}

#[tokio::test(start_paused = true)]
async fn emails_payment_methods_and_two_factor_keep_their_state_and_refusals() {
    let fake = fake();
    let token = "road-token";
    let (status, email) = call(
        &fake,
        token,
        "POST",
        "/emails",
        json!({"address": "beep@runner.example"}),
    )
    .await;
    assert_eq!(status, 201, "{email}");
    assert_eq!(email["default"], false);
    let id = email["id"].as_str().unwrap().to_string();
    assert_eq!(
        call(
            &fake,
            ACME,
            "POST",
            "/emails",
            json!({"address": "beep@runner.example"})
        )
        .await
        .0,
        422
    );
    assert_eq!(
        call(&fake, GLOBEX, "GET", &format!("/emails/{id}"), Value::Null)
            .await
            .0,
        403
    );
    let (_, made_default) = call(
        &fake,
        token,
        "PUT",
        &format!("/emails/{id}"),
        json!({"default": true}),
    )
    .await;
    assert_eq!(made_default["default"], true);
    let (_, me) = call(&fake, token, "GET", "/user", Value::Null).await;
    assert_eq!(me["email"], "beep@runner.example");
    assert_eq!(
        call(
            &fake,
            token,
            "DELETE",
            &format!("/emails/{id}"),
            Value::Null
        )
        .await
        .0,
        422
    );
    // Payment methods: the first is the default, which goes last.
    let path = format!("/organizations/{ACME_ORG}/payment-methods");
    let (status, card) = call(
        &fake,
        ACME,
        "POST",
        &path,
        json!({"name": "card", "nonce": "n"}),
    )
    .await;
    assert_eq!(
        (status, card["default"].clone()),
        (201, json!(true)),
        "{card}"
    );
    assert_eq!(
        call(
            &fake,
            ACME,
            "POST",
            &path,
            json!({"name": "x", "nonce": ""})
        )
        .await
        .0,
        422
    );
    let (_, other) = call(
        &fake,
        ACME,
        "POST",
        &path,
        json!({"name": "other", "nonce": "n"}),
    )
    .await;
    let card = card["id"].as_str().unwrap().to_string();
    let other = other["id"].as_str().unwrap().to_string();
    assert_eq!(
        call(
            &fake,
            GLOBEX,
            "GET",
            &format!("/payment-methods/{card}"),
            Value::Null
        )
        .await
        .0,
        403
    );
    assert_eq!(
        call(
            &fake,
            ACME,
            "DELETE",
            &format!("/payment-methods/{card}"),
            Value::Null
        )
        .await
        .0,
        422
    );
    let (_, renamed) = call(
        &fake,
        ACME,
        "PUT",
        &format!("/payment-methods/{other}"),
        json!({"name": "main", "default": true}),
    )
    .await;
    assert_eq!(
        (renamed["name"].as_str(), renamed["default"].as_bool()),
        (Some("main"), Some(true))
    );
    assert_eq!(
        call(
            &fake,
            ACME,
            "DELETE",
            &format!("/payment-methods/{card}"),
            Value::Null
        )
        .await
        .0,
        204
    );
    let (_, listed) = call(&fake, ACME, "GET", &path, Value::Null).await;
    assert_eq!(ids(&listed, "payment_methods"), [other]);
    let (_, invoices) = call(
        &fake,
        ACME,
        "GET",
        &format!("/organizations/{ACME_ORG}/invoices"),
        Value::Null,
    )
    .await;
    assert_eq!(invoices, json!({"invoices": []}));
    // Two-factor: on once, off once.
    assert_eq!(
        call(&fake, token, "POST", "/user/otp/app", json!({}))
            .await
            .0,
        200
    );
    assert_eq!(
        call(&fake, token, "POST", "/user/otp/app", json!({}))
            .await
            .0,
        422
    );
    let (_, me) = call(&fake, token, "GET", "/user", Value::Null).await;
    assert_eq!(me["two_factor_auth"], "app");
    assert_eq!(
        call(&fake, token, "DELETE", "/user/otp/app", Value::Null)
            .await
            .0,
        204
    );
    assert_eq!(
        call(&fake, token, "DELETE", "/user/otp/app", Value::Null)
            .await
            .0,
        404
    );
    // A password reset only after one was asked for, and once.
    assert_eq!(
        call(&fake, token, "DELETE", "/reset-password", Value::Null)
            .await
            .0,
        422
    );
    assert_eq!(
        call(
            &fake,
            token,
            "POST",
            "/reset-password?email=beep@runner.example",
            json!({})
        )
        .await
        .0,
        201
    );
    let (status, new) = call(&fake, token, "DELETE", "/reset-password", Value::Null).await;
    assert_eq!(status, 201, "{new}");
    assert!(new["new_password"].is_string());
    assert_eq!(
        call(&fake, token, "DELETE", "/reset-password", Value::Null)
            .await
            .0,
        422
    );
    // Verification: a token nobody was sent is refused.
    assert_eq!(
        call(
            &fake,
            token,
            "POST",
            "/verify-email?login=beep@runner.example",
            json!({})
        )
        .await
        .0,
        201
    );
    assert_eq!(
        call(
            &fake,
            token,
            "PUT",
            "/verify-email",
            json!({"user_token": "guess"})
        )
        .await
        .0,
        422
    );
    // Support: checked, then 204.
    assert_eq!(
        call(
            &fake,
            ACME,
            "POST",
            "/support-requests",
            json!({"subject": "", "message": "m"})
        )
        .await
        .0,
        422
    );
    let (status, _) = call(
        &fake,
        ACME,
        "POST",
        "/support-requests",
        json!({"subject": "s", "message": "m", "project_id": GLOBEX_PROJECT}),
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(
        call(
            &fake,
            ACME,
            "POST",
            "/support-requests",
            json!({"subject": "s", "message": "m"})
        )
        .await
        .0,
        204
    );
    assert_eq!(
        call(&fake, ACME, "GET", "/incidents", Value::Null).await,
        (200, json!({"incidents": []}))
    );
    // Users: the caller sees itself and those who share a project.
    let (_, users) = call(&fake, token, "GET", "/users", Value::Null).await;
    assert_eq!(users["users"].as_array().unwrap().len(), 1, "{users}");
    let (status, updated) = call(
        &fake,
        token,
        "PUT",
        "/user",
        json!({"first_name": "Roadie"}),
    )
    .await;
    assert_eq!(
        (status, updated["first_name"].as_str()),
        (200, Some("Roadie"))
    );
    let (status, made) = call(
        &fake,
        ACME,
        "POST",
        "/users",
        json!({"first_name": "A", "last_name": "B", "emails": [{"address": "ab@x.example"}]}),
    )
    .await;
    // The spec answers `createUser` with 202.
    assert_eq!(status, 202, "{made}");
    // An address that is no email address is refused (found by the walk).
    let (status, refused) = call(
        &fake,
        ACME,
        "POST",
        "/users",
        json!({"first_name": "A", "last_name": "B", "emails": [{"address": "10.0.0.1/31"}]}),
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(
        call(
            &fake,
            ACME,
            "POST",
            "/users",
            json!({"first_name": "A", "last_name": "B", "emails": [{"address": "ab@x.example"}]})
        )
        .await
        .0,
        422
    );
    let saved = fake.world();
    assert_eq!(Fake::builder().world(saved.clone()).build().world(), saved);
}

/// packngo's `TestAccProjectBasic` creates a project by name alone and
/// fails on an empty `payment_method` href: a project carries what pays
/// for it, its organisation's default payment method once there is one.
#[tokio::test]
async fn a_project_carries_its_organisation_s_default_payment_method() {
    let fake = fake();
    let (status, project) = call(
        &fake,
        ACME,
        "POST",
        "/projects",
        json!({"name": "paid", "organization_id": ACME_ORG}),
    )
    .await;
    assert_eq!(status, 201, "{project}");
    let before = project["payment_method"]["href"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        before.starts_with("/metal/v1/payment-methods/"),
        "{project}"
    );
    let path = format!("/organizations/{ACME_ORG}/payment-methods");
    let (status, card) = call(
        &fake,
        ACME,
        "POST",
        &path,
        json!({"name": "card", "nonce": "n"}),
    )
    .await;
    assert_eq!(status, 201, "{card}");
    let id = project["id"].as_str().unwrap();
    let (_, read) = call(&fake, ACME, "GET", &format!("/projects/{id}"), Value::Null).await;
    assert_eq!(
        read["payment_method"]["href"],
        json!(format!(
            "/metal/v1/payment-methods/{}",
            card["id"].as_str().unwrap()
        ))
    );
    assert_ne!(read["payment_method"]["href"], json!(before));
}

/// A project's `type` is what its create asked (`vmce`, or `default`
/// when it named none), from either create, and the world keeps it.
#[tokio::test(start_paused = true)]
async fn a_project_keeps_the_type_its_create_asked_for() {
    let fake = fake();
    let (status, vmce) = call(
        &fake,
        ACME,
        "POST",
        "/projects",
        json!({"name": "vmware", "type": "vmce", "organization_id": ACME_ORG}),
    )
    .await;
    assert_eq!(status, 201, "{vmce}");
    assert_eq!(vmce["type"], "vmce");
    let (status, plain) = call(
        &fake,
        ACME,
        "POST",
        &format!("/organizations/{ACME_ORG}/projects"),
        json!({"name": "plain"}),
    )
    .await;
    assert_eq!(status, 201, "{plain}");
    assert_eq!(plain["type"], "default");
    let (status, other) = call(
        &fake,
        ACME,
        "POST",
        &format!("/organizations/{ACME_ORG}/projects"),
        json!({"name": "other", "type": "vmce"}),
    )
    .await;
    assert_eq!(status, 201, "{other}");
    assert_eq!(other["type"], "vmce");
    let (_, bad) = call(
        &fake,
        ACME,
        "POST",
        "/projects",
        json!({"name": "bad", "type": "kubernetes"}),
    )
    .await;
    assert!(bad["errors"].is_array(), "{bad}");
    // Saved and loaded, each keeps its type.
    let saved = fake.world();
    let again = Fake::builder().world(saved).build();
    for p in [&vmce, &plain, &other] {
        let id = p["id"].as_str().unwrap();
        let (status, read) =
            call(&again, ACME, "GET", &format!("/projects/{id}"), json!(null)).await;
        assert_eq!(status, 200, "{read}");
        assert_eq!(read["type"], p["type"], "{read}");
    }
}
