//! Race checks between concurrent segment instances with concrete addresses: accesses are
//! bucketed by (array, address unit) with a hash map, and each bucket's label groups are
//! checked against each other with the happens-before intervals (no all-pairs scan).

use super::hb::Hb;
use super::sim::{Sim, NO_GEN};
use super::skeleton::{AgentDone, WarpTrace};
use super::units::Units;
use crate::ir::{AccessKind, ArrayId, Kernel, Label, Space, Span};
use crate::report::*;
use crate::tree::{for_each_stmt, LabelTree};
use std::collections::{HashMap, HashSet};

/// One access instance of a bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Rec {
    /// Statement label.
    pub(crate) label: u32,
    /// Access kind as a number (0 read, 1 write, 2 atomic).
    pub(crate) kind: u8,
    /// Warp.
    pub(crate) warp: u32,
    /// Segment.
    pub(crate) seg: u32,
    /// Lane.
    pub(crate) lane: u8,
}

/// The compact code of an access kind (0 read, 1 write, 2 atomic), as the buckets store it.
pub(crate) fn kind_code(k: AccessKind) -> u8 {
    match k {
        AccessKind::Read => 0,
        AccessKind::Write => 1,
        AccessKind::Atomic => 2,
    }
}

/// The access kind of a [`kind_code`].
pub(crate) fn kind_of(c: u8) -> AccessKind {
    match c {
        0 => AccessKind::Read,
        1 => AccessKind::Write,
        _ => AccessKind::Atomic,
    }
}

/// Whether two access kinds conflict: at least one writes, and not both atomic.
pub(crate) fn conflicts(a: u8, b: u8) -> bool {
    (a != 0 || b != 0) && !(a == 2 && b == 2)
}

/// The concrete accesses bucketed by address unit.
pub(crate) struct Buckets {
    /// Address unit (bytes) per array: gcd of every concrete offset and size.
    pub(crate) unit: HashMap<u32, u64>,
    /// (array, unit index) of each bucket.
    pub(crate) keys: Vec<(u32, i64)>,
    /// Start of each bucket in `recs` (one more entry than buckets).
    pub(crate) starts: Vec<usize>,
    /// Records grouped by bucket, each bucket sorted and deduplicated.
    pub(crate) recs: Vec<Rec>,
}

impl Buckets {
    /// Records of bucket `b`.
    pub(crate) fn bucket(&self, b: u32) -> &[Rec] {
        &self.recs[self.starts[b as usize]..self.starts[b as usize + 1]]
    }
}

/// A fast multiplicative hasher for the bucket index (keys are small integers, not
/// attacker-controlled; SipHash dominated the bucketing time at 10^7 accesses).
#[derive(Default, Clone, Copy)]
struct MulHasher(u64);

impl std::hash::Hasher for MulHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type MulBuild = std::hash::BuildHasherDefault<MulHasher>;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Units `[lo, hi)` covered by `size` bytes at `offset` with unit `g`.
pub(crate) fn units(offset: i64, size: u32, g: u64) -> (i64, i64) {
    let g = g as i64;
    (
        offset.div_euclid(g),
        (offset + size.max(1) as i64 + g - 1).div_euclid(g),
    )
}

