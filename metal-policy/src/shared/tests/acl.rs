//! ACL users: the shared limits run as a user with exactly
//! [`SharedLimits::acl`]'s rules, over `redis://` and `rediss://`, through
//! every operation (turns, a dropped wait's give-back, learning with its
//! announcement, a pause, a slot held past a renewal), and Redis denies
//! nothing; a wrong password degrades without ever being logged; a
//! password over plain `redis://` to another host is never sent unless
//! allowed.

use std::time::Duration;

use redis_harness::{or_skip, Certs, ClientCerts, Options, Server};

use super::*;
use crate::shared::SharedLimitsError;

#[tokio::test]
#[ignore = "needs redis-server"]
async fn the_documented_acl_is_enough_for_every_operation_over_redis_and_rediss() {
    let name = "the_documented_acl_is_enough_for_every_operation_over_redis_and_rediss";
    let Some(certs) = or_skip(name, Certs::new()) else {
        return;
    };
    let Some(server) = or_skip(
        name,
        Server::start(Options::new().tls(&certs, ClientCerts::No)).await,
    ) else {
        return;
    };
    let prefix = prefix();
    acl_users(&[&server], &prefix).await;
    let plain = format!("redis://{USER}:{PASSWORD}@127.0.0.1:{}/", server.port());
    let tls = format!(
        "rediss://{USER}:{PASSWORD}@localhost:{}/",
        server.tls_port().unwrap()
    );
    every_operation(SharedLimits::redis(plain, prefix.clone())).await;
    every_operation(SharedLimits::redis(tls, prefix.clone()).ca_file(certs.ca())).await;
    no_denials(&[&server]).await;
    // The rules really are narrow: another prefix's keys are refused.
    let other = format!("redis://{USER}:{PASSWORD}@127.0.0.1:{}/", server.port());
    let p = Probe::new(
        SharedLimits::redis(other, "another").retry_interval(Duration::from_secs(60)),
        Pace::fixed(Duration::from_millis(1)),
        1,
        1,
    );
    p.shared.acquire_turn().await;
    assert!(p.shared.degraded());
    assert!(!acl_denials(&server).await.is_empty());
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_wrong_password_degrades_once_and_is_never_logged() {
    let name = "a_wrong_password_degrades_once_and_is_never_logged";
    let Some(server) = or_skip(name, Server::start(Options::new()).await) else {
        return;
    };
    let prefix = prefix();
    acl_users(&[&server], &prefix).await;
    let (logs, _guard) = Logs::capture();
    let wrong = "not-the-password-1234";
    let url = format!("redis://{USER}:{wrong}@127.0.0.1:{}/", server.port());
    let p = Probe::new(
        SharedLimits::redis(url, prefix).retry_interval(Duration::from_millis(20)),
        Pace::fixed(Duration::from_millis(10)),
        1,
        1,
    );
    for _ in 0..5 {
        p.shared.acquire_turn().await;
    }
    assert!(p.shared.degraded());
    let text = logs.text();
    assert_eq!(logs.warnings("shared limits unavailable"), 1, "{text}");
    assert!(!text.contains(wrong), "{text}");
    assert!(!format!("{:?}", p.shared).contains(wrong));
}

/// This machine's own non-loopback IPv4 address: the one a UDP socket
/// connected outwards would send from (connecting a UDP socket sends
/// nothing).
fn own_address() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("198.51.100.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Connections `server` has accepted since it started.
async fn connections(server: &Server) -> u64 {
    let info: String = server.query(redis::cmd("INFO").arg("stats")).await.unwrap();
    redis_harness::info_field(&info, "total_connections_received")
        .and_then(|n| n.parse().ok())
        .unwrap()
}

/// A real server listening on this machine's non-loopback address, with
/// the ACL user: `redis://user:password@<that address>` fails the client's
/// build and the server never sees a connection (the password is not
/// sent); allowed explicitly, the same URL shares every operation there.
#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_plaintext_password_to_another_host_is_never_sent_unless_allowed() {
    let name = "a_plaintext_password_to_another_host_is_never_sent_unless_allowed";
    let Some(host) = own_address() else {
        redis_harness::unavailable(name, &"this machine has no non-loopback IPv4 address");
        return;
    };
    // Protected mode would turn away every client from a non-loopback
    // address while the default user (the harness's) has no password.
    let options = Options::new()
        .arg("bind", &format!("127.0.0.1 {host}"))
        .arg("protected-mode", "no");
    let Some(server) = or_skip(name, Server::start(options).await) else {
        return;
    };
    let prefix = prefix();
    acl_users(&[&server], &prefix).await;
    let url = format!("redis://{USER}:{PASSWORD}@{host}:{}/", server.port());
    // Each of the harness's queries is one connection of its own.
    let first = connections(&server).await;
    let before = connections(&server).await;
    let per_query = before - first;
    let config = metal_api::Config::builder()
        .auth_token("t")
        .build()
        .unwrap();
    // The plaintext-password refusal is a build error of the whole client.
    // up: this test of the shared limits builds the client to see it.
    let refused = crate::Client::builder()
        .config(config)
        .shared_limits(SharedLimits::redis(url.clone(), prefix.clone()))
        .build()
        .err();
    match &refused {
        // up: the client's build error that the shared limits' settings cause.
        Some(crate::BuildError::SharedLimits(SharedLimitsError::PlaintextPassword { host: h })) => {
            assert_eq!(h, &host.to_string());
        }
        other => panic!("{other:?}"),
    }
    let shown = format!("{} {:?}", refused.as_ref().unwrap(), refused);
    assert!(!shown.contains(PASSWORD), "{shown}");
    sleep(Duration::from_millis(200)).await;
    assert_eq!(
        connections(&server).await - before,
        per_query,
        "nothing else connected"
    );
    every_operation(SharedLimits::redis(url, prefix).allow_plaintext_password(true)).await;
    assert!(connections(&server).await - before > 2 * per_query);
    no_denials(&[&server]).await;
}
