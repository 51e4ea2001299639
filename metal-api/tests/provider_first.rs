//! A program that builds reqwest clients of its own before any metal-api
//! client calls `metal_api::tls::install_default_provider` first; a
//! provider it installed itself is kept. One test in this file: the
//! provider is process-wide.

#[test]
fn the_program_s_own_provider_is_kept_and_its_clients_build() {
    #[cfg(all(feature = "rustls-ring", not(feature = "rustls-aws-lc")))]
    {
        // The program's choice, made before metal-api's first step (ring
        // too, since that is the provider this build has, but not ring's
        // default: one cipher suite only).
        let mut own = rustls::crypto::ring::default_provider();
        own.cipher_suites.truncate(1);
        own.install_default().unwrap();
    }
    assert!(metal_api::tls::install_default_provider());
    let _own = reqwest::Client::new();
    metal_api::Config::builder()
        .auth_token("provider-test-token")
        .build()
        .unwrap()
        .client()
        .unwrap();
    #[cfg(all(feature = "rustls-ring", not(feature = "rustls-aws-lc")))]
    assert_eq!(
        rustls::crypto::CryptoProvider::get_default()
            .unwrap()
            .cipher_suites
            .len(),
        1,
        "metal-api replaced the program's provider"
    );
}