/// Buckets every concrete access of a shared or global array.
pub(crate) fn bucket(k: &Kernel, warps: &[WarpTrace]) -> Buckets {
    let racy = |a: u32| k.arrays.get(a as usize).is_some_and(|x| x.space != Space::Local);
    let mut unit: HashMap<u32, u64> = HashMap::new();
    for w in warps {
        for a in &w.conc {
            let g = unit.entry(a.array).or_insert(0);
            *g = gcd(gcd(*g, a.offset.unsigned_abs()), a.size.max(1) as u64);
        }
        for a in &w.sym {
            let g = unit.entry(a.array.0).or_insert(0);
            *g = gcd(*g, a.size.max(1) as u64);
        }
    }
    let mut index: HashMap<(u32, i64), u32, MulBuild> = HashMap::default();
    let mut keys = vec![];
    let mut locs: Vec<u32> = vec![];
    let mut flat: Vec<Rec> = vec![];
    for (wi, w) in warps.iter().enumerate() {
        for a in &w.conc {
            if !racy(a.array) {
                continue;
            }
            let g = unit[&a.array].max(1);
            let (lo, hi) = units(a.offset, a.size, g);
            for u in lo..hi {
                let next = keys.len() as u32;
                let b = *index.entry((a.array, u)).or_insert_with(|| {
                    keys.push((a.array, u));
                    next
                });
                locs.push(b);
                flat.push(Rec {
                    label: a.label,
                    kind: kind_code(a.kind),
                    warp: wi as u32,
                    seg: a.seg,
                    lane: a.lane,
                });
            }
        }
    }
    // Counting sort by bucket: linear time and no per-bucket allocation.
    let mut starts = vec![0usize; keys.len() + 1];
    for &b in &locs {
        starts[b as usize + 1] += 1;
    }
    for i in 0..keys.len() {
        starts[i + 1] += starts[i];
    }
    let mut fill = starts.clone();
    let mut recs = vec![
        Rec {
            label: 0,
            kind: 0,
            warp: 0,
            seg: 0,
            lane: 0
        };
        flat.len()
    ];
    for (r, &b) in flat.iter().zip(&locs) {
        recs[fill[b as usize]] = *r;
        fill[b as usize] += 1;
    }
    drop(flat);
    drop(locs);
    // Sort and deduplicate each bucket, compacting in place.
    let mut out = 0;
    let mut new_starts = vec![0usize; keys.len() + 1];
    for b in 0..keys.len() {
        let (s, e) = (starts[b], starts[b + 1]);
        recs[s..e].sort_unstable();
        let mut last = None;
        for i in s..e {
            if last != Some(recs[i]) {
                last = Some(recs[i]);
                recs[out] = recs[i];
                out += 1;
            }
        }
        new_starts[b + 1] = out;
    }
    recs.truncate(out);
    Buckets {
        unit,
        keys,
        starts: new_starts,
        recs,
    }
}

/// Splits a sorted record slice into (label, kind) groups.
pub(crate) fn groups(recs: &[Rec]) -> Vec<&[Rec]> {
    let mut out = vec![];
    let mut s = 0;
    for i in 1..=recs.len() {
        if i == recs.len() || (recs[i].label, recs[i].kind) != (recs[s].label, recs[s].kind) {
            out.push(&recs[s..i]);
            s = i;
        }
    }
    out
}

/// Finds `y` in `group` (sorted by warp, segment, lane) concurrent with `x` and of another
/// thread: another warp in the happens-before window, or (unless warp-synchronous) another
/// lane of the same warp in the same lane epoch.
pub(crate) fn concurrent_with(hb: &Hb, x: &Rec, group: &[Rec], warp_sync: bool) -> Option<Rec> {
    let mut i = 0;
    while i < group.len() {
        let u = group[i].warp;
        let end = i + group[i..].partition_point(|r| r.warp == u);
        let part = &group[i..end];
        i = end;
        let (lo, hi) = if u != x.warp {
            hb.range(x.warp, x.seg, u)
        } else if warp_sync {
            continue;
        } else {
            hb.epoch_range(x.warp, x.seg)
        };
        if lo >= hi {
            continue;
        }
        let first = part.partition_point(|r| r.seg < lo);
        for r in &part[first..] {
            if r.seg >= hi {
                break;
            }
            if u != x.warp || r.lane != x.lane {
                return Some(*r);
            }
        }
    }
    None
}

