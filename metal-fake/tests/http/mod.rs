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
