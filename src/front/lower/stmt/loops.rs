//! Loops (`for`, `while`, `do`) as IR loops, with `continue` as a flag.

use crate::front::ast::{NodeId, NodeKind};
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// Lowers a loop condition: its reads go into header statements run before each test.
    fn loop_cond(&mut self, c: Option<NodeId>, span: Span) -> FResult<(Vec<Stmt>, Expr)> {
        let Some(c) = c else {
            return Ok((vec![], Expr::bool(true)));
        };
        self.blocks.push(Vec::new());
        self.stmt_span = span;
        self.cur_writable = false;
        let r = self.cond(c);
        self.flush(false);
        let header = self.blocks.pop().unwrap_or_default();
        Ok((header, r?))
    }

    /// Lowers a loop body one jump level deeper.
    pub(super) fn loop_body(&mut self, n: Option<NodeId>) -> FResult<Block> {
        self.jumps.push(JumpCtx::Loop);
        let b = self.body_block(n);
        self.jumps.pop();
        b
    }

    /// Pushes a lowered loop statement.
    pub(super) fn push_loop(&mut self, n: NodeId, span: Span, next: Option<NodeId>, kind: StmtKind) {
        let label = self.label();
        let w = self.writable(n, next);
        self.push(Stmt {
            label,
            span,
            emit_after: w,
            kind,
        });
        self.after_loop();
    }

    /// After a loop of an inlined function: leave the next loop too if a `return` inside it
    /// set the frame's flag.
    fn after_loop(&mut self) {
        let Some(f) = self.frames.last() else { return };
        let Some(flag) = f.ret_flag else { return };
        let then_blk = match self.sub_block(|lw| {
            lw.push_synthetic(StmtKind::Break);
            Ok(())
        }) {
            Ok(b) => b,
            Err(_) => return,
        };
        self.synthetic_if(Expr::Var(flag), then_blk);
    }

    /// A `for` loop.
    pub(super) fn for_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
        let ast = self.ast;
        self.cur_writable = false;
        let init = ast.child(n, 0);
        let cond_var = ast.child(n, 1);
        let cond = ast.child(n, 2);
        let inc = ast.child(n, 3);
        let body = ast.child(n, 4);
        self.stmt_span = span;
        let mut loop_var = None;
        if let Some(i) = init {
            if ast.kind(i) == NodeKind::DeclStmt {
                for d in ast.children(i).collect::<Vec<_>>() {
                    self.local_decl(d)?;
                    if let Some(Binding::Var(v, _)) = self.env.get(&ast.node(d).id) {
                        loop_var = Some(*v);
                    }
                }
            } else {
                self.discard(i)?;
                if let Some(Op::Assign(v, _)) = self.ops.last() {
                    loop_var = Some(*v);
                }
            }
        }
        self.flush(false);
        if let Some(v) = cond_var {
            self.stmt(v, None)?;
            self.flush(false);
        }
        let (header, cond) = self.loop_cond(cond, span)?;
        let body = self.loop_body(body)?;
        self.blocks.push(Vec::new());
        self.stmt_span = span;
        self.cur_writable = false;
        if let Some(u) = inc {
            self.discard(u)?;
        }
        self.flush(false);
        let step = self.blocks.pop().unwrap_or_default();
        // Only call it the loop variable when the step really updates it.
        let var = loop_var.filter(|lv| {
            step.iter()
                .any(|s| matches!(&s.kind, StmtKind::Basic(ops) if ops.iter().any(|o| matches!(o, Op::Assign(v, _) if v == lv))))
        });
        self.push_loop(
            n,
            span,
            next,
            StmtKind::Loop(Loop {
                kind: LoopKind::For,
                header,
                cond,
                body,
                step,
                var,
            }),
        );
        self.after_butterfly(n);
        Ok(())
    }

    /// A `while` loop.
    pub(super) fn while_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
        let ast = self.ast;
        let has_var = ast.node(n).attrs.has_var;
        let kids: Vec<NodeId> = ast.children(n).collect();
        if has_var {
            return Err(FrontError::unsupported(
                span,
                "a variable declared in a while condition",
            ));
        }
        let (cond, body) = match kids[..] {
            [c, b] => (Some(c), Some(b)),
            [c] => (Some(c), None),
            _ => return Err(FrontError::input(span, "bad while loop")),
        };
        let (header, cond) = self.loop_cond(cond, span)?;
        let body = self.loop_body(body)?;
        self.push_loop(
            n,
            span,
            next,
            StmtKind::Loop(Loop {
                kind: LoopKind::While,
                header,
                cond,
                body,
                step: vec![],
                var: None,
            }),
        );
        Ok(())
    }

    /// A `do` loop.
    pub(super) fn do_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
        let kids: Vec<NodeId> = self.ast.children(n).collect();
        let [body, cond] = kids[..] else {
            return Err(FrontError::input(span, "bad do loop"));
        };
        let body = self.loop_body(Some(body))?;
        let (header, cond) = self.loop_cond(Some(cond), span)?;
        self.push_loop(
            n,
            span,
            next,
            StmtKind::Loop(Loop {
                kind: LoopKind::DoWhile,
                header,
                cond,
                body,
                step: vec![],
                var: None,
            }),
        );
        Ok(())
    }

    /// `continue`: to the innermost source loop. Inside a `switch` (a one-shot loop in the
    /// IR) it sets the switch's flag and breaks; the switch then continues.
    pub(super) fn continue_stmt(&mut self) -> FResult<()> {
        match self.jumps.last() {
            Some(JumpCtx::Loop) => {
                self.push_synthetic(StmtKind::Continue);
                Ok(())
            }
            Some(JumpCtx::Switch { cont_flag }) => {
                let Some(flag) = *cont_flag else {
                    return Err(FrontError::input(
                        self.stmt_span,
                        "continue inside a switch without an enclosing loop",
                    ));
                };
                self.ops.push(Op::Assign(flag, Expr::bool(true)));
                self.flush(false);
                self.push_synthetic(StmtKind::Break);
                Ok(())
            }
            Some(JumpCtx::Inline) | None => Err(FrontError::input(self.stmt_span, "continue outside a loop")),
        }
    }
}
