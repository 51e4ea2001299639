//! What every list shares: which page a request asks for, how its entries
//! are rendered, the filters it gave (echoed in the hrefs of `meta`), and
//! the query parameters lists read (booleans, enumerations).
//!
//! The filters each list honours, and where their meaning comes from, are
//! in [`crate::fidelity`].

use serde::Serialize;
use uuid::Uuid;

use super::project;
use super::render::{paginate, Expand, Href, Meta, DEFAULT_PER_PAGE};
use super::World;
use crate::call::{ApiError, Call};

/// Which page of a list a request asks for, how its entries are rendered,
/// and the filters it gave.
pub(crate) struct Listing {
    page: u32,
    per_page: u32,
    pub(crate) expand: Expand,
    echo: Vec<(&'static str, String)>,
}

impl Listing {
    /// Reads `page`, `per_page`, `include`, `exclude` and, to echo, the
    /// filters named in `filters` (and `include`, `exclude`).
    pub(crate) fn of(call: &Call, filters: &[&'static str]) -> Result<Self, ApiError> {
        Ok(Self {
            page: call.number("page", 1)?,
            per_page: call.number("per_page", DEFAULT_PER_PAGE)?,
            expand: Expand::parse(
                call.text("include").as_deref(),
                call.text("exclude").as_deref(),
            ),
            echo: filters
                .iter()
                .chain(&["include", "exclude"])
                // Echoed, not honoured: the filters' own readers count.
                .filter_map(|name| {
                    let v = call.peek(name).filter(|v| !v.is_empty())?;
                    Some((*name, v.to_string()))
                })
                .collect(),
        })
    }

    /// As [`Listing::of`], for a list whose page size defaults to
    /// `per_page` (the spec's default for it) instead of the fake's.
    pub(crate) fn of_per_page(
        call: &Call,
        filters: &[&'static str],
        per_page: u32,
    ) -> Result<Self, ApiError> {
        Ok(Self {
            per_page: call.number("per_page", per_page)?,
            ..Self::of(call, filters)?
        })
    }
}

/// The page a request of a list without `meta` asks for (the spec's
/// `MembershipList`, `PaymentMethodList`, `SelfServiceReservationList`
/// have none): `page` and `per_page` when either is given; else the whole
/// list, since a client that cannot see `meta` cannot ask for more.
pub(crate) struct Cut {
    asked: Option<(u32, u32)>,
}

impl Cut {
    /// Reads `page` and `per_page`; anything but a whole number is `422`.
    pub(crate) fn of(call: &Call) -> Result<Self, ApiError> {
        let asked = call.query("page").is_some() || call.query("per_page").is_some();
        let page = call.number("page", 1)?;
        let per_page = call.number("per_page", DEFAULT_PER_PAGE)?;
        Ok(Self {
            asked: asked.then_some((page, per_page)),
        })
    }

    /// The entries of `items` (in the list's order) on the page asked for.
    pub(crate) fn cut<T>(&self, items: Vec<T>) -> Vec<T> {
        let Some((page, per_page)) = self.asked else {
            return items;
        };
        let (range, _) = paginate(items.len(), page, per_page, &"", &[]);
        items
            .into_iter()
            .skip(range.start)
            .take(range.len())
            .collect()
    }
}

/// Whether a plan of the fake is in one of `categories` (a list's
/// `categories` filter: the spec's `compute`, `storage`, `vmce`,
/// `legacy_gen`, `current_gen`): every plan of the fake is a compute plan
/// of the current generation, as its plans show (`categories: compute`).
pub(crate) fn plan_in_categories(categories: &[&str]) -> bool {
    categories.is_empty()
        || categories
            .iter()
            .any(|c| *c == "compute" || *c == "current_gen")
}

/// The categories of a list's `categories` filter, each one of the spec's,
/// else `422`.
pub(crate) fn categories<'c>(call: &'c Call, name: &str) -> Result<Vec<&'c str>, ApiError> {
    const KNOWN: &[&str] = &["compute", "storage", "vmce", "legacy_gen", "current_gen"];
    let listed = call.list(name);
    match listed.iter().find(|c| !KNOWN.contains(c)) {
        Some(c) => Err(ApiError::unprocessable(format!(
            "{name}: {c:?} is none of {}",
            KNOWN.join(", ")
        ))),
        None => Ok(listed),
    }
}

impl Listing {
    /// As [`Listing::of`], for a list the spec gives no `page` or
    /// `per_page` (a generated client reads one page): the whole list in
    /// one page (up to the largest page) unless the call pages it.
    pub(crate) fn unpaged(call: &Call, filters: &[&'static str]) -> Result<Self, ApiError> {
        Self::of_per_page(call, filters, super::render::MAX_PER_PAGE)
    }
}

/// One page of a project's list: the entries under the list's own key
/// (`devices`), and `meta`.
pub(crate) struct Page<T> {
    key: &'static str,
    pub(crate) items: Vec<T>,
    meta: Meta,
}

impl<T: Serialize> Serialize for Page<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry(self.key, &self.items)?;
        map.serialize_entry("meta", &self.meta)?;
        map.end()
    }
}

