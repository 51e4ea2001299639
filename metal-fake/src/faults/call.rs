//! What can go wrong with one exchange: scripted per operation and per
//! call, or drawn at random from a seeded generator.

use std::collections::HashMap;
use std::time::Duration;

use metal_policy::classify::{classify, Exchanged};
use metal_policy::Class;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use uuid::Uuid;

use super::probability;

/// One thing that can go wrong with one exchange.
///
/// "Before" faults leave the model untouched; "after" faults apply the change
/// and then lose or spoil the reply (the case idempotent recovery exists for).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// The request never reaches the server. In-process the exchange fails
    /// with [`metal_api::ExchangeError::NotSent`]; over HTTP the fake
    /// cannot refuse one request on a live listener, so it closes the
    /// connection before acting (the client sees an unknown outcome).
    NotSent,
    /// A 5xx reply with an `Error` body; nothing changes.
    FailBefore {
        /// The status (500, 502, 503 without `Retry-After`, ...).
        status: u16,
    },
    /// The change is applied, then a 5xx reply with an `Error` body.
    FailAfter {
        /// The status.
        status: u16,
    },
    /// 429 with `Retry-After`; nothing changes.
    Throttle {
        /// What `Retry-After` says (sent as whole seconds, rounded up).
        retry_after: Duration,
    },
    /// The reply is delayed by this much, then the call proceeds normally.
    Latency(Duration),
    /// The change is applied, then the connection drops before any reply.
    DropAfter,
    /// The change is applied and the reply never comes.
    Hang,
    /// A proxy's HTML 502 page; nothing changes.
    BadGateway,
    /// The change is applied and the reply body is cut short.
    Truncated,
    /// `createDevice` only: another API user takes the reservation named in
    /// the request just before it is handled (a device without the caller's
    /// tags appears on it). Ignored for other operations.
    Competitor,
}

impl FaultKind {
    /// A short stable name, used in counters and `/_fake/state`.
    pub fn label(&self) -> &'static str {
        match self {
            Self::NotSent => "not_sent",
            Self::FailBefore { .. } => "fail_before",
            Self::FailAfter { .. } => "fail_after",
            Self::Throttle { .. } => "throttle",
            Self::Latency(_) => "latency",
            Self::DropAfter => "drop_after",
            Self::Hang => "hang",
            Self::BadGateway => "bad_gateway",
            Self::Truncated => "truncated",
            Self::Competitor => "competitor",
        }
    }

    /// Whether the model applies the change before the fault shows.
    pub fn applies_change(&self) -> bool {
        self.stage() == Stage::After
    }

    /// When the fault strikes: the one place each kind's timing is said.
    pub(crate) fn stage(&self) -> Stage {
        match self {
            Self::NotSent | Self::FailBefore { .. } | Self::Throttle { .. } | Self::BadGateway => {
                Stage::Before
            }
            Self::FailAfter { .. } | Self::DropAfter | Self::Hang | Self::Truncated => Stage::After,
            Self::Latency(_) | Self::Competitor => Stage::Around,
        }
    }

    /// What the client's classification makes of the reply this fault
    /// gives, in process: a [`Class`] of `metal-policy`, whose retries read
    /// the same definitions; `None` for the kinds that are no failure of
    /// the exchange (latency; a competitor, which the operation answers
    /// itself). Over HTTP a [`FaultKind::NotSent`] is seen as
    /// [`Class::OutcomeUnknown`] (see there). A fault that
    /// [applies the change](Self::applies_change) is always one whose
    /// server may have acted.
    pub fn class(&self) -> Option<Class> {
        let status = |status: u16| {
            classify(&Exchanged::Reply {
                status,
                headers: &reqwest::header::HeaderMap::new(),
                messages: &[],
            })
        };
        match self {
            Self::NotSent => Some(Class::NotSent),
            Self::FailBefore { status: s } | Self::FailAfter { status: s } => status(*s),
            Self::Throttle { retry_after } => Some(Class::Throttled {
                retry_after: Some(Duration::from_secs(crate::clock::whole_seconds(
                    *retry_after,
                ))),
            }),
            Self::BadGateway => status(502),
            Self::DropAfter | Self::Hang | Self::Truncated => classify(&Exchanged::NoReply),
            Self::Latency(_) | Self::Competitor => None,
        }
    }

    /// Every kind with representative parameters, for suites that run all.
    pub fn all() -> Vec<FaultKind> {
        vec![
            Self::NotSent,
            Self::FailBefore { status: 500 },
            Self::FailAfter { status: 500 },
            Self::Throttle {
                retry_after: Duration::from_secs(1),
            },
            Self::Latency(Duration::from_millis(50)),
            Self::DropAfter,
            Self::Hang,
            Self::BadGateway,
            Self::Truncated,
            Self::Competitor,
        ]
    }

    /// The kinds drawn by [`RandomFaults`] unless told otherwise: every kind
    /// a client can recover from without a timeout or losing a race.
    pub fn recoverable() -> Vec<FaultKind> {
        vec![
            Self::NotSent,
            Self::FailBefore { status: 500 },
            Self::FailBefore { status: 503 },
            Self::FailAfter { status: 502 },
            Self::Throttle {
                retry_after: Duration::from_secs(1),
            },
            Self::Latency(Duration::from_millis(20)),
            Self::DropAfter,
            Self::BadGateway,
            Self::Truncated,
        ]
    }
}