/// Context for building race reports.
pub(crate) struct RaceCtx<'a> {
    /// The kernel.
    pub(crate) k: &'a Kernel,
    /// Its label tree (text order, loops).
    pub(crate) tree: LabelTree,
    /// Span of every access: (label, array, kind) → span.
    pub(crate) spans: HashMap<(Label, ArrayId, AccessKind), Span>,
    /// Unit traces.
    pub(crate) warps: &'a [WarpTrace],
    /// The units.
    pub(crate) units: &'a Units,
    /// The schedule (generation context for witnesses).
    pub(crate) sim: &'a Sim,
    /// Reported (first label, second label, array).
    pub(crate) seen: HashSet<(Label, Label, ArrayId)>,
    /// The races found.
    pub(crate) races: Vec<Race>,
}

/// One side of a race found: label, kind, warp, segment, lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Side {
    /// The access statement.
    pub(crate) label: Label,
    /// How it accesses.
    pub(crate) kind: AccessKind,
    /// Warp.
    pub(crate) warp: u32,
    /// Segment of the warp.
    pub(crate) seg: u32,
    /// Lane.
    pub(crate) lane: u8,
}

impl<'a> RaceCtx<'a> {
    /// Prepares race reporting for `k`.
    pub(crate) fn new(k: &'a Kernel, units: &'a Units, sim: &'a Sim) -> Self {
        let mut spans = HashMap::new();
        for_each_stmt(&k.body, &mut |s| {
            if let crate::ir::StmtKind::Basic(ops) = &s.kind {
                for op in ops {
                    let found: Vec<&crate::ir::Access> = match op {
                        crate::ir::Op::Read(_, a) | crate::ir::Op::Write(a, _) | crate::ir::Op::Atomic(_, a, _) => {
                            vec![a]
                        }
                        crate::ir::Op::AsyncCopy(c) => std::iter::once(&c.dst).chain(&c.src).collect(),
                        crate::ir::Op::Wgmma(ops) => {
                            for o in ops {
                                spans.entry((s.label, o.array, AccessKind::Read)).or_insert(o.span);
                            }
                            continue;
                        }
                        _ => continue,
                    };
                    for a in found {
                        spans.entry((s.label, a.array, a.kind)).or_insert(a.span);
                    }
                }
            }
        });
        RaceCtx {
            k,
            tree: LabelTree::new(k),
            spans,
            warps: &units.traces,
            units,
            sim,
            seen: HashSet::new(),
            races: vec![],
        }
    }

    fn key(&self, a: Label, b: Label, array: ArrayId) -> (Label, Label, ArrayId) {
        if self.post(a) <= self.post(b) {
            (a, b, array)
        } else {
            (b, a, array)
        }
    }

    fn post(&self, l: Label) -> u32 {
        self.tree.info.get(&l).map(|i| i.post).unwrap_or(l.0)
    }

    /// Whether the race between these labels on this array is already reported.
    pub(crate) fn reported(&self, a: Label, b: Label, array: ArrayId) -> bool {
        self.seen.contains(&self.key(a, b, array))
    }

    /// The generation (number) of the barrier event that precedes segment `seg` of `w`.
    fn generation_before(&self, w: u32, seg: u32) -> (i64, i64) {
        if seg == 0 {
            return (-1, 0);
        }
        let e = &self.warps[w as usize].events[seg as usize - 1];
        let mut gi = self.sim.ev_gen[w as usize][seg as usize - 1];
        if gi == NO_GEN {
            gi = self.sim.takes[w as usize][seg as usize - 1];
        }
        let seq = if gi == NO_GEN {
            0
        } else {
            self.sim.gens[gi as usize].seq as i64
        };
        (e.id as i64, seq)
    }

    /// Whether `copy` is a bulk store reading its source and `other` a thread's write to it.
    fn store_in_flight(&self, copy: &Side, other: &Side) -> bool {
        let store = self.units.info[copy.warp as usize]
            .agent
            .is_some_and(|a| self.units.done[a as usize] == AgentDone::BulkGroup);
        store
            && copy.kind == AccessKind::Read
            && self.units.info[other.warp as usize].agent.is_none()
            && other.kind != AccessKind::Read
    }

