//! The async proxy: bulk copies and TMA operations read shared memory through the async
//! proxy, which sees a generic-proxy write only through a `fence.proxy.async` ordered after it
//! and before the copy. The fence is cumulative: the writer's own (CUTLASS's
//! `tma_store_fence()` in every thread before the barrier), or one that the issuing thread runs
//! after the barrier that orders the writes before it (ThunderKittens' `store_async`). A write
//! that happens before such a read with no such fence is a defect of its own: the barrier that
//! orders the threads does not order the proxies.

use super::hb::Hb;
use super::pipeline::AsyncEv;
use super::races::{Buckets, Rec};
use super::skeleton::AgentDone;
use super::units::Units;
use crate::ir::{ArrayId, Kernel, Label, ProxyFence, Space, Span};
use crate::report::{Inconclusive, SyncDefect, SyncDefectKind};
use crate::tree::for_each_stmt;
use std::collections::{HashMap, HashSet};

/// What the check needs of a checked schedule.
pub(crate) struct ProxyCx<'a> {
    /// The kernel.
    pub(crate) k: &'a Kernel,
    /// Units and their traces.
    pub(crate) units: &'a Units,
    /// Happens-before.
    pub(crate) hb: &'a Hb,
}

impl ProxyCx<'_> {
    /// Whether unit `u` runs through the async proxy (a bulk copy or TMA operation; an Ampere
    /// `cp.async` is generic).
    fn async_proxy(&self, u: u32) -> bool {
        let Some(a) = self.units.info[u as usize].agent else {
            return false;
        };
        matches!(
            self.units.done[a as usize],
            AgentDone::Mbarrier { .. } | AgentDone::BulkGroup | AgentDone::Wgmma
        )
    }

    /// Whether some `fence.proxy.async` happens after write `w` and before the start of
    /// segment `seg` of unit `reader`.
    fn fenced(&self, w: &Rec, fences: &[(u32, u32, u32)], (reader, seg): (u32, u32)) -> bool {
        fences.iter().any(|&(v, f, mask)| {
            let after_write = if v == w.warp {
                // The writing lane's own later fence, or one every lane of the unit has seen
                // the write's segment by.
                (mask & (1 << w.lane) != 0 && f >= w.seg) || self.hb.lanes_saw(v, w.seg, f)
            } else {
                self.hb.before((w.warp, w.seg), (v, f))
            };
            after_write && self.hb.before((v, f), (reader, seg))
        })
    }

    /// Whether write `a` happens before write `b` (lanes of one unit only through what every
    /// lane of it has seen).
    fn write_before(&self, a: &Rec, b: &Rec) -> bool {
        if a.warp != b.warp {
            return self.hb.before((a.warp, a.seg), (b.warp, b.seg));
        }
        if a.lane == b.lane {
            // Within one segment the order of two writes is not recorded: neither counts as
            // overwriting the other.
            return a.seg < b.seg;
        }
        self.hb.lanes_saw(a.warp, a.seg, b.seg)
    }

    /// Every `fence.proxy.async` event: (unit, event, lanes).
    fn fences(&self) -> Vec<(u32, u32, u32)> {
        let mut out = vec![];
        for (u, t) in self.units.traces.iter().enumerate() {
            for (f, e) in t.events.iter().enumerate() {
                if matches!(e.op.as_deref(), Some(AsyncEv::Fence(ProxyFence::Async))) && e.mask != 0 {
                    out.push((u as u32, f as u32, e.mask));
                }
            }
        }
        out
    }

    /// The defect of write `w` read by copy `x` through the async proxy at `byte`.
    fn defect(&self, array: ArrayId, w: &Rec, x: &Rec, byte: i64, spans: &HashMap<u32, Span>) -> SyncDefect {
        let name = self.k.array(array).name.clone();
        let trace = &self.units.traces[w.warp as usize];
        let thread = match trace.lanes[w.lane as usize] {
            [x, 0, 0] => x.to_string(),
            [x, y, z] => format!("({x}, {y}, {z})"),
        };
        let issue = self.units.traces[x.warp as usize].events[0].span;
        let write = spans.get(&w.label).copied().unwrap_or(Span::DUMMY);
        SyncDefect {
            kind: SyncDefectKind::MissingProxyFence { array: name.clone() },
            labels: vec![Label(w.label), Label(x.label)],
            spans: vec![write, issue],
            trace: vec![
                format!(
                    "thread {thread} writes byte {byte} of `{name}` at {} (generic proxy)",
                    self.k.loc(write)
                ),
                format!(
                    "{}, issued at {} after that write, read it through the async proxy",
                    self.units.name(x.warp),
                    self.k.loc(issue)
                ),
                format!(
                    "no fence.proxy.async is ordered after thread {thread}'s write and before the copy's issue (neither the writer's own nor one the issuing thread runs after a barrier): the copy may read the old value"
                ),
            ],
        }
    }
}

