//! The plain HTTP client of the tests that send raw requests to the fake
//! server.

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
