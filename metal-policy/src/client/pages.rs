//! Complete pagination: a list follows `meta` (`last_page`, else `next`)
//! to the end, each page retried on its own within one deadline for the
//! whole list, and entries seen on an earlier page dropped.
//!
//! A list is bounded by its entries, not its pages: one that grows past
//! [`crate::ClientBuilder::max_list_entries`] distinct entries ends with
//! [`Error::ListTooLong`], and one whose page adds no entry the earlier
//! pages lacked, while `meta` says more follow, ends with
//! [`Error::PageRepeats`] (a server that repeats itself would otherwise be
//! followed until the deadline, page after page). An empty page ends a
//! list.

use std::collections::HashSet;
use std::future::Future;

use futures::stream::{self, BoxStream, StreamExt};
use futures::FutureExt;
use metal_api::{types, Operation, ResponseValue};
use tokio::time::Instant;
use uuid::Uuid;

use super::call::{CallOptions, Deadline, Failure, Named};
use super::Client;
use crate::error::Error;
use crate::retry::decision::Idempotency;

/// What a list has taken so far: the page it is at, the entries it has
/// seen, and its bound.
pub(crate) struct Pager {
    operation: &'static Operation,
    page: u32,
    entries: usize,
    max_entries: usize,
    seen: HashSet<Uuid>,
}

impl Pager {
    /// A list of `operation` from its first page, of at most
    /// `max_entries` distinct entries.
    pub(crate) fn new(operation: &'static Operation, max_entries: usize) -> Self {
        Self {
            operation,
            page: 1,
            entries: 0,
            max_entries,
            seen: HashSet::new(),
        }
    }

    /// The page to fetch next.
    pub(crate) fn page(&self) -> u32 {
        self.page
    }

    /// Takes the page just fetched: its entries not seen before, and
    /// whether the list goes on; or the error that ends it.
    pub(crate) fn take<T>(
        &mut self,
        items: Vec<T>,
        meta: Option<&types::Meta>,
        id: fn(&T) -> Option<Uuid>,
    ) -> Result<(Vec<T>, bool), Error> {
        let got = items.len();
        let fresh: Vec<T> = items
            .into_iter()
            .filter(|t| id(t).is_none_or(|i| self.seen.insert(i)))
            .collect();
        let more = has_next(self.page, meta, got);
        if more && fresh.is_empty() {
            return Err(Error::PageRepeats {
                operation: self.operation.id,
                page: self.page,
            });
        }
        self.entries = self.entries.saturating_add(fresh.len());
        if self.entries > self.max_entries {
            return Err(Error::ListTooLong {
                operation: self.operation.id,
                limit: self.max_entries,
                page: self.page,
            });
        }
        self.page = self.page.saturating_add(1);
        Ok((fresh, more))
    }
}

/// How a list is paged: its page size, and how many pages it may take.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Bounds {
    /// Entries per page; the client's `per_page` when `None`.
    pub(crate) per_page: Option<u32>,
    /// The most pages; no bound but the entries' when `None`.
    pub(crate) max_pages: Option<u32>,
}

impl Client {
    /// Streams the pages of `operation` that `fetch(api, page, per_page)`
    /// returns, each split into its entries and `meta` by `split`; `id`
    /// names an entry, to drop repeats.
    pub(crate) fn pages<'a, T, L, F, Fut>(
        &'a self,
        operation: &'static Operation,
        fetch: F,
        split: fn(L) -> (Vec<T>, Option<types::Meta>),
        id: fn(&T) -> Option<Uuid>,
    ) -> BoxStream<'a, Result<Vec<T>, Error>>
    where
        T: Send + 'a,
        L: Send + 'a,
        F: Fn(&'a metal_api::Client, u32, u32) -> Fut + Send + Sync + 'a,
        Fut: Future<Output = Result<ResponseValue<L>, metal_api::Error<types::Error>>> + Send + 'a,
    {
        self.pages_bounded(operation, Bounds::default(), fetch, split, id)
    }

    /// [`Client::pages`] with `bounds`: their `per_page` instead of the
    /// client's, and after `max_pages` pages a last item
    /// [`Error::TooManyPages`] when the list announces more.
    pub(crate) fn pages_bounded<'a, T, L, F, Fut>(
        &'a self,
        operation: &'static Operation,
        bounds: Bounds,
        fetch: F,
        split: fn(L) -> (Vec<T>, Option<types::Meta>),
        id: fn(&T) -> Option<Uuid>,
    ) -> BoxStream<'a, Result<Vec<T>, Error>>
    where
        T: Send + 'a,
        L: Send + 'a,
        F: Fn(&'a metal_api::Client, u32, u32) -> Fut + Send + Sync + 'a,
        Fut: Future<Output = Result<ResponseValue<L>, metal_api::Error<types::Error>>> + Send + 'a,
    {
        struct State<F> {
            pager: Pager,
            done: bool,
            /// The page bound cut the list: its error comes next.
            cut: bool,
            deadline: Option<Option<Instant>>,
            fetch: F,
        }
        let state = State {
            pager: Pager::new(operation, self.inner.max_list_entries),
            done: false,
            cut: false,
            deadline: None,
            fetch,
        };
        let per_page = bounds.per_page.unwrap_or(self.inner.per_page).max(1);
        let max_pages = bounds.max_pages.unwrap_or(u32::MAX).max(1);
        let options = CallOptions::default();
        let named = Some(Named {
            operation,
            idempotency: Idempotency::Idempotent,
        });
        stream::unfold(state, move |mut st| async move {
            if st.cut {
                st.cut = false;
                st.done = true;
                let cut = Error::TooManyPages {
                    operation: operation.id,
                    limit: max_pages,
                };
                return Some((Err(cut), st));
            }
            if st.done {
                return None;
            }
            let deadline = *st
                .deadline
                .get_or_insert_with(|| self.deadline_for(&options));
            let page_number = st.pager.page();
            let fetch = &st.fetch;
            let page = self
                .run_until(named, options, Deadline::Shared(deadline), |at| {
                    fetch(at.api, page_number, per_page)
                        .map(move |result| at.reply(result).map(split).map_err(Failure::Attempt))
                })
                .await
                .and_then(|(items, meta)| st.pager.take(items, meta.as_ref(), id));
            match page {
                Err(e) => {
                    st.done = true;
                    Some((Err(e), st))
                }
                Ok((fresh, more)) => {
                    st.done = !more;
                    st.cut = more && page_number >= max_pages;
                    Some((Ok(fresh), st))
                }
            }
        })
        .boxed()
    }
}

