//! Complete pagination: a list follows `meta` (`last_page`, else `next`)
//! to the end, each page retried on its own within one deadline for the
//! whole list, and entries seen on an earlier page dropped.

use std::collections::HashSet;
use std::future::Future;

use futures::stream::{self, BoxStream, StreamExt};
use metal_api::{types, ResponseValue};
use tokio::time::Instant;
use uuid::Uuid;

use super::call::{send, CallOptions, Failure};
use super::Client;
use crate::error::Error;

/// The most pages a list follows before stopping (protects against a
/// server whose `meta` never ends).
const MAX_PAGES: u32 = 100_000;

impl Client {
    /// Streams the pages `fetch(api, page, per_page)` returns, each split
    /// into its entries and `meta` by `split`; `id` names an entry, to drop
    /// repeats.
    pub(crate) fn pages<'a, T, L, F, Fut>(
        &'a self,
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
            page: u32,
            done: bool,
            seen: HashSet<Uuid>,
            deadline: Option<Option<Instant>>,
            fetch: F,
        }
        let state = State {
            page: 1,
            done: false,
            seen: HashSet::new(),
            deadline: None,
            fetch,
        };
        let per_page = self.inner.per_page;
        let options = CallOptions::default();
        stream::unfold(state, move |mut st| async move {
            if st.done {
                return None;
            }
            let deadline = *st
                .deadline
                .get_or_insert_with(|| self.deadline_for(&options));
            let page_number = st.page;
            let fetch = &st.fetch;
            let page = self
                .run_until(None, options, deadline, |at| {
                    let reply = fetch(at.api, page_number, per_page);
                    async move { send(reply).await.map(split).map_err(Failure::Attempt) }
                })
                .await;
            match page {
                Err(e) => {
                    st.done = true;
                    Some((Err(e), st))
                }
                Ok((items, meta)) => {
                    let got = items.len();
                    let fresh: Vec<T> = items
                        .into_iter()
                        .filter(|t| id(t).is_none_or(|i| st.seen.insert(i)))
                        .collect();
                    st.done = !has_next(st.page, meta.as_ref(), got);
                    st.page += 1;
                    Some((Ok(fresh), st))
                }
            }
        })
        .boxed()
    }
}

/// Whether a list continues after `page`, by its `meta`: `last_page` when
/// given, else the presence of `next`. An empty page ends the list.
pub(crate) fn has_next(page: u32, meta: Option<&types::Meta>, got: usize) -> bool {
    let Some(meta) = meta else { return false };
    if got == 0 || page >= MAX_PAGES {
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

    #[test]
    fn has_next_follows_meta() {
        let meta = |last_page: Option<i64>, next: bool| types::Meta {
            last_page,
            next: next.then(|| types::Href {
                href: "/x?page=2".into(),
            }),
            ..Default::default()
        };
        assert!(has_next(1, Some(&meta(Some(3), false)), 5));
        assert!(!has_next(3, Some(&meta(Some(3), true)), 5));
        assert!(has_next(1, Some(&meta(None, true)), 5));
        assert!(!has_next(1, Some(&meta(None, false)), 5));
        assert!(!has_next(1, None, 5));
        assert!(
            !has_next(1, Some(&meta(Some(9), true)), 0),
            "empty page ends"
        );
    }
}
