//! What an operation reads of the query. Which parameters a call's
//! reading reads is counted where every read goes
//! ([`crate::Call::query`]), in tests only; a parameter an operation does
//! not read is declared with it ([`crate::model::Modelled::unread`]) as
//! an [`Unread`], with why. The coverage test (`crate::coverage`) checks
//! the two against the spec.

#[cfg(test)]
use std::cell::RefCell;
#[cfg(test)]
use std::collections::BTreeSet;

/// A query parameter of the spec that an operation does not read, and
/// why: what it changes is nothing the fake's world has (a list that is
/// always empty, a create's page).
#[derive(Clone, Copy, Debug)]
// Read by the coverage test alone.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Unread {
    /// The parameter, as the spec names it.
    pub(crate) name: &'static str,
    /// Why reading it would change nothing.
    pub(crate) why: &'static str,
}

impl Unread {
    /// `name`, which changes nothing the fake's world has (`why`).
    pub(crate) const fn no_effect(name: &'static str, why: &'static str) -> Self {
        Self { name, why }
    }
}

#[cfg(test)]
thread_local! {
    /// The names read since [`reading`] began on this thread, if it did.
    static READ: RefCell<Option<BTreeSet<String>>> = const { RefCell::new(None) };
}

/// Counts `name` as read, while [`reading`] runs on this thread.
#[cfg(test)]
pub(crate) fn note(name: &str) {
    READ.with(|read| {
        if let Some(names) = read.borrow_mut().as_mut() {
            names.insert(name.to_string());
        }
    });
}

/// Runs `f` (a `prepare`, which reads a call synchronously), and what it
/// read of the query.
#[cfg(test)]
pub(crate) fn reading<T>(f: impl FnOnce() -> T) -> (T, BTreeSet<String>) {
    READ.with(|read| *read.borrow_mut() = Some(BTreeSet::new()));
    let out = f();
    let names = READ
        .with(|read| read.borrow_mut().take())
        .unwrap_or_default();
    (out, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reads_inside_reading_count() {
        note("before");
        let ((), names) = reading(|| {
            note("a");
            note("b");
            note("a");
        });
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["a", "b"]);
        note("after");
        let ((), names) = reading(|| ());
        assert!(names.is_empty());
    }
}
