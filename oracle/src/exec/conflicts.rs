//! Conflict detection: accesses grouped by (array, byte address), never compared all-pairs.
//!
//! Per address we keep one slot per distinct "ordering class" of accesses (label, kind, warp,
//! warp-barrier epoch, lock-step group) and up to two distinct threads of that class: two are
//! enough to find, for any new access, another thread of the class different from its own.

use crate::ir::{AccessKind, ArrayId, Label};
use std::collections::HashMap;

/// A raw racing pair found: (label, label, array), in discovery order.
pub type RawRace = (Label, Label, ArrayId);

/// Who made an access: block and thread, by linear index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Who {
    /// Linear block index in the grid.
    pub block: u32,
    /// Linear thread index in the block.
    pub thread: u32,
}

/// The first occurrence of a race: who made the earlier and the later access, and the byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawWitness {
    /// Maker of the access recorded first.
    pub earlier: Who,
    /// Maker of the access recorded second.
    pub later: Who,
    /// The byte address both touched.
    pub byte: u64,
}

/// Races found so far, each with its first witness.
pub type Found = HashMap<RawRace, RawWitness>;

/// Conflicts found so far: those where the two accesses could disagree, and conflicts where
/// both stores wrote the same byte value, or a load saw its own thread's earlier store of the
/// byte the other store writes (a pair only ever seen in the second map is a benign race).
#[derive(Debug, Default)]
pub struct Conflicts {
    /// Conflicts with a read or an atomic, or stores of different values.
    pub harmful: Found,
    /// Stores of the same byte value.
    pub same_value: Found,
}

impl Conflicts {
    fn add(&mut self, race: RawRace, w: RawWitness, same_value: bool) {
        let map = if same_value {
            &mut self.same_value
        } else {
            &mut self.harmful
        };
        map.entry(race).or_insert(w);
    }
}

/// Whether two accesses are stores of the same byte value.
fn same_store(a: Option<u8>, b: Option<u8>) -> bool {
    matches!((a, b), (Some(x), Some(y)) if x == y)
}

/// The ordering-relevant facts of one access inside a block-barrier epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessClass {
    /// Statement label.
    pub label: Label,
    /// Read, write or atomic.
    pub kind: AccessKind,
    /// The 32-lane warp of the thread.
    pub warp: u32,
    /// How many `__syncwarp`s that warp executed before the access.
    pub warp_epoch: u64,
    /// The lock-step group of the thread in warp-synchronous mode (`None` otherwise).
    pub group: Option<u32>,
    /// The byte a store writes; for a load, the byte its own thread stored there earlier in the
    /// epoch (`None` for atomics and other loads).
    pub stored: Option<u8>,
}

impl AccessClass {
    /// Whether an access of class `self` and one of `other`, by two different threads in the
    /// same block epoch, are unordered and conflicting.
    fn races_with(&self, other: &AccessClass) -> bool {
        if !self.kind.conflicts_with(other.kind) {
            return false;
        }
        if self.warp == other.warp && self.warp_epoch != other.warp_epoch {
            return false; // a __syncwarp of their warp lies between them
        }
        if self.group.is_some() && self.group == other.group {
            // Lock step orders different statements; only one store instruction writing the
            // same byte from several lanes stays a conflict.
            return self.label == other.label && self.kind != AccessKind::Read && other.kind != AccessKind::Read;
        }
        true
    }
}

/// Up to two members of one class that differ in `same`'s sense (thread or block).
#[derive(Debug)]
struct Slot<C> {
    class: C,
    members: [Option<Who>; 2],
}

