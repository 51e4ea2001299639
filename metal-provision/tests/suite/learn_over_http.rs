//! The pace learned from the fake server's `X-RateLimit-*` headers, over
//! HTTP: the server sends `X-RateLimit-Reset` as a Unix time, as
//! the real API does, and a learning client with no `api_rate` of its own
//! paces itself by it. The server's clock and the Unix time are real, so
//! this test runs in real time, with generous margins.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::future::join_all;
use metal_fake::{Fake, ServerConfig};
use metal_policy::{Client, Metal};

const TOKEN: &str = "learn-token";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_paces_itself_by_the_fake_servers_unix_reset() {
    let rate = 20;
    let fake = Fake::builder().reservations(1).build();
    let project = fake.project();
    let server = metal_fake::bind(
        fake.clone(),
        "127.0.0.1:0",
        ServerConfig::new(TOKEN).rate_limit(Some(rate)),
    )
    .await
    .unwrap();

    // The server's reset is a Unix time (whole seconds), not seconds from
    // now.
    // With metal-api's default `rustls-ring` backend, reqwest has no
    // process-wide provider of its own (see `metal_api::tls`).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let reply = reqwest::Client::new()
        .get(format!("{}/projects/{project}", server.base_url()))
        .header("x-auth-token", TOKEN)
        .send()
        .await
        .unwrap();
    let header = |name: &str| -> u64 {
        reply
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name}: {:?}", reply.headers()))
    };
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let reset = header("x-ratelimit-reset");
    assert!(
        reset >= now.as_secs() && reset <= now.as_secs() + 2,
        "a Unix time within the bucket's refill: {reset} at {now:?}"
    );
    assert!(header("x-ratelimit-remaining") < u64::from(rate));
    tokio::time::sleep(Duration::from_millis(1100)).await; // full again

    let config = metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(server.base_url())
        .build()
        .unwrap();
    let client = Client::builder()
        .config(config)
        .parallelism(4)
        .learn_rate(true)
        .build()
        .unwrap();
    let calls = 60;
    let t0 = Instant::now();
    let results = join_all((0..calls).map(|_| {
        let client = client.clone();
        async move { client.get_project(project).await }
    }))
    .await;
    let took = t0.elapsed();
    for r in &results {
        assert!(r.is_ok(), "{r:?}");
    }
    let refused = fake
        .snapshot()
        .requests
        .get("findProjectById")
        .and_then(|by_status| by_status.get("429"))
        .copied()
        .unwrap_or(0);
    // Without a reading the client keeps its 2 s default spacing (two
    // minutes for 60 calls); learning from the Unix reset it goes at about
    // the server's rate: the bucket's 20, then 20 a second.
    assert!(took < Duration::from_secs(15), "{took:?}");
    // And it spends the budget the headers announce without running into
    // the server's limit (the 429 pause stays as the safety net).
    assert!(refused <= 3, "{refused} 429s in {calls} calls");
    server.shutdown().await;
}
