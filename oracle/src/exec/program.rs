//! The kernel body flattened into one instruction list with jumps, so that a thread's place in
//! it is one number (its program counter) and a thread can stop at any synchronization point
//! and resume there later (the warp-scheduling executor interleaves threads at those points).

use crate::ir::{Barrier, Block, Expr, Label, Loop, LoopKind, Op, Stmt, StmtKind};

/// One instruction of the flattened body.
#[derive(Clone, Copy, Debug)]
pub enum Instr<'k> {
    /// One op of a `Basic` statement.
    Op(&'k Op),
    /// Continues at `target` when `cond` is false.
    BranchUnless(&'k Expr, usize),
    /// Continues at the target.
    Jump(usize),
    /// A barrier statement.
    Barrier(&'k Barrier),
    /// `assume(e)`: a thread for which it is false leaves (its path is infeasible).
    Assume(&'k Expr),
    /// `return`: the thread exits.
    Exit,
}

/// An instruction with the statement it came from.
#[derive(Clone, Copy, Debug)]
pub struct Step<'k> {
    /// What it does.
    pub instr: Instr<'k>,
    /// The statement's label.
    pub label: Label,
}

/// The flattened kernel body; running off its end exits.
#[derive(Debug, Default)]
pub struct Program<'k> {
    /// The instructions.
    pub steps: Vec<Step<'k>>,
}

/// Jump sites of one loop waiting for their targets.
#[derive(Default)]
struct LoopFixups {
    breaks: Vec<usize>,
    continues: Vec<usize>,
}

/// Builds a [`Program`] from statements.
struct Builder<'k> {
    steps: Vec<Step<'k>>,
    loops: Vec<LoopFixups>,
}

impl<'k> Program<'k> {
    /// Flattens `body`.
    pub fn new(body: &'k Block) -> Program<'k> {
        let mut b = Builder {
            steps: Vec::new(),
            loops: Vec::new(),
        };
        b.block(body);
        Program { steps: b.steps }
    }
}

impl<'k> Builder<'k> {
    fn push(&mut self, s: &Stmt, instr: Instr<'k>) -> usize {
        self.steps.push(Step { instr, label: s.label });
        self.steps.len() - 1
    }

    /// Points the jump or branch at `at` to `target`.
    fn patch(&mut self, at: usize, target: usize) {
        match &mut self.steps[at].instr {
            Instr::Jump(t) | Instr::BranchUnless(_, t) => *t = target,
            _ => unreachable!("only jumps are patched"),
        }
    }

    fn block(&mut self, b: &'k Block) {
        self.stmts(&b.stmts);
    }

    fn stmts(&mut self, stmts: &'k [Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'k Stmt) {
        match &s.kind {
            StmtKind::Basic(ops) => {
                for op in ops {
                    self.push(s, Instr::Op(op));
                }
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let branch = self.push(s, Instr::BranchUnless(cond, 0));
                self.block(then_blk);
                let skip = self.push(s, Instr::Jump(0));
                self.patch(branch, self.steps.len());
                self.block(else_blk);
                self.patch(skip, self.steps.len());
            }
            StmtKind::Loop(l) => self.looped(s, l),
            StmtKind::Break | StmtKind::Continue => {
                let at = self.push(s, Instr::Jump(0));
                let Some(fix) = self.loops.last_mut() else {
                    return; // the front end never emits a jump outside a loop; it is a no-op
                };
                match s.kind {
                    StmtKind::Break => fix.breaks.push(at),
                    _ => fix.continues.push(at),
                }
            }
            StmtKind::Return { .. } => {
                self.push(s, Instr::Exit);
            }
            StmtKind::Barrier(b, _) => {
                self.push(s, Instr::Barrier(b));
            }
            StmtKind::Assume(e) => {
                self.push(s, Instr::Assume(e));
            }
        }
    }

    /// `top: header; unless cond goto exit; body; cont: step; goto top; exit:` — a `do` loop
    /// enters at the body.
    fn looped(&mut self, s: &'k Stmt, l: &'k Loop) {
        let enter = (l.kind == LoopKind::DoWhile).then(|| self.push(s, Instr::Jump(0)));
        let top = self.steps.len();
        self.stmts(&l.header);
        let test = self.push(s, Instr::BranchUnless(&l.cond, 0));
        if let Some(at) = enter {
            self.patch(at, self.steps.len());
        }
        self.loops.push(LoopFixups::default());
        self.block(&l.body);
        let fix = self.loops.pop().unwrap_or_default();
        let cont = self.steps.len();
        self.stmts(&l.step);
        let back = self.push(s, Instr::Jump(0));
        self.patch(back, top);
        let exit = self.steps.len();
        self.patch(test, exit);
        for at in fix.continues {
            self.patch(at, cont);
        }
        for at in fix.breaks {
            self.patch(at, exit);
        }
    }
}
