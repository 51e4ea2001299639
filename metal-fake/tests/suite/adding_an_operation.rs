//! An operation added to the spec the README's way (one line in
//! `openapi/operations.txt`, `cargo xtask spec`), with no edit to
//! `metal-policy` or `metal-fake`: `findInvitations` (the current user's
//! invitations), which the typed `Metal` trait does not wrap. It runs
//! under the policy through `Client::call`, and against the fake: `501`
//! while the fake does not model it (as here, by
//! `FakeBuilder::unmodelled`, since the model now serves it), then a
//! test's handler's reply, in-process and over HTTP.

use metal_api::types;
use metal_fake::{Fake, FakeBuilder, ServerConfig};
use metal_policy::Error;

fn invitations() -> serde_json::Value {
    serde_json::json!({"invitations": [{"roles": ["collaborator"]}]})
}

fn with_handler() -> FakeBuilder {
    Fake::builder().handler("findInvitations", |_call| Ok(invitations()))
}

fn roles(list: &types::InvitationList) -> Vec<String> {
    list.invitations
        .iter()
        .flat_map(|m| m.roles.clone())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn an_unmodelled_operation_is_a_permanent_501_under_the_policy() {
    let fake = Fake::builder().unmodelled("findInvitations").build();
    let client = fake.client();
    let err = client
        .call(|api| api.find_invitations().send())
        .await
        .expect_err("not modelled");
    match err {
        Error::Rejected {
            operation,
            status: 501,
            messages,
        } => {
            assert_eq!(operation, "findInvitations");
            assert_eq!(messages, ["metal-fake does not model findInvitations"]);
        }
        other => panic!("{other:?}"),
    }
    // Permanent: one request, no retry.
    assert_eq!(fake.call_count("findInvitations"), 1);
}

#[tokio::test(start_paused = true)]
async fn a_handler_serves_it_in_process_under_the_policy() {
    let fake = with_handler().build();
    let registry = prometheus::Registry::new();
    let client = fake.client_with(|c| c.registry(registry.clone())).unwrap();
    // A 502 first: GET is idempotent, so the policy retries it.
    fake.inject(metal_fake::Fault::on(
        "findInvitations",
        metal_fake::FaultKind::FailBefore { status: 502 },
    ))
    .unwrap();
    let list = client
        .call(|api| api.find_invitations().send())
        .await
        .unwrap();
    assert_eq!(roles(&list), ["collaborator"]);
    assert_eq!(fake.call_count("findInvitations"), 2);
    let counted: f64 = registry
        .gather()
        .iter()
        .filter(|f| f.name() == "equinix_api_requests_total")
        .flat_map(|f| f.get_metric())
        .filter(|m| {
            m.get_label()
                .iter()
                .any(|l| l.name() == "endpoint" && l.value() == "findInvitations")
        })
        .map(|m| m.get_counter().get_value())
        .sum();
    assert_eq!(counted, 2.0, "both requests counted under the operationId");
}

#[tokio::test]
async fn a_handler_serves_it_over_http_under_the_policy() {
    let fake = with_handler().build();
    let server = crate::http::serve(&fake, ServerConfig::new("t")).await;
    let config = crate::http::config(&server, "t");
    let client = metal_policy::Client::builder()
        .config(config)
        .api_rate(std::time::Duration::ZERO)
        .build()
        .unwrap();
    let list = client
        .call(|api| api.find_invitations().send())
        .await
        .unwrap();
    assert_eq!(roles(&list), ["collaborator"]);
    // The raw client it hands out reaches it too.
    let raw = client.api().find_invitations().send().await.unwrap();
    assert_eq!(roles(&raw), ["collaborator"]);
    server.shutdown().await;
}
