//! Happens-before by vector clocks, and the access history that finds races with it: two
//! conflicting accesses of different agents (threads, asynchronous copies) race when the
//! earlier one is not ordered before the later one.

use crate::ir::{AccessKind, ArrayId, Label, Span};
use std::collections::HashMap;

/// An agent: a thread of the block or an asynchronous copy in flight.
pub type Agent = u32;

/// A vector clock over agents (missing entries are 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock(Vec<u32>);

impl Clock {
    /// The clock of a fresh agent: its own entry 1, so its first accesses are epoch 1.
    pub fn start(me: Agent) -> Clock {
        let mut c = Clock::default();
        c.tick(me);
        c
    }
    /// The entry of `a`.
    pub fn get(&self, a: Agent) -> u32 {
        self.0.get(a as usize).copied().unwrap_or(0)
    }
    /// Advances the entry of `a` (after a release, so later accesses are not covered by it).
    pub fn tick(&mut self, a: Agent) {
        let i = a as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += 1;
    }
    /// The entry-wise maximum (an acquire of `other`).
    pub fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }
}

/// One end of a race: the statement, the access's span and the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessSite {
    /// Statement label.
    pub label: Label,
    /// The access's span.
    pub span: Span,
    /// Load, store or atomic.
    pub kind: AccessKind,
}

/// A past access of one byte: who, when (the agent's own clock entry), where.
#[derive(Clone, Copy, Debug)]
struct Entry {
    agent: Agent,
    epoch: u32,
    site: AccessSite,
}

/// A race seen: the earlier and the later access, the array, and the two agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeenRace {
    /// The access made first in the execution.
    pub earlier: AccessSite,
    /// The access made second.
    pub later: AccessSite,
    /// The array.
    pub array: ArrayId,
    /// Who made them.
    pub agents: [Agent; 2],
    /// The byte both touched.
    pub byte: u64,
}

/// The accesses of shared and global memory so far, by byte.
#[derive(Debug, Default)]
pub struct History {
    by_byte: HashMap<(ArrayId, u64), Vec<Entry>>,
}

impl History {
    /// Records an access of `byte` by `agent` with clock `now`; calls `race` for every earlier
    /// conflicting access of another agent not ordered before it.
    pub fn record(
        &mut self,
        (array, byte): (ArrayId, u64),
        agent: Agent,
        now: &Clock,
        site: AccessSite,
        race: &mut impl FnMut(SeenRace),
    ) {
        let entries = self.by_byte.entry((array, byte)).or_default();
        for e in entries.iter() {
            if e.agent != agent && e.site.kind.conflicts_with(site.kind) && now.get(e.agent) < e.epoch {
                race(SeenRace {
                    earlier: e.site,
                    later: site,
                    array,
                    agents: [e.agent, agent],
                    byte,
                });
            }
        }
        // A later access of the same agent and site stands for the earlier one: whatever is
        // unordered with the earlier is unordered with it too, and names the same pair.
        let entry = Entry {
            agent,
            epoch: now.get(agent),
            site,
        };
        match entries.iter_mut().find(|e| e.agent == agent && e.site == site) {
            Some(e) => *e = entry,
            None => entries.push(entry),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(l: u32, kind: AccessKind) -> AccessSite {
        AccessSite {
            label: Label(l),
            span: Span::DUMMY,
            kind,
        }
    }

    #[test]
    fn warps_clock_orders_only_after_acquire() {
        let mut h = History::default();
        let mut seen = Vec::new();
        let (mut a, mut b) = (Clock::start(0), Clock::start(1));
        let key = (ArrayId(0), 4);
        h.record(key, 0, &a, site(1, AccessKind::Write), &mut |r| seen.push(r));
        h.record(key, 1, &b, site(2, AccessKind::Read), &mut |r| seen.push(r));
        assert_eq!(seen.len(), 1, "no synchronization: a race");
        // a releases, b acquires: b's next read is ordered after a's write.
        let released = a.clone();
        a.tick(0);
        b.join(&released);
        seen.clear();
        h.record(key, 1, &b, site(3, AccessKind::Read), &mut |r| seen.push(r));
        assert!(seen.is_empty(), "{seen:?}");
        // a's write after the release is not covered by it.
        h.record(key, 0, &a, site(4, AccessKind::Write), &mut |r| seen.push(r));
        assert_eq!(seen.len(), 2, "the new write races with both reads of b: {seen:?}");
    }
}
