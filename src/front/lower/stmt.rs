//! Statements: blocks, `if`, loops, jumps, `switch`, declarations and expression statements.

use super::expr::first_line;
use super::*;

impl<'u, 't> Lowerer<'u, 't> {
    /// Lowers one statement into the current block.
    pub(crate) fn stmt(&mut self, n: Node<'t>) -> FResult<()> {
        let span = self.span(n);
        match n.kind() {
            "comment"
            | "preproc_call"
            | ";"
            | "empty_statement"
            | "type_definition"
            | "using_declaration"
            | "alias_declaration"
            | "namespace_alias_definition"
            | "static_assert_declaration" => Ok(()),
            "preproc_def" | "preproc_function_def" | "preproc_include" => Ok(()),
            "compound_statement" => {
                self.scopes.push(HashMap::new());
                let mut c = n.walk();
                let r = n
                    .named_children(&mut c)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .try_for_each(|s| self.stmt(s));
                self.scopes.pop();
                r
            }
            "declaration" => {
                self.stmt_span = span;
                let before = self.blocks.last().map_or(0, Vec::len);
                self.declaration(n)?;
                self.flush(true);
                self.anchor(before, span);
                Ok(())
            }
            "expression_statement" => {
                self.stmt_span = span;
                let before = self.blocks.last().map_or(0, Vec::len);
                if let Some(e) = n.named_child(0) {
                    let v = self.expr(e)?;
                    if let Val::Mem(p) = v {
                        // A bare `s[i];` still reads.
                        self.read(&p);
                    }
                }
                self.flush(true);
                self.anchor(before, span);
                Ok(())
            }
            "if_statement" => self.if_stmt(n),
            "for_statement" => self.for_stmt(n),
            "for_range_loop" => Err(FrontError::unsupported(span, "range-based for loops are not supported")
                .with_help("write an index loop")),
            "while_statement" => self.while_stmt(n),
            "do_statement" => self.do_stmt(n),
            "break_statement" => self.jump(StmtKind::Break, span),
            "continue_statement" => self.jump(StmtKind::Continue, span),
            "return_statement" => self.return_stmt(n),
            "switch_statement" => self.switch_stmt(n),
            "goto_statement" | "labeled_statement" => {
                Err(FrontError::unsupported(span, "goto and labels are not supported")
                    .with_help("restructure the control flow with loops, break and continue"))
            }
            "try_statement" | "throw_statement" => {
                Err(FrontError::unsupported(span, "exceptions do not exist in device code"))
            }
            "function_definition" => Err(FrontError::unsupported(
                span,
                "nested function definitions are not supported",
            )),
            "ERROR" => Err(
                FrontError::input(span, format!("syntax error near `{}`", first_line(self.text(n))))
                    .with_help("check braces, parentheses and semicolons"),
            ),
            k => Err(FrontError::unsupported(
                span,
                format!("unsupported statement ({k}): `{}`", first_line(self.text(n))),
            )),
        }
    }