/// Every generic-proxy write to shared memory that an async-proxy copy reads after it, with no
/// proxy fence ordered between them: one defect per (write, copy) statement pair. Only the
/// last writes before the copy count: a write another write to the same bytes overwrites
/// before the copy (a tile zeroed, then filled and fenced) is not what the copy reads.
pub(crate) fn missing_fences(cx: &ProxyCx, b: &Buckets) -> Vec<SyncDefect> {
    let spans = stmt_spans(cx.k);
    let fences = cx.fences();
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    let mut out = vec![];
    for bi in 0..b.keys.len() as u32 {
        let (array, unit_ix) = b.keys[bi as usize];
        if cx.k.arrays.get(array as usize).map(|a| a.space) != Some(Space::Shared) {
            continue;
        }
        let recs = b.bucket(bi);
        let reads = recs.iter().filter(|r| r.kind == 0 && cx.async_proxy(r.warp));
        let writes: Vec<&Rec> = recs
            .iter()
            .filter(|r| r.kind != 0 && cx.units.info[r.warp as usize].agent.is_none())
            .collect();
        for x in reads {
            let before: Vec<&Rec> = writes
                .iter()
                .copied()
                .filter(|w| cx.hb.before((w.warp, w.seg), (x.warp, x.seg)))
                .collect();
            for &w in &before {
                let pair = (w.label, x.label);
                let overwritten = before.iter().any(|o| !std::ptr::eq(*o, w) && cx.write_before(w, o));
                if seen.contains(&pair) || overwritten || cx.fenced(w, &fences, (x.warp, x.seg)) {
                    continue;
                }
                seen.insert(pair);
                let byte = unit_ix * b.unit[&array] as i64;
                out.push(cx.defect(ArrayId(array), w, x, byte, &spans));
            }
        }
    }
    out
}

/// An async-proxy copy whose shared-memory source the emulation could not place (a symbolic
/// address or size) while threads write the same array: whether a fence is missing is not
/// decided.
pub(crate) fn undecided(cx: &ProxyCx) -> Option<Inconclusive> {
    for (u, t) in cx.units.traces.iter().enumerate() {
        let u = u as u32;
        if !cx.async_proxy(u) {
            continue;
        }
        for a in t.sym.iter().filter(|a| a.kind == crate::ir::AccessKind::Read) {
            if cx.k.array(a.array).space != Space::Shared || !written_generically(cx, a.array) {
                continue;
            }
            return Some(Inconclusive {
                span: t.events[0].span,
                message: format!(
                    "this copy reads `{}` through the async proxy at an address or size the emulation could not make concrete: whether every generic write before it is fenced (fence.proxy.async) is not decided (give the launch's values with --param)",
                    cx.k.array(a.array).name
                ),
            });
        }
    }
    None
}

/// Whether some thread (not a copy) writes `array`.
fn written_generically(cx: &ProxyCx, array: ArrayId) -> bool {
    let writes = |t: &super::skeleton::WarpTrace| {
        t.conc
            .iter()
            .any(|a| a.array == array.0 && a.kind != crate::ir::AccessKind::Read)
            || t.sym
                .iter()
                .any(|a| a.array == array && a.kind != crate::ir::AccessKind::Read)
    };
    cx.units
        .traces
        .iter()
        .zip(&cx.units.info)
        .any(|(t, i)| i.agent.is_none() && writes(t))
}

/// The span of every basic statement, by label.
fn stmt_spans(k: &Kernel) -> HashMap<u32, Span> {
    let mut out = HashMap::new();
    for_each_stmt(&k.body, &mut |s| {
        out.insert(s.label.0, s.span);
    });
    out
}
