//! How the API shapes replies, for every resource's view: `include` and
//! `exclude` (what is not included is an `{"href": ...}` stub), hrefs
//! written without allocating, pagination with a `meta` object, and the
//! reply body written straight to bytes from a view.

use std::fmt;

use serde::{Serialize, Serializer};
use uuid::Uuid;

use crate::call::{ApiError, Reply};

/// The path prefix of every API href.
pub(crate) const API_PREFIX: &str = "/metal/v1";

/// The largest `per_page` the fake serves; larger values are clamped.
pub(crate) const MAX_PER_PAGE: u32 = 1000;

/// The `per_page` used when a request gives none.
pub(crate) const DEFAULT_PER_PAGE: u32 = 10;

/// A view written as a reply body, straight to bytes.
pub(crate) fn reply<T: Serialize + ?Sized>(view: &T) -> Result<Reply, ApiError> {
    super::json::to_vec(view)
        .map(|body| Reply::Json(body.into()))
        .map_err(|e| ApiError::new(500, format!("metal-fake: encoding the reply: {e}")))
}

/// A timestamp as the API (and chrono's serde) writes it, RFC 3339 in UTC
/// with as many fractional digits as it needs (none, 3, 6 or 9), written
/// without `chrono`'s formatting machinery.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stamp(pub(crate) chrono::DateTime<chrono::Utc>);

impl Stamp {
    /// The text, in `buf`: `YYYY-MM-DDTHH:MM:SS[.fff[fff[fff]]]Z`; `None`
    /// outside years 0 to 9999.
    fn write(self, buf: &mut [u8; 30]) -> Option<&str> {
        /// Writes `value` in `width` digits at `at`; returns the end.
        fn put(b: &mut [u8; 30], at: usize, value: u64, width: usize) -> usize {
            let mut v = value;
            for i in (0..width).rev() {
                b[at + i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
            at + width
        }
        let secs = self.0.timestamp();
        let days = secs.div_euclid(86_400);
        let of_day = secs.rem_euclid(86_400) as u64;
        // Howard Hinnant's days-to-civil: the proleptic Gregorian date of
        // a day count since 1970-01-01.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        if !(0..=9999).contains(&year) {
            return None;
        }
        *buf = *b"0000-00-00T00:00:00.000000000Z";
        put(buf, 0, year as u64, 4);
        put(buf, 5, month as u64, 2);
        put(buf, 8, day as u64, 2);
        put(buf, 11, of_day / 3600, 2);
        put(buf, 14, of_day / 60 % 60, 2);
        put(buf, 17, of_day % 60, 2);
        let nanos = self.0.timestamp_subsec_nanos() % 1_000_000_000;
        let (fraction, width) = if nanos == 0 {
            (0, 0)
        } else if nanos.is_multiple_of(1_000_000) {
            (nanos / 1_000_000, 3)
        } else if nanos.is_multiple_of(1000) {
            (nanos / 1000, 6)
        } else {
            (nanos, 9)
        };
        let mut n = 19;
        if width > 0 {
            buf[19] = b'.';
            n = put(buf, 20, u64::from(fraction), width);
        }
        buf[n] = b'Z';
        // Only ASCII digits and punctuation were written.
        std::str::from_utf8(&buf[..=n]).ok()
    }
}

impl fmt::Display for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.write(&mut [0; 30]) {
            Some(text) => f.write_str(text),
            // Outside four-digit years: chrono's own text.
            None => f.write_str(&self.0.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        }
    }
}

impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.write(&mut [0; 30]) {
            Some(text) => s.serialize_str(text),
            None => s.collect_str(self),
        }
    }
}

/// The href of one thing, `/metal/v1/<collection>/<id>`, serialized as a
/// string without an intermediate allocation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Href {
    collection: &'static str,
    id: Uuid,
}

impl Href {
    pub(crate) fn new(collection: &'static str, id: Uuid) -> Self {
        Self { collection, id }
    }
}

