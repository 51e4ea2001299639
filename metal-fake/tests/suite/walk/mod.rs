//! A stateful walk over the whole API: long, seeded, random sequences of
//! calls against the in-process fake, each a valid call as far as the spec
//! can say (its request schema's required properties, enum values and
//! formats, with IDs earlier replies named), with random faults switched
//! on and off through the control API, and the world saved and loaded at
//! the end.
//!
//! Every operation of `metal_api::operation::ALL` is walked but those
//! still answering `501` (read at run time from `no_501::NOT_YET_MODELLED`,
//! so an operation modelled on another branch joins without an edit) and
//! the few of [`spec::NEVER`]. Path parameters name a live thing of the
//! kind their path segment says eight times in ten, a deleted one or a
//! made-up one otherwise; the seeded project, organisation, user and
//! token are never deleted, so the walk keeps its access.
//!
//! # Invariants
//!
//! Each is checked by [`checker::Checker`]:
//!
//! - **Replies are the spec's.** Every reply (but one a fault cut short)
//!   validates against the strict spec (`common::schema::check`: the
//!   documented status's schema, no property the spec lacks, `Error`
//!   bodies on errors).
//! - **No 5xx but an injected fault's.** A reply of 500 or more, or no
//!   reply at all, is a violation unless the fake's call log marks the
//!   call with an injected fault.
//! - **A created thing is read and listed until it is deleted, then reads
//!   404.** A `POST` that answers a new thing filed where its path says is
//!   followed: at each audit it reads 200 at its href and is in the list
//!   at the path it was created under; after a `DELETE` answers 2xx it
//!   reads 404 and is in no list. A thing whose parents (the IDs its
//!   request named, the things its reply names) went, or whose delete a
//!   fault hid, is no longer checked.
//! - **Counts and links agree.** Every list's `meta.total` counts what its
//!   pages listed; a device's addresses from a block are from a block in
//!   its project's IP list; a device's ports' VLANs read 200; a
//!   reservation's device reads 200 and names the reservation back.
//! - **The world saves and loads.** At the end `GET /_fake/world`, `POST`
//!   it back, and `GET` again: the two documents are equal.
//!
//! # Runs
//!
//! The short run is in the normal suite ([`SHORT_CASES`] walks of
//! [`SHORT_STEPS`] steps, a fixed seed). The long one,
//! `walk::the_long_walk` (ignored: `--ignored`), takes its step count from
//! `METAL_WALK_STEPS` and its seed from `METAL_WALK_SEED` (else a new
//! one). A failure prints the seed, the shortest failing sequence of steps
//! proptest's shrinking found, and that sequence's calls as sent.

mod broken;
mod checker;
mod pool;
mod run;
mod spec;
mod teeth;
mod variants;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::common::schema;

/// The short run's walks.
pub const SHORT_CASES: u32 = 4;
/// The short run's steps per walk.
pub const SHORT_STEPS: usize = 60;
/// The long run's steps per walk unless `METAL_WALK_STEPS` says.
pub const LONG_STEPS: usize = 2000;
/// The short run's seed.
const SHORT_SEED: u64 = 0x5eed_0034;

/// One step of a walk.
#[derive(Clone, Debug)]
pub enum Step {
    /// A call of a walkable operation, its path and body drawn from `seed`.
    Call {
        /// Which operation.
        op: prop::sample::Index,
        /// The draws of its path and body.
        seed: u64,
    },
    /// Random faults on a share of the calls (`POST /_fake/faults`).
    FaultsOn {
        /// The fake's own draw.
        seed: u64,
        /// The share, in percent.
        percent: u8,
    },
    /// A call of the operation named, as [`Step::Call`] draws it: the
    /// scripted walks of the teeth tests.
    Named {
        /// The operationId.
        op: &'static str,
        /// The draws of its path and body.
        seed: u64,
    },
    /// Faults off (`DELETE /_fake/faults`).
    FaultsOff,
    /// The fake's clock forward (`POST /_fake/clock`).
    Advance {
        /// How far.
        seconds: u16,
    },
    /// Read back what the walk made, and the links between resources.
    Audit,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        40 => (any::<prop::sample::Index>(), any::<u64>()).prop_map(|(op, seed)| Step::Call { op, seed }),
        1 => (any::<u64>(), 5u8..40).prop_map(|(seed, percent)| Step::FaultsOn { seed, percent }),
        1 => Just(Step::FaultsOff),
        2 => (1u16..600).prop_map(|seconds| Step::Advance { seconds }),
        2 => Just(Step::Audit),
    ]
}

