//! metal-provision's integration tests, one binary (one build and one link for
//! all of them); each file is one concern, as its own doc says. Tests that
//! must be a process of their own, or need a feature or a tool, are files
//! of their own beside this folder.

#[path = "../common/mod.rs"]
mod common;
#[path = "../../examples/shared/gauge.rs"]
mod gauge;

mod builds;
mod example;
mod learn_over_http;
mod properties;
mod run;
mod wait;
mod watch;