impl<C> Slot<C> {
    fn new(class: C, who: Who) -> Slot<C> {
        Slot {
            class,
            members: [Some(who), None],
        }
    }
    /// A member that `same` does not identify with `who`.
    fn other(&self, who: Who, same: fn(&Who, &Who) -> bool) -> Option<Who> {
        self.members.iter().flatten().copied().find(|m| !same(m, &who))
    }
    fn add(&mut self, who: Who, same: fn(&Who, &Who) -> bool) {
        if self.members.iter().flatten().any(|m| same(m, &who)) {
            return;
        }
        if let Some(free) = self.members.iter_mut().find(|x| x.is_none()) {
            *free = Some(who);
        }
    }
}

fn same_thread(a: &Who, b: &Who) -> bool {
    a.thread == b.thread
}

fn same_block(a: &Who, b: &Who) -> bool {
    a.block == b.block
}

/// The accesses of one block since its last block-wide barrier.
#[derive(Debug, Default)]
pub struct EpochTable {
    by_addr: HashMap<(ArrayId, u64), Vec<Slot<AccessClass>>>,
}

impl EpochTable {
    /// Forgets everything: a block-wide barrier orders all earlier accesses before later ones.
    pub fn clear(&mut self) {
        self.by_addr.clear();
    }

    /// Records that `who` accessed byte `byte` of `array`; reports races with other threads
    /// of the block into `out`.
    pub fn record(&mut self, array: ArrayId, byte: u64, class: AccessClass, who: Who, out: &mut Conflicts) {
        let slots = self.by_addr.entry((array, byte)).or_default();
        for s in slots.iter() {
            if !s.class.races_with(&class) {
                continue;
            }
            if let Some(earlier) = s.other(who, same_thread) {
                let w = RawWitness {
                    earlier,
                    later: who,
                    byte,
                };
                out.add(
                    (s.class.label, class.label, array),
                    w,
                    same_store(s.class.stored, class.stored),
                );
            }
        }
        match slots.iter_mut().find(|s| s.class == class) {
            Some(s) => s.add(who, same_thread),
            None => slots.push(Slot::new(class, who)),
        }
    }
}

/// What distinguishes global accesses across blocks: statement, kind, stored byte and grid
/// phase (the grid-wide barriers the block passed before it).
pub type GridClass = (Label, AccessKind, Option<u8>, u32);

/// All global-memory accesses of the grid, for races between different blocks.
#[derive(Debug, Default)]
pub struct GridTable {
    by_addr: HashMap<(ArrayId, u64), Vec<Slot<GridClass>>>,
}

