//! Idempotent SSH key create across clients: three
//! policy clients, each with limits of its own as three processes would
//! have, ensure the same key at once against one fake. Each lists, finds
//! none and creates; the server takes one create and refuses the others
//! (`422 Fingerprint has already been taken`); the losers read the keys
//! again and return the winner's key. Run in-process and over HTTP.
//!
//! A latency on the first three creates holds each create, before it acts,
//! until all three clients have listed and sent theirs, so the race
//! happens on every run (checked: two creates refused with 422). (A
//! latency on the lists would not do in-process: the lists would read the
//! world one after the other, after their waits, each after the previous
//! client's create.)

use std::time::Duration;

use metal_api::types;
use metal_fake::{Fake, Fault, FaultKind, ServerConfig};
use metal_policy::{KeyOwner, Metal};

const TOKEN: &str = "race-token";
const LABEL: &str = "provision-example";
const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAARaceRaceRaceRace race@example";

fn input() -> types::SshKeyCreateInput {
    types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some(KEY.to_string()),
        label: Some(LABEL.to_string()),
        tags: vec![],
    }
}

/// A fake whose first three key creates wait `latency` before they act, so
/// three clients all list before any key exists.
fn racing_fake(latency: Duration) -> Fake {
    Fake::builder()
        .fault(Fault::on("createProjectSSHKey", FaultKind::Latency(latency)).times(3))
        .build()
}

/// Races `clients` to create the same key; checks every one got the same
/// key, the fake holds one key under the label, and the race took place.
async fn race(fake: &Fake, clients: [metal_policy::Client; 3]) {
    let owner = KeyOwner::Project(fake.project());
    let input = input();
    let [a, b, c] = &clients;
    let (ra, rb, rc) = tokio::join!(
        a.create_ssh_key(owner, &input),
        b.create_ssh_key(owner, &input),
        c.create_ssh_key(owner, &input),
    );
    let ids: Vec<_> = [ra, rb, rc]
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|e| panic!("create_ssh_key failed: {e}"))
                .id
        })
        .collect();
    assert!(ids[0].is_some(), "{ids:?}");
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");

    let keys = a.list_ssh_keys(owner).await.unwrap();
    let labelled: Vec<_> = keys
        .iter()
        .filter(|k| k.label.as_deref() == Some(LABEL))
        .collect();
    assert_eq!(labelled.len(), 1, "{keys:?}");
    assert_eq!(labelled[0].id, ids[0]);
    assert_eq!(fake.snapshot().world.ssh_keys, 1);

    // The race took place: three creates, one taken.
    let creates = &fake.snapshot().requests["createProjectSSHKey"];
    assert_eq!(creates.get("201"), Some(&1), "{creates:?}");
    assert_eq!(creates.get("422"), Some(&2), "{creates:?}");
}

#[tokio::test(start_paused = true)]
async fn three_clients_racing_in_process_get_one_key() {
    let fake = racing_fake(Duration::from_millis(50));
    race(&fake, [fake.client(), fake.client(), fake.client()]).await;
}

#[tokio::test]
async fn three_clients_racing_over_http_get_one_key() {
    // On the wall clock: the creates' hold must outlast the three lists,
    // which a loaded machine can spread over far more than a few
    // milliseconds; a second is more than any run here has seen, and
    // costs one second.
    let fake = racing_fake(Duration::from_secs(1));
    let server = crate::http::serve(&fake, ServerConfig::new(TOKEN)).await;
    let client = || {
        let config = crate::http::config(&server, TOKEN);
        metal_policy::Client::builder()
            .config(config)
            .api_rate(Duration::ZERO)
            .build()
            .unwrap()
    };
    race(&fake, [client(), client(), client()]).await;
    server.try_shutdown().await.unwrap();
}