/// Whether a list continues after `page`, by its `meta`: `last_page` when
/// given, else the presence of `next`. An empty page ends the list.
fn has_next(page: u32, meta: Option<&types::Meta>, got: usize) -> bool {
    let Some(meta) = meta else { return false };
    if got == 0 {
        return false;
    }
    match meta.last_page {
        Some(last) => i64::from(page) < last,
        None => meta.next.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metal_api::operation::FIND_PROJECT_DEVICES;

    fn meta(last_page: Option<i64>, next: bool) -> types::Meta {
        types::Meta {
            last_page,
            next: next.then(|| types::Href {
                href: "/x?page=2".into(),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn has_next_follows_meta() {
        assert!(has_next(1, Some(&meta(Some(3), false)), 5));
        assert!(!has_next(3, Some(&meta(Some(3), true)), 5));
        assert!(has_next(1, Some(&meta(None, true)), 5));
        assert!(!has_next(1, Some(&meta(None, false)), 5));
        assert!(!has_next(1, None, 5));
        assert!(
            !has_next(1, Some(&meta(Some(9), true)), 0),
            "empty page ends"
        );
        assert!(has_next(u32::MAX, Some(&meta(Some(i64::MAX), false)), 1));
    }

    fn ids(n: usize) -> Vec<Option<Uuid>> {
        (0..n).map(|_| Some(Uuid::new_v4())).collect()
    }

    #[test]
    fn a_pager_drops_repeats_and_stops_a_page_that_adds_nothing() {
        let mut p = Pager::new(&FIND_PROJECT_DEVICES, 100);
        let first = ids(3);
        let endless = meta(Some(i64::MAX), true);
        let (fresh, more) = p.take(first.clone(), Some(&endless), |i| *i).unwrap();
        assert_eq!((fresh.len(), more, p.page()), (3, true, 2));
        // One repeat and one new entry: the new one only.
        let (fresh, more) = p
            .take(vec![first[0], None], Some(&endless), |i| *i)
            .unwrap();
        assert_eq!((fresh, more), (vec![None], true));
        // Nothing new, and meta says more follow.
        let err = p.take(first.clone(), Some(&endless), |i| *i).unwrap_err();
        assert!(
            matches!(
                err,
                Error::PageRepeats {
                    operation: "findProjectDevices",
                    page: 3
                }
            ),
            "{err:?}"
        );
        // A last page of repeats just ends the list.
        let mut p = Pager::new(&FIND_PROJECT_DEVICES, 100);
        p.take(first.clone(), Some(&meta(Some(2), false)), |i| *i)
            .unwrap();
        let (fresh, more) = p.take(first, Some(&meta(Some(2), false)), |i| *i).unwrap();
        assert_eq!((fresh.len(), more), (0, false));
    }

    #[test]
    fn a_pager_bounds_the_entries_of_one_list() {
        let mut p = Pager::new(&FIND_PROJECT_DEVICES, 5);
        let endless = meta(None, true);
        p.take(ids(3), Some(&endless), |i| *i).unwrap();
        p.take(ids(2), Some(&endless), |i| *i).unwrap();
        let err = p.take(ids(1), Some(&endless), |i| *i).unwrap_err();
        assert!(
            matches!(
                err,
                Error::ListTooLong {
                    operation: "findProjectDevices",
                    limit: 5,
                    page: 3
                }
            ),
            "{err:?}"
        );
    }
}
