//! What the emulation produces: per warp, its barrier and async-pipeline events and the
//! accesses of the segments between them (concrete or symbolic), the copies' agents, and why a
//! warp stopped early.

use super::super::pipeline::{AsyncEv, BarIdx, Mbarriers};
use super::super::value::{Sym, Unknowns, Val};
use crate::ir::*;
use crate::report::{Divergence, Inconclusive, SyncDefect};
use std::rc::Rc;

/// Lanes per warp.
pub(crate) const WARP: u32 = 32;

/// What a barrier event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvKind {
    /// `bar.sync`: register and wait for completion.
    Sync,
    /// `bar.arrive`: register without waiting.
    Arrive,
    /// `__syncwarp`: orders the lanes of this warp only.
    Warp,
    /// An async-pipeline event (mbarrier operation, copy issue, group wait, fence).
    Async,
}

/// Marks a token value: an `mbarrier.arrive`'s state, naming the arrival (index in
/// [`Skeleton::tokens`] in the low bits).
pub(crate) const TOKEN_TAG: i64 = 1 << 40;

/// One dynamic barrier command executed by a warp.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    /// Sync, arrive or warp barrier.
    pub(crate) kind: EvKind,
    /// Barrier id (0 for warp barriers).
    pub(crate) id: u32,
    /// Expected thread count (0 for warp barriers).
    pub(crate) count: u32,
    /// The barrier statement.
    pub(crate) label: Label,
    /// Its span.
    pub(crate) span: Span,
    /// The lanes that executed it (every lane of the warp for barriers).
    pub(crate) mask: u32,
    /// What an [`EvKind::Async`] event does.
    pub(crate) op: Option<Rc<AsyncEv>>,
}

/// How the copies of an [`Agent`] complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgentDone {
    /// As transactions (their bytes) on an mbarrier.
    Mbarrier {
        /// The object.
        bar: BarIdx,
        /// Bytes of all its copies.
        bytes: i64,
        /// Whether the bytes are the ones the issuing lanes announced (a TMA load whose box
        /// the host's tensor map decides), not the copies' own.
        boxed: bool,
    },
    /// With the issuing lanes' commit group (`cp.async.wait_group`).
    Group,
    /// With the issuing lanes' bulk async-group (`cp.async.bulk.wait_group`).
    BulkGroup,
    /// A `wgmma.mma_async`'s operand reads: with the issuing lanes' wgmma group
    /// (`wgmma.wait_group`).
    Wgmma,
}

/// The asynchronous copies one event issued: they access memory at some time between the
/// issue and their completion.
#[derive(Debug)]
pub(crate) struct Agent {
    /// The issuing warp.
    pub(crate) warp: u32,
    /// The issuing event (index in the warp's events).
    pub(crate) event: u32,
    /// The issuing lanes.
    pub(crate) mask: u32,
    /// How the copies complete.
    pub(crate) done: AgentDone,
    /// Their concrete accesses (segment 1 of the agent).
    pub(crate) conc: Vec<ConcAccess>,
    /// Their symbolic accesses.
    pub(crate) sym: Vec<SymAccess>,
    /// The copy statement.
    pub(crate) label: Label,
    /// Its span.
    pub(crate) span: Span,
}

/// An access whose byte offset is concrete and whose path predicate is true.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConcAccess {
    /// Byte offset.
    pub(crate) offset: i64,
    /// Statement label.
    pub(crate) label: u32,
    /// Array.
    pub(crate) array: u32,
    /// Segment (number of barrier events of the warp before it).
    pub(crate) seg: u32,
    /// Bytes accessed.
    pub(crate) size: u32,
    /// Lane within the warp.
    pub(crate) lane: u8,
    /// Read, write or atomic.
    pub(crate) kind: AccessKind,
}

/// An access with a symbolic offset or under a symbolic path predicate.
#[derive(Clone, Debug)]
pub(crate) struct SymAccess {
    /// Statement label.
    pub(crate) label: Label,
    /// Array.
    pub(crate) array: ArrayId,
    /// Read, write or atomic.
    pub(crate) kind: AccessKind,
    /// Bytes accessed.
    pub(crate) size: u32,
    /// Segment.
    pub(crate) seg: u32,
    /// Lane within the warp.
    pub(crate) lane: u8,
    /// Byte offset (64-bit).
    pub(crate) offset: Val,
    /// Path predicate (`None`: true).
    pub(crate) pred: Option<Rc<Sym>>,
}

/// What the emulation of one warp produced.
#[derive(Clone, Debug, Default)]
pub(crate) struct WarpTrace {
    /// `threadIdx` of each lane.
    pub(crate) lanes: Vec<[u32; 3]>,
    /// Barrier events in program order.
    pub(crate) events: Vec<Event>,
    /// Concrete accesses.
    pub(crate) conc: Vec<ConcAccess>,
    /// Symbolic accesses.
    pub(crate) sym: Vec<SymAccess>,
}

/// Why the emulation of a warp stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A barrier under a condition that differs among the warp's lanes.
    Diverged(Divergence),
    /// A value the skeleton needs is unknown.
    Inconclusive(Inconclusive),
}

/// The emulation result for the whole block.
#[derive(Debug, Default)]
pub(crate) struct Skeleton {
    /// One trace per warp.
    pub(crate) warps: Vec<WarpTrace>,
    /// The unknowns mentioned by symbolic values.
    pub(crate) unknowns: Unknowns,
    /// Warps that stopped, and why.
    pub(crate) stops: Vec<Stop>,
    /// Bad ids and counts (one per barrier label).
    pub(crate) defects: Vec<SyncDefect>,
    /// The mbarrier objects the events name.
    pub(crate) mbars: Mbarriers,
    /// The asynchronous copies.
    pub(crate) agents: Vec<Agent>,
    /// Per token, the arrival that returned it (warp, event).
    pub(crate) tokens: Vec<(u32, u32)>,
    /// What the kernel assumes of its uniform unknowns (asserted in every solver query).
    pub(crate) facts: Vec<Rc<Sym>>,
}
