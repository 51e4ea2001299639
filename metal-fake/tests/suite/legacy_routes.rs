//! Routes older clients sent that the 2024 spec no longer names, served as
//! the real API served them (`metal_fake::fidelity`, "Routes older clients
//! used"): packngo's virtual circuit create through the project, the
//! organisation's members, an invitation's resend, a project's BGP
//! discovery, a Fabric service token by ID, the user's notifications; and
//! the `authorization_code` of shared connections.

use std::time::Duration;

use metal_fake::Fake;
use serde_json::{json, Value};

use crate::http;
use crate::network::{event_types, id};

const TOKEN: &str = "legacy-token";
/// A token of organisation globex only.
const GLOBEX_TOKEN: &str = "legacy-globex";
/// A token of organisation acme only.
const ACME_TOKEN: &str = "legacy-acme";
const ACME: &str = "0a000000-0000-4000-8000-000000000001";
const GLOBEX: &str = "0a000000-0000-4000-8000-000000000002";
const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
const OTHER_PROJECT: &str = "0b000000-0000-4000-8000-000000000002";
const GLOBEX_PROJECT: &str = "0b000000-0000-4000-8000-000000000003";

/// The world's own user: every organisation's owner.
const OWNER: &str = "0f000000-0000-4000-8000-000000000001";
/// A member of acme (an invitation to the organisation accepted).
const MEMBER: &str = "0f000000-0000-4000-8000-000000000002";
/// A user with a membership of acme's first project only.
const COLLABORATOR: &str = "0f000000-0000-4000-8000-000000000003";
const MEMBERSHIP: &str = "0f400000-0000-4000-8000-000000000001";

fn fake() -> Fake {
    let world = json!({
        "catalog": "none",
        "organizations": [{"id": ACME, "name": "acme", "members": [MEMBER]},
                          {"id": GLOBEX, "name": "globex"}],
        "projects": [
            {"id": PROJECT, "organization": ACME},
            {"id": OTHER_PROJECT, "organization": ACME},
            {"id": GLOBEX_PROJECT, "organization": GLOBEX}
        ],
        "plans": [{"slug": "c3.small.x86"}],
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}],
        "user": OWNER,
        "users": [
            {"id": MEMBER, "first_name": "Road", "last_name": "Runner", "email": "road@acme.example"},
            {"id": COLLABORATOR, "first_name": "Wile", "last_name": "Coyote",
             "email": "wile@acme.example"}
        ],
        "memberships": [{"id": MEMBERSHIP, "project": PROJECT, "user": COLLABORATOR,
                         "roles": ["billing"]}],
        "tokens": [
            {"token": GLOBEX_TOKEN, "organizations": [GLOBEX]},
            {"token": ACME_TOKEN, "organizations": [ACME]}
        ]
    });
    Fake::builder()
        .token(TOKEN)
        .world(serde_json::from_value(world).unwrap())
        .build()
}

async fn call(fake: &Fake, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    http::in_process(fake, TOKEN, method, path, body).await
}

async fn made(fake: &Fake, path: &str, body: Value) -> Value {
    let (status, reply) = call(fake, "POST", path, Some(body)).await;
    assert_eq!(status, 201, "{path}: {reply}");
    reply
}

/// A dedicated connection of acme, active.
async fn dedicated(fake: &Fake) -> Value {
    let c = made(
        fake,
        &format!("/organizations/{ACME}/connections"),
        json!({"name": "port", "type": "dedicated", "redundancy": "primary", "metro": "da",
               "speed": "10Gbps", "contact_email": "ops@example.com"}),
    )
    .await;
    tokio::time::advance(Duration::from_secs(31)).await;
    c
}

