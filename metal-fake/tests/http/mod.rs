//! The HTTP side of the tests: the plain client of the tests that send
//! raw requests to the fake (in process or over HTTP), and the clients of
//! a fake server (its configuration, the generated client).

/// A plain `reqwest` client.
///
/// metal-api's default TLS backend turns on reqwest's `rustls-no-provider`
/// feature, so `reqwest::Client::new` panics unless a rustls crypto provider
/// is installed for the process (as any program that uses reqwest beside
/// metal-api must do). This installs *ring*'s, the one metal-api uses; when
/// another is installed already (or `--all-features` gave reqwest its own),
/// that one stays.
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// One request to `fake` in process, as `token`: its status and JSON body
/// (`null` when there is none or it is not JSON). `body` goes as JSON
/// when given. One client serves every call (each new one loads the root
/// certificates).
// Not every test that takes this module sends in process.
#[allow(dead_code)]
pub async fn in_process(
    fake: &metal_fake::Fake,
    token: &str,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    use metal_api::Exchange;
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    let mut r = CLIENT
        .get_or_init(client)
        .request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            format!("http://metal-fake.invalid/metal/v1{path}"),
        )
        .header("x-auth-token", token);
    if let Some(b) = body {
        r = r.json(&b);
    }
    // The operation argument is what a generated client would pass; the
    // fake routes by method and path.
    let reply = fake
        .exchange(
            &metal_api::operation::FIND_PROJECT_BY_ID,
            r.build().unwrap(),
        )
        .await
        .unwrap();
    let status = reply.status().as_u16();
    let bytes = reply.bytes().await.unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
    )
}

/// One request to `fake` in process as its default token
/// ([`metal_fake::DEFAULT_TOKEN`]), as [`in_process`] sends it.
// Not every test that takes this module sends as the default token.
#[allow(dead_code)]
pub async fn call(
    fake: &metal_fake::Fake,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    in_process(fake, metal_fake::DEFAULT_TOKEN, method, path, body).await
}

/// One request to the fake server at `base` (its `base_url`) through
/// `client`, as `token`: its status and JSON body (`null` when there is
/// none or it is not JSON). `body` goes as JSON when given.
// Not every test that takes this module sends over HTTP.
#[allow(dead_code)]
pub async fn over_http(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    method: &str,
    path: String,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    let mut r = client
        .request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            format!("{base}{path}"),
        )
        .header("x-auth-token", token);
    if let Some(b) = body {
        r = r.json(&b);
    }
    let reply = r.send().await.unwrap();
    let status = reply.status().as_u16();
    (
        status,
        reply
            .json::<serde_json::Value>()
            .await
            .unwrap_or(serde_json::Value::Null),
    )
}

/// `fake` served over HTTP on a loopback port of its own, as `config` says.
// Not every test that takes this module starts a server.
#[allow(dead_code)]
pub async fn serve(
    fake: &metal_fake::Fake,
    config: metal_fake::ServerConfig,
) -> metal_fake::ServerHandle {
    metal_fake::bind(fake.clone(), "127.0.0.1:0", config)
        .await
        .unwrap()
}

/// The configuration of a client of the fake server `server`, as `token`.
// Not every test that takes this module makes clients of a server.
#[allow(dead_code)]
pub fn config(server: &metal_fake::ServerHandle, token: &str) -> metal_api::Config {
    metal_api::Config::builder()
        .auth_token(token)
        .base_url(server.base_url())
        .build()
        .unwrap()
}

/// The generated client of the fake server `server`, as `token`.
// Not every test that takes this module makes clients of a server.
#[allow(dead_code)]
pub fn api(server: &metal_fake::ServerHandle, token: &str) -> metal_api::Client {
    config(server, token).client().unwrap()
}
