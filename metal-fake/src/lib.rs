//! Placeholder: the policy client lands with its own issue.
#![forbid(unsafe_code)]
