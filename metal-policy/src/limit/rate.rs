//! One rate limiter for the whole client: every HTTP request (each page,
//! each lookup, each retry) reserves the next free instant, in arrival
//! order, under a mutex (GCRA with an optional burst). A throttling reply
//! pauses the whole client until the server's reset time. With learning
//! on, each reply's rate-limit headers set the spacing ([`super::pace`]).

use std::pin::{pin, Pin};
use std::sync::Mutex;
use std::time::Duration;

use futures::future::{select, Either};
use tokio::sync::futures::Notified;
use tokio::sync::Notify;
use tokio::time::{sleep_until, Instant};

use super::pace::{Pace, Reading, DEFAULT_THROTTLE_PAUSE, MAX_READING_SPAN, MAX_THROTTLE_PAUSE};

#[derive(Debug)]
struct State {
    /// GCRA's theoretical arrival time of the next request.
    tat: Instant,
    /// No request starts before this (set by throttling replies).
    paused_until: Instant,
    /// Turns reserved, then given back by a dropped wait, not yet handed
    /// out again. Only future instants are kept; the list is as long as
    /// the number of waits dropped before their turn, at most.
    freed: Vec<Instant>,
    /// The spacing now: the pace's base, or a learned one.
    spacing: Duration,
    /// When the learned spacing lapses (its reading's reset), while one is
    /// in force.
    learned_until: Option<Instant>,
    /// Bumped when the schedule is rebuilt for a faster pace: turns of an
    /// older schedule are taken again.
    epoch: u64,
    /// The latest instant a request started at.
    started: Option<Instant>,
}

/// One reserved turn.
#[derive(Clone, Copy, Debug)]
struct Turn {
    /// When the request may start.
    at: Instant,
    /// The schedule's `tat` right after the reservation (to tell, on
    /// give-back, whether it was the last).
    tat_after: Instant,
    /// The spacing the reservation moved the schedule by.
    step: Duration,
    /// The schedule it belongs to.
    epoch: u64,
    /// When the learned spacing it was reserved under lapses.
    lapses: Option<Instant>,
    /// It is a turn given back before and handed out again: never the
    /// last of the schedule, whatever `tat_after` says.
    reused: bool,
}

/// The client-wide rate limiter.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    pace: Pace,
    burst: u32,
    state: Mutex<State>,
    /// Wakes the waiting requests when the schedule is rebuilt.
    rebuilt: Notify,
}

impl RateLimiter {
    /// Requests spaced `spacing` apart on average, up to `burst` at once.
    /// `spacing == 0` disables spacing (throttling pauses still apply).
    #[cfg(test)]
    pub(crate) fn new(spacing: Duration, burst: u32) -> Self {
        Self::with_pace(Pace::fixed(spacing), burst)
    }