/// packngo's `TestAccVirtualCircuitDedicated`: a circuit made through a
/// project (a new one of the connection's organisation) with no
/// `project_id` in the body, on the primary port; active, then read.
#[tokio::test(start_paused = true)]
async fn a_circuit_made_through_its_project_is_the_2024_create_with_the_path_s_project() {
    let fake = fake();
    let c = dedicated(&fake).await;
    let port = id(&c["ports"][0]);
    let vlan = made(
        &fake,
        &format!("/projects/{OTHER_PROJECT}/virtual-networks"),
        json!({"metro": "da"}),
    )
    .await;
    let legacy = format!(
        "/projects/{OTHER_PROJECT}/connections/{}/ports/{port}/virtual-circuits",
        id(&c)
    );
    // packngo's VCCreateRequest: vnid, nni_vlan, name; no project_id.
    let vc = made(
        &fake,
        &legacy,
        json!({"vnid": vlan["id"], "nni_vlan": 889, "name": "TestDedicatedConn1"}),
    )
    .await;
    assert_eq!(
        (&vc["status"], &vc["nni_vlan"], &vc["vnid"]),
        (&json!("activating"), &json!(889), &vlan["vxlan"])
    );
    // The same create by the 2024 route, for comparison.
    let vlan2 = made(
        &fake,
        &format!("/projects/{OTHER_PROJECT}/virtual-networks"),
        json!({"metro": "da"}),
    )
    .await;
    let vc2 = made(
        &fake,
        &format!("/connections/{}/ports/{port}/virtual-circuits", id(&c)),
        json!({"project_id": OTHER_PROJECT, "vnid": vlan2["id"], "nni_vlan": 891, "name": "TestDedicatedConn2"}),
    )
    .await;
    tokio::time::advance(Duration::from_secs(31)).await;
    let mut seen = Vec::new();
    for v in [&vc, &vc2] {
        let path = format!("/virtual-circuits/{}?include=project", id(v));
        let (status, got) = call(&fake, "GET", &path, None).await;
        assert_eq!(status, 200, "{got}");
        assert_eq!(got["status"], "active");
        assert_eq!(got["project"]["id"], OTHER_PROJECT, "the path's project");
        let (_, events) = call(
            &fake,
            "GET",
            &format!("/virtual-circuits/{}/events", id(v)),
            None,
        )
        .await;
        seen.push(
            event_types(&events)
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(seen[0], seen[1], "the same journal either way");
    assert_eq!(
        seen[0],
        ["virtual_circuit.active", "virtual_circuit.created"]
    );
    // The path's project wins over one in the body.
    let vlan3 = made(
        &fake,
        &format!("/projects/{PROJECT}/virtual-networks"),
        json!({"metro": "da"}),
    )
    .await;
    let vc3 = made(
        &fake,
        &legacy.replace(OTHER_PROJECT, PROJECT),
        json!({"project_id": OTHER_PROJECT, "vnid": vlan3["id"], "nni_vlan": 892}),
    )
    .await;
    let (_, got) = call(
        &fake,
        "GET",
        &format!("/virtual-circuits/{}?include=project", id(&vc3)),
        None,
    )
    .await;
    assert_eq!(got["project"]["id"], PROJECT);
    // The rules are the 2024 create's: the nni_vlan is taken.
    let (status, reply) = call(
        &fake,
        "POST",
        &legacy,
        Some(json!({"vnid": vlan["id"], "nni_vlan": 889})),
    )
    .await;
    assert_eq!(status, 422, "{reply}");
    let ops: Vec<&str> = fake.calls().iter().map(|c| c.operation).collect();
    assert!(ops.contains(&"createProjectInterconnectionPortVirtualCircuit"));
}

#[tokio::test(start_paused = true)]
async fn a_circuit_through_a_project_the_connection_is_not_under_is_refused() {
    let fake = fake();
    let c = dedicated(&fake).await;
    let port = id(&c["ports"][0]);
    let path = |project: &str| {
        format!(
            "/projects/{project}/connections/{}/ports/{port}/virtual-circuits",
            id(&c)
        )
    };
    let body = json!({"nni_vlan": 900});
    // Another organisation's project: the connection is not under it.
    let (status, reply) = call(&fake, "POST", &path(GLOBEX_PROJECT), Some(body.clone())).await;
    assert_eq!((status, &reply["errors"][0]), (404, &json!("Not found")));
    // A project the world lacks.
    let none = "0b000000-0000-4000-8000-0000000000ff";
    assert_eq!(
        call(&fake, "POST", &path(none), Some(body.clone())).await.0,
        404
    );
    // A port not of the connection.
    let other_port = path(PROJECT).replace(&port, "0c000000-0000-4000-8000-0000000000ff");
    assert_eq!(
        call(&fake, "POST", &other_port, Some(body.clone())).await.0,
        404
    );
    // Access as the 2024 create's: the connection's; and the project's.
    let (status, _) = http::in_process(
        &fake,
        GLOBEX_TOKEN,
        "POST",
        &path(GLOBEX_PROJECT),
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 403, "globex does not see acme's connection");
    let (status, _) =
        http::in_process(&fake, ACME_TOKEN, "POST", &path(GLOBEX_PROJECT), Some(body)).await;
    assert_eq!(status, 403, "acme does not see globex's project");
    let (_, circuits) = call(
        &fake,
        "GET",
        &format!("/connections/{}/virtual-circuits", id(&c)),
        None,
    )
    .await;
    assert_eq!(circuits["virtual_circuits"], json!([]), "nothing made");
}

/// terraform-provider-equinix's `TestAccMetalConnection_sharedPort` and
/// `TestAccDataSourceMetalConnection_sharedPort` (v4.16.1): a
/// `shared_port_vlan` connection's `authorization_code` is set, on the
/// create's reply and on every read, the same each time; every shared type
/// has one, a dedicated connection none.
#[tokio::test(start_paused = true)]
async fn shared_connections_carry_an_authorization_code() {
    let fake = fake();
    let vlan = made(
        &fake,
        &format!("/projects/{PROJECT}/virtual-networks"),
        json!({"metro": "sv"}),
    )
    .await;
    let c = made(
        &fake,
        &format!("/projects/{PROJECT}/connections"),
        json!({"name": "tfacc-conn", "type": "shared_port_vlan", "redundancy": "primary",
               "metro": "sv", "speed": "50Mbps", "contact_email": "tfacc@example.com",
               "vlans": [vlan["vxlan"]]}),
    )
    .await;
    let code = c["authorization_code"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!code.is_empty(), "{c}");
    assert_ne!(code, id(&c), "a code of its own, not the connection's ID");
    let (_, read) = call(&fake, "GET", &format!("/connections/{}", id(&c)), None).await;
    assert_eq!(
        read["authorization_code"],
        json!(code),
        "the same on a read"
    );
    let (_, listed) = call(
        &fake,
        "GET",
        &format!("/projects/{PROJECT}/connections"),
        None,
    )
    .await;
    assert_eq!(
        listed["interconnections"][0]["authorization_code"],
        json!(code)
    );
    let shared = made(
        &fake,
        &format!("/projects/{PROJECT}/connections"),
        json!({"name": "shared", "type": "shared", "redundancy": "primary", "metro": "sv",
               "speed": "50Mbps", "service_token_type": "a_side"}),
    )
    .await;
    assert!(shared["authorization_code"].is_string(), "{shared}");
    assert_ne!(shared["authorization_code"], json!(code));
    let d = dedicated(&fake).await;
    let (_, d) = call(&fake, "GET", &format!("/connections/{}", id(&d)), None).await;
    assert!(d["authorization_code"].is_null(), "{d}");
}

/// packngo's `Members.List` and `Members.Delete`, as the Terraform
/// provider's `equinix_metal_organization_member` uses them: listed with
/// `include=user` (it matches `user.email`), removed by the member's ID.
#[tokio::test(start_paused = true)]
async fn an_organisation_lists_its_members_and_removes_one() {
    let fake = fake();
    let members_path = format!("/organizations/{ACME}/members");
    let (status, list) = call(&fake, "GET", &format!("{members_path}?include=user"), None).await;
    assert_eq!(status, 200, "{list}");
    let members = list["members"].as_array().unwrap();
    let ids: Vec<&str> = members.iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [OWNER, MEMBER, COLLABORATOR]);
    assert_eq!(list["meta"]["total"], 3);
    assert_eq!(members[0]["roles"], json!(["owner"]));
    assert_eq!(members[2]["roles"], json!(["billing"]));
    assert_eq!(
        members[1]["user"]["email"], "road@acme.example",
        "whole when included"
    );
    assert_eq!(members[2]["projects_count"], 1);
    assert_eq!(
        members[2]["projects"],
        json!([{"href": format!("/metal/v1/projects/{PROJECT}")}])
    );
    assert_eq!(
        members[1]["projects_count"], 2,
        "a member of the organisation sees each"
    );
    assert_eq!(
        members[0]["organization"]["href"],
        format!("/metal/v1/organizations/{ACME}")
    );
    let (_, plain) = call(&fake, "GET", &members_path, None).await;
    assert!(
        plain["members"][1]["user"].get("email").is_none(),
        "an href by default"
    );
    // Removed: no longer a member, its memberships gone.
    let (status, _) = call(
        &fake,
        "DELETE",
        &format!("{members_path}/{COLLABORATOR}"),
        None,
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(
        call(&fake, "GET", &format!("/memberships/{MEMBERSHIP}"), None)
            .await
            .0,
        404
    );
    let (status, _) = call(&fake, "DELETE", &format!("{members_path}/{MEMBER}"), None).await;
    assert_eq!(status, 204);
    let (_, list) = call(&fake, "GET", &members_path, None).await;
    assert_eq!(list["meta"]["total"], 1);
    for (member, want) in [(COLLABORATOR, 404), (OWNER, 422)] {
        let (status, reply) =
            call(&fake, "DELETE", &format!("{members_path}/{member}"), None).await;
        assert_eq!(status, want, "{member}: {reply}");
    }
    let (status, _) = http::in_process(&fake, GLOBEX_TOKEN, "GET", &members_path, None).await;
    assert_eq!(status, 403, "another organisation's members");
    let unknown = "/organizations/0a000000-0000-4000-8000-0000000000ff/members";
    assert_eq!(call(&fake, "GET", unknown, None).await.0, 404);
}

/// packngo's `Invitations.Resend`: `POST /invitations/{id}` answers the
/// invitation.
#[tokio::test(start_paused = true)]
async fn an_invitation_is_sent_again() {
    let fake = fake();
    let invitation = made(
        &fake,
        &format!("/organizations/{ACME}/invitations"),
        json!({"invitee": "new@acme.example", "roles": ["collaborator"]}),
    )
    .await;
    let path = format!("/invitations/{}", id(&invitation));
    let (status, resent) = call(&fake, "POST", &path, None).await;
    assert_eq!(status, 200, "{resent}");
    assert_eq!(
        (&resent["id"], &resent["invitee"]),
        (&invitation["id"], &invitation["invitee"])
    );
    let (status, _) = http::in_process(&fake, GLOBEX_TOKEN, "POST", &path, None).await;
    assert_eq!(status, 403, "another organisation's invitation");
    let unknown = "/invitations/0f000000-0000-4000-8000-0000000000ff";
    assert_eq!(call(&fake, "POST", unknown, None).await.0, 404);
}

/// packngo's `Projects.DiscoverBGPSessions`: `updated_at` back.
#[tokio::test(start_paused = true)]
async fn a_project_s_bgp_sessions_are_discovered_again() {
    let fake = fake();
    let path = format!("/bgp/discover/{PROJECT}");
    let (status, reply) = call(&fake, "POST", &path, None).await;
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply["updated_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{reply}"
    );
    let (status, _) = http::in_process(&fake, GLOBEX_TOKEN, "POST", &path, None).await;
    assert_eq!(status, 403);
    let unknown = "/bgp/discover/0b000000-0000-4000-8000-0000000000ff";
    assert_eq!(call(&fake, "POST", unknown, None).await.0, 404);
}

/// packngo's `FabricServiceTokens.Get`: a shared connection's token, as
/// the connection lists it.
#[tokio::test(start_paused = true)]
async fn a_fabric_service_token_is_read_by_its_id() {
    let fake = fake();
    let c = made(
        &fake,
        &format!("/projects/{PROJECT}/connections"),
        json!({"name": "shared", "type": "shared", "redundancy": "redundant", "metro": "sv",
               "speed": "50Mbps", "service_token_type": "a_side"}),
    )
    .await;
    for token in c["service_tokens"].as_array().unwrap() {
        let path = format!("/fabric-service-tokens/{}", id(token));
        let (status, got) = call(&fake, "GET", &path, None).await;
        assert_eq!((status, &got), (200, token));
        let (status, _) = http::in_process(&fake, GLOBEX_TOKEN, "GET", &path, None).await;
        assert_eq!(status, 403, "another organisation's token");
    }
    let unknown = "/fabric-service-tokens/0c000000-0000-4000-8000-0000000000ff";
    assert_eq!(call(&fake, "GET", unknown, None).await.0, 404);
}

/// packngo's `Notifications`: served, and empty (the fake makes none).
#[tokio::test(start_paused = true)]
async fn notifications_are_served_and_there_are_none() {
    let fake = fake();
    let (status, list) = call(&fake, "GET", "/notifications", None).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(
        (&list["notifications"], &list["meta"]["total"]),
        (&json!([]), &json!(0))
    );
    let one = "/notifications/0f000000-0000-4000-8000-0000000000ff";
    assert_eq!(call(&fake, "GET", one, None).await.0, 404);
    assert_eq!(call(&fake, "PUT", one, Some(json!({}))).await.0, 404);
    let ops: Vec<&str> = fake.calls().iter().map(|c| c.operation).collect();
    assert_eq!(
        ops,
        [
            "findNotifications",
            "findNotificationById",
            "updateNotification"
        ],
        "each routed to its operation, not the router's 404"
    );
}
