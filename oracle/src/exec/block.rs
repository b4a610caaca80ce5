//! Lock-step, predicated execution of one thread block (the SDV semantics).
//!
//! All threads of the block execute the same statement; a mask says which are enabled.
//! Each operation of a `Basic` statement runs for every enabled thread before the next one.

use super::config::{ExecConfig, ExecError};
pub use super::conflicts::Who;
use super::conflicts::{AccessClass, Conflicts, EpochTable, GridTable};
use super::eval::{initial_values, var_of, Env, Geometry, WARP_SIZE};
use super::memory::Memory;
use super::value::cast;
use crate::ir::*;
use std::collections::{BTreeSet, HashMap};

/// Largest access, in bytes, the executor simulates (a guard against absurd sizes).
const MAX_ACCESS_BYTES: u32 = 1 << 12;

/// State shared by all blocks of the grid.
#[derive(Debug)]
pub struct GridState {
    /// Global memory.
    pub global: Memory,
    /// Global accesses of all blocks so far.
    pub grid_table: GridTable,
    /// Races between threads of one block, with their first witness.
    pub intra: Conflicts,
    /// Races between threads of different blocks, with their first witness.
    pub inter: Conflicts,
    /// Block-wide barriers reached by only some of the live threads.
    pub divergent: BTreeSet<Label>,
    /// `__syncwarp`s reached by only some of the live lanes of a warp.
    pub divergent_warp: BTreeSet<Label>,
    /// Shared and global memory accesses made (one per thread and access).
    pub accesses: u64,
    /// Whether some `assume` was false for some thread.
    pub assume_failed: bool,
    /// Statement executions summed over blocks.
    pub steps: u64,
}

impl GridState {
    /// The state before the first block runs.
    pub fn new() -> GridState {
        GridState {
            global: Memory::new(1),
            grid_table: GridTable::default(),
            intra: Conflicts::default(),
            inter: Conflicts::default(),
            divergent: BTreeSet::new(),
            divergent_warp: BTreeSet::new(),
            accesses: 0,
            assume_failed: false,
            steps: 0,
        }
    }
}

/// Where a thread is in the control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Executing normally.
    Running,
    /// Executed `break`: disabled until its innermost loop exits.
    Broke,
    /// Executed `continue`: disabled until the end of the current loop body.
    Continued,
    /// Executed `return`: disabled for the rest of the kernel.
    Returned,
    /// An `assume` was false for it: its path is infeasible; disabled for the rest.
    Infeasible,
}

impl Status {
    /// Exited threads are not required at barriers (CUDA waits for non-exited threads only).
    fn exited(self) -> bool {
        matches!(self, Status::Returned | Status::Infeasible)
    }
}

/// One simulated thread.
#[derive(Debug)]
pub struct Thread {
    geo: Geometry,
    /// Linear thread id within the block.
    lin: u32,
    /// Variable values by `VarId` (`None`: never assigned).
    pub vars: Vec<Option<u64>>,
    status: Status,
}

/// Which threads take part in a statement.
type Mask = Vec<bool>;

/// The execution of one block.
pub struct BlockRun<'a> {
    k: &'a Kernel,
    cfg: &'a ExecConfig,
    grid: &'a mut GridState,
    block_lin: u32,
    /// The block's threads, by linear id.
    pub threads: Vec<Thread>,
    shared: Memory,
    local: Memory,
    epoch: EpochTable,
    /// The byte each thread last stored at each address in this epoch: a load of that byte by
    /// the same thread sees it, and races benignly with stores of the same byte.
    own_stores: HashMap<(ArrayId, u64, u32), u8>,
    warp_epochs: Vec<u64>,
    steps: u64,
    /// Grid-wide barriers (`grid.sync()`) this block has passed: accesses of different blocks
    /// in different grid phases are ordered.
    grid_phase: u32,
}