    /// After a source statement whose lowering ended in statements that are not barrier
    /// positions (an inlined call's body), adds an empty statement that is: a barrier right
    /// after the call is a real place in the source.
    fn anchor(&mut self, before: usize, span: Span) {
        if self.in_inline() {
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

    fn jump(&mut self, kind: StmtKind, span: Span) -> FResult<()> {
        self.flush(true);
        let label = self.label();
        let emit = !self.in_inline();
        self.push(Stmt {
            label,
            span,
            emit_after: false,
            kind,
        });
        let _ = emit;
        Ok(())
    }

    /// A statement used as a body: braces or not, as a block.
    pub(crate) fn body_block(&mut self, n: Node<'t>) -> FResult<Block> {
        self.blocks.push(Vec::new());
        self.scopes.push(HashMap::new());
        let braced = n.kind() == "compound_statement";
        let r = self.stmt(n);
        self.flush(true);
        self.scopes.pop();
        let stmts = self.blocks.pop().unwrap_or_default();
        r?;
        let label = self.label();
        Ok(Block {
            label,
            span: self.span(n),
            braced,
            emit_start: !self.in_inline(),
            stmts,
        })
    }

    fn condition_node(&self, n: Node<'t>) -> FResult<Node<'t>> {
        let span = self.span(n);
        let c = n
            .child_by_field_name("condition")
            .ok_or_else(|| FrontError::input(span, "missing condition"))?;
        if c.kind() == "condition_clause" {
            if c.child_by_field_name("initializer").is_some() {
                return Err(FrontError::unsupported(
                    span,
                    "if/switch with an initializer is not supported",
                ));
            }
            return c
                .child_by_field_name("value")
                .ok_or_else(|| FrontError::input(span, "missing condition"));
        }
        if c.kind() == "parenthesized_expression" {
            return c
                .named_child(0)
                .ok_or_else(|| FrontError::input(span, "missing condition"));
        }
        Ok(c)
    }

    fn if_stmt(&mut self, n: Node<'t>) -> FResult<()> {
        let span = self.span(n);
        self.stmt_span = span;
        let cnode = self.condition_node(n)?;
        let cond = self.cond(cnode)?;
        self.flush(false);
        let then_n = n
            .child_by_field_name("consequence")
            .ok_or_else(|| FrontError::input(span, "if without body"))?;
        let then_blk = self.body_block(then_n)?;
        let else_blk = match n.child_by_field_name("alternative") {
            Some(e) => {
                let inner = if e.kind() == "else_clause" {
                    e.named_child(0)
                } else {
                    Some(e)
                };
                match inner {
                    Some(s) => self.body_block(s)?,
                    None => self.empty_block(),
                }
            }
            None => {
                self.stmt_span = span;
                self.empty_block()
            }
        };
        let label = self.label();
        self.push(Stmt {
            label,
            span,
            emit_after: !self.in_inline(),
            kind: StmtKind::If {
                cond,
                then_blk,
                else_blk,
            },
        });
        Ok(())
    }

    /// Lowers a loop condition: reads go into header statements evaluated before each test.
    fn loop_cond(&mut self, c: Option<Node<'t>>, span: Span) -> FResult<(Vec<Stmt>, Expr)> {
        let Some(c) = c else {
            return Ok((vec![], Expr::bool(true)));
        };
        self.blocks.push(Vec::new());
        self.stmt_span = span;
        let r = self.cond(c);
        self.flush(false);
        let header = self.blocks.pop().unwrap_or_default();
        Ok((header, r?))
    }

    fn for_stmt(&mut self, n: Node<'t>) -> FResult<()> {
        let span = self.span(n);
        self.scopes.push(HashMap::new());
        let r = self.for_inner(n, span);
        self.scopes.pop();
        r
    }

    fn for_inner(&mut self, n: Node<'t>, span: Span) -> FResult<()> {
        self.stmt_span = span;
        let mut loop_var = None;
        if let Some(init) = n.child_by_field_name("initializer") {
            if init.kind() == "declaration" {
                self.declaration(init)?;
                if let Some(d) = init.child_by_field_name("declarator") {
                    if let Some((name, _, _)) = self.declarator(d, CType::INT) {
                        if let Some(Binding::Var(v, _)) = self.lookup(&name) {
                            loop_var = Some(*v);
                        }
                    }
                }
            } else {
                let v = self.expr(init)?;
                if let Val::Mem(p) = v {
                    self.read(&p);
                }
                if let Some(Op::Assign(v, _)) = self.ops.last() {
                    loop_var = Some(*v);
                }
            }
        }
        self.flush(false);
        let (header, cond) = self.loop_cond(n.child_by_field_name("condition"), span)?;
        let body_n = n
            .child_by_field_name("body")
            .ok_or_else(|| FrontError::input(span, "for without body"))?;
        let body = self.loop_body(body_n)?;
        self.blocks.push(Vec::new());
        self.stmt_span = span;
        if let Some(u) = n.child_by_field_name("update") {
            let v = self.expr(u)?;
            if let Val::Mem(p) = v {
                self.read(&p);
            }
        }
        self.flush(false);
        let step = self.blocks.pop().unwrap_or_default();
        // Only call it the loop variable when the step really updates it.
        let var = loop_var.filter(|lv| {
            step.iter().any(|s| matches!(&s.kind, StmtKind::Basic(ops) if ops.iter().any(|o| matches!(o, Op::Assign(v, _) if v == lv))))
        });
        let label = self.label();
        self.push(Stmt {
            label,
            span,
            emit_after: !self.in_inline(),
            kind: StmtKind::Loop {
                kind: LoopKind::For,
                header,
                cond,
                body,
                step,
                var,
            },
        });
        Ok(())
    }

    /// A loop body: a block lowered one loop level deeper (a `return` of an inlined callee
    /// inside it cannot become a `break`).
    fn loop_body(&mut self, n: Node<'t>) -> FResult<Block> {
        self.loop_depth += 1;
        let body = self.body_block(n);
        self.loop_depth -= 1;
        body
    }

    fn while_stmt(&mut self, n: Node<'t>) -> FResult<()> {
        let span = self.span(n);
        let cnode = self.condition_node(n)?;
        let (header, cond) = self.loop_cond(Some(cnode), span)?;
        let body_n = n
            .child_by_field_name("body")
            .ok_or_else(|| FrontError::input(span, "while without body"))?;
        let body = self.loop_body(body_n)?;
        let label = self.label();
        self.push(Stmt {
            label,
            span,
            emit_after: !self.in_inline(),
            kind: StmtKind::Loop {
                kind: LoopKind::While,
                header,
                cond,
                body,
                step: vec![],
                var: None,
            },
        });
        Ok(())
    }

    fn do_stmt(&mut self, n: Node<'t>) -> FResult<()> {
        let span = self.span(n);
        let body_n = n
            .child_by_field_name("body")
            .ok_or_else(|| FrontError::input(span, "do without body"))?;
        let body = self.loop_body(body_n)?;
        let cnode = self.condition_node(n)?;
        let (header, cond) = self.loop_cond(Some(cnode), span)?;
        let label = self.label();
        self.push(Stmt {
            label,
            span,
            emit_after: !self.in_inline(),
            kind: StmtKind::Loop {
                kind: LoopKind::DoWhile,
                header,
                cond,
                body,
                step: vec![],
                var: None,
            },
        });
        Ok(())
    }

    fn return_stmt(&mut self, n: Node<'t>) -> FResult<()> {
        let span = self.span(n);
        self.stmt_span = span;
        let value = n.named_child(0);
        if let Some(frame) = self.inline.last().cloned() {
            if self.loop_depth > frame.loop_depth {
                return Err(FrontError::unsupported(
                    span,
                    format!("`return` inside a loop of the inlined function `{}`", frame.name),
                )
                .with_help("use break and return after the loop"));
            }
            if let Some(v) = value {
                let val = self.expr(v)?;
                if let Some(pname) = &frame.ptr_result {
                    let (a, off, t) = self.as_pointer(val, span)?;
                    self.bind_value_outer(pname, a, off, t);
                } else if let Some((rv, rt)) = frame.result {
                    let e = self.rvalue(val, &rt)?;
                    self.ops.push(Op::Assign(rv, e));
                } else if let Val::Mem(p) = val {
                    self.read(&p);
                }
            }
            self.flush(false);
            // A return in an inlined body leaves the `do { } while (false)` wrapper.
            let label = self.label();
            self.push(Stmt {
                label,
                span,
                emit_after: false,
                kind: StmtKind::Break,
            });
            return Ok(());
        }
        if let Some(v) = value {
            let val = self.expr(v)?;
            if let Val::Mem(p) = val {
                self.read(&p);
            }
        }
        self.flush(false);
        let label = self.label();
        self.push(Stmt {
            label,
            span,
            emit_after: false,
            kind: StmtKind::Return,
        });
        Ok(())
    }

    /// `switch`: lowered to a one-shot loop of `if`s so that `break` keeps its meaning; cases
    /// that fall through into the next case are not supported.
    fn switch_stmt(&mut self, n: Node<'t>) -> FResult<()> {
        let span = self.span(n);
        self.stmt_span = span;
        let cnode = self.condition_node(n)?;
        let (se, st) = self.scalar(cnode)?;
        let sv = self.temp(st.scalar());
        self.ops.push(Op::Assign(sv, se));
        self.flush(false);
        let body = n
            .child_by_field_name("body")
            .ok_or_else(|| FrontError::input(span, "switch without body"))?;
        let mut c = body.walk();
        let cases: Vec<Node<'t>> = body
            .named_children(&mut c)
            .filter(|x| x.kind() == "case_statement")
            .collect();
        // The value that selects the default branch: none of the listed cases.
        let mut all_vals = Vec::new();
        for cs in &cases {
            if let Some(v) = cs.child_by_field_name("value") {
                let val = self
                    .const_eval(v)
                    .ok_or_else(|| FrontError::unsupported(self.span(v), "case labels must be constants"))?;
                all_vals.push(val);
            }
        }
        let sty = st.scalar();
        let loop_body = self.sub_block_braced(span, |lw| {
            let mut i = 0;
            while i < cases.len() {
                // Consecutive empty cases share a body: `case 1: case 2: ...`.
                let mut labels = Vec::new();
                let mut j = i;
                loop {
                    let cs = cases[j];
                    labels.push(cs.child_by_field_name("value").and_then(|v| lw.const_eval(v)));
                    let has_body = stmts_of_case(cs).next().is_some();
                    if has_body || j + 1 == cases.len() {
                        break;
                    }
                    j += 1;
                }
                let cs = cases[j];
                let stmts: Vec<Node<'t>> = stmts_of_case(cs).collect();
                let ends = stmts
                    .last()
                    .map(|s| matches!(s.kind(), "break_statement" | "return_statement" | "continue_statement"))
                    .unwrap_or(false);
                if !ends && j + 1 < cases.len() {
                    return Err(
                        FrontError::unsupported(lw.span(cs), "switch case falls through into the next case")
                            .with_help("end each case with break"),
                    );
                }
                let mut cond: Option<Expr> = None;
                for l in labels {
                    let c = match l {
                        Some(v) => Expr::Bin(BinOp::Eq, sty, Box::new(Expr::Var(sv)), Box::new(Expr::Const(v, sty))),
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
                lw.stmt_span = lw.span(cs);
                let then_blk = lw.sub_block(|lw2| {
                    for s in &stmts {
                        lw2.stmt(*s)?;
                    }
                    Ok(())
                })?;
                let else_blk = lw.empty_block();
                let label = lw.label();
                let sp = lw.span(cs);
                lw.push(Stmt {
                    label,
                    span: sp,
                    emit_after: false,
                    kind: StmtKind::If {
                        cond: cond.unwrap_or(Expr::bool(true)),
                        then_blk,
                        else_blk,
                    },
                });
                i = j + 1;
            }
            // Leave the one-shot loop.
            let label = lw.label();
            lw.push(Stmt {
                label,
                span,
                emit_after: false,
                kind: StmtKind::Break,
            });
            Ok(())
        })?;
        let label = self.label();
        self.push(Stmt {
            label,
            span,
            emit_after: !self.in_inline(),
            kind: StmtKind::Loop {
                kind: LoopKind::DoWhile,
                header: vec![],
                cond: Expr::bool(false),
                body: loop_body,
                step: vec![],
                var: None,
            },
        });
        Ok(())
    }

    /// Like `sub_block`, for synthetic wrappers whose contents may hold real positions.
    pub(crate) fn sub_block_braced(&mut self, span: Span, f: impl FnOnce(&mut Self) -> FResult<()>) -> FResult<Block> {
        self.blocks.push(Vec::new());
        self.scopes.push(HashMap::new());
        let saved = std::mem::take(&mut self.ops);
        let r = f(self);
        self.flush(false);
        self.ops = saved;
        self.scopes.pop();
        let stmts = self.blocks.pop().unwrap_or_default();
        r?;
        let label = self.label();
        Ok(Block {
            label,
            span,
            braced: false,
            emit_start: false,
            stmts,
        })
    }
}

fn stmts_of_case<'t>(cs: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut c = cs.walk();
    let value = cs.child_by_field_name("value").map(|v| v.id());
    cs.named_children(&mut c)
        .filter(move |s| Some(s.id()) != value && s.kind() != "comment")
        .collect::<Vec<_>>()
        .into_iter()
}
