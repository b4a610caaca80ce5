//! Statements: blocks, declarations, `if`, loops, `switch`, jumps, expression statements.

use super::convert::*;
use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::{Ast, NodeId};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// Lowers the statements of a compound statement into the current block.
    pub(crate) fn compound(&mut self, n: NodeId) -> FResult<()> {
        let kids: Vec<NodeId> = self.ast.children(n).collect();
        for (i, &s) in kids.iter().enumerate() {
            self.stmt(s, kids.get(i + 1).copied())?;
        }
        Ok(())
    }

    /// Whether a barrier may be written after this statement of the source.
    fn writable(&self, n: NodeId, next: Option<NodeId>) -> bool {
        !self.in_inline() && self.src.end_is_writable(n, next)
    }

    /// Lowers one statement into the current block. `next` is the following statement of the
    /// same block (to tell whether a macro produced both).
    pub(crate) fn stmt(&mut self, n: NodeId, next: Option<NodeId>) -> FResult<()> {
        let ast = self.ast;
        let kind = ast.kind(n);
        let span = self.src.stmt_span(n);
        let span = if span.is_dummy() { self.span(n) } else { span };
        self.cur_writable = self.writable(n, next);
        match kind {
            "CompoundStmt" => {
                // A nested block: its statements are positions of their own.
                let before = self.blocks.last().map_or(0, Vec::len);
                self.compound(n)?;
                let _ = before;
                Ok(())
            }
            "NullStmt" => Ok(()),
            "DeclStmt" => {
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
            "IfStmt" => self.if_stmt(n, span, next),
            "ForStmt" => self.for_stmt(n, span, next),
            "WhileStmt" => self.while_stmt(n, span, next),
            "DoStmt" => self.do_stmt(n, span, next),
            "SwitchStmt" => self.switch_stmt(n, span, next),
            "BreakStmt" => {
                self.flush(true);
                self.stmt_span = span;
                self.push_synthetic(StmtKind::Break);
                Ok(())
            }
            "ContinueStmt" => {
                self.flush(true);
                self.stmt_span = span;
                self.continue_stmt()
            }
            "ReturnStmt" => self.return_stmt(n, span),
            "GCCAsmStmt" => {
                self.stmt_span = span;
                let before = self.blocks.last().map_or(0, Vec::len);
                self.asm(n)?;
                let w = self.writable(n, next);
                self.flush(w);
                self.anchor(before, span, w);
                Ok(())
            }
            "AttributedStmt" => {
                // `#pragma unroll` loops, `[[likely]]`, `[[fallthrough]];`.
                let sub = ast.children(n).filter(|&c| !ast.kind(c).ends_with("Attr")).last();
                match sub {
                    Some(s) if ast.kind(s) == "ForStmt" && self.try_unroll(n, s)? => Ok(()),
                    Some(s) => self.stmt(s, next),
                    None => Ok(()),
                }
            }
            "CaseStmt" | "DefaultStmt" => Err(FrontError::unsupported(
                span,
                "a case label inside a nested statement of a switch (Duff's device)",
            )),
            "LabelStmt" | "GotoStmt" | "IndirectGotoStmt" => {
                Err(FrontError::unsupported(span, "goto and labels are not supported")
                    .with_help("restructure the control flow with loops, break and continue"))
            }
            "CXXForRangeStmt" => Err(FrontError::unsupported(span, "range-based for loops are not supported")
                .with_help("write an index loop")),
            "CXXTryStmt" | "CXXThrowExpr" => {
                Err(FrontError::unsupported(span, "exceptions do not exist in device code"))
            }
            "MSAsmStmt" => Err(FrontError::unsupported(span, "MS-style asm is not supported")),
            k if k.ends_with("Stmt") && !k.ends_with("Expr") => {
                Err(FrontError::unsupported(span, format!("statement {k} is not supported")))
            }
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
        let braced = self.ast.kind(n) == "CompoundStmt";
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

    /// Lowers a local variable declaration (or a nested type/static_assert: nothing).
    fn local_decl(&mut self, d: NodeId) -> FResult<()> {
        let ast = self.ast;
        match ast.kind(d) {
            "VarDecl" => {}
            "TypedefDecl" | "TypeAliasDecl" | "CXXRecordDecl" | "RecordDecl" | "EnumDecl" | "StaticAssertDecl"
            | "UsingDecl" | "UsingDirectiveDecl" | "NamespaceAliasDecl" | "UsingShadowDecl" => return Ok(()),
            k => {
                return Err(FrontError::unsupported(
                    self.span(d),
                    format!("declaration {k} is not supported"),
                ));
            }
        }
        let node = ast.node(d);
        let id = node.id;
        let name = ast.name(d).to_string();
        // Reports name a variable by its declarator (the name), as written.
        let span = node
            .loc
            .map(|l| self.src.pos_span(l.expansion))
            .filter(|s| !s.is_dummy())
            .unwrap_or_else(|| self.span(d));
        let t = self.type_of(d);
        let init = ast.children(d).find(|&c| !ast.kind(c).ends_with("Attr"));
        let shared = ast.has_attr(d, "CUDASharedAttr");
        let is_static = node.attrs.storage_class.is_some_and(|s| ast.str(s) == "static");
        let device = ast.has_attr(d, "CUDADeviceAttr") || ast.has_attr(d, "CUDAConstantAttr");
        if shared || (is_static && device) || node.attrs.storage_class.is_some_and(|s| ast.str(s) == "extern") {
            // Static storage: one variable however often the function is inlined.
            if self.env.contains_key(&id) {
                return Ok(());
            }
            let space = if shared { Space::Shared } else { Space::Global };
            let place = self.memory_var(&name, space, &t, span, d)?;
            self.env.insert(id, Binding::Mem(place));
            return Ok(());
        }
        if is_static || node.attrs.storage_class.is_some_and(|s| ast.str(s) == "extern") {
            // `static const int N = 4;`: a constant.
            if let Some(v) = init.and_then(|i| self.const_eval(i, 0)) {
                self.env.insert(id, Binding::Const(fold_cast(v, &t), t));
                return Ok(());
            }
            return Err(FrontError::unsupported(span, format!("static local variable `{name}`"))
                .with_help("make it __shared__ or a constant"));
        }
        // A pointer whose address is taken stays a pointer variable: `&p` points at its slot.
        if self.addressed.contains(&id) && (t.is_integral() || matches!(t, CType::Float(_))) {
            // `&x` is taken: the variable lives in thread-private memory (never races).
            let place = self.array_for(&name, Space::Local, &t, span)?;
            if let Some(i) = init {
                let rv = self.rvalue(i)?;
                self.store(LV::Mem(place.clone()), rv, span)?;
            }
            self.env.insert(id, Binding::Mem(place));
            return Ok(());
        }
        self.automatic_var(id, &name, &t, init, span)
    }

    /// A local variable with automatic storage: a binding by its type (reference, array, object, pointer, scalar).
    fn automatic_var(&mut self, id: u64, name: &str, t: &CType, init: Option<NodeId>, span: Span) -> FResult<()> {
        match t {
            CType::Ref(_) => {
                let init =
                    init.ok_or_else(|| FrontError::input(span, format!("reference `{name}` without initializer")))?;
                let lv = self.lvalue(init)?;
                let b = self.lv_binding(lv);
                self.env.insert(id, b);
            }
            CType::Array(..) => {
                let place = self.array_for(name, Space::Local, t, span)?;
                let pointers = self.local_pointer_array(name, t, &place);
                self.env.insert(id, Binding::Mem(place));
                if pointers && init.is_some() {
                    return Err(FrontError::unsupported(
                        span,
                        format!("an initializer of the array of pointers `{name}`"),
                    )
                    .with_help("assign its elements one by one"));
                }
                if let Some(i) = init {
                    // Local arrays never race; element initializers still run.
                    for c in self.expr_children(i) {
                        self.discard(c)?;
                    }
                }
            }
            CType::Record(r) => {
                if let Some(g) = self.group_kind_of(*r) {
                    let g = match init {
                        Some(i) => match self.rvalue(i)? {
                            RV::Group(g) => g,
                            _ => g,
                        },
                        None => g,
                    };
                    self.env.insert(id, Binding::Group(g));
                    return Ok(());
                }
                self.check_record_dtor(*r, span)?;
                let o = self.new_obj(*r, name, span)?;
                self.env.insert(id, Binding::Obj(o));
                if let Some(i) = init {
                    self.init_object(o, i, span)?;
                }
            }
            CType::Ptr(p) => {
                // A pointer's offset is not a user scalar (uniformity, witnesses): a temp.
                let v = self.new_var(name, ScalarTy::U64, VarKind::Temp);
                let s = self.new_slot(name, Region::Null, SlotOff::Var(v), (**p).clone());
                self.env.insert(id, Binding::Ptr(s));
                if let Some(i) = init {
                    let rv = self.rvalue(i)?;
                    self.store(LV::Ptr(s), rv, span)?;
                }
            }
            CType::Other(s) if s.starts_with("(lambda") => {
                // The closure's class is known once the lambda expression is lowered.
                let init =
                    init.ok_or_else(|| FrontError::input(span, format!("lambda `{name}` without initializer")))?;
                match self.rvalue(init)? {
                    RV::Obj(o) => {
                        self.env.insert(id, Binding::Obj(o));
                    }
                    _ => {
                        return Err(FrontError::unsupported(
                            span,
                            format!("lambda `{name}` autosync cannot follow"),
                        ))
                    }
                }
            }
            CType::Other(s) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("variable `{name}` of type `{s}` is not supported"),
                ));
            }
            _ => {
                // The initializer is evaluated before the variable exists.
                let rv = match init {
                    Some(i) => Some(self.rvalue(i)?),
                    None => None,
                };
                if let (Some(RV::Ptr(p)), true) = (&rv, t.is_integral()) {
                    // An address kept as an integer (`uint32_t a = __cvta_generic_to_shared(p)`),
                    // for inline asm: it stays a pointer to the same place.
                    let v = self.new_var(name, ScalarTy::U64, VarKind::Temp);
                    let s = self.new_slot(
                        name,
                        Region::Null,
                        SlotOff::Var(v),
                        CType::Int { bits: 8, signed: false },
                    );
                    self.assign_ptr(s, p.clone(), span)?;
                    self.env.insert(id, Binding::Ptr(s));
                    return Ok(());
                }
                let v = self.new_var(name, t.scalar(), VarKind::Local);
                self.env.insert(id, Binding::Var(v, t.clone()));
                if let Some(rv) = rv {
                    self.store(LV::Var(v, t.clone()), rv, span)?;
                }
            }
        }
        Ok(())
    }

    /// Refuses local objects whose class has a destructor with effects.
    fn check_record_dtor(&self, r: u64, span: Span) -> FResult<()> {
        let members = self
            .ast
            .decls
            .get(&self.types.definition(r))
            .map(|d| d.members.clone())
            .unwrap_or_default();
        for m in members {
            if self
                .ast
                .decls
                .get(&m)
                .is_some_and(|d| self.ast.str(d.kind) == "CXXDestructorDecl")
            {
                self.check_trivial_dtor(m, span)?;
            }
        }
        Ok(())
    }

    /// Initializes a fresh local object from its initializer expression.
    pub(crate) fn init_object(&mut self, o: usize, init: NodeId, span: Span) -> FResult<()> {
        let ast = self.ast;
        match ast.kind(init) {
            "CXXConstructExpr" | "CXXTemporaryObjectExpr" => self.construct_into(o, init),
            "InitListExpr" => self.init_obj_list(o, init, span),
            "ExprWithCleanups" | "ParenExpr" => {
                let c = self.expr_children(init);
                match c.first() {
                    Some(&c) => self.init_object(o, c, span),
                    None => Ok(()),
                }
            }
            _ => {
                let rv = self.rvalue(init)?;
                self.store(LV::Obj(o), rv, span)
            }
        }
    }

    fn if_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
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
    fn loop_body(&mut self, n: Option<NodeId>) -> FResult<Block> {
        self.jumps.push(JumpCtx::Loop);
        let b = self.body_block(n);
        self.jumps.pop();
        b
    }

    fn push_loop(&mut self, n: NodeId, span: Span, next: Option<NodeId>, kind: StmtKind) {
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

    fn for_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
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
            if ast.kind(i) == "DeclStmt" {
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
        Ok(())
    }

    fn while_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
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

    fn do_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
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
    fn continue_stmt(&mut self) -> FResult<()> {
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

    fn return_stmt(&mut self, n: NodeId, span: Span) -> FResult<()> {
        self.stmt_span = span;
        let value = self.expr_children(n).first().copied();
        if self.frames.is_empty() {
            if let Some(v) = value {
                self.discard(v)?;
            }
            self.flush(false);
            self.push_synthetic(StmtKind::Return);
            return Ok(());
        }
        if let Some(v) = value {
            self.return_value(v, span)?;
        }
        // Leaving the inlined body: break out of its one-shot loop, through any loops of the
        // callee (each checks the flag after it ends).
        let base = self.frames.last().map(|f| f.jump_base).unwrap_or(0);
        let inside_loops = self.jumps.len() > base + 1;
        if inside_loops {
            // The flag exists: the call found this `return` inside a loop before inlining.
            let flag = self.frames.last().and_then(|f| f.ret_flag).ok_or_else(|| {
                FrontError::input(
                    span,
                    "internal: return inside a loop of an inlined function without a flag",
                )
            })?;
            self.ops.push(Op::Assign(flag, Expr::bool(true)));
        }
        self.flush(false);
        self.push_synthetic(StmtKind::Break);
        Ok(())
    }

    /// Stores a `return`ed value where the inlined call's result goes.
    fn return_value(&mut self, v: NodeId, span: Span) -> FResult<()> {
        let ret = self.frames.last().map(|f| f.ret.clone()).unwrap_or(RetSlot::None);
        match ret {
            RetSlot::None => self.discard(v),
            RetSlot::Var(var, t) => {
                let rv = self.rvalue(v)?;
                if let (RV::Ptr(p), true) = (&rv, t.is_integral()) {
                    // A function returning an address as an integer: its result is the pointer.
                    let ov = self.new_var(&self.vars[var.0 as usize].name.clone(), ScalarTy::U64, VarKind::Temp);
                    let s = self.new_slot(
                        "$ret",
                        Region::Null,
                        SlotOff::Var(ov),
                        CType::Int { bits: 8, signed: false },
                    );
                    self.assign_ptr(s, p.clone(), span)?;
                    if let Some(f) = self.frames.last_mut() {
                        f.ret = RetSlot::Ptr(s);
                    }
                    return Ok(());
                }
                self.store(LV::Var(var, t), rv, span)
            }
            RetSlot::Ptr(s) => {
                let rv = self.rvalue(v)?;
                self.store(LV::Ptr(s), rv, span)
            }
            RetSlot::Obj(o) => {
                if matches!(
                    self.ast.kind(v),
                    "CXXConstructExpr" | "InitListExpr" | "ExprWithCleanups"
                ) {
                    return self.init_object(o, v, span);
                }
                let rv = self.rvalue(v)?;
                self.store(LV::Obj(o), rv, span)
            }
            RetSlot::Group(_) => {
                let g = match self.rvalue(v)? {
                    RV::Group(g) => Some(g),
                    _ => None,
                };
                if let Some(f) = self.frames.last_mut() {
                    f.ret = RetSlot::Group(g);
                }
                Ok(())
            }
            RetSlot::Ref(prev, off_var) => {
                let lv = self.lvalue(v)?;
                let b = match (prev, lv) {
                    (None, LV::Mem(p)) => {
                        let ov = self.temp(ScalarTy::U64);
                        self.ops.push(Op::Assign(ov, p.off.clone()));
                        if let Some(f) = self.frames.last_mut() {
                            f.ret = RetSlot::Ref(
                                Some(Binding::Mem(Place {
                                    off: Expr::Var(ov),
                                    ..p.clone()
                                })),
                                Some(ov),
                            );
                        }
                        return Ok(());
                    }
                    (Some(Binding::Mem(old)), LV::Mem(p)) if old.array == p.array => {
                        if let Some(ov) = off_var {
                            self.ops.push(Op::Assign(ov, p.off));
                        }
                        return Ok(());
                    }
                    (None, lv) => self.lv_binding(lv),
                    (Some(_), _) => {
                        return Err(FrontError::unsupported(
                            span,
                            "a function returning references to different variables",
                        ))
                    }
                };
                if let Some(f) = self.frames.last_mut() {
                    f.ret = RetSlot::Ref(Some(b), None);
                }
                Ok(())
            }
        }
    }

    /// `switch`: a one-shot loop (so that `break` keeps its meaning) of `if`s, one per case
    /// group; a case that falls through sets a flag the next case tests.
    fn switch_stmt(&mut self, n: NodeId, span: Span, next: Option<NodeId>) -> FResult<()> {
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
        let body_stmts: Vec<NodeId> = if ast.kind(body) == "CompoundStmt" {
            ast.children(body).collect()
        } else {
            vec![body]
        };
        for s in body_stmts {
            let mut cur = s;
            let mut labels = Vec::new();
            // `case 1: case 2: stmt` nests: CaseStmt(1, CaseStmt(2, stmt)).
            while matches!(ast.kind(cur), "CaseStmt" | "DefaultStmt") {
                let kids: Vec<NodeId> = ast.children(cur).collect();
                if ast.kind(cur) == "CaseStmt" {
                    let v = kids.first().and_then(|&c| self.const_eval(c, 0)).ok_or_else(|| {
                        FrontError::unsupported(self.span(cur), "case labels must be integer constants")
                    })?;
                    labels.push(Some(v));
                } else {
                    labels.push(None);
                }
                match kids.last() {
                    Some(&sub) if kids.len() > 1 || ast.kind(cur) == "DefaultStmt" => cur = sub,
                    _ => break,
                }
            }
            if !labels.is_empty() {
                groups.push(CaseGroup {
                    labels,
                    stmts: vec![],
                    span: self.span(s),
                });
                if !matches!(ast.kind(cur), "CaseStmt" | "DefaultStmt") {
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

/// Whether a `continue` inside `s` (not inside a nested loop) targets a loop outside it.
pub(crate) fn continues_out(ast: &Ast, s: NodeId) -> bool {
    match ast.kind(s) {
        "ContinueStmt" => true,
        "ForStmt" | "WhileStmt" | "DoStmt" | "CXXForRangeStmt" => false,
        _ => ast.children(s).any(|c| continues_out(ast, c)),
    }
}

/// Whether a `return` inside `s` lies within a loop or switch of `s`.
pub(crate) fn returns_from_loop(ast: &Ast, s: NodeId, in_loop: bool) -> bool {
    match ast.kind(s) {
        "ReturnStmt" => in_loop,
        "ForStmt" | "WhileStmt" | "DoStmt" | "CXXForRangeStmt" | "SwitchStmt" => {
            ast.children(s).any(|c| returns_from_loop(ast, c, true))
        }
        "LambdaExpr" => false,
        _ => ast.children(s).any(|c| returns_from_loop(ast, c, in_loop)),
    }
}

/// Whether a statement always leaves (break, continue, return), so the next case is not
/// reached by falling through.
fn jumps_away(ast: &Ast, s: NodeId) -> bool {
    match ast.kind(s) {
        "BreakStmt" | "ContinueStmt" | "ReturnStmt" => true,
        "CompoundStmt" => ast.children(s).last().is_some_and(|l| jumps_away(ast, l)),
        "AttributedStmt" => ast.children(s).last().is_some_and(|l| jumps_away(ast, l)),
        "IfStmt" => {
            let a = &ast.node(s).attrs;
            if !a.has_else {
                return false;
            }
            let kids: Vec<NodeId> = ast.children(s).collect();
            kids.len() >= 2 && jumps_away(ast, kids[kids.len() - 1]) && jumps_away(ast, kids[kids.len() - 2])
        }
        _ => false,
    }
}

/// The value of a condition made of constants only (`!1`, `4 >= 4`), if it is one. Comparisons
/// are folded only on non-negative operands, where signed and unsigned agree.
fn constant_truth(e: &Expr) -> Option<bool> {
    let value = |e: &Expr| -> Option<i64> {
        match e {
            Expr::Const(v, _) => (*v >= 0).then_some(*v),
            _ => constant_truth(e).map(i64::from),
        }
    };
    match e {
        Expr::Const(v, _) => Some(*v != 0),
        Expr::Un(UnOp::Not, _, a) => constant_truth(a).map(|b| !b),
        Expr::Bin(op, _, a, b) => {
            let (a, b) = (value(a)?, value(b)?);
            match op {
                BinOp::Lt => Some(a < b),
                BinOp::Le => Some(a <= b),
                BinOp::Gt => Some(a > b),
                BinOp::Ge => Some(a >= b),
                BinOp::Eq => Some(a == b),
                BinOp::Ne => Some(a != b),
                BinOp::And => Some(a != 0 && b != 0),
                BinOp::Or => Some(a != 0 || b != 0),
                _ => None,
            }
        }
        _ => None,
    }
}