/// When a fault strikes, relative to the change a call makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Before the server acts: nothing changes.
    Before,
    /// After the server acted: the reply is lost or spoiled.
    After,
    /// Around a call that otherwise goes through (latency, a competitor
    /// taking the reservation first).
    Around,
}

/// A scripted fault: which calls it hits and what happens to them.
///
/// ```
/// use metal_fake::{Fault, FaultKind};
/// // The second createDevice call applies the change and loses the reply.
/// let fault = Fault::on("createDevice", FaultKind::DropAfter).nth(2);
/// assert_eq!(fault.kind(), &FaultKind::DropAfter);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    operation: Option<String>,
    target: Option<Uuid>,
    nth: Option<u64>,
    times: u32,
    kind: FaultKind,
}

impl Fault {
    /// Hits the next call of `operation` (the spec's operationId), once.
    pub fn on(operation: impl Into<String>, kind: FaultKind) -> Self {
        Self {
            operation: Some(operation.into()),
            target: None,
            nth: None,
            times: 1,
            kind,
        }
    }

    /// Hits the next call of any operation, once.
    pub fn any(kind: FaultKind) -> Self {
        Self {
            operation: None,
            target: None,
            nth: None,
            times: 1,
            kind,
        }
    }

    /// Hits only the `n`th call (1-based) of the operation, counted since the
    /// fake was built (for [`Fault::any`], the `n`th call of any operation).
    pub fn nth(mut self, n: u64) -> Self {
        self.nth = Some(n);
        self
    }

    /// Hits only calls whose path names this ID (`/devices/{id}`,
    /// `/devices/{id}/actions`, `/hardware-reservations/{id}`, ...): one
    /// device's reboot, say, while the others' go through. With
    /// [`Fault::nth`], the `n`th call must also name it.
    ///
    /// ```
    /// use metal_fake::{Fault, FaultKind};
    /// let device = uuid::Uuid::new_v4();
    /// // The next reboot (or other action) of this device fails with 503.
    /// let fault = Fault::on("performAction", FaultKind::FailBefore { status: 503 }).target(device);
    /// assert_eq!(fault.kind(), &FaultKind::FailBefore { status: 503 });
    /// ```
    pub fn target(mut self, id: Uuid) -> Self {
        self.target = Some(id);
        self
    }

    /// Hits this many matching calls in a row instead of one.
    pub fn times(mut self, times: u32) -> Self {
        self.times = times;
        self
    }

    /// What happens to the calls it hits.
    pub fn kind(&self) -> &FaultKind {
        &self.kind
    }

    /// Which calls it hits: its operation (`None`: any), target and nth,
    /// and how many more times.
    pub(crate) fn matching(&self) -> (Option<&str>, Option<Uuid>, Option<u64>, u32) {
        (self.operation.as_deref(), self.target, self.nth, self.times)
    }
}

/// Faults drawn at random, reproducibly, for soak runs.
#[derive(Clone, Debug)]
pub struct RandomFaults {
    /// Probability in `[0, 1]` that a call gets a fault.
    pub rate: f64,
    /// The seed of the generator.
    pub seed: u64,
    /// The kinds to draw from, uniformly; [`FaultKind::recoverable`] if empty.
    pub kinds: Vec<FaultKind>,
}

/// The most scripted faults a fake keeps pending at once, however they
/// come ([`crate::FakeBuilder::fault`], [`crate::Fake::inject`], the control
/// API): every call scans them.
pub const MAX_PENDING_FAULTS: usize = 10_000;

/// Faults refused: they would pass [`MAX_PENDING_FAULTS`] pending at once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{added} faults would pass the {MAX_PENDING_FAULTS} pending at once ({room} more fit); clear some first"
)]
pub struct TooManyFaults {
    /// How many were to be added.
    pub added: usize,
    /// How many more fit.
    pub room: usize,
}

/// The scripted and random faults of one fake, and the per-operation call
/// counts they are matched against.
#[derive(Clone, Debug)]
pub(crate) struct FaultPlan {
    scripted: Vec<Fault>,
    random: Option<(f64, Vec<FaultKind>, StdRng)>,
    calls: HashMap<String, u64>,
    total: u64,
}

impl FaultPlan {
    pub(crate) fn new(random: Option<RandomFaults>) -> Self {
        let mut plan = Self {
            scripted: Vec::new(),
            random: None,
            calls: HashMap::new(),
            total: 0,
        };
        plan.set_random(random);
        plan
    }

