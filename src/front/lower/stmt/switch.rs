//! `switch` as a one-shot loop over its case groups (fall-through and `break` kept).

use super::jumps::{continues_out, jumps_away};
use crate::front::ast::{NodeId, NodeKind};
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// `switch`: a one-shot loop (so that `break` keeps its meaning) of `if`s, one per case
    /// group; a case that falls through sets a flag the next case tests.
    pub(super) fn switch_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
        let ast = self.ast;
        let a = &ast.node(n).attrs;
        if a.has_var {
            return Err(FrontError::unsupported(
                span,
                "a variable declared in a switch condition",
            ));
        }
        let kids: Vec<NodeId> = ast.children(n).collect();
        let off = a.has_init as usize;
        if a.has_init {
            self.stmt(kids[0], None)?;
        }
        let (Some(&cond_n), Some(&body)) = (kids.get(off), kids.get(off + 1)) else {
            return Err(FrontError::input(span, "bad switch"));
        };
        self.stmt_span = span;
        self.cur_writable = false;
        let (se, st) = self.scalar(cond_n)?;
        let sv = self.temp(st.scalar());
        self.ops.push(Op::Assign(sv, se));
        self.flush(false);
        let groups = self.case_groups(body)?;
        let all_vals: Vec<i64> = groups.iter().flat_map(|g| g.labels.iter().flatten().copied()).collect();
        let ends = |lw: &Self, g: &CaseGroup| g.stmts.last().is_some_and(|&s| jumps_away(lw.ast, s));
        let falls = groups
            .iter()
            .enumerate()
            .any(|(i, g)| i + 1 < groups.len() && !ends(self, g));
        let matched = falls.then(|| self.new_var("$fallthrough", ScalarTy::Bool, VarKind::Temp));
        if let Some(m) = matched {
            self.ops.push(Op::Assign(m, Expr::bool(false)));
            self.flush(false);
        }
        let sty = st.scalar();
        // A `continue` inside the switch needs a flag, false until it runs.
        let cont_flag = continues_out(ast, body).then(|| {
            let f = self.new_var("$continue", ScalarTy::Bool, VarKind::Temp);
            self.ops.push(Op::Assign(f, Expr::bool(false)));
            f
        });
        self.flush(false);
        self.jumps.push(JumpCtx::Switch { cont_flag });
        let loop_body = self.sub_block(|lw| {
            for g in &groups {
                let mut cond = case_cond(&g.labels, sv, sty, &all_vals);
                if let Some(m) = matched {
                    cond = Expr::Bin(BinOp::Or, ScalarTy::Bool, Box::new(Expr::Var(m)), Box::new(cond));
                }
                lw.stmt_span = g.span;
                let stmts = g.stmts.clone();
                let then_blk = lw.sub_block(|lw2| {
                    if let Some(m) = matched {
                        lw2.ops.push(Op::Assign(m, Expr::bool(true)));
                        lw2.flush(false);
                    }
                    for (i, s) in stmts.iter().enumerate() {
                        lw2.stmt(*s, stmts.get(i + 1).copied())?;
                    }
                    Ok(())
                })?;
                let else_blk = lw.empty_block();
                lw.stmt_span = g.span;
                lw.push_synthetic(StmtKind::If {
                    cond,
                    then_blk,
                    else_blk,
                });
            }
            lw.stmt_span = span;
            lw.push_synthetic(StmtKind::Break);
            Ok(())
        });
        let ctx = self.jumps.pop();
        let loop_body = loop_body?;
        self.stmt_span = span;
        self.push_loop(
            n,
            span,
            next,
            StmtKind::Loop(Loop {
                kind: LoopKind::DoWhile,
                header: vec![],
                cond: Expr::bool(false),
                body: loop_body,
                step: vec![],
                var: None,
            }),
        );
        if let Some(JumpCtx::Switch { cont_flag: Some(f) }) = ctx {
            // A `continue` inside the switch: continue the enclosing loop now.
            let then_blk = self.sub_block(|lw| lw.continue_stmt())?;
            self.synthetic_if(Expr::Var(f), then_blk);
        }
        Ok(())
    }

    /// The switch body's case groups, in order: case labels in a row with the statements after them.
    fn case_groups(&self, body: NodeId) -> FResult<Vec<CaseGroup>> {
        let ast = self.ast;
        let mut groups: Vec<CaseGroup> = Vec::new();
        let body_stmts: Vec<NodeId> = if ast.kind(body) == NodeKind::CompoundStmt {
            ast.children(body).collect()
        } else {
            vec![body]
        };
        for s in body_stmts {
            let mut cur = s;
            let mut labels = Vec::new();
            // `case 1: case 2: stmt` nests: CaseStmt(1, CaseStmt(2, stmt)).
            while matches!(ast.kind(cur), NodeKind::CaseStmt | NodeKind::DefaultStmt) {
                let kids: Vec<NodeId> = ast.children(cur).collect();
                if ast.kind(cur) == NodeKind::CaseStmt {
                    let v = kids.first().and_then(|&c| self.const_eval(c, 0)).ok_or_else(|| {
                        FrontError::unsupported(self.span(cur), "case labels must be integer constants")
                    })?;
                    labels.push(Some(v));
                } else {
                    labels.push(None);
                }
                match kids.last() {
                    Some(&sub) if kids.len() > 1 || ast.kind(cur) == NodeKind::DefaultStmt => cur = sub,
                    _ => break,
                }
            }
            if !labels.is_empty() {
                groups.push(CaseGroup {
                    labels,
                    stmts: vec![],
                    span: self.span(s),
                });
                if !matches!(ast.kind(cur), NodeKind::CaseStmt | NodeKind::DefaultStmt) {
                    groups.last_mut().expect("group").stmts.push(cur);
                }
            } else {
                match groups.last_mut() {
                    Some(g) => g.stmts.push(s),
                    // Statements before the first label never run.
                    None => continue,
                }
            }
        }
        Ok(groups)
    }
}

/// A group of a `switch` body: case labels in a row (`None` is `default`) with the statements after them.
struct CaseGroup {
    labels: Vec<Option<i64>>,
    stmts: Vec<NodeId>,
    span: Span,
}

/// A switch group's condition: the scrutinee `sv` equals one of the labels (`default`: none of `all_vals`).
fn case_cond(labels: &[Option<i64>], sv: VarId, sty: ScalarTy, all_vals: &[i64]) -> Expr {
    let mut cond: Option<Expr> = None;
    for l in labels {
        let c = match l {
            Some(v) => Expr::Bin(BinOp::Eq, sty, Box::new(Expr::Var(sv)), Box::new(Expr::Const(*v, sty))),
            None => all_vals.iter().fold(Expr::bool(true), |acc, v| {
                Expr::Bin(
                    BinOp::And,
                    ScalarTy::Bool,
                    Box::new(acc),
                    Box::new(Expr::Bin(
                        BinOp::Ne,
                        sty,
                        Box::new(Expr::Var(sv)),
                        Box::new(Expr::Const(*v, sty)),
                    )),
                )
            }),
        };
        cond = Some(match cond {
            None => c,
            Some(p) => Expr::Bin(BinOp::Or, ScalarTy::Bool, Box::new(p), Box::new(c)),
        });
    }
    cond.unwrap_or(Expr::bool(true))
}
