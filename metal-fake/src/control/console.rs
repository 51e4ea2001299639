//! The console: one HTML page, its style sheet and its script, embedded in
//! the crate (the files under `console/`), that a browser opens at
//! `/_fake/console` to watch the calls as they happen, the world by
//! resource, the faults armed and the clock, and to advance the clock,
//! arm and clear faults, or reset. The script reads and drives the
//! control API's JSON (`/_fake/calls`, `/_fake/world`, `/_fake/devices`,
//! `/_fake/faults`, `/_fake/clock`, `/_fake/reset`); nothing is fetched
//! from anywhere else, which every reply's `Content-Security-Policy:
//! default-src 'self'` holds the browser to (no inline script or style
//! either: the page loads its two files from the fake).
//!
//! With a control token, the page is opened as `/_fake/console?token=T`:
//! the page's links to its two files carry the same query, and the script
//! sends the token as `X-Fake-Control-Token` with every call.

use axum::extract::Request;
use axum::http::{header, HeaderValue, Uri};
use axum::response::Response;

/// The page's path.
pub(super) const PAGE: &str = "/_fake/console";
/// The style sheet's path.
pub(super) const STYLE: &str = "/_fake/console/console.css";
/// The script's path.
pub(super) const SCRIPT: &str = "/_fake/console/console.js";
/// The page's icon's path (the browser asks for one; without it, it would
/// ask the API for `/favicon.ico`, a call in the log).
pub(super) const ICON: &str = "/_fake/console/icon.svg";
/// Where a browser looks for an icon when a page names none (the
/// control API's JSON opened in a browser, a refusal): answered here, as
/// the console's icon under the control token's rules, so that it never
/// reaches the API as a call in the log. No client of the API asks for it.
pub(super) const FAVICON: &str = "/favicon.ico";

/// The page; `{{QUERY}}` stands where its files' links take the page's
/// own token query.
const PAGE_HTML: &str = include_str!("console/index.html");
const STYLE_CSS: &str = include_str!("console/console.css");
const SCRIPT_JS: &str = include_str!("console/console.js");
const ICON_SVG: &str = include_str!("console/icon.svg");

/// Where the page's files' links take the token query.
const QUERY_SLOT: &str = "{{QUERY}}";

/// The policy every reply of the console carries: everything from the fake
/// itself, nothing from elsewhere, no inline script or style.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'";

/// Whether `path` is the console's (which also takes the token in the
/// query).
pub(super) fn serves(path: &str) -> bool {
    [PAGE, STYLE, SCRIPT, ICON, FAVICON].contains(&path)
}

/// The query parameter `token`, if the URI has one.
pub(super) fn query_token(uri: &Uri) -> Option<String> {
    let query = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(uri).ok()?;
    query
        .0
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v)
}

/// `text` percent-encoded for a URL's query: every byte but the
/// unreserved ones (`A-Z a-z 0-9 - . _ ~`) as `%XX`. Its output needs no
/// further escaping in an HTML attribute.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A reply of the console: `body` as `content_type`, with the policy,
/// never sniffed, framed or cached, and no referrer (the token may be in
/// the address).
fn reply(content_type: &'static str, body: String) -> Response {
    let mut resp = Response::new(axum::body::Body::from(body));
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    resp
}

/// `GET /_fake/console`: the page, its files' links carrying the token
/// query it was opened with.
pub(super) async fn page(request: Request) -> Response {
    let query = query_token(request.uri())
        .map(|t| format!("?token={}", percent_encode(&t)))
        .unwrap_or_default();
    reply(
        "text/html; charset=utf-8",
        PAGE_HTML.replace(QUERY_SLOT, &query),
    )
}

/// `GET /_fake/console/console.css`.
pub(super) async fn style() -> Response {
    reply("text/css; charset=utf-8", STYLE_CSS.to_string())
}

/// `GET /_fake/console/console.js`.
pub(super) async fn script() -> Response {
    reply("text/javascript; charset=utf-8", SCRIPT_JS.to_string())
}

/// `GET /_fake/console/icon.svg`.
pub(super) async fn icon() -> Response {
    reply("image/svg+xml", ICON_SVG.to_string())
}

/// The bytes of the page and its files, as served without a token query:
/// what a browser loads to open the console.
#[cfg(test)]
fn weight() -> usize {
    PAGE_HTML.replace(QUERY_SLOT, "").len() + STYLE_CSS.len() + SCRIPT_JS.len() + ICON_SVG.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_goes_into_the_links_encoded() {
        assert_eq!(percent_encode("a-Z_0.~"), "a-Z_0.~");
        assert_eq!(
            percent_encode("t\"><script>&é"),
            "t%22%3E%3Cscript%3E%26%C3%A9"
        );
        let uri: Uri = "/_fake/console?x=1&token=a%20b%26c".parse().unwrap();
        assert_eq!(query_token(&uri).as_deref(), Some("a b&c"));
        let uri: Uri = "/_fake/console".parse().unwrap();
        assert_eq!(query_token(&uri), None);
    }

    /// Whether `text` has an inline event handler (` onclick=`, ...).
    fn has_inline_handler(text: &str) -> bool {
        text.match_indices(" on").any(|(i, _)| {
            let rest = &text[i + 3..];
            let name_len = rest.bytes().take_while(u8::is_ascii_lowercase).count();
            name_len > 0 && rest[name_len..].starts_with('=')
        })
    }

    #[test]
    fn the_page_links_its_own_files_and_nothing_else() {
        for path in [STYLE, SCRIPT, ICON] {
            assert!(
                PAGE_HTML.contains(&format!("=\"{path}{QUERY_SLOT}\"")),
                "{path}"
            );
        }
        // No address elsewhere (the icon's one `http://` is its XML
        // namespace, a name, never fetched).
        for text in [PAGE_HTML, STYLE_CSS, SCRIPT_JS] {
            assert!(!text.contains("http://") && !text.contains("https://"));
            assert!(!text.contains("//cdn") && !text.contains("@import"));
        }
        assert_eq!(ICON_SVG.matches("http").count(), 1);
        // No inline script, style or handler for the policy to refuse.
        assert!(!PAGE_HTML.contains("<style") && !PAGE_HTML.contains(" style="));
        assert!(!has_inline_handler(PAGE_HTML));
        assert!(has_inline_handler("<a onclick=\"x\">"));
        assert_eq!(PAGE_HTML.matches("<script").count(), 1);
        assert!(PAGE_HTML.contains("<script src="));
        // Small: a page, not an application.
        assert!(weight() < 48 * 1024, "{} bytes", weight());
    }
}
