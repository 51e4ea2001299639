//! With metal-api's default features (`rustls-ring`: reqwest without a
//! crypto provider of its own), a program's own `reqwest::Client::new()`
//! builds once metal-api has taken its first step. One test in this file:
//! the process-wide provider is what is tested, so nothing else may
//! install one first.

/// Whether reqwest, as this build unified its features, has rustls
/// without a provider of its own (the case metal-api must cover).
const RING_ALONE: bool = cfg!(all(feature = "rustls-ring", not(feature = "rustls-aws-lc")));

#[test]
fn a_plain_reqwest_client_builds_after_metal_api_s_first_step() {
    if RING_ALONE {
        // Nothing installed a provider yet: the situation a program is in
        // before its first metal-api call (this is what panicked).
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
    }
    let config = metal_api::Config::builder()
        .auth_token("provider-test-token")
        .build()
        .unwrap();
    // The user's own client, with reqwest's defaults.
    let _own = reqwest::Client::new();
    // And ours, from the configuration.
    config.client().unwrap();
    if RING_ALONE {
        let installed = rustls::crypto::CryptoProvider::get_default().unwrap();
        let ring = rustls::crypto::ring::default_provider();
        assert_eq!(
            format!("{:?}", installed.cipher_suites),
            format!("{:?}", ring.cipher_suites),
            "the installed provider is ring's"
        );
    }
    // Asking again changes nothing and says a provider is there.
    assert!(metal_api::tls::install_default_provider());
}
