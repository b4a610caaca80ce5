//! The synchronization objects of one block as the warp-scheduling executor runs them: barrier
//! generations (`__syncthreads`, named barriers, `__syncwarp`) and mbarriers with their
//! phases. Each carries the vector clock its releases joined, for the waits that acquire it.

use super::clock::{Agent, Clock};
use crate::ir::Label;

/// Which barrier a generation belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BarKey {
    /// Named barrier `id` (0 is `__syncthreads`'s).
    Named(u32),
    /// The `__syncwarp` of a warp.
    Warp(u32),
}

/// The generation of a barrier in progress.
#[derive(Debug)]
pub struct Generation {
    /// Threads it waits for; `None`: every live thread of its scope (block or warp).
    pub expected: Option<u32>,
    /// Threads arrived so far.
    pub arrived: u32,
    /// The join of the arrivals' clocks.
    pub clock: Clock,
    /// Threads blocked until it completes.
    pub waiters: Vec<usize>,
    /// The statement of the first arrival.
    pub first: Label,
}

impl Generation {
    /// An empty generation started by an arrival at `first`.
    pub fn new(expected: Option<u32>, first: Label) -> Generation {
        Generation {
            expected,
            arrived: 0,
            clock: Clock::default(),
            waiters: Vec::new(),
            first,
        }
    }
    /// Whether it completes, given how many threads of its scope are live.
    pub fn complete(&self, live: u32) -> bool {
        self.arrived >= self.expected.unwrap_or(live)
    }
}

/// What a wait on an mbarrier asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// The phase of this parity (0 or 1) completed: the current phase has the other parity.
    Parity(u64),
    /// The phase a token names (the phase its arrive arrived in) completed.
    Token(u64),
}

/// The initialization of an mbarrier: who did it and when, for the ordering check of uses.
#[derive(Clone, Copy, Debug)]
pub struct InitSite {
    /// The initializing agent.
    pub agent: Agent,
    /// Its clock entry at the initialization.
    pub epoch: u32,
    /// The `init` statement.
    pub label: Label,
}

/// One mbarrier object.
#[derive(Debug)]
pub struct Mbar {
    /// The latest initialization (`None` after `inval`, or never initialized).
    pub init: Option<InitSite>,
    /// The current phase (0 after `init`).
    pub phase: u64,
    /// Arrivals each phase expects (lowered by `arrive_drop`).
    pub expected: i64,
    /// Arrivals the current phase still waits for.
    pub pending: i64,
    /// Transaction bytes the current phase still waits for (negative: completed early).
    pub tx: i64,
    /// The join of the current phase's releases.
    pub clock: Clock,
    /// The clocks of the completed phases, by phase.
    pub done: Vec<Clock>,
}

impl Mbar {
    /// A barrier nobody initialized yet.
    pub fn fresh() -> Mbar {
        Mbar {
            init: None,
            phase: 0,
            expected: 0,
            pending: 0,
            tx: 0,
            clock: Clock::default(),
            done: Vec::new(),
        }
    }
    /// `mbarrier.init`: phase 0 expecting `count` arrivals.
    pub fn init(&mut self, count: i64, site: InitSite) {
        *self = Mbar {
            init: Some(site),
            expected: count,
            pending: count,
            ..Mbar::fresh()
        };
    }
    /// `count` arrivals releasing `clock`; returns whether they overflowed the phase.
    pub fn arrive(&mut self, count: i64, drop: bool, clock: &Clock) -> bool {
        self.clock.join(clock);
        self.pending -= count;
        if drop {
            self.expected -= count;
        }
        let overflow = self.pending < 0;
        if overflow {
            self.pending = 0; // the phase completes once its bytes are in, as if just full
        }
        self.try_complete();
        overflow
    }
    /// `bytes` transaction bytes completed, releasing `clock`.
    pub fn complete_tx(&mut self, bytes: i64, clock: &Clock) {
        self.clock.join(clock);
        self.tx -= bytes;
        self.try_complete();
    }
    /// Completes the current phase when its arrivals and bytes are all in.
    fn try_complete(&mut self) {
        if self.pending != 0 || self.tx != 0 {
            return;
        }
        self.done.push(std::mem::take(&mut self.clock));
        self.phase += 1;
        self.pending = self.expected;
    }
    /// The clock a wait for `want` acquires when it passes now, `None` while it blocks.
    pub fn passes(&self, want: Want) -> Option<Clock> {
        let observed = match want {
            // A fresh barrier counts the phase before 0 (parity 1) as completed.
            Want::Parity(p) if self.phase & 1 != p & 1 => self.phase.checked_sub(1),
            Want::Token(t) if t < self.phase => Some(t),
            _ => return None,
        };
        Some(observed.map_or_else(Clock::default, |p| self.done[p as usize].clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> InitSite {
        InitSite {
            agent: 0,
            epoch: 1,
            label: Label(0),
        }
    }

    #[test]
    fn warps_mbarrier_phase_needs_arrivals_and_bytes() {
        let mut m = Mbar::fresh();
        m.init(2, site());
        assert!(m.passes(Want::Parity(1)).is_some(), "a fresh barrier passes parity 1");
        assert!(m.passes(Want::Parity(0)).is_none());
        m.tx += 16; // arrive.expect_tx
        assert!(!m.arrive(1, false, &Clock::start(1)));
        assert!(!m.arrive(1, false, &Clock::start(2)));
        assert_eq!(m.phase, 0, "16 bytes still missing");
        m.complete_tx(16, &Clock::start(3));
        assert_eq!((m.phase, m.pending, m.tx), (1, 2, 0));
        let seen = m.passes(Want::Parity(0)).expect("phase 0 completed");
        assert_eq!(
            (seen.get(1), seen.get(2), seen.get(3)),
            (1, 1, 1),
            "the waiter acquires every release"
        );
        assert!(m.passes(Want::Parity(1)).is_none(), "phase 1 is current");
        assert!(m.passes(Want::Token(0)).is_some() && m.passes(Want::Token(1)).is_none());
    }

    #[test]
    fn warps_mbarrier_overflow_and_drop() {
        let mut m = Mbar::fresh();
        m.init(1, site());
        m.tx += 8;
        assert!(!m.arrive(1, false, &Clock::default()));
        assert!(
            m.arrive(1, false, &Clock::default()),
            "a second arrival in the phase overflows it"
        );
        let mut m = Mbar::fresh();
        m.init(2, site());
        m.arrive(1, true, &Clock::default());
        m.arrive(1, false, &Clock::default());
        assert_eq!(
            (m.phase, m.pending),
            (1, 1),
            "arrive_drop leaves the later phases' count"
        );
    }

    #[test]
    fn warps_generation_completes_at_its_count() {
        let mut g = Generation::new(Some(64), Label(3));
        g.arrived = 63;
        assert!(!g.complete(96));
        g.arrived = 64;
        assert!(g.complete(96));
        let block = Generation::new(None, Label(3));
        assert!(!block.complete(1) && Generation { arrived: 1, ..block }.complete(1));
    }
}
