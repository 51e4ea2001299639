//! Placeholder while generating.
#![forbid(unsafe_code)]
#[allow(clippy::all, missing_docs, unused)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/metal_api.rs"));
}