impl GridTable {
    /// Records that `who` accessed global byte `byte` of `array`; reports races with other
    /// blocks (no barrier orders different blocks) into `out`.
    pub fn record(&mut self, array: ArrayId, byte: u64, class: GridClass, who: Who, out: &mut Conflicts) {
        let slots = self.by_addr.entry((array, byte)).or_default();
        for s in slots.iter() {
            // A grid-wide barrier orders the accesses of different blocks on its two sides.
            if !s.class.1.conflicts_with(class.1) || s.class.3 != class.3 {
                continue;
            }
            if let Some(earlier) = s.other(who, same_block) {
                let w = RawWitness {
                    earlier,
                    later: who,
                    byte,
                };
                out.add((s.class.0, class.0, array), w, same_store(s.class.2, class.2));
            }
        }
        match slots.iter_mut().find(|s| s.class == class) {
            Some(s) => s.add(who, same_block),
            None => slots.push(Slot::new(class, who)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AccessKind::*;

    fn th(thread: u32) -> Who {
        Who { block: 0, thread }
    }

    fn races(out: &Conflicts) -> Vec<RawRace> {
        out.harmful.keys().copied().collect()
    }

    fn class(label: u32, kind: AccessKind, warp: u32, warp_epoch: u64) -> AccessClass {
        AccessClass {
            label: Label(label),
            kind,
            warp,
            warp_epoch,
            group: None,
            stored: None,
        }
    }

    #[test]
    fn exec_table_same_thread_never_races() {
        let mut t = EpochTable::default();
        let mut out = Conflicts::default();
        t.record(ArrayId(0), 0, class(1, Write, 0, 0), th(5), &mut out);
        t.record(ArrayId(0), 0, class(2, Read, 0, 0), th(5), &mut out);
        assert!(out.harmful.is_empty());
        t.record(ArrayId(0), 0, class(2, Read, 0, 0), th(6), &mut out);
        assert_eq!(races(&out), vec![(Label(1), Label(2), ArrayId(0))]);
        assert_eq!(
            out.harmful.values().next().map(|w| (w.earlier, w.later)),
            Some((th(5), th(6)))
        );
    }

    #[test]
    fn exec_table_kinds_and_warp_epochs() {
        let mut t = EpochTable::default();
        let mut out = Conflicts::default();
        t.record(ArrayId(0), 0, class(1, Read, 0, 0), th(1), &mut out);
        t.record(ArrayId(0), 0, class(1, Read, 0, 0), th(2), &mut out);
        t.record(ArrayId(0), 0, class(3, Atomic, 0, 0), th(1), &mut out);
        t.record(ArrayId(0), 0, class(3, Atomic, 0, 0), th(2), &mut out);
        assert_eq!(out.harmful.len(), 1, "only read vs atomic conflicts: {out:?}");
        let mut t = EpochTable::default();
        let mut out = Conflicts::default();
        t.record(ArrayId(0), 8, class(1, Write, 0, 0), th(1), &mut out);
        t.record(ArrayId(0), 8, class(2, Read, 0, 1), th(2), &mut out);
        assert!(out.harmful.is_empty(), "a __syncwarp separates them");
        t.record(ArrayId(0), 8, class(2, Read, 1, 0), th(40), &mut out);
        assert_eq!(out.harmful.len(), 1, "other warps are not ordered by __syncwarp");
    }

    #[test]
    fn exec_table_stores_of_one_value_are_benign() {
        let mut t = EpochTable::default();
        let mut out = Conflicts::default();
        let store = |label, v| AccessClass {
            stored: Some(v),
            ..class(label, Write, 0, 0)
        };
        t.record(ArrayId(0), 0, store(1, 7), th(1), &mut out);
        t.record(ArrayId(0), 0, store(1, 7), th(2), &mut out);
        assert!(out.harmful.is_empty());
        assert_eq!(out.same_value.len(), 1);
        t.record(ArrayId(0), 0, store(2, 9), th(3), &mut out);
        assert_eq!(races(&out), vec![(Label(1), Label(2), ArrayId(0))]);
    }

    #[test]
    fn exec_grid_table_needs_two_blocks() {
        let mut g = GridTable::default();
        let mut out = Conflicts::default();
        let who = |block, thread| Who { block, thread };
        g.record(ArrayId(1), 4, (Label(1), Write, Some(0), 0), who(0, 1), &mut out);
        g.record(ArrayId(1), 4, (Label(1), Write, Some(0), 0), who(0, 2), &mut out);
        assert!(out.harmful.is_empty());
        g.record(ArrayId(1), 4, (Label(2), Read, None, 0), who(1, 1), &mut out);
        assert_eq!(races(&out), vec![(Label(1), Label(2), ArrayId(1))]);
    }

    #[test]
    fn exec_grid_phases_order_blocks() {
        let mut g = GridTable::default();
        let mut out = Conflicts::default();
        let who = |block, thread| Who { block, thread };
        // Block 0 writes before the grid barrier, block 1 reads after it: ordered.
        g.record(ArrayId(1), 4, (Label(1), Write, Some(0), 0), who(0, 1), &mut out);
        g.record(ArrayId(1), 4, (Label(2), Read, None, 1), who(1, 1), &mut out);
        assert!(out.harmful.is_empty());
        // A read in the same phase as the write races.
        g.record(ArrayId(1), 4, (Label(3), Read, None, 0), who(1, 2), &mut out);
        assert_eq!(races(&out), vec![(Label(1), Label(3), ArrayId(1))]);
    }
}
