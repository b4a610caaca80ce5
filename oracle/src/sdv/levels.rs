//! What the uniformity analysis (`uniform.rs`) finds: how uniform each label's predicate
//! is ([`Level`]), which variables may differ between threads, and which reads give every
//! thread the same value ([`Uniformity`]). Only the data: every later stage reads it.

use crate::ir::{Label, VarId};
use crate::tree::Position;
use std::collections::{HashMap, HashSet};

/// How uniform the predicate of a label is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The same for all threads of the block.
    Block,
    /// The same for all lanes of each warp, but not across warps.
    Warp,
    /// May differ between lanes of one warp.
    Thread,
}

/// The result of the uniformity analysis of one kernel.
#[derive(Clone, Debug, Default)]
pub struct Uniformity {
    /// The variables that may differ between threads.
    pub(super) nu_vars: HashSet<VarId>,
    /// See [`Uniformity::uniform_reads`].
    pub(super) uniform_reads: HashSet<(Label, usize)>,
    /// See [`Uniformity::steering_vars`].
    pub(super) steering: HashSet<VarId>,
    /// Per label: the level of the predicate it executes under, and the condition that causes it.
    pub(super) before: HashMap<Label, (Level, Option<Label>)>,
    /// Per statement: the same right after it.
    pub(super) after: HashMap<Label, (Level, Option<Label>)>,
    /// The level of each thread-dependent condition (by the solver, given the three sets
    /// above: a later analysis with the same sets may take them as they are).
    pub(super) conditions: HashMap<Label, Level>,
}

impl Uniformity {
    /// Level of the predicate under which label `l` (statement or block start) executes.
    /// Unknown labels are reported as [`Level::Thread`].
    pub fn level(&self, l: Label) -> Level {
        self.before.get(&l).map_or(Level::Thread, |x| x.0)
    }
    /// Level of the predicate right after statement `l` (differs from [`Uniformity::level`] when
    /// `l` contains a `break`/`continue`/`return` under a non-uniform condition).
    pub fn level_after(&self, l: Label) -> Level {
        self.after
            .get(&l)
            .or_else(|| self.before.get(&l))
            .map_or(Level::Thread, |x| x.0)
    }
    /// Level of a barrier inserted at `pos`.
    pub fn position_level(&self, pos: Position) -> Level {
        match pos {
            Position::BlockStart(b) => self.level(b),
            Position::After(l) => self.level_after(l),
        }
    }
    /// The innermost statement whose non-uniform condition makes `l`'s predicate non-uniform.
    pub fn cause(&self, l: Label) -> Option<Label> {
        self.before.get(&l).and_then(|x| x.1)
    }
    /// Whether variable `v` holds the same value in all threads of a block.
    pub fn is_uniform_var(&self, v: VarId) -> bool {
        !self.nu_vars.contains(&v)
    }
    /// The non-uniform variables.
    pub(crate) fn nu_vars(&self) -> &HashSet<VarId> {
        &self.nu_vars
    }
    /// Variables whose values can reach an address, a condition, an assumption or a barrier
    /// operand (flow-insensitively): the others only feed stored values.
    pub(crate) fn steering_vars(&self) -> &HashSet<VarId> {
        &self.steering
    }
    /// Reads (statement, operation) that give every thread running them together the same
    /// value: a block-uniform address of a shared array that no write reaches without a
    /// barrier, or of a global array the kernel never writes.
    pub(crate) fn uniform_reads(&self) -> &HashSet<(Label, usize)> {
        &self.uniform_reads
    }
}
