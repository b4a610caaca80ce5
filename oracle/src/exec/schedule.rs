//! Schedules of the warp-scheduling executor: which runnable unit (a warp, one lane of it, or
//! an asynchronous copy in flight) runs next. Every schedule is deterministic in its seed.

use super::value::mix;

/// How the executor interleaves warps and copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Warps in ascending order, then the copies in flight, round-robin.
    RoundRobin,
    /// The other way round: copies in flight first, warps in descending order, lanes last first.
    Reverse,
    /// Depth first: copies in flight land at once, and the lowest-numbered warp that can run
    /// (the highest with `reverse`) runs until it blocks.
    DepthFirst {
        /// Highest-numbered warp first.
        reverse: bool,
    },
    /// Warps round-robin; a copy lands only when no warp can run (copies as late as possible).
    CopiesLast,
    /// A pseudo-random runnable unit each time (sometimes a single lane of a warp; half the
    /// time the unit that ran last, if it still can), from this seed.
    Random(u64),
}

impl Schedule {
    /// Round-robin, reverse, copies last, depth first both ways and `random` pseudo-random
    /// schedules.
    pub fn standard(random: u64) -> Vec<Schedule> {
        let mut s = vec![
            Schedule::RoundRobin,
            Schedule::Reverse,
            Schedule::CopiesLast,
            Schedule::DepthFirst { reverse: false },
            Schedule::DepthFirst { reverse: true },
        ];
        s.extend((0..random).map(Schedule::Random));
        s
    }
}

/// A unit the scheduler can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Every runnable lane of a warp, one segment each.
    Warp(u32),
    /// One thread (by linear id).
    Lane(usize),
    /// The copy agent of this index lands.
    Copy(usize),
}

/// Picks units according to a [`Schedule`].
#[derive(Debug)]
pub struct Picker {
    schedule: Schedule,
    /// Position in the round-robin order; the pseudo-random state for `Random`.
    cursor: u64,
    /// The unit picked last.
    last: Option<Unit>,
}

impl Picker {
    /// A picker at the start of `schedule`.
    pub fn new(schedule: Schedule) -> Picker {
        let cursor = match schedule {
            Schedule::Random(seed) => mix(&[seed, 0x5C4E_D01E]),
            _ => 0,
        };
        Picker {
            schedule,
            cursor,
            last: None,
        }
    }

    /// Whether a warp's lanes run in descending order.
    pub fn lanes_reversed(&self) -> bool {
        self.schedule == Schedule::Reverse
    }

    /// The next unit among `ready` (warps and copies that can run, in ascending order:
    /// warps first), and for a warp the lanes that can run (to pick one of).
    pub fn pick(&mut self, ready: &[Unit], lanes_of: impl Fn(u32) -> Vec<usize>) -> Option<Unit> {
        if ready.is_empty() {
            return None;
        }
        let n = ready.len() as u64;
        let key = |u: &Unit| match *u {
            Unit::Warp(w) => w as u64,
            Unit::Lane(t) => t as u64,
            Unit::Copy(c) => (1u64 << 32) + c as u64,
        };
        match self.schedule {
            Schedule::RoundRobin => {
                let i = ready.iter().position(|u| key(u) >= self.cursor).unwrap_or(0);
                self.cursor = key(&ready[i]) + 1;
                Some(ready[i])
            }
            Schedule::CopiesLast => {
                let warps = ready
                    .iter()
                    .position(|u| matches!(u, Unit::Copy(_)))
                    .unwrap_or(ready.len());
                if warps == 0 {
                    return Some(ready[0]); // the oldest copy in flight
                }
                let i = ready[..warps].iter().position(|u| key(u) >= self.cursor).unwrap_or(0);
                self.cursor = key(&ready[i]) + 1;
                Some(ready[i])
            }
            Schedule::Reverse => {
                // Descending, copies (the largest keys) first.
                let i = ready
                    .iter()
                    .rposition(|u| key(u) < self.cursor)
                    .unwrap_or(ready.len() - 1);
                self.cursor = key(&ready[i]);
                Some(ready[i])
            }
            Schedule::DepthFirst { reverse } => {
                let copy = ready.iter().find(|u| matches!(u, Unit::Copy(_)));
                let warp = if reverse {
                    ready.iter().rev().find(|u| matches!(u, Unit::Warp(_)))
                } else {
                    ready.first()
                };
                copy.or(warp).copied()
            }
            Schedule::Random(_) => {
                let again = self.last.filter(|l| ready.contains(l) && self.next().is_multiple_of(2));
                let u = again.unwrap_or_else(|| ready[(self.next() % n) as usize]);
                self.last = Some(u);
                match u {
                    Unit::Warp(w) if self.next().is_multiple_of(4) => {
                        let lanes = lanes_of(w);
                        let i = self.next() % lanes.len().max(1) as u64;
                        Some(lanes.get(i as usize).map_or(u, |&t| Unit::Lane(t)))
                    }
                    _ => Some(u),
                }
            }
        }
    }

    fn next(&mut self) -> u64 {
        self.cursor = mix(&[self.cursor]);
        self.cursor
    }
}
