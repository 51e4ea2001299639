//! Which query parameters a call's reading reads, counted where every
//! read goes ([`crate::Call::query`]), in tests only.

use std::cell::RefCell;
use std::collections::BTreeSet;

thread_local! {
    /// The names read since [`reading`] began on this thread, if it did.
    static READ: RefCell<Option<BTreeSet<String>>> = const { RefCell::new(None) };
}

/// Counts `name` as read, while [`reading`] runs on this thread.
pub(crate) fn note(name: &str) {
    READ.with(|read| {
        if let Some(names) = read.borrow_mut().as_mut() {
            names.insert(name.to_string());
        }
    });
}

/// Runs `f` (a `prepare`, which reads a call synchronously), and what it
/// read of the query.
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