impl<'a> BlockRun<'a> {
    /// Sets up block `block` (linear index `block_lin`) with parameters bound in every thread.
    pub fn new(
        k: &'a Kernel,
        cfg: &'a ExecConfig,
        grid: &'a mut GridState,
        block: [u32; 3],
        block_lin: u32,
    ) -> BlockRun<'a> {
        let initial = initial_values(k, cfg);
        let [bx, by, bz] = cfg.block_dim;
        let mut threads = Vec::new();
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    let geo = Geometry {
                        thread: [x, y, z],
                        block,
                        block_dim: cfg.block_dim,
                        grid_dim: cfg.grid_dim,
                    };
                    let lin = threads.len() as u32;
                    threads.push(Thread {
                        geo,
                        lin,
                        vars: initial.clone(),
                        status: Status::Running,
                    });
                }
            }
        }
        let warps = threads.len().div_ceil(WARP_SIZE as usize);
        BlockRun {
            k,
            cfg,
            grid,
            block_lin,
            threads,
            shared: Memory::new(2),
            local: Memory::new(3),
            epoch: EpochTable::default(),
            own_stores: HashMap::new(),
            warp_epochs: vec![0; warps],
            steps: 0,
            grid_phase: 0,
        }
    }

    /// Runs the kernel body for the whole block.
    pub fn run(&mut self) -> Result<(), ExecError> {
        let all = vec![true; self.threads.len()];
        let result = self.exec_block(&self.k.body, &all);
        self.grid.steps += self.steps;
        result
    }

    fn tick(&mut self) -> Result<(), ExecError> {
        self.steps += 1;
        if self.steps > self.cfg.max_steps {
            return Err(ExecError::StepLimit);
        }
        Ok(())
    }

    /// The threads of `mask` that are still running.
    fn enabled(&self, mask: &Mask) -> Mask {
        self.threads
            .iter()
            .zip(mask)
            .map(|(t, &m)| m && t.status == Status::Running)
            .collect()
    }

    fn env(&self, t: usize, label: Label) -> Env<'_> {
        Env {
            k: self.k,
            vars: &self.threads[t].vars,
            geo: &self.threads[t].geo,
            label,
        }
    }

    fn exec_block(&mut self, b: &Block, mask: &Mask) -> Result<(), ExecError> {
        self.exec_stmts(&b.stmts, mask)
    }

    fn exec_stmts(&mut self, stmts: &[Stmt], mask: &Mask) -> Result<(), ExecError> {
        for s in stmts {
            self.exec_stmt(s, mask)?;
        }
        Ok(())
    }

    fn exec_stmt(&mut self, s: &Stmt, mask: &Mask) -> Result<(), ExecError> {
        let active = self.enabled(mask);
        if !active.contains(&true) {
            return Ok(()); // nobody reaches it: predicated execution does nothing
        }
        self.tick()?;
        let ids: Vec<usize> = (0..active.len()).filter(|&t| active[t]).collect();
        match &s.kind {
            StmtKind::Basic(ops) => {
                for op in ops {
                    if let Op::Assign(v, Expr::Vote(kind, pred)) = op {
                        self.exec_vote(s.label, *v, *kind, pred, &ids)?;
                        continue;
                    }
                    for &t in &ids {
                        self.exec_op(t, s.label, op)?;
                    }
                }
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let mut then_mask = vec![false; active.len()];
                for &t in &ids {
                    then_mask[t] = self.env(t, s.label).eval(cond)?.truth();
                }
                let else_mask: Mask = active.iter().zip(&then_mask).map(|(&a, &th)| a && !th).collect();
                self.exec_block(then_blk, &then_mask)?;
                self.exec_block(else_blk, &else_mask)?;
            }
            StmtKind::Loop(l) => self.exec_loop(s.label, l, active)?,
            StmtKind::Break => self.set_status(&ids, Status::Broke),
            StmtKind::Continue => self.set_status(&ids, Status::Continued),
            StmtKind::Return { .. } => self.set_status(&ids, Status::Returned),
            StmtKind::Assume(e) => {
                for &t in &ids {
                    if !self.env(t, s.label).eval(e)?.truth() {
                        self.threads[t].status = Status::Infeasible;
                        self.grid.assume_failed = true;
                    }
                }
            }
            StmtKind::Barrier(b, syntax) => {
                // The front end only accepts grid barriers at the kernel's top level, which
                // every thread of the grid passes once.
                if *syntax == BarrierSyntax::GridSync {
                    self.grid_phase += 1;
                }
                self.exec_barrier(s.label, b, &active)?
            }
        }
        Ok(())
    }

    fn set_status(&mut self, ids: &[usize], status: Status) {
        for &t in ids {
            self.threads[t].status = status;
        }
    }

    /// Runs a loop until no thread is still in it. `in_loop` holds the threads that entered.
    fn exec_loop(&mut self, label: Label, l: &Loop, mut in_loop: Mask) -> Result<(), ExecError> {
        let mut test_first = l.kind != LoopKind::DoWhile;
        loop {
            if test_first {
                self.exec_stmts(&l.header, &in_loop)?;
                self.tick()?; // the guard test: makes an empty infinite loop hit the limit
                for (t, stays) in in_loop.iter_mut().enumerate() {
                    if *stays && self.threads[t].status == Status::Running {
                        *stays = self.env(t, label).eval(&l.cond)?.truth();
                    }
                }
            }
            test_first = true;
            in_loop = self.enabled(&in_loop);
            if !in_loop.contains(&true) {
                return Ok(());
            }
            self.exec_block(&l.body, &in_loop)?;
            for (thread, stays) in self.threads.iter_mut().zip(in_loop.iter_mut()) {
                if !*stays {
                    continue;
                }
                match thread.status {
                    Status::Running => {}
                    Status::Continued => thread.status = Status::Running,
                    // A broken thread resumes after the loop, so it leaves the loop's mask.
                    Status::Broke => {
                        thread.status = Status::Running;
                        *stays = false;
                    }
                    Status::Returned | Status::Infeasible => *stays = false,
                }
            }
            self.exec_stmts(&l.step, &in_loop)?;
        }
    }

    fn exec_barrier(&mut self, label: Label, b: &Barrier, active: &Mask) -> Result<(), ExecError> {
        if b.is_block_wide() {
            let missing = self.threads.iter().zip(active).any(|(t, &a)| !a && !t.status.exited());
            if missing {
                self.grid.divergent.insert(label);
            }
            self.epoch.clear();
            self.own_stores.clear();
            return Ok(());
        }
        match b {
            Barrier::Warp => {
                self.exec_syncwarp(label, active);
                Ok(())
            }
            _ => Err(ExecError::Unsupported(format!(
                "named barrier with a thread count at label {}",
                label.0
            ))),
        }
    }

    /// A `__syncwarp` orders the lanes of every warp whose live lanes all reach it. The IR
    /// drops the mask, so a warp only partly here is reported and gets no ordering at all
    /// (more races, never fewer: the safe side for a reference).
    fn exec_syncwarp(&mut self, label: Label, active: &Mask) {
        let warp_of = |t: &Thread| (t.lin / WARP_SIZE) as usize;
        let mut reached = vec![false; self.warp_epochs.len()];
        let mut missing = vec![false; self.warp_epochs.len()];
        for (t, &a) in self.threads.iter().zip(active) {
            if a {
                reached[warp_of(t)] = true;
            } else if !t.status.exited() {
                missing[warp_of(t)] = true;
            }
        }
        for w in 0..reached.len() {
            match (reached[w], missing[w]) {
                (true, false) => self.warp_epochs[w] += 1,
                (true, true) => {
                    self.grid.divergent_warp.insert(label);
                }
                (false, _) => {}
            }
        }
    }

    /// `v = vote(pred)` over the threads `ids` that execute it together (those that reached the
    /// barrier before it): every one gets the combined value.
    fn exec_vote(
        &mut self,
        label: Label,
        v: VarId,
        kind: VoteKind,
        pred: &Expr,
        ids: &[usize],
    ) -> Result<(), ExecError> {
        let mut yes = 0u64;
        for &t in ids {
            yes += u64::from(self.env(t, label).eval(pred)?.truth());
        }
        let n = ids.len() as u64;
        let x = match kind {
            VoteKind::Or => u64::from(yes > 0),
            VoteKind::And => u64::from(yes == n),
            VoteKind::Count => yes,
        };
        let ty = var_of(self.k, v)?.ty;
        for &t in ids {
            self.threads[t].vars[v.0 as usize] = Some(cast(ScalarTy::I64, ty, x));
        }
        Ok(())
    }

    fn exec_op(&mut self, t: usize, label: Label, op: &Op) -> Result<(), ExecError> {
        match op {
            Op::Assign(v, e) => {
                let ty = var_of(self.k, *v)?.ty;
                let x = self.env(t, label).eval(e)?.to(ty);
                self.threads[t].vars[v.0 as usize] = Some(x);
            }
            Op::Read(dst, acc) => {
                let (space, addr) = self.access(t, label, acc, AccessKind::Read, None)?;
                let raw = self.load(space, t, acc, addr);
                self.assign_raw(t, *dst, raw)?;
            }
            Op::Write(acc, e) => {
                let x = self.env(t, label).eval(e)?.bits;
                let (space, addr) = self.access(t, label, acc, AccessKind::Write, Some(x))?;
                self.store(space, t, acc, addr, x);
            }
            Op::Atomic(dst, acc, op) => {
                // Increments as written; any other atomic as the commonest, atomicAdd(p, 1).
                let step = match op {
                    AtomicOp::Increment(c) => *c,
                    AtomicOp::Other => 1,
                };
                let (space, addr) = self.access(t, label, acc, AccessKind::Atomic, None)?;
                let old = self.load(space, t, acc, addr);
                self.store(space, t, acc, addr, old.wrapping_add(step));
                self.assign_raw(t, *dst, old)?;
            }
            // `check_supported` rejects these before execution.
            Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::Wgmma(_) | Op::AsyncGroup(_) | Op::ProxyFence(_) => {
                return Err(ExecError::Unsupported(format!(
                    "async-pipeline op at label {} in the lock-step executor",
                    label.0
                )))
            }
        }
        Ok(())
    }

    /// Gives `dst` the loaded bits, converted to its type.
    fn assign_raw(&mut self, t: usize, dst: Option<VarId>, raw: u64) -> Result<(), ExecError> {
        if let Some(v) = dst {
            let ty = var_of(self.k, v)?.ty;
            self.threads[t].vars[v.0 as usize] = Some(cast(ScalarTy::U64, ty, raw));
        }
        Ok(())
    }

    /// Evaluates the address of `acc` for thread `t` and records the access on every byte
    /// (with the byte a store of `stored` writes there).
    fn access(
        &mut self,
        t: usize,
        label: Label,
        acc: &Access,
        kind: AccessKind,
        stored: Option<u64>,
    ) -> Result<(Space, u64), ExecError> {
        let space = self
            .k
            .arrays
            .get(acc.array.0 as usize)
            .ok_or_else(|| ExecError::Malformed(format!("unknown array {}", acc.array.0)))?
            .space;
        if acc.size > MAX_ACCESS_BYTES {
            return Err(ExecError::Unsupported(format!(
                "access of {} bytes at label {}",
                acc.size, label.0
            )));
        }
        let addr = self.env(t, label).eval(&acc.offset)?.bits;
        if space == Space::Local {
            return Ok((space, addr)); // thread-private: never races
        }
        self.grid.accesses += 1;
        let th = &self.threads[t];
        let who = Who {
            block: self.block_lin,
            thread: th.lin,
        };
        let class = AccessClass {
            label,
            kind,
            warp: th.lin / WARP_SIZE,
            warp_epoch: self.warp_epochs[(th.lin / WARP_SIZE) as usize],
            group: self.k.launch.warp_sync.map(|n| th.lin / n.max(1)),
            stored: None,
        };
        for i in 0..acc.size as u64 {
            let byte = addr.wrapping_add(i);
            // Little-endian, as `Memory::store` lays the value out.
            let b = stored.map(|x| x.checked_shr(8 * i as u32).unwrap_or(0) as u8);
            let key = (acc.array, byte, th.lin);
            let own = match kind {
                AccessKind::Read => self.own_stores.get(&key).copied(),
                _ => b,
            };
            let class = AccessClass { stored: own, ..class };
            self.epoch.record(acc.array, byte, class, who, &mut self.grid.intra);
            match b {
                Some(x) => self.own_stores.insert(key, x),
                None if kind == AccessKind::Atomic => self.own_stores.remove(&key),
                None => None,
            };
            if space == Space::Global {
                let g = &mut *self.grid;
                g.grid_table
                    .record(acc.array, byte, (label, kind, b, self.grid_phase), who, &mut g.inter);
            }
        }
        Ok((space, addr))
    }

    fn load(&self, space: Space, t: usize, acc: &Access, addr: u64) -> u64 {
        let seed = self.cfg.seed;
        match space {
            Space::Global => self.grid.global.load(seed, acc.array, 0, addr, acc.size),
            Space::Shared => self.shared.load(seed, acc.array, self.block_lin as u64, addr, acc.size),
            Space::Local => self.local.load(seed, acc.array, self.local_owner(t), addr, acc.size),
        }
    }

    fn store(&mut self, space: Space, t: usize, acc: &Access, addr: u64, x: u64) {
        match space {
            Space::Global => self.grid.global.store(acc.array, 0, addr, acc.size, x),
            Space::Shared => self.shared.store(acc.array, self.block_lin as u64, addr, acc.size, x),
            Space::Local => {
                let owner = self.local_owner(t);
                self.local.store(acc.array, owner, addr, acc.size, x)
            }
        }
    }

    /// Local memory instances are per thread of the grid.
    fn local_owner(&self, t: usize) -> u64 {
        ((self.block_lin as u64) << 32) | self.threads[t].lin as u64
    }
}
