//! Which devices fail to provision: named before they exist (by hostname
//! or by the order of creates), or drawn at random from a seeded
//! generator of their own.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::faults::probability;

/// A device whose provisioning will fail, named before it exists (its ID is
/// not known in advance): the next device created with this hostname, or
/// the `n`th device created through the API.
///
/// The device goes `queued`, `provisioning`, then `failed` where it would
/// have become `active`. Each entry fails one device.
///
/// ```
/// let fake = metal_fake::Fake::builder()
///     .fail_provisioning(metal_fake::FailProvisioning::Hostname("web-2".into()))
///     .fail_provisioning(metal_fake::FailProvisioning::NthCreate(5))
///     .build();
/// # drop(fake);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailProvisioning {
    /// The next device created with this hostname.
    Hostname(String),
    /// The `n`th device created through the API since the fake was built
    /// (1-based; a create the API refused does not count).
    NthCreate(u64),
}

/// Provisioning failures drawn at random, reproducibly: each device created
/// through the API fails with probability `rate`. The generator is its own,
/// so turning it on does not change which calls [`crate::RandomFaults`] hits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomFailures {
    /// Probability in `[0, 1]` that a new device fails to provision.
    pub rate: f64,
    /// The seed of the generator.
    pub seed: u64,
}

/// Which devices fail to provision: scripted ones first, then a random
/// draw (one per device created, whether a scripted entry hit or not, so
/// the random sequence depends only on the order of creates).
#[derive(Clone, Debug, Default)]
pub(crate) struct FailurePlan {
    scripted: Vec<FailProvisioning>,
    random: Option<(f64, StdRng)>,
    creates: u64,
}

impl FailurePlan {
    pub(crate) fn new(scripted: Vec<FailProvisioning>, random: Option<RandomFailures>) -> Self {
        let mut plan = Self {
            scripted,
            ..Self::default()
        };
        plan.set_random(random);
        plan
    }

    pub(crate) fn set_random(&mut self, random: Option<RandomFailures>) {
        self.random = random.map(|r| (probability(r.rate), StdRng::seed_from_u64(r.seed)));
    }

    pub(crate) fn push(&mut self, fail: FailProvisioning) {
        self.scripted.push(fail);
    }

    /// Counts one device created with `hostname` and decides whether its
    /// provisioning fails.
    pub(crate) fn next(&mut self, hostname: &str) -> bool {
        self.creates += 1;
        let n = self.creates;
        let drawn = self
            .random
            .as_mut()
            .is_some_and(|(rate, rng)| rng.random_bool(*rate));
        let hit = self.scripted.iter().position(|f| match f {
            FailProvisioning::Hostname(h) => h == hostname,
            FailProvisioning::NthCreate(nth) => *nth == n,
        });
        if let Some(i) = hit {
            self.scripted.remove(i);
            return true;
        }
        drawn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripted_failures_hit_one_device_each() {
        let mut plan = FailurePlan::new(
            vec![
                FailProvisioning::Hostname("b".into()),
                FailProvisioning::NthCreate(3),
            ],
            None,
        );
        assert!(!plan.next("a"));
        assert!(plan.next("b"));
        assert!(plan.next("c"), "the third create");
        assert!(!plan.next("b"), "the hostname entry is used up");
        plan.push(FailProvisioning::Hostname("d".into()));
        assert!(plan.next("d"));
    }

    #[test]
    fn random_failures_follow_the_seed_and_rate() {
        let draw = |seed, rate| {
            let mut plan = FailurePlan::new(Vec::new(), Some(RandomFailures { rate, seed }));
            (0..400).map(|_| plan.next("x")).collect::<Vec<_>>()
        };
        let a = draw(3, 0.25);
        assert_eq!(a, draw(3, 0.25));
        assert_ne!(a, draw(4, 0.25));
        let hits = a.iter().filter(|f| **f).count();
        assert!((60..=140).contains(&hits), "{hits} failures in 400 at 0.25");
        assert!(draw(3, 0.0).iter().all(|f| !f));
        assert!(draw(3, 1.0).iter().all(|f| *f));
    }
}