impl fmt::Display for Href {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{API_PREFIX}/{}/{}", self.collection, self.id)
    }
}

impl Serialize for Href {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // `/metal/v1/` + the longest collection + `/` + a UUID fits.
        let mut buf = [0u8; 96];
        let mut n = 0;
        for part in [API_PREFIX, "/", self.collection, "/"] {
            let end = n + part.len();
            if end > buf.len() - uuid::fmt::Hyphenated::LENGTH {
                return s.collect_str(self);
            }
            buf[n..end].copy_from_slice(part.as_bytes());
            n = end;
        }
        let id = self.id.hyphenated().encode_lower(&mut buf[n..]).len();
        match std::str::from_utf8(&buf[..n + id]) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.collect_str(self),
        }
    }
}

/// An `{"href": ...}` stub: a thing not included.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Stub {
    pub(crate) href: Href,
}

impl Stub {
    pub(crate) fn new(collection: &'static str, id: Uuid) -> Self {
        Self {
            href: Href::new(collection, id),
        }
    }

    /// Links to `things` of `collection`, oldest first: `key` gives each
    /// one's place in creation order and its ID.
    pub(crate) fn oldest_first<T>(
        collection: &'static str,
        things: impl IntoIterator<Item = T>,
        key: impl Fn(&T) -> (u64, Uuid),
    ) -> Vec<Self> {
        let mut keys: Vec<(u64, Uuid)> = things.into_iter().map(|t| key(&t)).collect();
        keys.sort_unstable();
        keys.into_iter()
            .map(|(_, id)| Self::new(collection, id))
            .collect()
    }
}

/// A thing where another record names it: whole (included), or an
/// `{"href": ...}` stub. One type serves every `include`.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Whole<T> {
    /// Included: the whole thing.
    Full(Box<T>),
    /// Not included: its href.
    Stub(Stub),
}

/// The first 8 hex digits of an ID (`short_id`), written without
/// allocating.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShortId(pub(crate) Uuid);

impl fmt::Display for ShortId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 8];
        f.write_str(hex(u64::from((self.0.as_u128() >> 96) as u32), &mut buf))
    }
}

/// `value`'s low `buf.len()` hex digits, lower case, zero-padded.
pub(crate) fn hex(value: u64, buf: &mut [u8]) -> &str {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut v = value;
    for b in buf.iter_mut().rev() {
        *b = DIGITS[(v & 0xf) as usize];
        v >>= 4;
    }
    // Only hex digits were written.
    std::str::from_utf8(buf).unwrap_or_default()
}

impl Serialize for ShortId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// An empty JSON array, for the arrays the API always sends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Empty;

impl Serialize for Empty {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(std::iter::empty::<()>())
    }
}

