//! The TLS backend of `metal-api`'s HTTP client, chosen by cargo features
//! (`metal-api` re-exports this crate as `metal_api::tls`, and it and
//! `metal-policy` forward the same features):
//!
//! - `rustls-ring` (default): rustls with *ring*'s cryptography and the
//!   platform's certificate verifier. *ring* builds in a fraction of the
//!   time aws-lc's C library takes.
//! - `rustls-aws-lc`: rustls with aws-lc-rs (reqwest's own default), for
//!   its FIPS lineage or post-quantum key exchange.
//! - `native-tls`: the platform's TLS library (OpenSSL on Linux, which
//!   needs its headers to build; Secure Transport on macOS; SChannel on
//!   Windows).
//!
//! When more than one is on (as under `--all-features`), `rustls-aws-lc`
//! wins over `native-tls`, and both over the default `rustls-ring`: turning
//! one on is asking for it. With none on, the client speaks plain HTTP
//! only, and an `https` URL is refused ([`TlsError::NoBackend`], which
//! `metal-api`'s configuration answers as its `ConfigError::NoTls`).
//!
//! With `rustls-ring`, reqwest is built without a default crypto provider
//! (its `rustls-no-provider` feature), and cargo turns that feature on for
//! every reqwest in the build: a `reqwest::Client::new()` anywhere in the
//! program panics unless a rustls provider is installed for the process.
//! So `metal-api` installs *ring*'s provider as the process default, once,
//! at its first step (building a configuration, its HTTP client, or an
//! exchange client), through [`install_default_provider`], when no provider
//! is installed yet. A program that builds reqwest clients of its own
//! *before* any `metal-api` client calls [`install_default_provider`] first,
//! at the top of `main`. Neither aws-lc nor the platform's library come
//! into the build for it: reqwest has no feature that brings *ring* as its
//! own provider, and the one that brings a provider (`rustls`) brings
//! aws-lc, whose C build is the slowest part of the workspace's.
//!
//! A program with another backend:
//!
//! - `rustls-aws-lc`: reqwest has aws-lc as its own fallback provider, so
//!   nothing is installed; a provider the program installs itself (any
//!   time) is used by reqwest clients built after it.
//! - `native-tls`: reqwest's clients use the platform's library and need
//!   no rustls provider; nothing is installed.
//! - A program that wants a rustls provider other than *ring* with
//!   `rustls-ring` installs it before it builds the first `metal-api`
//!   client: this crate never replaces an installed provider.
//!
//! Every line of the workspace that differs by backend is here: `metal-api`
//! and `metal-policy` only forward the features, so building this crate on
//! each backend alone tries each without building the generated client.
//!
//! ```
//! // The backend this build uses (none: plain HTTP only), and a client
//! // set up with it.
//! println!("TLS: {}", metal_tls::BACKEND.unwrap_or("none"));
//! let client = metal_tls::configure(reqwest::Client::builder())?.build()?;
//! # drop(client);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

/// The name of the backend this build uses (`"rustls-ring"`,
/// `"rustls-aws-lc"`, `"native-tls"`), or `None` without one.
pub const BACKEND: Option<&str> = if cfg!(feature = "rustls-aws-lc") {
    Some("rustls-aws-lc")
} else if cfg!(feature = "native-tls") {
    Some("native-tls")
} else if cfg!(feature = "rustls-ring") {
    Some("rustls-ring")
} else {
    None
};

