//! The async-pipeline events the per-warp emulation records: mbarrier operations, the issue
//! of asynchronous copies and the waits for their commit groups, with the mbarrier objects
//! they name (an object is an array element at a concrete byte offset).

use crate::ir::{ArrayId, Kernel, ProxyFence};
use std::collections::HashMap;

/// Index of an mbarrier object in [`Mbarriers`].
pub(crate) type BarIdx = u32;

/// Index of an asynchronous copy group (an "agent": the copies one event issued).
pub(crate) type AgentIdx = u32;

/// The mbarrier objects the emulation met, by (array, byte offset), in order of first use.
#[derive(Debug, Default)]
pub(crate) struct Mbarriers {
    /// (array, byte offset) of each object.
    pub(crate) keys: Vec<(ArrayId, i64)>,
    index: HashMap<(ArrayId, i64), BarIdx>,
}

impl Mbarriers {
    /// The index of the object at `off` bytes into `array` (a new one on first use).
    pub(crate) fn of(&mut self, array: ArrayId, off: i64) -> BarIdx {
        let next = self.keys.len() as BarIdx;
        *self.index.entry((array, off)).or_insert_with(|| {
            self.keys.push((array, off));
            next
        })
    }
    /// The object as written: `full[2]` (an element of an 8-byte array), `bar` or `bars+24`.
    pub(crate) fn name(&self, k: &Kernel, b: BarIdx) -> String {
        let (array, off) = self.keys[b as usize];
        let a = k.array(array);
        let elems = a.byte_len().map(|n| n / a.elem_size.max(1) as u64);
        match (a.elem_size, elems) {
            (_, Some(1)) if off == 0 => a.name.clone(),
            (8, _) if off % 8 == 0 => format!("{}[{}]", a.name, off / 8),
            _ => format!("{}+{}", a.name, off),
        }
    }
}

/// The phase a wait names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PhaseSel {
    /// The phase of this parity completed (the one before the current phase has it).
    Parity(u8),
    /// The phase the arrival with this token counted in completed.
    Token(u64),
}

/// One async-pipeline event of a warp (for the lanes of its mask).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AsyncEv {
    /// `mbarrier.init`.
    Init {
        /// The object.
        bar: BarIdx,
        /// Expected arrivals per phase.
        count: i64,
    },
    /// `mbarrier.arrive` (per lane: `tx` bytes expected, then `count` arrivals).
    Arrive {
        /// The object.
        bar: BarIdx,
        /// Arrivals per lane.
        count: i64,
        /// Bytes expected per lane (`.expect_tx`), 0 if none.
        tx: i64,
        /// `arrive_drop`.
        drop: bool,
        /// The token the lanes received, if kept.
        token: Option<u64>,
    },
    /// `mbarrier.expect_tx` (per lane).
    ExpectTx {
        /// The object.
        bar: BarIdx,
        /// Bytes.
        bytes: i64,
    },
    /// `mbarrier.complete_tx` by the thread (per lane).
    CompleteTx {
        /// The object.
        bar: BarIdx,
        /// Bytes.
        bytes: i64,
    },
    /// A wait until a phase completed.
    Wait {
        /// The object.
        bar: BarIdx,
        /// Which phase.
        phase: PhaseSel,
    },
    /// `cp.async.mbarrier.arrive`: an arrival once the copies each lane issued completed.
    ArriveOnCopies {
        /// The object.
        bar: BarIdx,
        /// `.noinc`: the arrival is one of the expected count.
        noinc: bool,
        /// Per lane, the copies it waits for.
        copies: Vec<(u8, Vec<AgentIdx>)>,
    },
    /// `mbarrier.inval`.
    Inval {
        /// The object.
        bar: BarIdx,
    },
    /// The issue of asynchronous copies.
    Issue {
        /// The copies.
        agent: AgentIdx,
    },
    /// `cp.async.wait_group`: per lane, the copies that must have completed.
    WaitGroup {
        /// Per lane, the copies it waits for.
        done: Vec<(u8, Vec<AgentIdx>)>,
    },
    /// A proxy or mbarrier-initialization fence.
    Fence(ProxyFence),
    /// The start of an agent's copies (its first event: after the issue).
    AgentStart {
        /// The agent.
        agent: AgentIdx,
    },
    /// The completion of an agent's copies (its second event).
    AgentDone {
        /// The agent.
        agent: AgentIdx,
    },
}

impl AsyncEv {
    /// The mbarrier object the event operates on, if any.
    pub(crate) fn bar(&self) -> Option<BarIdx> {
        match self {
            AsyncEv::Init { bar, .. }
            | AsyncEv::Arrive { bar, .. }
            | AsyncEv::ExpectTx { bar, .. }
            | AsyncEv::CompleteTx { bar, .. }
            | AsyncEv::Wait { bar, .. }
            | AsyncEv::ArriveOnCopies { bar, .. }
            | AsyncEv::Inval { bar } => Some(*bar),
            AsyncEv::Issue { .. }
            | AsyncEv::WaitGroup { .. }
            | AsyncEv::Fence(_)
            | AsyncEv::AgentStart { .. }
            | AsyncEv::AgentDone { .. } => None,
        }
    }
    /// What the event does, in words (for traces).
    pub(crate) fn describe(&self, k: &Kernel, bars: &Mbarriers) -> String {
        let name = |b: &BarIdx| bars.name(k, *b);
        match self {
            AsyncEv::Init { bar, count } => format!("mbarrier.init {} with count {count}", name(bar)),
            AsyncEv::Arrive { bar, count, tx, .. } if *tx != 0 => {
                format!(
                    "mbarrier.arrive.expect_tx {} ({tx} bytes, {count} arrival(s) per thread)",
                    name(bar)
                )
            }
            AsyncEv::Arrive { bar, count, .. } => {
                format!("mbarrier.arrive {} ({count} arrival(s) per thread)", name(bar))
            }
            AsyncEv::ExpectTx { bar, bytes } => format!("mbarrier.expect_tx {} {bytes}", name(bar)),
            AsyncEv::CompleteTx { bar, bytes } => format!("mbarrier.complete_tx {} {bytes}", name(bar)),
            AsyncEv::Wait {
                bar,
                phase: PhaseSel::Parity(p),
            } => format!("a wait on {} for parity {p}", name(bar)),
            AsyncEv::Wait { bar, .. } => format!("a wait on {} for a token's phase", name(bar)),
            AsyncEv::ArriveOnCopies { bar, .. } => format!("cp.async.mbarrier.arrive {}", name(bar)),
            AsyncEv::Inval { bar } => format!("mbarrier.inval {}", name(bar)),
            AsyncEv::Issue { .. } => "an asynchronous copy".into(),
            AsyncEv::WaitGroup { .. } => "cp.async.wait_group".into(),
            AsyncEv::Fence(_) => "a proxy fence".into(),
            AsyncEv::AgentStart { .. } => "the start of asynchronous copies".into(),
            AsyncEv::AgentDone { .. } => "the completion of asynchronous copies".into(),
        }
    }
}
