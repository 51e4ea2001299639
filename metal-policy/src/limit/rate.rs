//! One rate limiter for the whole client: every HTTP request (each page,
//! each lookup, each retry) reserves the next free instant, in arrival
//! order, under a mutex (GCRA with an optional burst). A throttling reply
//! pauses the whole client until the server's reset time.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::{sleep_until, Instant};

/// The longest a server's `Retry-After`/`X-RateLimit-Reset` may pause us.
pub const MAX_THROTTLE_PAUSE: Duration = Duration::from_secs(300);
/// How long a throttling reply without a usable reset time pauses the
/// whole client.
pub const DEFAULT_THROTTLE_PAUSE: Duration = Duration::from_secs(5);

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
}

/// The client-wide rate limiter.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    spacing: Duration,
    /// How far ahead of `tat` a request may go: `spacing * (burst - 1)`.
    tolerance: Duration,
    state: Mutex<State>,
}

impl RateLimiter {
    /// Requests spaced `spacing` apart on average, up to `burst` at once.
    /// `spacing == 0` disables spacing (throttling pauses still apply).
    pub(crate) fn new(spacing: Duration, burst: u32) -> Self {
        let now = Instant::now();
        Self {
            spacing,
            tolerance: spacing.saturating_mul(burst.max(1) - 1),
            state: Mutex::new(State {
                tat: now,
                paused_until: now,
                freed: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is two instants, valid after any panic mid-update, so a
        // poisoned lock is safe to use.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reserves the next start instant, in arrival order: the earliest
    /// turn given back, if one is still ahead, else the next of the
    /// schedule. Returns the instant and the schedule's `tat` right after
    /// the reservation (to tell, on give-back, whether it was the last).
    fn reserve(&self) -> (Instant, Instant) {
        let now = Instant::now();
        let mut s = self.lock();
        let start = now.max(s.paused_until);
        s.freed.retain(|at| *at >= start);
        if let Some((i, _)) = s.freed.iter().enumerate().min_by_key(|(_, at)| **at) {
            let at = s.freed.swap_remove(i);
            return (at, s.tat);
        }
        let tat = s.tat.max(start);
        let at = start.max(tat.checked_sub(self.tolerance).unwrap_or(start));
        s.tat = tat + self.spacing;
        (at, s.tat)
    }

    /// Waits for this request's turn; returns how long it waited.
    /// Cancel-safe: a wait dropped before its turn gives the turn back, so
    /// a call that ends (deadline, cancellation) while waiting does not
    /// slow the calls behind it.
    pub(crate) async fn acquire(&self) -> Duration {
        let began = Instant::now();
        loop {
            let (at, tat_after) = self.reserve();
            // Only sleep when the turn is ahead: tokio's timer rounds up to
            // the next millisecond, so sleeping until a past instant would
            // still cost up to a millisecond per request.
            if at > Instant::now() {
                let mut pending = Pending {
                    limiter: self,
                    at,
                    tat_after,
                    armed: true,
                };
                sleep_until(at).await;
                pending.armed = false;
            }
            // A throttling reply may have paused the client while we slept:
            // if so, take a new turn after the pause.
            if self.lock().paused_until <= Instant::now() {
                return began.elapsed();
            }
        }
    }

    /// Gives back the unused turn `at`. When it was the last one reserved
    /// (the schedule has not moved since), the schedule moves back one
    /// spacing; otherwise later turns keep their instants and `at` is kept
    /// for the next reservation, so no instant is ever handed to two
    /// requests.
    fn give_back(&self, at: Instant, tat_after: Instant) {
        let mut s = self.lock();
        if s.tat == tat_after {
            let floor = Instant::now().max(s.paused_until);
            s.tat = s.tat.checked_sub(self.spacing).unwrap_or(floor).max(floor);
        } else {
            s.freed.push(at);
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
    at: Instant,
    tat_after: Instant,
    armed: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.limiter.give_back(self.at, self.tat_after);
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