/// The spec, the strict spec and its documented replies, read once.
fn specs(only: &[&str]) -> (spec::Spec, run::Docs) {
    let strict = schema::strict_spec();
    let docs = (strict.clone(), schema::documented(&strict));
    (spec::Spec::load_only(only), docs)
}

/// One walk of `steps` from `fake`, then the closing audit and the world's
/// round trip: the violations and the calls sent.
fn walk_once(
    spec: &spec::Spec,
    docs: &run::Docs,
    fake: metal_fake::FakeBuilder,
    steps: &[Step],
) -> (Vec<String>, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let mut w = run::Walk::start(spec, docs, fake).await;
        for s in steps {
            w.step(s).await;
        }
        w.audit().await;
        w.round_trip().await;
        (w.checker.violations, w.trace)
    })
}

/// Runs `cases` walks of `steps` steps from `seed` on fakes from `fake`,
/// calling only the operations `only` names (all when empty); on a
/// violation, the seed, the shortest failing sequence found within
/// `shrink` tries (`METAL_WALK_SHRINK` overrides) and its calls.
fn walk_from(
    cases: u32,
    steps: usize,
    seed: u64,
    only: &[&str],
    shrink: u32,
    fake: impl Fn() -> metal_fake::FakeBuilder,
) -> Result<(), String> {
    let (spec, docs) = specs(only);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: std::env::var("METAL_WALK_SHRINK")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(shrink),
        // At most two minutes of shrinking, then the shortest found so far.
        max_shrink_time: 120_000,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let result = runner.run(&prop::collection::vec(step(), steps), |steps| {
        let (violations, trace) = walk_once(&spec, &docs, fake(), &steps);
        prop_assert!(
            violations.is_empty(),
            "{} violation(s):\n{}\ncalls:\n{trace}",
            violations.len(),
            violations.join("\n")
        );
        Ok(())
    });
    result.map_err(|e| {
        format!("the walk failed (seed {seed}; rerun with METAL_WALK_SEED={seed}): {e}")
    })
}

/// As [`walk_from`] on the walk's usual fake; panics on a violation.
fn walk(cases: u32, steps: usize, seed: u64) {
    if let Err(e) = walk_from(cases, steps, seed, &[], 1000, run::fake) {
        panic!("{e}");
    }
}

#[test]
fn a_short_walk_keeps_every_invariant() {
    walk(SHORT_CASES, SHORT_STEPS, SHORT_SEED);
}

#[test]
fn a_walk_with_a_state_file_leaves_it_holding_the_world() {
    let (spec, docs) = specs(&[]);
    let dir = std::env::temp_dir().join(format!("metal-fake-walk-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&SHORT_SEED.to_le_bytes());
    let steps = prop::collection::vec(step(), SHORT_STEPS);
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    for case in 0..SHORT_CASES {
        let path = dir.join(format!("case-{case}.json"));
        let (state, _) =
            metal_fake::state::StateFile::open(&path, metal_fake::state::SyncPolicy::EveryChange)
                .unwrap();
        let walk = proptest::strategy::ValueTree::current(&steps.new_tree(&mut runner).unwrap());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let (violations, trace) = rt.block_on(async {
            let mut w = run::Walk::start(&spec, &docs, run::fake().state_file(state)).await;
            for s in &walk {
                w.step(s).await;
            }
            w.state_file_holds_the_world(&path).await;
            // Loaded through the control API: a new snapshot, held too.
            w.round_trip().await;
            w.state_file_holds_the_world(&path).await;
            (w.checker.violations, w.trace)
        });
        assert!(
            violations.is_empty(),
            "case {case}: {}\ncalls:\n{trace}",
            violations.join("\n")
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "long walk: run with --ignored"]
fn the_long_walk() {
    let steps = std::env::var("METAL_WALK_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(LONG_STEPS);
    let seed = std::env::var("METAL_WALK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("the long walk: {steps} steps, seed {seed}");
    walk(4, steps, seed);
}
