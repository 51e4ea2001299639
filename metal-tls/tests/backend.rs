//! The backend a build chose, through the public API: with one, a client
//! set up by `configure` builds and `https` URLs pass; without one, an
//! `https` URL is refused while a plain client still builds. CI runs this
//! crate's tests on each backend alone (`--no-default-features --features
//! X`) and on none; the default and every-feature builds run them too.

#[test]
fn the_chosen_backend_builds_a_client_or_https_is_refused() {
    let https = "https://api.equinix.com/metal/v1";
    let client = metal_tls::configure(reqwest::Client::builder()).and_then(|b| {
        b.build()
            .map_err(|e| metal_tls::TlsError::Setup(Box::new(e)))
    });
    match metal_tls::BACKEND {
        Some(backend) => {
            client.unwrap_or_else(|e| panic!("{backend}: {e}"));
            metal_tls::check_url(https).unwrap_or_else(|e| panic!("{backend}: {e}"));
            // A program's own clients find their provider too.
            assert!(metal_tls::install_default_provider(), "{backend}");
            reqwest::Client::new();
        }
        None => {
            let err = metal_tls::check_url(https).unwrap_err();
            assert!(
                matches!(err, metal_tls::TlsError::NoBackend { .. }),
                "{err}"
            );
            assert!(err.to_string().contains("no TLS backend"), "{err}");
            // Plain HTTP clients still build.
            client.unwrap();
            reqwest::Client::new();
            metal_tls::check_url("http://127.0.0.1:9/metal/v1").unwrap();
        }
    }
}