impl World {
    /// One page of `recs` (a project's records that passed a list's
    /// filters), ordered by `seq`, each rendered by `render`, under `key`;
    /// `404` when the project does not exist.
    pub(crate) fn page_of<'w, R: 'w, T>(
        &self,
        project: Uuid,
        (key, collection): (&'static str, &'static str),
        recs: impl Iterator<Item = &'w R>,
        seq: impl Fn(&R) -> u64,
        listing: &Listing,
        render: impl Fn(&'w R) -> T,
    ) -> Result<Page<T>, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        let path = format_args!("{}/{collection}", Href::new(project::COLLECTION, project));
        Ok(page(key, &path, recs, seq, listing, render))
    }
}

/// One page of `recs` (the records that passed a list's filters) at
/// `path`, ordered by `seq`, each rendered by `render`, under `key`.
pub(crate) fn page<'w, R: 'w, T>(
    key: &'static str,
    path: &dyn std::fmt::Display,
    recs: impl Iterator<Item = &'w R>,
    seq: impl Fn(&R) -> u64,
    listing: &Listing,
    render: impl Fn(&'w R) -> T,
) -> Page<T> {
    // Each record with its key: its `seq`, then its place in `recs` (so
    // equal `seq`s keep their order, as a stable sort would).
    let mut recs: Vec<(u64, usize, &R)> = recs.enumerate().map(|(i, r)| (seq(r), i, r)).collect();
    let (range, meta) = paginate(
        recs.len(),
        listing.page,
        listing.per_page,
        path,
        &listing.echo,
    );
    in_order(&mut recs, range.clone());
    Page {
        key,
        items: recs[range].iter().map(|&(_, _, r)| render(r)).collect(),
        meta,
    }
}

/// Puts `keyed[range]` in the order a sort of the whole of `keyed` would
/// give it, sorting the page alone: each page of a list of 100,000 is then
/// linear in the list (two selections), not a sort of the whole list.
fn in_order<K: Ord + Copy, R>(keyed: &mut [(K, usize, R)], range: std::ops::Range<usize>) {
    let key = |k: &(K, usize, R)| (k.0, k.1);
    if range.end < keyed.len() {
        keyed.select_nth_unstable_by_key(range.end, key);
    }
    let head = &mut keyed[..range.end];
    if range.start < head.len() && range.start > 0 {
        head.select_nth_unstable_by_key(range.start, key);
    }
    if let Some(page) = head.get_mut(range.start..) {
        page.sort_unstable_by_key(key);
    }
}

/// A boolean query parameter: `true` or `false`, else `422`.
pub(crate) fn flag(call: &Call, name: &str) -> Result<Option<bool>, ApiError> {
    match call.text(name).as_deref() {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(_) => Err(ApiError::unprocessable(format!(
            "{name} must be true or false"
        ))),
    }
}

/// A boolean flag given in the query (as the spec has it) or as a field of
/// the JSON body (as packngo sends `bulk_enable`, `force_delete` and
/// `force_termination`): the query's first, then the body's; `true` or
/// `false`, else `422`. An empty body, `null` or a body without the field
/// give `None`.
pub(crate) fn flag_in_query_or_body(call: &Call, name: &str) -> Result<Option<bool>, ApiError> {
    if let Some(b) = flag(call, name)? {
        return Ok(Some(b));
    }
    if call.body().iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    match call.json_value()?.get(name) {
        None => Ok(None),
        Some(serde_json::Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ApiError::unprocessable(format!(
            "{name} must be true or false"
        ))),
    }
}

/// An enumerated query parameter: one of `allowed`, else `422`.
pub(crate) fn one_of(
    call: &Call,
    name: &str,
    allowed: &[&str],
) -> Result<Option<String>, ApiError> {
    match call.text(name) {
        Some(v) if !allowed.contains(&v.as_str()) => Err(ApiError::unprocessable(format!(
            "{name} must be one of {}",
            allowed.join(", ")
        ))),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::in_order;

    #[test]
    fn a_page_put_in_order_alone_is_the_same_page_of_the_whole_list_sorted() {
        // Keys with repeats (so the tie-break by place is exercised), in a
        // scrambled order.
        let keys: Vec<u64> = (0..97u64).map(|i| (i * 37 + 11) % 23).collect();
        let keyed = || -> Vec<(u64, usize, char)> {
            keys.iter()
                .enumerate()
                .map(|(i, &k)| (k, i, char::from(b'a' + (i % 26) as u8)))
                .collect()
        };
        let mut sorted = keyed();
        sorted.sort_by_key(|&(k, _, _)| k);
        for per_page in [1, 5, 10, 97, 100] {
            for start in (0..=keys.len()).step_by(per_page) {
                let range = start..(start + per_page).min(keys.len());
                let mut page = keyed();
                in_order(&mut page, range.clone());
                assert_eq!(page[range.clone()], sorted[range], "per_page {per_page}");
            }
        }
    }
}