    /// Requests at `pace`, up to `burst` at once.
    pub(crate) fn with_pace(pace: Pace, burst: u32) -> Self {
        let now = Instant::now();
        Self {
            pace,
            burst: burst.max(1),
            state: Mutex::new(State {
                tat: now,
                paused_until: now,
                freed: Vec::new(),
                spacing: pace.base,
                learned_until: None,
                epoch: 0,
                started: None,
            }),
            rebuilt: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is instants and durations, valid after any panic
        // mid-update, so a poisoned lock is safe to use.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets the spacing. A much faster one (by more than a quarter)
    /// rebuilds the schedule from the last start, and the waiting requests
    /// take their turns again: they would otherwise wait out the turns of
    /// the slower pace (the 2 s default, say, before the first reply told
    /// the real budget).
    fn set_spacing(&self, s: &mut State, spacing: Duration, now: Instant) {
        let faster = spacing.saturating_mul(4) < s.spacing.saturating_mul(3);
        s.spacing = spacing;
        if faster {
            s.tat = s.started.map_or(now, |at| at + spacing);
            s.freed.clear();
            s.epoch += 1;
            self.rebuilt.notify_waiters();
        }
    }

    /// Ends a learned spacing whose reset has passed.
    fn lapse(&self, s: &mut State, now: Instant) {
        if s.learned_until.is_some_and(|until| until <= now) {
            s.learned_until = None;
            self.set_spacing(s, self.pace.base, now);
        }
    }

    /// Learns the spacing from a reply's reading (nothing when learning is
    /// off or the reading is unusable).
    pub(crate) fn learn(&self, reading: Reading) {
        let Some(spacing) = self.pace.learned(reading) else {
            return;
        };
        let now = Instant::now();
        let mut s = self.lock();
        s.learned_until = Some(now + reading.until.min(MAX_READING_SPAN));
        self.set_spacing(&mut s, spacing, now);
        if reading.remaining == 0 {
            // None left: no new turn before the reset.
            let reset = now + reading.until.min(MAX_THROTTLE_PAUSE);
            s.tat = s.tat.max(reset);
        }
    }

    /// The spacing in force now.
    #[cfg(test)]
    pub(crate) fn spacing(&self) -> Duration {
        let mut s = self.lock();
        self.lapse(&mut s, Instant::now());
        s.spacing
    }

    /// Reserves the next start instant, in arrival order: the earliest
    /// turn given back, if one is still ahead, else the next of the
    /// schedule.
    fn reserve(&self) -> Turn {
        let now = Instant::now();
        let mut s = self.lock();
        let start = self.start(&mut s, now);
        self.reserve_from(&mut s, start)
    }

    /// Takes the next turn if it starts by now, the client not paused;
    /// `false` (and nothing reserved) otherwise.
    pub(crate) fn try_now(&self) -> bool {
        let now = Instant::now();
        let mut s = self.lock();
        let start = self.start(&mut s, now);
        if start > now || self.next_at(&s, start) > now {
            return false;
        }
        let turn = self.reserve_from(&mut s, start);
        s.started = Some(s.started.map_or(turn.at, |t| t.max(turn.at)));
        true
    }

    /// The earliest a turn reserved now may start (after any pause), with
    /// the turns given back that are already past dropped.
    fn start(&self, s: &mut State, now: Instant) -> Instant {
        self.lapse(s, now);
        let start = now.max(s.paused_until);
        s.freed.retain(|at| *at >= start);
        start
    }

    /// When the turn [`Self::reserve_from`] would reserve starts.
    fn next_at(&self, s: &State, start: Instant) -> Instant {
        match s.freed.iter().min() {
            Some(at) => *at,
            None => self.scheduled(s, start).1,
        }
    }

    /// The schedule's next `tat` before the step, and the turn's start.
    fn scheduled(&self, s: &State, start: Instant) -> (Instant, Instant) {
        let tolerance = s.spacing.saturating_mul(self.burst - 1);
        let tat = s.tat.max(start);
        (tat, start.max(tat.checked_sub(tolerance).unwrap_or(start)))
    }

    fn reserve_from(&self, s: &mut State, start: Instant) -> Turn {
        let turn = |s: &State, at, reused| Turn {
            at,
            tat_after: s.tat,
            step: s.spacing,
            epoch: s.epoch,
            lapses: s.learned_until,
            reused,
        };
        if let Some((i, _)) = s.freed.iter().enumerate().min_by_key(|(_, at)| **at) {
            let at = s.freed.swap_remove(i);
            return turn(s, at, true);
        }
        let (tat, at) = self.scheduled(s, start);
        s.tat = tat + s.spacing;
        turn(s, at, false)
    }

    /// Waits for this request's turn; returns how long it waited.
    /// Cancel-safe: a wait dropped before its turn gives the turn back, so
    /// a call that ends (deadline, cancellation) while waiting does not
    /// slow the calls behind it.
    pub(crate) async fn acquire(&self) -> Duration {
        let began = Instant::now();
        loop {
            let mut rebuilt = pin!(self.rebuilt.notified());
            rebuilt.as_mut().enable();
            let turn = self.reserve();
            // Only sleep when the turn is ahead: tokio's timer rounds up to
            // the next millisecond, so sleeping until a past instant would
            // still cost up to a millisecond per request.
            if turn.at > Instant::now() {
                let mut pending = Pending {
                    limiter: self,
                    turn,
                    armed: true,
                };
                let again = self.wait(&turn, rebuilt.as_mut()).await;
                pending.armed = false;
                if again {
                    continue;
                }
            }
            // A throttling reply may have paused the client while we slept:
            // if so, take a new turn after the pause.
            let mut s = self.lock();
            if s.paused_until <= Instant::now() {
                s.started = Some(s.started.map_or(turn.at, |t| t.max(turn.at)));
                return began.elapsed();
            }
        }
    }

    /// Sleeps until `turn`; `true` when the schedule was rebuilt meanwhile
    /// (the turn must be taken again). A turn beyond the lapse of the
    /// learned spacing it was reserved under wakes at the lapse, which may
    /// rebuild the schedule for the (faster) configured spacing.
    async fn wait(&self, turn: &Turn, mut rebuilt: Pin<&mut Notified<'_>>) -> bool {
        let mut lapses = turn.lapses;
        loop {
            let wake = lapses.filter(|l| *l < turn.at).unwrap_or(turn.at);
            let sleep = pin!(sleep_until(wake));
            if let Either::Right(_) = select(sleep, rebuilt.as_mut()).await {
                return true;
            }
            if wake >= turn.at {
                return false;
            }
            let mut s = self.lock();
            self.lapse(&mut s, Instant::now());
            if s.epoch != turn.epoch {
                return true;
            }
            lapses = s.learned_until;
        }
    }

    /// Gives back the unused `turn`. When it was the last one reserved
    /// (the schedule has not moved since), the schedule moves back one
    /// step; otherwise (or when it was a given-back turn handed out again)
    /// later turns keep their instants and its instant is kept for the next
    /// reservation, so no instant is ever handed to two requests. A turn of
    /// a schedule since rebuilt is simply dropped.
    fn give_back(&self, turn: &Turn) {
        let mut s = self.lock();
        if s.epoch != turn.epoch {
            return;
        }
        if !turn.reused && s.tat == turn.tat_after {
            let floor = Instant::now().max(s.paused_until);
            s.tat = s.tat.checked_sub(turn.step).unwrap_or(floor).max(floor);
        } else {
            s.freed.push(turn.at);
        }
    }

    /// Pauses every request of the client for `pause` (bounded by
    /// [`MAX_THROTTLE_PAUSE`]) from now.
    pub(crate) fn pause(&self, pause: Option<Duration>) {
        let until = Instant::now()
            + pause
                .unwrap_or(DEFAULT_THROTTLE_PAUSE)
                .min(MAX_THROTTLE_PAUSE);
        let mut s = self.lock();
        s.paused_until = s.paused_until.max(until);
        s.tat = s.tat.max(until);
    }
}

/// A reserved turn not yet reached; dropping it armed gives it back.
struct Pending<'a> {
    limiter: &'a RateLimiter,
    turn: Turn,
    armed: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.limiter.give_back(&self.turn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn spacing_and_burst() {
        let rl = RateLimiter::new(Duration::from_secs(2), 3);
        let t0 = Instant::now();
        for _ in 0..3 {
            rl.acquire().await;
        }
        assert_eq!(t0.elapsed(), Duration::ZERO, "a burst of 3 goes at once");
        rl.acquire().await;
        assert_eq!(t0.elapsed(), Duration::from_secs(2));
        rl.acquire().await;
        assert_eq!(t0.elapsed(), Duration::from_secs(4));
    }

    #[tokio::test(start_paused = true)]
    async fn the_fast_path_takes_only_a_turn_that_is_now() {
        let rl = RateLimiter::new(Duration::from_secs(2), 1);
        assert!(rl.try_now(), "the first turn is now");
        assert!(!rl.try_now(), "the next is in 2 s");
        let t0 = Instant::now();
        rl.acquire().await;
        assert_eq!(
            t0.elapsed(),
            Duration::from_secs(2),
            "the refused fast path reserved nothing"
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        rl.pause(Some(Duration::from_secs(5)));
        assert!(!rl.try_now(), "paused");
        let unlimited = RateLimiter::new(Duration::ZERO, 1);
        for _ in 0..3 {
            assert!(unlimited.try_now());
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_dropped_wait_gives_its_turn_back() {
        let rl = RateLimiter::new(Duration::from_secs(10), 1);
        let t0 = Instant::now();
        rl.acquire().await; // at 0; the next turn is at 10 s
        for _ in 0..5 {
            // Each wait is dropped after 1 s, before its turn.
            let dropped = tokio::time::timeout(Duration::from_secs(1), rl.acquire()).await;
            assert!(dropped.is_err());
        }
        rl.acquire().await;
        assert_eq!(
            t0.elapsed(),
            Duration::from_secs(10),
            "five abandoned waits burnt no turn"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_turn_handed_out_again_and_dropped_again_is_never_given_to_two_requests() {
        let rl = std::sync::Arc::new(RateLimiter::new(Duration::from_secs(10), 1));
        let t0 = Instant::now();
        rl.acquire().await; // at 0
        let at = |rl: &std::sync::Arc<RateLimiter>| {
            let rl = rl.clone();
            tokio::spawn(async move {
                rl.acquire().await;
                t0.elapsed()
            })
        };
        // A waits for the turn at 10 s, B for the one at 20 s.
        let a = tokio::spawn({
            let rl = rl.clone();
            async move { tokio::time::timeout(Duration::from_secs(1), rl.acquire()).await }
        });
        tokio::task::yield_now().await;
        let b = at(&rl);
        tokio::task::yield_now().await;
        // A is dropped: its 10 s turn is kept for the next reservation.
        assert!(a.await.unwrap().is_err());
        // C takes the 10 s turn, and is dropped too.
        let c = tokio::time::timeout(Duration::from_secs(1), rl.acquire()).await;
        assert!(c.is_err());
        // D and E: one of them gets 10 s again, the other 30 s; neither
        // may get B's 20 s.
        let d = at(&rl);
        tokio::task::yield_now().await;
        let e = at(&rl);
        let mut got = vec![b.await.unwrap(), d.await.unwrap(), e.await.unwrap()];
        got.sort();
        assert_eq!(got, [10, 20, 30].map(Duration::from_secs));
    }

    fn learning(base: Duration, floor: Duration) -> RateLimiter {
        RateLimiter::with_pace(
            Pace {
                base,
                floor,
                learn: true,
                share: 1,
            },
            1,
        )
    }

    fn reading(remaining: u64, until: Duration) -> Reading {
        Reading { remaining, until }
    }

    #[tokio::test(start_paused = true)]
    async fn a_reading_spreads_the_remaining_requests_until_the_reset() {
        let rl = learning(Duration::from_secs(2), Duration::ZERO);
        let t0 = Instant::now();
        rl.acquire().await;
        rl.learn(reading(10, Duration::from_secs(1)));
        assert_eq!(rl.spacing(), Duration::from_millis(100));
        for _ in 0..3 {
            rl.acquire().await;
        }
        assert_eq!(
            t0.elapsed(),
            Duration::from_millis(300),
            "100 ms apart, not the default 2 s"
        );
        // Learning off: the same reading changes nothing.
        let fixed = RateLimiter::new(Duration::from_secs(2), 1);
        fixed.learn(reading(10, Duration::from_secs(1)));
        assert_eq!(fixed.spacing(), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn a_faster_pace_reschedules_the_waiting_requests() {
        let rl = std::sync::Arc::new(learning(Duration::from_secs(2), Duration::ZERO));
        let t0 = Instant::now();
        rl.acquire().await;
        // Three requests wait for turns at 2, 4 and 6 s.
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let rl = rl.clone();
                tokio::spawn(async move {
                    rl.acquire().await;
                    t0.elapsed()
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(10)).await;
        // The first reply: 100 left in the next 10 s.
        rl.learn(reading(100, Duration::from_secs(10)));
        let mut at = Vec::new();
        for w in waiters {
            at.push(w.await.unwrap());
        }
        at.sort();
        assert_eq!(
            at,
            [100, 200, 300].map(Duration::from_millis),
            "spaced from the last start at the learned pace"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn none_remaining_waits_for_the_reset_then_the_pace_lapses_to_the_base() {
        let rl = learning(Duration::from_secs(2), Duration::ZERO);
        let t0 = Instant::now();
        rl.acquire().await;
        rl.learn(reading(0, Duration::from_secs(30)));
        rl.acquire().await;
        assert_eq!(
            t0.elapsed(),
            Duration::from_secs(30),
            "nothing before the reset"
        );
        // The reading lapsed at its reset: the configured spacing again.
        assert_eq!(rl.spacing(), Duration::from_secs(2));
        rl.acquire().await;
        assert_eq!(t0.elapsed(), Duration::from_secs(32));
    }

    #[tokio::test(start_paused = true)]
    async fn a_far_reset_never_panics_nor_holds_a_request_past_the_cap() {
        use super::super::pace::MAX_LEARNED_SPACING;
        for until in [
            Duration::from_secs(365 * 24 * 3600),
            Duration::from_secs(i64::MAX as u64),
            Duration::MAX,
        ] {
            for remaining in [0, 1] {
                let rl = learning(Duration::from_secs(2), Duration::ZERO);
                let t0 = Instant::now();
                rl.acquire().await;
                rl.learn(reading(remaining, until));
                for n in 1..=3u32 {
                    rl.acquire().await;
                    assert!(
                        t0.elapsed() <= MAX_LEARNED_SPACING * n,
                        "{remaining} left in {until:?}: request {n} at {:?}",
                        t0.elapsed()
                    );
                }
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_learned_pace_is_never_faster_than_the_configured_rate() {
        let rl = learning(Duration::from_millis(500), Duration::from_millis(500));
        let t0 = Instant::now();
        rl.acquire().await;
        rl.learn(reading(1000, Duration::from_secs(1)));
        assert_eq!(rl.spacing(), Duration::from_millis(500));
        rl.acquire().await;
        rl.acquire().await;
        assert_eq!(t0.elapsed(), Duration::from_secs(1));
        // A slower reading slows it down.
        rl.learn(reading(1, Duration::from_secs(3)));
        assert_eq!(rl.spacing(), Duration::from_secs(3));
    }

    #[tokio::test(start_paused = true)]
    async fn zero_spacing_means_no_limit_but_pauses_hold() {
        let rl = RateLimiter::new(Duration::ZERO, 1);
        let t0 = Instant::now();
        for _ in 0..10 {
            rl.acquire().await;
        }
        assert_eq!(t0.elapsed(), Duration::ZERO);
        rl.pause(Some(Duration::from_secs(30)));
        rl.acquire().await;
        assert_eq!(t0.elapsed(), Duration::from_secs(30));
        rl.pause(Some(Duration::from_secs(3600)));
        rl.acquire().await;
        assert_eq!(t0.elapsed(), Duration::from_secs(30) + MAX_THROTTLE_PAUSE);
    }
}
