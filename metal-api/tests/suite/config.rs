//! The configuration: its token is required and never printed, its base
//! URL validated (credentials in it never reach an error or `Debug`), plain
//! HTTP only to loopback unless allowed, and the environment read.

use metal_api::config::{DEFAULT_BASE_URL, ENV_AUTH_TOKEN, ENV_BASE_URL};
use metal_api::{Config, ConfigBuilder, ConfigError};

fn build(f: impl FnOnce(ConfigBuilder) -> ConfigBuilder) -> Result<Config, ConfigError> {
    f(Config::builder().auth_token("secret-token")).build()
}

#[test]
fn missing_or_blank_token_is_an_error() {
    assert!(matches!(
        Config::builder().build(),
        Err(ConfigError::MissingToken)
    ));
    assert!(matches!(
        Config::builder().auth_token("  ").build(),
        Err(ConfigError::MissingToken)
    ));
    assert!(matches!(
        Config::builder().auth_token("bad\ntoken").build(),
        Err(ConfigError::InvalidToken { .. })
    ));
}

#[test]
fn default_base_url_and_user_agent() {
    let c = build(|b| b).unwrap();
    assert_eq!(c.base_url(), DEFAULT_BASE_URL);
    assert!(c.user_agent().starts_with("metal-api/"));
}

#[test]
fn a_base_urls_credentials_never_reach_an_error_or_debug() {
    for (url, shown) in [
        ("https://user:pw@[bad", "https://[bad"),
        ("ftp://user:pw@example.test/", "ftp://example.test/"),
        ("http://user:pw@example.test/", "http://example.test/"),
        (
            "https://user:pw@example.test/?q=1",
            "https://example.test/?q=1",
        ),
        ("user:pw@[bad/x", "[bad/x"),
    ] {
        let err = build(|b| b.base_url(url)).unwrap_err();
        let text = format!("{err} {err:?}");
        assert!(!text.contains("pw"), "{url}: {text}");
        assert!(text.contains(shown), "{url}: {text}");
        let builder = format!("{:?}", Config::builder().base_url(url));
        assert!(!builder.contains("pw"), "{url}: {builder}");
    }
    // Text without credentials is shown whole, an `@` in a path included.
    for (url, shown) in [
        ("not a url", "not a url"),
        ("ftp://example.test/a@b", "ftp://example.test/a@b"),
    ] {
        let err = build(|b| b.base_url(url)).unwrap_err().to_string();
        assert!(err.contains(shown), "{url}: {err}");
    }
}

#[test]
fn base_url_is_validated_and_normalized() {
    let c = build(|b| b.base_url("https://example.test/metal/v1/")).unwrap();
    assert_eq!(c.base_url(), "https://example.test/metal/v1");
    assert!(matches!(
        build(|b| b.base_url("not a url")),
        Err(ConfigError::InvalidBaseUrl { .. })
    ));
    for bad in [
        "https://example.test/metal/v1?x=1",
        "https://example.test/metal/v1#frag",
    ] {
        assert!(
            matches!(
                build(|b| b.base_url(bad)),
                Err(ConfigError::QueryOrFragment { .. })
            ),
            "{bad}"
        );
    }
    assert!(matches!(
        build(|b| b.base_url("ftp://example.test/")),
        Err(ConfigError::UnsupportedScheme { .. })
    ));
}

#[test]
fn plain_http_only_for_loopback_unless_allowed() {
    for ok in [
        "http://127.0.0.1:1234/metal/v1",
        "http://localhost/metal/v1",
        "http://[::1]:80/metal/v1",
    ] {
        assert!(build(|b| b.base_url(ok)).is_ok(), "{ok}");
    }
    assert!(matches!(
        build(|b| b.base_url("http://example.test/metal/v1")),
        Err(ConfigError::InsecureHttp { .. })
    ));
    assert!(build(|b| b
        .base_url("http://example.test/metal/v1")
        .allow_insecure_http(true))
    .is_ok());
}

#[test]
fn environment_lookup() {
    let env = |key: &str| match key {
        ENV_AUTH_TOKEN => Some("from-env".to_string()),
        ENV_BASE_URL => Some("http://127.0.0.1:9/metal/v1".to_string()),
        _ => None,
    };
    let c = Config::from_lookup(env).build().unwrap();
    assert_eq!(c.auth_token().expose(), "from-env");
    assert_eq!(c.base_url(), "http://127.0.0.1:9/metal/v1");
    assert!(matches!(
        Config::from_lookup(|_| None).build(),
        Err(ConfigError::MissingToken)
    ));
}

#[test]
fn token_never_printed() {
    let c = build(|b| b.consumer_token("consumer-secret")).unwrap();
    let client = c.client().unwrap();
    let headers = c.default_headers();
    let builder = Config::builder()
        .auth_token("secret-token")
        .consumer_token("consumer-secret");
    let printed = format!(
        "{c:?} {client:?} {headers:?} {:?} {builder:?}",
        c.auth_token()
    );
    assert!(!printed.contains("secret-token"), "{printed}");
    assert!(!printed.contains("consumer-secret"), "{printed}");
    // A token that cannot be a header is refused without being echoed,
    // in either form (Debug escapes the newline, so look for the text).
    let err = Config::builder()
        .auth_token("leaky-secret\n")
        .build()
        .unwrap_err();
    assert!(matches!(
        err,
        ConfigError::InvalidToken {
            which: "auth token"
        }
    ));
    let printed = format!("{err} {err:?}");
    assert!(!printed.contains("leaky-secret"), "{printed}");
}
