//! Query parameters the spec names that no handler reads yet, because
//! another piece of work models them: one list, so that each line goes
//! when its parameter is honoured (the coverage test then says which to
//! take off: a parameter listed here that its handler reads fails it).
//! Empty now: `include` and `exclude`, the last it held, are honoured on
//! every operation that takes them (`model::expand`).

/// `(operation, parameters, by whom)`: not honoured yet.
pub(crate) const PENDING: &[(&str, &[&str], &str)] = &[];
