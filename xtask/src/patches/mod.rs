//! The project's patches to the upstream spec. Each is one function with
//! the reason it exists and a unit test; `apply_to_upstream` runs those
//! that change which operations and components the selection keeps, and
//! `apply_all` the others, on the selected document.

mod errors;
mod naming;
mod query;
mod responses;
mod updates;
mod walk;

use anyhow::Result;
use serde_json::Value;

pub use walk::schemas_reachable_from_responses;

/// Applies, in a fixed order, the patches that come before the selection:
/// they name operations or change what the operations reference.
pub fn apply_to_upstream(spec: &mut Value) {
    naming::name_unnamed_operations(spec);
    query::flatten_deep_object_query_params(spec);
    errors::give_error_responses_the_error_body(spec);
}

/// Applies every other patch, in a fixed order.
pub fn apply_all(spec: &mut Value) -> Result<()> {
    query::comma_join_query_lists(spec);
    let response_schemas = walk::schemas_reachable_from_responses(spec);
    responses::open_response_enums(spec, &response_schemas);
    responses::relax_response_constraints(spec, &response_schemas);
    updates::send_empty_lists_in_updates(spec);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patches_are_idempotent() {
        let mut once = walk::sample();
        apply_to_upstream(&mut once);
        apply_all(&mut once).unwrap();
        let mut twice = once.clone();
        apply_to_upstream(&mut twice);
        apply_all(&mut twice).unwrap();
        assert_eq!(once, twice);
    }
}
