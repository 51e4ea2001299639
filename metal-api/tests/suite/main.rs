//! metal-api's integration tests, one binary (one build and one link for
//! all of them); each file is one concern, as its own doc says. Tests that
//! must be a process of their own, or need a feature or a tool, are files
//! of their own beside this folder.

#[path = "../common/mod.rs"]
mod common;

mod bounds;
mod config;
mod decoding;
mod exchange;
mod known;
mod layout;
mod patched;
mod secrets;
mod spec_prose;
mod tables;
mod variants;
mod wire;
