//! What the fake gets wrong on purpose. Two concepts, each in its place:
//!
//! - `call`: what can go wrong with one exchange of the API (a call
//!   refused, lost, slowed, its reply spoiled), scripted per operation and
//!   per call, or drawn at random from a seeded generator;
//! - provisioning failures: which devices fail to provision
//!   ([`FailProvisioning`], [`RandomFailures`]). They are the device's
//!   concept and live with it, in `model/compute/device/failures.rs`;
//!   they are named here too, beside the call faults, as the crate's API
//!   names them.

mod call;

pub use self::call::{Fault, FaultKind, RandomFaults, TooManyFaults, MAX_PENDING_FAULTS};
pub(crate) use self::call::{FaultPlan, Stage};
pub use crate::model::{FailProvisioning, RandomFailures};

/// `rate` as a probability the generator accepts: clamped to `[0, 1]`, and
/// NaN as 0 (a NaN would make the draw panic).
pub(crate) fn probability(rate: f64) -> f64 {
    if rate.is_nan() {
        0.0
    } else {
        rate.clamp(0.0, 1.0)
    }
}
