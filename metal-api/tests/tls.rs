//! The TLS backend a build chose, through this crate's public API: with a
//! backend, a configuration of the default (`https`) base URL builds its
//! HTTP client and the generated client; without one, it is refused
//! (`ConfigError::NoTls`) while a plain `http` base URL works. It runs on
//! the default features (rustls-ring) and on every feature
//! (rustls-aws-lc wins); each backend alone, and none, is tried where the
//! backend's code is, in metal-tls (CI builds that crate on each), since
//! this crate only forwards its features.

use metal_api::config::ConfigError;
use metal_api::{Config, ConfigBuilder};

fn build(f: impl FnOnce(ConfigBuilder) -> ConfigBuilder) -> Result<Config, ConfigError> {
    f(Config::builder().auth_token("tls-test-token")).build()
}

#[test]
fn the_chosen_backend_builds_a_client_or_https_is_refused() {
    match metal_api::tls::BACKEND {
        Some(backend) => {
            let c = build(|b| b).unwrap_or_else(|e| panic!("{backend}: {e}"));
            assert!(c.base_url().starts_with("https://"));
            c.http_client().unwrap();
            c.client().unwrap();
        }
        None => {
            let err = build(|b| b).unwrap_err();
            assert!(matches!(err, ConfigError::NoTls { .. }), "{err}");
            let c = build(|b| b.base_url("http://127.0.0.1:9/metal/v1")).unwrap();
            c.client().unwrap();
            // A caller's own client may have TLS of its own.
            build(|b| b.http_client(reqwest::Client::new())).unwrap();
        }
    }
}
