//! `rediss://` against real TLS servers with certificates made here: a
//! private CA trusted through `ca_file` (and refused without it), and a
//! client certificate for a server that asks for one.

use std::time::Duration;

use redis_harness::{or_skip, Certs, ClientCerts, Options, Server};

use super::*;

/// A TLS server whose certificates this test made, or the skip.
async fn tls_server(test: &str, clients: ClientCerts) -> Option<(Certs, Server)> {
    let certs = or_skip(test, Certs::new())?;
    let server = or_skip(
        test,
        Server::start(Options::new().tls(&certs, clients)).await,
    )?;
    Some((certs, server))
}

/// Whether a backend with `config` shares through Redis: a turn is taken
/// from the schedule (which then exists on `server`), not degraded.
async fn shares(config: SharedLimits, server: &Server) -> bool {
    let tat = super::super::keys::Keys::new(&config.prefix).tat;
    let p = Probe::new(config, Pace::fixed(Duration::from_millis(1)), 1, 1);
    p.shared.acquire_turn().await;
    let exists: u8 = server.query(redis::cmd("EXISTS").arg(&tat)).await.unwrap();
    assert_eq!(
        p.shared.degraded(),
        exists == 0,
        "degraded exactly when unshared"
    );
    !p.shared.degraded()
}

fn config(url: String) -> SharedLimits {
    SharedLimits::redis(url, prefix())
        .timeout(Duration::from_secs(2))
        .retry_interval(Duration::from_secs(60))
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn rediss_trusts_a_private_ca_from_ca_file_and_nothing_else() {
    let name = "rediss_trusts_a_private_ca_from_ca_file_and_nothing_else";
    let Some((certs, server)) = tls_server(name, ClientCerts::No).await else {
        return;
    };
    let url = server.tls_url().unwrap();
    assert!(shares(config(url.clone()).ca_file(certs.ca()), &server).await);
    // The system's roots do not know this CA: the handshake fails.
    assert!(!shares(config(url.clone()), &server).await);
    // Another CA's file does not either.
    let other = Certs::new().unwrap();
    assert!(!shares(config(url).ca_file(other.ca()), &server).await);
}

#[tokio::test]
#[ignore = "needs redis-server"]
async fn a_client_certificate_is_presented_when_the_server_asks() {
    let name = "a_client_certificate_is_presented_when_the_server_asks";
    let Some((certs, server)) = tls_server(name, ClientCerts::Required).await else {
        return;
    };
    let url = server.tls_url().unwrap();
    let (cert, key) = certs.client();
    assert!(
        shares(
            config(url.clone())
                .ca_file(certs.ca())
                .client_cert(cert, key),
            &server
        )
        .await
    );
    assert!(
        !shares(config(url).ca_file(certs.ca()), &server).await,
        "refused without one"
    );
}