    /// Records a race between two sides touching `byte_offset` of `array`.
    pub(crate) fn report(&mut self, array: ArrayId, a: Side, b: Side, byte_offset: Option<i64>, assumed: bool) {
        let key = self.key(a.label, b.label, array);
        if !self.seen.insert(key) {
            return;
        }
        let (a, b) = if key.0 == a.label { (a, b) } else { (b, a) };
        let lanes = |s: &Side| self.warps[s.warp as usize].lanes[s.lane as usize];
        let elem = self.k.array(array).elem_size.max(1) as i64;
        let (ida, gena) = self.generation_before(a.warp, a.seg);
        let (idb, genb) = self.generation_before(b.warp, b.seg);
        let phys = |s: &Side| self.units.info[s.warp as usize].warp as i64;
        let values = vec![
            ("warp".to_string(), phys(&a), Some(phys(&b))),
            ("lane".to_string(), a.lane as i64, Some(b.lane as i64)),
            ("barriers_passed".to_string(), a.seg as i64, Some(b.seg as i64)),
            ("after_barrier_id".to_string(), ida, Some(idb)),
            ("after_generation".to_string(), gena, Some(genb)),
        ];
        let relations = {
            let la = self
                .tree
                .info
                .get(&a.label)
                .map(|i| i.loop_owners())
                .unwrap_or_default();
            let lb = self
                .tree
                .info
                .get(&b.label)
                .map(|i| i.loop_owners())
                .unwrap_or_default();
            if la.iter().any(|l| lb.contains(l)) {
                vec![IterRelation::Unknown]
            } else {
                vec![IterRelation::SameIteration]
            }
        };
        let span = |s: &Side| {
            self.spans
                .get(&(s.label, array, s.kind))
                .copied()
                .unwrap_or(Span::DUMMY)
        };
        self.races.push(Race {
            array,
            first: RaceAccess {
                label: a.label,
                span: span(&a),
                kind: a.kind,
            },
            second: RaceAccess {
                label: b.label,
                span: span(&b),
                kind: b.kind,
            },
            kind: RaceKind::of(a.kind, b.kind),
            relations,
            scope: RaceScope::IntraBlock,
            witness: Witness {
                threads: vec![
                    ThreadId {
                        thread: lanes(&a),
                        block: [0; 3],
                    },
                    ThreadId {
                        thread: lanes(&b),
                        block: [0; 3],
                    },
                ],
                values,
                index: byte_offset.map(|o| o.div_euclid(elem)),
                byte_offset,
            },
            assumed,
            // The named checker does not compare stored values: every race is a defect.
            benign: false,
            overlap: Vec::new(),
            store_in_flight: self.store_in_flight(&a, &b) || self.store_in_flight(&b, &a),
        });
    }
}

/// Checks every bucket of concrete accesses.
pub(crate) fn check_concrete(cx: &mut RaceCtx, hb: &Hb, b: &Buckets, warp_sync: bool) {
    for bi in 0..b.keys.len() as u32 {
        let recs = b.bucket(bi);
        if recs.iter().all(|r| r.kind == 0) {
            continue;
        }
        let (array, unit_ix) = b.keys[bi as usize];
        let array = ArrayId(array);
        let gs = groups(recs);
        for i in 0..gs.len() {
            for j in i..gs.len() {
                let (ga, gb) = (gs[i], gs[j]);
                let (la, lb) = (Label(ga[0].label), Label(gb[0].label));
                if !conflicts(ga[0].kind, gb[0].kind) || cx.reported(la, lb, array) {
                    continue;
                }
                let (small, large) = if ga.len() <= gb.len() { (ga, gb) } else { (gb, ga) };
                for x in small {
                    if let Some(y) = concurrent_with(hb, x, large, warp_sync) {
                        let side = |r: &Rec| Side {
                            label: Label(r.label),
                            kind: kind_of(r.kind),
                            warp: r.warp,
                            seg: r.seg,
                            lane: r.lane,
                        };
                        let off = unit_ix * b.unit[&array.0] as i64;
                        cx.report(array, side(x), side(&y), Some(off), false);
                        break;
                    }
                }
            }
        }
    }
}