/// The parsed `include` and `exclude` of one request, possibly narrowed to
/// a nested object (`include=device.project` seen from the device).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Expand {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl Expand {
    /// Parses comma-separated `include` and `exclude` values.
    pub(crate) fn parse(include: Option<&str>, exclude: Option<&str>) -> Self {
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

    /// Whether the request names nothing to include or exclude.
    pub(crate) fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    /// The names to include, comma-joined as a query gives them; `None`
    /// when there are none.
    pub(crate) fn include_text(&self) -> Option<String> {
        (!self.include.is_empty()).then(|| self.include.join(","))
    }

    /// The names to exclude, comma-joined; `None` when there are none.
    pub(crate) fn exclude_text(&self) -> Option<String> {
        (!self.exclude.is_empty()).then(|| self.exclude.join(","))
    }

    /// Whether `name` is included (itself or something under it).
    pub(crate) fn includes(&self, name: &str) -> bool {
        self.include.iter().any(|i| {
            i == name
                || i.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    /// Whether `name` is excluded.
    pub(crate) fn excludes(&self, name: &str) -> bool {
        self.exclude.iter().any(|e| e == name)
    }

    /// The names included, as given.
    pub(crate) fn included(&self) -> impl Iterator<Item = &str> {
        self.include.iter().map(String::as_str)
    }

    /// The names excluded, as given.
    pub(crate) fn excluded(&self) -> impl Iterator<Item = &str> {
        self.exclude.iter().map(String::as_str)
    }

    /// The names that reach inside a whole thing `name` names, already
    /// in the reply: those under it (`name.x`), and every plain name (one
    /// without a dot), which the real API applied at any depth
    /// (`include=virtual_networks` reaches each network port's
    /// `virtual_networks`, `include=project` each circuit's `project`).
    pub(crate) fn descend(&self, name: &str) -> Self {
        let mut inner = self.nested(name);
        let plain = |list: &[String], into: &mut Vec<String>| {
            for n in list.iter().filter(|n| !n.contains('.')) {
                if !into.contains(n) {
                    into.push(n.clone());
                }
            }
        };
        plain(&self.include, &mut inner.include);
        plain(&self.exclude, &mut inner.exclude);
        inner
    }

    /// The names under `name`, seen from inside it.
    pub(crate) fn nested(&self, name: &str) -> Self {
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

/// The `meta` of one page of a list.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Meta {
    current_page: usize,
    last_page: usize,
    total: usize,
    first: PageLink,
    last: PageLink,
    #[serde(rename = "self")]
    self_: PageLink,
    /// `null` on the last page, as the real API sent it: packngo's list
    /// loops decode every page into one struct, so a `next` left out
    /// would keep the previous page's and page forever.
    next: Option<PageLink>,
    /// `null` on the first page.
    previous: Option<PageLink>,
}

impl Meta {
    /// The `next` href, if there is a next page.
    #[cfg(test)]
    fn next_href(&self) -> Option<String> {
        self.next.as_ref().map(|l| l.href.clone())
    }
}

/// `{"href": ...}` of one page.
#[derive(Clone, Debug, Serialize)]
struct PageLink {
    href: String,
}

/// One page of a list: which of `total` entries it holds, and the `meta`
/// the API sends with them. `query` holds the request's other parameters
/// (its filters), kept in every href of `meta` so that following `next`
/// lists the same selection; `meta.total` counts the entries that passed
/// the filters. Each href is the list's path below the API's root
/// (`/projects/{id}/devices?...`, not `/metal/v1/projects/...`), as
/// packngo follows it: it keeps the path, drops the leading `/` and
/// resolves it against its base URL, which ends in `/metal/v1/` (its
/// `nextPage` and `NewRequest`; its own paging test,
/// `TestHardwareReservationServiceOp_List`, answers `next` as the path it
/// was asked for, below the base URL).
pub(crate) fn paginate(
    total: usize,
    page: u32,
    per_page: u32,
    path: &dyn fmt::Display,
    query: &[(&str, String)],
) -> (std::ops::Range<usize>, Meta) {
    let per_page = per_page.clamp(1, MAX_PER_PAGE) as usize;
    let page = (page.max(1)) as usize;
    let last_page = total.div_ceil(per_page).max(1);
    let mut filters = String::new();
    for (k, v) in query {
        percent_encode(&mut filters, k);
        filters.push('=');
        percent_encode(&mut filters, v);
        filters.push('&');
    }
    let path = path.to_string();
    let path = path.strip_prefix(API_PREFIX).unwrap_or(&path);
    let link = |n: usize| PageLink {
        href: format!("{path}?{filters}page={n}&per_page={per_page}"),
    };
    let start = (page - 1).saturating_mul(per_page).min(total);
    let end = start.saturating_add(per_page).min(total);
    let meta = Meta {
        current_page: page,
        last_page,
        total,
        first: link(1),
        last: link(last_page),
        self_: link(page),
        next: (page < last_page).then(|| link(page + 1)),
        previous: (page > 1).then(|| link((page - 1).min(last_page))),
    };
    (start..end, meta)
}

/// Appends `text` percent-encoded for a query string: every byte but RFC
/// 3986's unreserved characters.
fn percent_encode(out: &mut String, text: &str) {
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            _ => {
                use fmt::Write as _;
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
}

/// Whether `needle` occurs in `haystack`, ignoring ASCII case (the API's
/// partial-match filters: `hostname`, `search`, `query`).
pub(crate) fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
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
        let (range, meta) = paginate(25, 2, 10, &"/p", &[]);
        assert_eq!(range, 10..20);
        assert_eq!((meta.current_page, meta.last_page, meta.total), (2, 3, 25));
        assert_eq!(meta.next_href().unwrap(), "/p?page=3&per_page=10");
        assert_eq!(meta.previous.unwrap().href, "/p?page=1&per_page=10");
        assert_eq!(meta.self_.href, "/p?page=2&per_page=10");

        let (range, meta) = paginate(25, 3, 10, &"/p", &[]);
        assert_eq!(range.len(), 5);
        assert!(meta.next.is_none());

        let (range, meta) = paginate(0, 1, 10, &"/p", &[]);
        assert!(range.is_empty());
        assert_eq!(meta.last_page, 1);
        assert!(meta.next.is_none() && meta.previous.is_none());

        let (range, _) = paginate(5, 9, 10, &"/p", &[]);
        assert!(range.is_empty(), "a page past the last is empty");
    }

    #[test]
    fn hrefs_keep_the_filters_encoded() {
        let query = [
            ("tag", "a b&c".to_string()),
            ("hostname", "web".to_string()),
        ];
        let (range, meta) = paginate(3, 1, 2, &"/p", &query);
        assert_eq!(range, 0..2);
        assert_eq!(meta.total, 3);
        assert_eq!(
            meta.next_href().unwrap(),
            "/p?tag=a%20b%26c&hostname=web&page=2&per_page=2"
        );
    }

    #[test]
    fn partial_matches_ignore_case() {
        assert!(contains_ignoring_case("Web-01", "web"));
        assert!(contains_ignoring_case("Web-01", ""));
        assert!(!contains_ignoring_case("db-01", "web"));
        assert!(!contains_ignoring_case("w", "web"));
    }

    #[test]
    fn stamps_are_written_as_chrono_writes_them() {
        for nanos in [0, 5, 120_000_000, 123_456_000, 123_456_789, 999_999_999] {
            let t = chrono::DateTime::from_timestamp(1_764_583_901, nanos).unwrap();
            assert_eq!(
                serde_json::to_value(Stamp(t)).unwrap(),
                serde_json::to_value(t).unwrap(),
                "{nanos} ns"
            );
        }
        // Across the calendar: leap days, centuries, the epoch, before it,
        // and years chrono writes otherwise.
        for secs in [
            -62_000_000_000,
            -86_401,
            -1,
            0,
            951_782_400,
            951_868_799,
            4_107_542_399,
            253_402_300_799,
            253_402_300_800,
        ] {
            let t = chrono::DateTime::from_timestamp(secs, 0).unwrap();
            assert_eq!(
                serde_json::to_value(Stamp(t)).unwrap(),
                serde_json::to_value(t).unwrap(),
                "{secs} s"
            );
            assert_eq!(Stamp(t).to_string(), serde_json::to_value(t).unwrap());
        }
    }

    #[test]
    fn hrefs_and_short_ids_are_written_as_the_api_writes_them() {
        let id = Uuid::from_u128(0x0d00_0000_0000_4000_8000_0000_0000_0001);
        let v = serde_json::to_value(Stub::new("devices", id)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"href": format!("/metal/v1/devices/{id}")})
        );
        assert_eq!(serde_json::to_value(ShortId(id)).unwrap(), "0d000000");
        assert_eq!(serde_json::to_string(&Empty).unwrap(), "[]");
    }
}