    pub(crate) fn set_random(&mut self, random: Option<RandomFaults>) {
        self.random = random.map(|r| {
            let kinds = if r.kinds.is_empty() {
                FaultKind::recoverable()
            } else {
                r.kinds
            };
            (probability(r.rate), kinds, StdRng::seed_from_u64(r.seed))
        });
    }

    /// The scripted faults pending, earliest first.
    pub(crate) fn scripted(&self) -> &[Fault] {
        &self.scripted
    }

    /// The random faults' rate (as a probability) and kinds, when set.
    pub(crate) fn random(&self) -> Option<(f64, &[FaultKind])> {
        self.random
            .as_ref()
            .map(|(rate, kinds, _)| (*rate, kinds.as_slice()))
    }

    /// Drops every scripted fault and the random ones; the call counts
    /// that `nth` matches against go on.
    pub(crate) fn clear(&mut self) {
        self.scripted.clear();
        self.random = None;
    }

    /// Adds every one of `faults`, or none when they would pass
    /// [`MAX_PENDING_FAULTS`] pending (a fault for no calls is dropped).
    pub(crate) fn extend(&mut self, faults: Vec<Fault>) -> Result<(), TooManyFaults> {
        let faults: Vec<Fault> = faults.into_iter().filter(|f| f.times > 0).collect();
        let room = MAX_PENDING_FAULTS.saturating_sub(self.scripted.len());
        if faults.len() > room {
            return Err(TooManyFaults {
                added: faults.len(),
                room,
            });
        }
        self.scripted.extend(faults);
        Ok(())
    }

    /// Counts one call of `operation` (whose path names `target`, if it
    /// names an ID) and decides its fault, if any. Scripted faults win over
    /// random ones, earliest first.
    pub(crate) fn next(&mut self, operation: &str, target: Option<Uuid>) -> Option<FaultKind> {
        self.total += 1;
        let count = self.calls.entry(operation.to_string()).or_insert(0);
        *count += 1;
        let (count, total) = (*count, self.total);
        let hit = self.scripted.iter().position(|f| {
            let op_matches = f.operation.as_deref().is_none_or(|op| op == operation);
            let n = if f.operation.is_some() { count } else { total };
            let target_matches = f.target.is_none_or(|t| Some(t) == target);
            op_matches && target_matches && f.nth.is_none_or(|nth| nth == n)
        });
        if let Some(i) = hit {
            let kind = self.scripted[i].kind.clone();
            self.scripted[i].times -= 1;
            if self.scripted[i].times == 0 {
                self.scripted.remove(i);
            }
            return Some(kind);
        }
        let (rate, kinds, rng) = self.random.as_mut()?;
        if kinds.is_empty() || !rng.random_bool(*rate) {
            return None;
        }
        let i = rng.random_range(0..kinds.len());
        kinds.get(i).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripted_fault_hits_only_the_nth_call_of_its_operation() {
        let mut plan = FaultPlan::new(None);
        plan.extend(vec![Fault::on("createDevice", FaultKind::DropAfter).nth(2)])
            .unwrap();
        assert_eq!(plan.next("findDeviceById", None), None);
        assert_eq!(plan.next("createDevice", None), None);
        assert_eq!(plan.next("findDeviceById", None), None);
        assert_eq!(plan.next("createDevice", None), Some(FaultKind::DropAfter));
        assert_eq!(plan.next("createDevice", None), None);
    }

    #[test]
    fn a_targeted_fault_hits_only_calls_naming_its_id() {
        let (mine, other) = (Uuid::new_v4(), Uuid::new_v4());
        let mut plan = FaultPlan::new(None);
        plan.extend(vec![Fault::on(
            "performAction",
            FaultKind::FailBefore { status: 503 },
        )
        .target(mine)])
            .unwrap();
        assert_eq!(plan.next("performAction", Some(other)), None);
        assert_eq!(plan.next("performAction", None), None);
        assert_eq!(plan.next("findDeviceById", Some(mine)), None);
        assert_eq!(
            plan.next("performAction", Some(mine)),
            Some(FaultKind::FailBefore { status: 503 })
        );
        assert_eq!(plan.next("performAction", Some(mine)), None, "used up");
    }

    #[test]
    fn times_repeats_then_stops() {
        let mut plan = FaultPlan::new(None);
        plan.extend(vec![Fault::any(FaultKind::BadGateway).times(2)])
            .unwrap();
        assert_eq!(plan.next("a", None), Some(FaultKind::BadGateway));
        assert_eq!(plan.next("b", None), Some(FaultKind::BadGateway));
        assert_eq!(plan.next("c", None), None);
    }

    #[test]
    fn random_faults_repeat_with_the_same_seed() {
        let draw = |seed| {
            let mut plan = FaultPlan::new(Some(RandomFaults {
                rate: 0.3,
                seed,
                kinds: Vec::new(),
            }));
            (0..200).map(|_| plan.next("op", None)).collect::<Vec<_>>()
        };
        let a = draw(7);
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        let hits = a.iter().filter(|f| f.is_some()).count();
        assert!(
            (30..=90).contains(&hits),
            "{hits} faults in 200 at rate 0.3"
        );
    }
}
