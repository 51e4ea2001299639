//! How the API shapes replies: `include`/`exclude` (what is not included is
//! an `{"href": ...}` stub), hrefs, and pagination with a `meta` object.

use metal_api::types;
use uuid::Uuid;

/// The path prefix of every API href.
pub const API_PREFIX: &str = "/metal/v1";

/// The largest `per_page` the fake serves; larger values are clamped.
pub const MAX_PER_PAGE: u32 = 1000;

/// The `per_page` used when a request gives none.
pub const DEFAULT_PER_PAGE: u32 = 10;

/// The href of a device.
pub fn device_href(id: Uuid) -> String {
    format!("{API_PREFIX}/devices/{id}")
}

/// The href of a hardware reservation.
pub fn reservation_href(id: Uuid) -> String {
    format!("{API_PREFIX}/hardware-reservations/{id}")
}

/// The href of a project.
pub fn project_href(id: Uuid) -> String {
    format!("{API_PREFIX}/projects/{id}")
}

/// The href of an SSH key.
pub fn ssh_key_href(id: Uuid) -> String {
    format!("{API_PREFIX}/ssh-keys/{id}")
}

/// The href of a user.
pub fn user_href(id: Uuid) -> String {
    format!("{API_PREFIX}/users/{id}")
}

/// The parsed `include` and `exclude` of one request, possibly narrowed to
/// a nested object (`include=device.project` seen from the device).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expand {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl Expand {
    /// Parses comma-separated `include` and `exclude` values.
    pub fn parse(include: Option<&str>, exclude: Option<&str>) -> Self {
        let split = |s: Option<&str>| {
            s.unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        };
        Self {
            include: split(include),
            exclude: split(exclude),
        }
    }

    /// Whether `name` is included (itself or something under it).
    pub fn includes(&self, name: &str) -> bool {
        self.include.iter().any(|i| {
            i == name
                || i.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    /// Whether `name` is excluded.
    pub fn excludes(&self, name: &str) -> bool {
        self.exclude.iter().any(|e| e == name)
    }

    /// The names under `name`, seen from inside it.
    pub fn nested(&self, name: &str) -> Self {
        let under = |list: &[String]| {
            list.iter()
                .filter_map(|i| i.strip_prefix(name)?.strip_prefix('.'))
                .map(str::to_string)
                .collect()
        };
        Self {
            include: under(&self.include),
            exclude: under(&self.exclude),
        }
    }
}

/// One page of a list: the entries and the `meta` the API sends with them.
/// `query` holds the request's other parameters (its filters), kept in
/// every href of `meta` so that following `next` lists the same selection;
/// `meta.total` counts the entries that passed the filters.
pub fn paginate<T>(
    items: Vec<T>,
    page: u32,
    per_page: u32,
    path: &str,
    query: &[(&str, String)],
) -> (Vec<T>, types::Meta) {
    let per_page = per_page.clamp(1, MAX_PER_PAGE);
    let page = page.max(1);
    let total = items.len();
    let last_page = total.div_ceil(per_page as usize).max(1);
    let filters: String = query
        .iter()
        .map(|(k, v)| format!("{}={}&", percent_encode(k), percent_encode(v)))
        .collect();
    let href = |n: usize| types::Href {
        href: format!("{path}?{filters}page={n}&per_page={per_page}"),
    };
    let start = (page as usize - 1).saturating_mul(per_page as usize);
    let entries = items
        .into_iter()
        .skip(start)
        .take(per_page as usize)
        .collect();
    let page = page as usize;
    let meta = types::Meta {
        current_page: Some(page as i64),
        last_page: Some(last_page as i64),
        total: Some(total as i64),
        first: Some(href(1)),
        last: Some(href(last_page)),
        self_: Some(href(page)),
        next: (page < last_page).then(|| href(page + 1)),
        previous: (page > 1).then(|| href((page - 1).min(last_page))),
    };
    (entries, meta)
}

/// `text` percent-encoded for a query string: every byte but RFC 3986's
/// unreserved characters.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Whether `needle` occurs in `haystack`, ignoring ASCII case (the API's
/// partial-match filters: `hostname`, `search`, `query`).
pub fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    haystack
        .to_ascii_lowercase()
        .contains(&needle.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_matches_dotted_paths_and_nests() {
        let e = Expand::parse(Some("device.project, facility"), Some("plan"));
        assert!(e.includes("device"));
        assert!(e.includes("facility"));
        assert!(!e.includes("dev"));
        assert!(!e.includes("project"));
        assert!(e.nested("device").includes("project"));
        assert!(e.excludes("plan"));
        assert!(!e.nested("device").excludes("plan"));
    }

    #[test]
    fn pagination_meta_is_consistent() {
        let (page, meta) = paginate((0..25).collect(), 2, 10, "/p", &[]);
        assert_eq!(page, (10..20).collect::<Vec<_>>());
        assert_eq!(meta.current_page, Some(2));
        assert_eq!(meta.last_page, Some(3));
        assert_eq!(meta.total, Some(25));
        assert_eq!(meta.next.unwrap().href, "/p?page=3&per_page=10");
        assert_eq!(meta.previous.unwrap().href, "/p?page=1&per_page=10");
        assert_eq!(meta.self_.unwrap().href, "/p?page=2&per_page=10");

        let (page, meta) = paginate((0..25).collect::<Vec<i32>>(), 3, 10, "/p", &[]);
        assert_eq!(page.len(), 5);
        assert!(meta.next.is_none());

        let (page, meta) = paginate(Vec::<i32>::new(), 1, 10, "/p", &[]);
        assert!(page.is_empty());
        assert_eq!(meta.last_page, Some(1));
        assert!(meta.next.is_none() && meta.previous.is_none());
    }

    #[test]
    fn hrefs_keep_the_filters_encoded() {
        let query = [
            ("tag", "a b&c".to_string()),
            ("hostname", "web".to_string()),
        ];
        let (page, meta) = paginate((0..3).collect::<Vec<i32>>(), 1, 2, "/p", &query);
        assert_eq!(page, vec![0, 1]);
        assert_eq!(meta.total, Some(3));
        assert_eq!(
            meta.next.unwrap().href,
            "/p?tag=a%20b%26c&hostname=web&page=2&per_page=2"
        );
    }

    #[test]
    fn partial_matches_ignore_case() {
        assert!(contains_ignoring_case("Web-01", "web"));
        assert!(!contains_ignoring_case("db-01", "web"));
    }
}
