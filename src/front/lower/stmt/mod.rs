//! Statements: blocks, declarations, `if`, loops, `switch`, jumps, expression statements.

mod branches;
mod decls;
mod jumps;
mod loops;
mod switch;

pub(crate) use jumps::returns_from_loop;

use super::lowerer::Lowerer;
use crate::front::ast::{NodeId, NodeKind};
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// Lowers the statements of a compound statement into the current block.
    pub(crate) fn compound(&mut self, n: NodeId) -> FResult<()> {
        self.refused_asm(n)?;
        let kids: Vec<NodeId> = self.ast.children(n).collect();
        for (i, &s) in kids.iter().enumerate() {
            self.stmt(s, kids.get(i + 1).copied())?;
        }
        Ok(())
    }

    /// Stops at an asm statement of `n` whose text Clang refused (in a header: the file was
    /// read on, for the kernels that do not reach it).
    fn refused_asm(&self, n: NodeId) -> FResult<()> {
        match self.src.broken_asm_in(n) {
            Some((span, msg)) => Err(FrontError::unsupported(span, format!("Clang refused this inline asm: {msg}"))
                .with_help("nvcc accepts this asm text where it is never compiled; Clang checks it anyway: correct the asm (an operand number past the last operand, say)")),
            None => Ok(()),
        }
    }

    /// Whether a barrier may be written after this statement of the source.
    fn writable(&self, n: NodeId, next: Option<NodeId>) -> bool {
        !self.in_inline() && self.src.end_is_writable(n, next)
    }

    /// Lowers one statement into the current block. `next` is the following statement of the
    /// same block (to tell whether a macro produced both).
    pub(crate) fn stmt(&mut self, n: NodeId, next: Option<NodeId>) -> FResult<()> {
        // Any statement: an asm Clang dropped may have been an unbraced branch or loop body.
        self.refused_asm(n)?;
        let ast = self.ast;
        let kind = ast.kind(n);
        let span = self.src.stmt_span(n);
        let span = if span.is_dummy() { self.span(n) } else { span };
        self.cur_writable = self.writable(n, next);
        match kind {
            NodeKind::CompoundStmt => {
                // A nested block: its statements are positions of their own.
                let before = self.blocks.last().map_or(0, Vec::len);
                self.compound(n)?;
                let _ = before;
                Ok(())
            }
            NodeKind::NullStmt => Ok(()),
            NodeKind::DeclStmt => {
                self.stmt_span = span;
                let before = self.blocks.last().map_or(0, Vec::len);
                for d in ast.children(n).collect::<Vec<_>>() {
                    if ast.name(d).starts_with(super::annotations::AXIOM_PREFIX) {
                        self.axiom_decl(d)?;
                    } else {
                        self.local_decl(d)?;
                    }
                }
                let w = self.writable(n, next);
                self.flush(w);
                self.anchor(before, span, w);
                Ok(())
            }
            NodeKind::IfStmt => self.if_stmt(n, span, next),
            NodeKind::ForStmt => self.for_stmt(n, span, next),
            NodeKind::WhileStmt => self.while_stmt(n, span, next),
            NodeKind::DoStmt => self.do_stmt(n, span, next),
            NodeKind::SwitchStmt => self.switch_stmt(n, span, next),
            NodeKind::BreakStmt => {
                self.flush(true);
                self.stmt_span = span;
                self.push_synthetic(StmtKind::Break);
                Ok(())
            }
            NodeKind::ContinueStmt => {
                self.flush(true);
                self.stmt_span = span;
                self.continue_stmt()
            }
            NodeKind::ReturnStmt => self.return_stmt(n, span),
            NodeKind::GCCAsmStmt => {
                self.stmt_span = span;
                let before = self.blocks.last().map_or(0, Vec::len);
                self.asm(n)?;
                let w = self.writable(n, next);
                self.flush(w);
                self.anchor(before, span, w);
                Ok(())
            }
            NodeKind::AttributedStmt => {
                // `#pragma unroll` loops, `[[likely]]`, `[[fallthrough]];`.
                let sub = ast.children(n).filter(|&c| !ast.is_attr(c)).last();
                match sub {
                    Some(s) if ast.kind(s) == NodeKind::ForStmt && self.try_unroll(n, s)? => Ok(()),
                    Some(s) => self.stmt(s, next),
                    None => Ok(()),
                }
            }
            NodeKind::CaseStmt | NodeKind::DefaultStmt => Err(FrontError::unsupported(
                span,
                "a case label inside a nested statement of a switch (Duff's device)",
            )),
            NodeKind::LabelStmt | NodeKind::GotoStmt | NodeKind::IndirectGotoStmt => {
                Err(FrontError::unsupported(span, "goto and labels are not supported")
                    .with_help("restructure the control flow with loops, break and continue"))
            }
            NodeKind::CXXForRangeStmt => Err(FrontError::unsupported(span, "range-based for loops are not supported")
                .with_help("write an index loop")),
            NodeKind::CXXTryStmt | NodeKind::CXXThrowExpr => {
                Err(FrontError::unsupported(span, "exceptions do not exist in device code"))
            }
            NodeKind::MSAsmStmt => Err(FrontError::unsupported(span, "MS-style asm is not supported")),
            _ if ast.is_stmt(n) => Err(FrontError::unsupported(
                span,
                format!("statement {} is not supported", ast.kind_str(n)),
            )),
            _ => {
                // An expression statement.
                self.stmt_span = span;
                let before = self.blocks.last().map_or(0, Vec::len);
                self.discard(n)?;
                let w = self.writable(n, next);
                self.flush(w);
                self.anchor(before, span, w);
                Ok(())
            }
        }
    }

    /// After a source statement whose lowering ended in statements that are not barrier
    /// positions (an inlined call's body), adds an empty statement that is: a barrier right
    /// after the call is a real place in the source.
    fn anchor(&mut self, before: usize, span: Span, writable: bool) {
        if !writable {
            return;
        }
        let stmts = self.blocks.last().map_or(&[][..], Vec::as_slice);
        if stmts.len() > before && !stmts.last().is_some_and(|s| s.emit_after) {
            let label = self.label();
            self.push(Stmt {
                label,
                span,
                emit_after: true,
                kind: StmtKind::Basic(vec![]),
            });
        }
    }

    /// A statement used as a body: braces or not, as a block.
    pub(crate) fn body_block(&mut self, n: Option<NodeId>) -> FResult<Block> {
        let Some(n) = n else { return Ok(self.empty_block()) };
        self.blocks.push(Vec::new());
        let braced = self.ast.kind(n) == NodeKind::CompoundStmt;
        let r = if braced { self.compound(n) } else { self.stmt(n, None) };
        self.flush(true);
        let stmts = self.blocks.pop().unwrap_or_default();
        r?;
        let label = self.label();
        let span = if braced {
            self.src.node_span(n)
        } else {
            self.src.stmt_span(n)
        };
        // Emission refuses what the text cannot take (a body made by a macro).
        let real = !span.is_dummy();
        Ok(Block {
            label,
            span: if span.is_dummy() { self.stmt_span } else { span },
            braced,
            emit_start: !self.in_inline() && real,
            stmts,
        })
    }
}