/// Why a client could not be set up for TLS.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// The URL uses `https`, but this build has no TLS backend.
    #[error(
        "{url} uses https, but this build has no TLS backend \
         (features rustls-ring, rustls-aws-lc, native-tls)"
    )]
    NoBackend {
        /// The offending URL.
        url: String,
    },
    /// The backend could not be set up (the platform's certificate
    /// verifier did not load, say).
    #[error("setting up TLS: {0}")]
    Setup(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Whether this build can reach `url`: an `https` URL needs a backend
/// ([`TlsError::NoBackend`] without one); any other scheme is not this
/// crate's to judge.
///
/// ```
/// assert!(metal_tls::check_url("http://127.0.0.1:8080/metal/v1").is_ok());
/// // https with a backend (the default features have one) only.
/// let https = metal_tls::check_url("https://api.equinix.com/metal/v1");
/// assert_eq!(https.is_ok(), metal_tls::BACKEND.is_some());
/// ```
pub fn check_url(url: &str) -> Result<(), TlsError> {
    let https = url
        .get(..6)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https:"));
    if https && BACKEND.is_none() {
        return Err(TlsError::NoBackend {
            url: url.to_string(),
        });
    }
    Ok(())
}

/// Makes sure this process has what reqwest's clients need to build:
/// under `rustls-ring` alone (reqwest built with rustls but no provider of
/// its own), installs *ring*'s provider as the process default unless one
/// is installed already; under any other backend, or none, does nothing.
/// Returns whether a `reqwest::Client::new()` now finds its TLS provider
/// (always `true` where reqwest needs none). Cheap to call again.
///
/// ```
/// // First thing in main, before the program's own reqwest clients.
/// assert!(metal_tls::install_default_provider());
/// let _own = reqwest::Client::new();
/// ```
pub fn install_default_provider() -> bool {
    #[cfg(all(feature = "rustls-ring", not(feature = "rustls-aws-lc")))]
    {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Err only when another thread installed one in between: then
            // there is a default all the same.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        rustls::crypto::CryptoProvider::get_default().is_some()
    }
    #[cfg(not(all(feature = "rustls-ring", not(feature = "rustls-aws-lc"))))]
    {
        true
    }
}

/// Sets the chosen backend on `builder` (installing the process's default
/// provider first where reqwest needs one: [`install_default_provider`]);
/// without a backend, returns it as it is (plain HTTP).
///
/// ```
/// let client = metal_tls::configure(reqwest::Client::builder())?.build()?;
/// # drop(client);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn configure(builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, TlsError> {
    install_default_provider();
    #[cfg(feature = "rustls-aws-lc")]
    {
        Ok(builder.tls_backend_rustls())
    }
    #[cfg(all(feature = "native-tls", not(feature = "rustls-aws-lc")))]
    {
        Ok(builder.tls_backend_native())
    }
    #[cfg(all(
        feature = "rustls-ring",
        not(feature = "rustls-aws-lc"),
        not(feature = "native-tls")
    ))]
    {
        Ok(builder.tls_backend_preconfigured(ring_config()?))
    }
    #[cfg(not(any(
        feature = "rustls-ring",
        feature = "rustls-aws-lc",
        feature = "native-tls"
    )))]
    {
        Ok(builder)
    }
}

/// A rustls configuration with *ring*'s provider, the platform's
/// certificate verifier (as reqwest's own rustls backend uses), the safe
/// default protocol versions, and ALPN for HTTP/2 and HTTP/1.1.
#[cfg(feature = "rustls-ring")]
// With another backend chosen as well (`--all-features`), it is still
// compiled and its test still runs.
#[cfg_attr(
    any(feature = "rustls-aws-lc", feature = "native-tls"),
    allow(dead_code)
)]
fn ring_config() -> Result<rustls::ClientConfig, TlsError> {
    use std::sync::Arc;

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
        .map_err(|e| TlsError::Setup(Box::new(e)))?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Setup(Box::new(e)))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    #[cfg(feature = "rustls-ring")]
    #[test]
    fn the_ring_configuration_builds_a_reqwest_client() {
        let config = super::ring_config().unwrap();
        assert_eq!(
            config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        // reqwest takes a preconfigured backend it recognises (the same
        // rustls version) and refuses any other at build time.
        reqwest::Client::builder()
            .tls_backend_preconfigured(config)
            .build()
            .unwrap();
        let unknown = reqwest::Client::builder()
            .tls_backend_preconfigured(42u8)
            .build();
        assert!(unknown.is_err());
    }

    #[test]
    fn only_https_needs_a_backend_and_the_scheme_is_read_in_any_case() {
        assert!(super::check_url("http://localhost/metal/v1").is_ok());
        for url in [
            "https://api.equinix.com/metal/v1",
            "HTTPS://api.equinix.com/",
        ] {
            match super::BACKEND {
                Some(_) => assert!(super::check_url(url).is_ok(), "{url}"),
                None => assert!(
                    matches!(super::check_url(url), Err(super::TlsError::NoBackend { url: u }) if u == url)
                ),
            }
        }
        // Shorter than a scheme: not https.
        assert!(super::check_url("h").is_ok());
    }
}
