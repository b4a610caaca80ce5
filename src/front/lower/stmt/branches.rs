//! `if` statements, with a condition that is constant lowered as the branch it takes.

use super::jumps::constant_truth;
use crate::front::ast::NodeId;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// An `if` statement.
    pub(super) fn if_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
        let ast = self.ast;
        let a = &ast.node(n).attrs;
        let kids: Vec<Option<NodeId>> = ast.node(n).inner.clone();
        let mut i = 0;
        let init = if a.has_init {
            i += 1;
            kids.first().copied().flatten()
        } else {
            None
        };
        let var = if a.has_var {
            i += 1;
            kids.get(i - 1).copied().flatten()
        } else {
            None
        };
        let cond_n = kids.get(i).copied().flatten();
        let then_n = kids.get(i + 1).copied().flatten();
        let else_n = if a.has_else {
            kids.get(i + 2).copied().flatten()
        } else {
            None
        };
        self.stmt_span = span;
        if let Some(s) = init {
            self.stmt(s, None)?;
        }
        if let Some(v) = var {
            self.stmt_span = span;
            self.stmt(v, None)?;
        }
        self.stmt_span = span;
        self.cur_writable = false;
        let cond = match cond_n {
            Some(c) => self.cond(c)?,
            None => return Err(FrontError::input(span, "if without a condition")),
        };
        self.flush(false);
        // In inlined code (no barrier positions) a branch a constant condition never takes is
        // not read: libcu++ guards its fallbacks (placement new of a software barrier) with
        // `__isShared(p)`, which is known per array.
        let taken = constant_truth(&cond).filter(|_| self.in_inline());
        let then_blk = match taken {
            Some(false) => self.empty_block(),
            _ => self.body_block(then_n)?,
        };
        self.stmt_span = span;
        let else_blk = match taken {
            None | Some(false) if else_n.is_some() => self.body_block(else_n)?,
            _ => self.empty_block(),
        };
        let label = self.label();
        let w = self.writable(n, next);
        self.push(Stmt {
            label,
            span,
            emit_after: w,
            kind: StmtKind::If {
                cond,
                then_blk,
                else_blk,
            },
        });
        Ok(())
    }
}
