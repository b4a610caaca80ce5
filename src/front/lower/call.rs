//! Calls: functions, methods, operators and constructors with a body in the user's files are
//! inlined; calls into system headers go to the library model (`library.rs`).

use super::convert::*;
use super::expr::Value;
use super::lowerer::Lowerer;
use super::returns::{returns_in, without_returns};
use super::values::*;
use crate::front::ast::{Ast, NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

/// Most nested inlined calls before autosync gives up (recursion is refused outright).
const MAX_INLINE_DEPTH: usize = 64;

/// A resolved call: the callee, the object of a method call, the arguments.
pub(crate) struct Callee {
    /// The declaration the call refers to.
    pub decl: u64,
    /// The receiver of a method call (`obj.f()`, `p->f()`, a member operator's first operand).
    pub this: Option<NodeId>,
    /// Whether the receiver is reached through a pointer (`p->f()`).
    pub arrow: bool,
    /// Argument expressions.
    pub args: Vec<NodeId>,
}

impl<'a> Lowerer<'a> {
    /// Finds what a call expression calls.
    fn callee(&self, n: NodeId) -> FResult<Callee> {
        let ast = self.ast;
        let span = self.span(n);
        let kids = self.expr_children(n);
        let first = *kids
            .first()
            .ok_or_else(|| FrontError::input(span, "call without a callee"))?;
        match ast.kind(n) {
            NodeKind::CXXMemberCallExpr => {
                let m = self.strip(first);
                if ast.kind(m) != NodeKind::MemberExpr {
                    return Err(FrontError::unsupported(
                        span,
                        "a call through a pointer to member function",
                    ));
                }
                let decl = ast
                    .node(m)
                    .attrs
                    .member
                    .ok_or_else(|| FrontError::input(span, "method call without a method"))?;
                Ok(Callee {
                    decl,
                    this: self.expr_children(m).first().copied(),
                    arrow: ast.node(m).attrs.is_arrow,
                    args: kids[1..].to_vec(),
                })
            }
            _ => {
                let c = self.strip(first);
                let decl = match ast.kind(c) {
                    NodeKind::DeclRefExpr => ast.node(c).attrs.referenced.map(|r| r.id),
                    NodeKind::MemberExpr => ast.node(c).attrs.member,
                    _ => None,
                }
                .ok_or_else(|| {
                    FrontError::unsupported(span, "a call through a function pointer or a callable object")
                        .with_help("call the __device__ function by name")
                })?;
                let is_method = ast
                    .decls
                    .get(&decl)
                    .is_some_and(|d| matches!(d.kind, NodeKind::CXXMethodDecl | NodeKind::CXXConversionDecl));
                if ast.kind(n) == NodeKind::CXXOperatorCallExpr && is_method {
                    // A member operator: the first operand is the object.
                    return Ok(Callee {
                        decl,
                        this: kids.get(1).copied(),
                        arrow: false,
                        args: kids.get(2..).map(|s| s.to_vec()).unwrap_or_default(),
                    });
                }
                // A static member called as `obj.f()` keeps its object for its effects only.
                let this = (ast.kind(c) == NodeKind::MemberExpr)
                    .then(|| self.expr_children(c).first().copied())
                    .flatten();
                Ok(Callee {
                    decl,
                    this,
                    arrow: ast.kind(c) == NodeKind::MemberExpr && ast.node(c).attrs.is_arrow,
                    args: kids[1..].to_vec(),
                })
            }
        }
    }

    /// Lowers a call expression.
    pub(crate) fn call(&mut self, n: NodeId) -> FResult<Value> {
        let span = self.span(n);
        if let Some((callee, args)) = self.indirect_callee(n) {
            return self.indirect_call(n, callee, &args);
        }
        let c = self.callee(n)?;
        let def = self.types.definition(c.decl);
        if self.is_implicit_assignment(def) {
            // `a = b` on objects through an implicit (or defaulted) `operator=`: a memberwise
            // copy, which is what `store` does.
            let (Some(this), [arg]) = (c.this, &c.args[..]) else {
                return Err(FrontError::input(span, "an assignment operator without two operands"));
            };
            let rv = self.rvalue(*arg)?;
            let lv = self.receiver(this, c.arrow, span)?;
            self.store(lv.clone(), rv, span)?;
            return Ok(Value::L(lv));
        }
        // Every function with a body is inlined, wherever it is defined (user files, CUB,
        // cooperative groups, CUTLASS); only what has no body is modelled by name.
        let system = self.ast.decl_is_system(def);
        match self.ast.decl_node(def) {
            Some(f) if self.has_body(f) => {
                if system {
                    if let Some(v) = self.prelude_call(&c, n, span)? {
                        return Ok(v);
                    }
                }
                let this = match c.this {
                    Some(t) if !self.is_static_method(f) => Some(self.receiver(t, c.arrow, span)?),
                    Some(t) => {
                        self.discard(t)?;
                        None
                    }
                    None => None,
                };
                self.inline(f, this, &c.args, n, span)
            }
            Some(f) if !system && !self.ast.node(f).attrs.is_implicit => {
                let name = self.ast.qual_name(def).unwrap_or("?").to_string();
                if self.assumed_pure(def) {
                    return self.pure_call(&c, n, span, &name);
                }
                self.external_call(c.this, &c.args, f, n, span, &name)
            }
            _ => self.library_call(&c, n, span),
        }
    }

    /// The callee and arguments of a plain call whose callee is not a named function: a
    /// function pointer (`f(x)`, `(*f)(x)`, `table[i](x)`).
    fn indirect_callee(&self, n: NodeId) -> Option<(NodeId, Vec<NodeId>)> {
        let ast = self.ast;
        if ast.kind(n) != NodeKind::CallExpr {
            return None;
        }
        let kids = self.expr_children(n);
        let first = *kids.first()?;
        let c = self.strip(first);
        let named =
            match ast.kind(c) {
                NodeKind::DeclRefExpr => ast.node(c).attrs.referenced.is_some_and(|r| {
                    !matches!(r.kind, NodeKind::VarDecl | NodeKind::ParmVarDecl | NodeKind::FieldDecl)
                }),
                NodeKind::MemberExpr => {
                    let member = ast.node(c).attrs.member;
                    member.is_none_or(|m| ast.decls.get(&m).is_none_or(|d| d.kind != NodeKind::FieldDecl))
                }
                _ => false,
            };
        (!named && self.type_of(first).is_pointer()).then(|| (first, kids[1..].to_vec()))
    }

    /// An `operator=` Clang declared implicitly or the user defaulted (also of system types).
    fn is_implicit_assignment(&self, def: u64) -> bool {
        let Some(d) = self.ast.decls.get(&def) else {
            return false;
        };
        if self.ast.str(d.name) != "operator=" || d.kind != NodeKind::CXXMethodDecl {
            return false;
        }
        match self.ast.decl_node(def) {
            Some(n) => {
                let a = &self.ast.node(n).attrs;
                a.is_implicit || a.defaulted && !self.has_body(n) || self.ast.decl_is_system(def) && !self.has_body(n)
            }
            None => true,
        }
    }

    fn has_body(&self, f: NodeId) -> bool {
        self.ast.children(f).any(|c| self.ast.kind(c) == NodeKind::CompoundStmt)
    }

    fn is_static_method(&self, f: NodeId) -> bool {
        self.ast.kind(f) == NodeKind::FunctionDecl
            || self
                .ast
                .node(f)
                .attrs
                .storage_class
                .is_some_and(|s| self.ast.str(s) == "static")
    }

    /// The object a method runs on.
    pub(crate) fn receiver(&mut self, t: NodeId, arrow: bool, span: Span) -> FResult<LV> {
        if arrow {
            let p = self.pointer(t)?;
            let ty = p.pointee.clone();
            self.deref(p, ty, span)
        } else {
            self.lvalue(t)
        }
    }

    /// The result slot for a call of type `t` (a glvalue call returns a reference).
    fn ret_slot(&mut self, call: NodeId, name: &str, span: Span) -> FResult<RetSlot> {
        let glvalue = self
            .ast
            .node(call)
            .attrs
            .value_category
            .is_some_and(|v| self.ast.str(v) != "prvalue");
        if glvalue {
            return Ok(RetSlot::Ref(None, None));
        }
        let t = self.type_of(call);
        Ok(match &t {
            CType::Void => RetSlot::None,
            CType::Ptr(p) => {
                let v = self.new_var(&format!("{name}.ret"), ScalarTy::U64, VarKind::Temp);
                RetSlot::Ptr(self.new_slot(&format!("{name}.ret"), Region::Null, SlotOff::Var(v), (**p).clone()))
            }
            CType::Record(r) => match self.group_kind_of(*r) {
                Some(_) => RetSlot::Group(None),
                None => RetSlot::Obj(self.new_obj(*r, &format!("{name}.ret"), span)?),
            },
            CType::Other(s) => return Err(FrontError::unsupported(span, format!("a call returning `{s}`"))),
            t => RetSlot::Var(
                self.new_var(&format!("{name}.ret"), t.scalar(), VarKind::Temp),
                t.clone(),
            ),
        })
    }

    /// Inlines a call of the function (or method, or constructor) `f`.
    pub(crate) fn inline(
        &mut self,
        f: NodeId,
        this: Option<LV>,
        args: &[NodeId],
        call: NodeId,
        span: Span,
    ) -> FResult<Value> {
        let ast = self.ast;
        let fid = ast.node(f).id;
        let name = ast.qual_name(fid).unwrap_or(ast.name(f)).to_string();
        if self.frames.iter().any(|fr| fr.func == fid) {
            return Err(FrontError::unsupported(span, format!("recursive call of `{name}`"))
                .with_help("autosync inlines calls; rewrite the recursion as a loop"));
        }
        if self.frames.len() >= MAX_INLINE_DEPTH {
            return Err(FrontError::unsupported(
                span,
                format!("calls nested deeper than {MAX_INLINE_DEPTH} at `{name}`"),
            ));
        }
        if ast.node(f).attrs.variadic {
            return Err(FrontError::unsupported(span, format!("variadic function `{name}`")));
        }
        let params: Vec<NodeId> = ast.children_of_kind(f, NodeKind::ParmVarDecl).collect();
        let callee_scope = self.types.scope_of(fid);
        // Arguments are evaluated in the caller, before the body.
        let body = ast.children_of_kind(f, NodeKind::CompoundStmt).last();
        let assigned = body
            .map(|b| super::kernels::assigned_params(ast, b))
            .unwrap_or_default();
        if let Some(b) = body {
            self.scan_addressed(b);
        }
        let bound = self.bind_params(&params, args, body, &assigned, &callee_scope, span)?;
        let is_ctor = ast.kind(f) == NodeKind::CXXConstructorDecl;
        let ret = if is_ctor {
            RetSlot::None
        } else {
            self.ret_slot(call, ast.name(f), span)?
        };
        for (id, b) in bound {
            self.env.insert(id, b);
        }
        let ret_flag = body
            .filter(|&b| super::stmt::returns_from_loop(ast, b, false))
            .map(|_| {
                let v = self.new_var("$returned", ScalarTy::Bool, VarKind::Temp);
                self.ops.push(Op::Assign(v, Expr::bool(false)));
                v
            });
        // Argument evaluation and parameter binding happen before the body.
        self.flush(false);
        self.jumps.push(JumpCtx::Inline);
        self.frames.push(Frame {
            func: fid,
            name: name.clone(),
            ret,
            ret_flag,
            this,
            jump_base: self.jumps.len() - 1,
            scope: callee_scope,
        });
        self.call_spans.push(span);
        let saved_span = self.stmt_span;
        let r = self.sub_block(|lw| {
            if is_ctor {
                lw.ctor_initializers(f, span)?;
            }
            if let Some(b) = body {
                lw.compound(b)?;
            }
            Ok(())
        });
        self.call_spans.pop();
        let frame = self.frames.pop().expect("frame");
        self.jumps.pop();
        self.stmt_span = saved_span;
        let mut body_blk = r?;
        // A `return` at the very end needs no jump.
        if matches!(
            body_blk.stmts.last(),
            Some(Stmt {
                kind: StmtKind::Break,
                ..
            })
        ) {
            body_blk.stmts.pop();
        }
        // Returns that each end a branch need no jump (`returns.rs`).
        if returns_in(&body_blk) {
            if let Some(stmts) = without_returns(body_blk.stmts.clone()) {
                body_blk.stmts = stmts;
            }
        }
        if returns_in(&body_blk) {
            self.push_synthetic(StmtKind::Loop(Loop {
                kind: LoopKind::DoWhile,
                header: vec![],
                cond: Expr::bool(false),
                body: body_blk,
                step: vec![],
                var: None,
            }));
        } else {
            for s in body_blk.stmts {
                self.push(s);
            }
        }
        self.inlined_result(frame.ret, &name, span)
    }

    /// Evaluates the arguments in the caller and binds each parameter (a constant, thread-private memory, or by type).
    fn bind_params(
        &mut self,
        params: &[NodeId],
        args: &[NodeId],
        body: Option<NodeId>,
        assigned: &[u64],
        callee_scope: &str,
        span: Span,
    ) -> FResult<Vec<(u64, Binding)>> {
        let ast = self.ast;
        let mut bound = Vec::new();
        for (i, &p) in params.iter().enumerate() {
            let arg = args.get(i).copied();
            let arg = match arg {
                Some(a) if ast.kind(a) == NodeKind::CXXDefaultArgExpr => self.default_arg(p, a)?,
                Some(a) => a,
                None => self.default_arg(p, p)?,
            };
            let pt = self.types.of_node(p, callee_scope);
            let pname = ast.name(p).to_string();
            // A constant argument the callee never assigns is a constant inside it (barrier
            // IDs and counts passed to helpers stay literal).
            let constant = (pt.is_integral() && !assigned.contains(&ast.node(p).id))
                .then(|| self.const_eval(arg, 0))
                .flatten();
            let addressed = self.addressed.contains(&ast.node(p).id);
            let b = match constant {
                Some(v) if !addressed => Binding::Const(fold_cast(v, &pt), pt.clone()),
                _ if addressed && (pt.is_integral() || matches!(pt, CType::Float(_))) => {
                    // `&param` inside the callee: the parameter lives in thread-private memory.
                    let (e, et) = self.scalar(arg)?;
                    let place = self.array_for(&pname, Space::Local, &pt, span)?;
                    self.write(&place, convert(e, &et, &pt))?;
                    Binding::Mem(place)
                }
                // A tag argument (`cuda::std::true_type{}` choosing an overload) whose
                // parameter the body never names: only its evaluation's effects matter.
                _ if unrepresentable(&pt) && !body.is_some_and(|b| names_decl(ast, b, ast.node(p).id)) => {
                    if self.has_effects(arg) {
                        self.discard(arg)?;
                    }
                    continue;
                }
                _ => self.bind_arg(arg, &pt, &pname, span)?,
            };
            bound.push((ast.node(p).id, b));
        }
        if args.len() > params.len() {
            for &extra in &args[params.len()..] {
                self.discard(extra)?;
            }
        }
        Ok(bound)
    }

    /// The value an inlined call leaves in its return slot.
    fn inlined_result(&mut self, ret: RetSlot, name: &str, span: Span) -> FResult<Value> {
        Ok(match ret {
            RetSlot::None => Value::R(RV::Void),
            RetSlot::Var(v, t) => Value::R(RV::Scalar(Expr::Var(v), t)),
            RetSlot::Ptr(s) => Value::R(self.load(LV::Ptr(s), span)?),
            RetSlot::Obj(o) => Value::R(RV::Obj(o)),
            RetSlot::Group(Some(g)) => Value::R(RV::Group(g)),
            RetSlot::Group(None) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("`{name}` returns a thread group autosync cannot identify"),
                ))
            }
            RetSlot::Ref(Some(b), _) => Value::L(self.binding_lv(&b)),
            RetSlot::Ref(None, _) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("`{name}` returns a reference on no path autosync sees"),
                ))
            }
        })
    }

    /// The default argument of parameter `p`.
    fn default_arg(&self, p: NodeId, at: NodeId) -> FResult<NodeId> {
        self.ast
            .var_init(p)
            .ok_or_else(|| FrontError::unsupported(self.span(at), "a default argument autosync cannot find"))
    }

    /// Evaluates an argument and binds it to a parameter of type `pt`.
    fn bind_arg(&mut self, arg: NodeId, pt: &CType, pname: &str, span: Span) -> FResult<Binding> {
        match pt {
            CType::Ref(_) => {
                let lv = self.lvalue(arg)?;
                Ok(self.lv_binding(lv))
            }
            CType::Ptr(p) => {
                let ptr = match self.rvalue(arg)? {
                    RV::Ptr(ptr) => ptr,
                    _ => Pointer {
                        region: Region::Null,
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: (**p).clone(),
                    },
                };
                let v = self.new_var(pname, ScalarTy::U64, VarKind::Temp);
                self.ops.push(Op::Assign(v, ptr.off));
                Ok(Binding::Ptr(self.new_slot(
                    pname,
                    ptr.region,
                    SlotOff::Var(v),
                    (**p).clone(),
                )))
            }
            CType::Record(r) => {
                if self.group_kind_of(*r).is_some() {
                    return match self.rvalue(arg)? {
                        RV::Group(g) => Ok(Binding::Group(g)),
                        _ => Err(FrontError::unsupported(span, "a thread group autosync cannot identify")),
                    };
                }
                let fresh = matches!(
                    self.ast.kind(arg),
                    NodeKind::CXXConstructExpr
                        | NodeKind::CXXTemporaryObjectExpr
                        | NodeKind::InitListExpr
                        | NodeKind::MaterializeTemporaryExpr
                );
                match self.rvalue(arg)? {
                    RV::Obj(o) if fresh => Ok(Binding::Obj(o)),
                    RV::Obj(src) => {
                        let o = self.new_obj(*r, pname, span)?;
                        self.copy_obj(o, src, span)?;
                        Ok(Binding::Obj(o))
                    }
                    other => Err(FrontError::unsupported(
                        span,
                        format!("passing {} as an object", super::expr::rv_what(&other)),
                    )),
                }
            }
            t if unrepresentable(t) => Err(FrontError::unsupported(
                span,
                format!("a parameter of type `{pt:?}` is not supported"),
            )),
            t => match self.rvalue(arg)? {
                RV::Ptr(p) if t.is_integral() => {
                    // An address passed as an integer (a shared address for inline PTX).
                    let v = self.new_var(pname, ScalarTy::U64, VarKind::Temp);
                    self.ops.push(Op::Assign(v, p.off));
                    Ok(Binding::Ptr(self.new_slot(
                        pname,
                        p.region,
                        SlotOff::Var(v),
                        CType::Int { bits: 8, signed: false },
                    )))
                }
                rv => {
                    let (e, et) = match rv {
                        RV::Scalar(e, et) => (e, et),
                        _ => (Expr::Unknown(t.scalar()), t.clone()),
                    };
                    let v = self.new_var(pname, t.scalar(), VarKind::Local);
                    let e = convert(e, &et, t);
                    self.note_number(v, &e);
                    self.ops.push(Op::Assign(v, e));
                    Ok(Binding::Var(v, t.clone()))
                }
            },
        }
    }

    /// A constructor's member initializer list: bases and fields, in initialization order.
    fn ctor_initializers(&mut self, f: NodeId, span: Span) -> FResult<()> {
        let ast = self.ast;
        let Some(LV::Obj(o)) = self.frames.last().and_then(|fr| fr.this.clone()) else {
            if ast.children_of_kind(f, NodeKind::CXXCtorInitializer).next().is_some() {
                return Err(FrontError::unsupported(
                    span,
                    "a constructor run on an object in memory",
                ));
            }
            return Ok(());
        };
        for init in ast
            .children_of_kind(f, NodeKind::CXXCtorInitializer)
            .collect::<Vec<_>>()
        {
            let Some(e) = self.expr_children(init).first().copied() else {
                continue;
            };
            let a = &ast.node(init).attrs;
            if a.base_init.is_some() {
                match ast.kind(e) {
                    NodeKind::CXXConstructExpr | NodeKind::ExprWithCleanups => {
                        let e = self.unwrap_cleanups(e);
                        self.construct_into(o, e)?;
                    }
                    NodeKind::InitListExpr => self.init_obj_list_base(o, e, span)?,
                    _ => {
                        let rv = self.rvalue(e)?;
                        self.store(LV::Obj(o), rv, span)?;
                    }
                }
            } else if let Some(field) = a.any_init {
                let fty = self
                    .ast
                    .decls
                    .get(&field.id)
                    .and_then(|d| d.ty)
                    .map(|t| self.types.resolve(self.ast.type_str(t), &self.types.scope_of(field.id)))
                    .unwrap_or(CType::INT);
                let e = if ast.kind(e) == NodeKind::CXXDefaultInitExpr {
                    // The field's default member initializer.
                    match ast
                        .decl_node(field.id)
                        .and_then(|fd| self.expr_children(fd).first().copied())
                    {
                        Some(x) => x,
                        None => continue,
                    }
                } else {
                    e
                };
                self.init_field(o, field.id, &fty, e, span)?;
            }
        }
        Ok(())
    }

    fn unwrap_cleanups(&self, mut e: NodeId) -> NodeId {
        while self.ast.kind(e) == NodeKind::ExprWithCleanups {
            match self.expr_children(e).first() {
                Some(&c) => e = c,
                None => break,
            }
        }
        e
    }

    /// A base initialized by a brace list (aggregate base): its fields in order.
    fn init_obj_list_base(&mut self, o: usize, list: NodeId, span: Span) -> FResult<()> {
        let t = self.type_of(list);
        let CType::Record(b) = t else { return Ok(()) };
        let layout = self.types.layout(b).map_err(|m| FrontError::unsupported(span, m))?;
        for (f, e) in layout.fields.iter().zip(self.expr_children(list)) {
            self.init_field(o, f.id, &f.ty.clone(), e, span)?;
        }
        Ok(())
    }

    /// A temporary object built by a constructor call.
    pub(crate) fn construct_temp(&mut self, n: NodeId) -> FResult<RV> {
        let span = self.span(n);
        let t = self.type_of(n);
        let CType::Record(r) = t else {
            // A scalar "constructed" (`int(x)`): its argument.
            return match self.expr_children(n).first() {
                Some(&c) => self.rvalue(c),
                None => Ok(RV::Scalar(Expr::Const(0, t.scalar()), t)),
            };
        };
        if let Some(g) = self.group_kind_of(r) {
            // Copying a thread-group handle.
            return match self.expr_children(n).first() {
                Some(&c) => self.rvalue(c),
                None => Ok(RV::Group(g)),
            };
        }
        let o = self.new_obj(r, "$tmp", span)?;
        self.construct_into(o, n)?;
        Ok(RV::Obj(o))
    }

    /// Runs the constructor a construct expression names on object `o`.
    pub(crate) fn construct_into(&mut self, o: usize, n: NodeId) -> FResult<()> {
        let ast = self.ast;
        let span = self.span(n);
        let n = self.unwrap_cleanups(n);
        if !matches!(
            ast.kind(n),
            NodeKind::CXXConstructExpr | NodeKind::CXXTemporaryObjectExpr
        ) {
            return self.init_object(o, n, span);
        }
        let args = self.expr_children(n);
        let t = self.type_of(n);
        let rec = match t {
            CType::Record(r) => self.types.definition(r),
            _ => self.objs[o].record,
        };
        let ctor_type = ast
            .node(n)
            .attrs
            .ctor_type
            .map(|s| ast.str(s).to_string())
            .unwrap_or_default();
        let ctor = self.find_ctor(rec, &ctor_type);
        if let Some(c) = ctor.map(|c| self.types.definition(c)).and_then(|c| ast.decl_node(c)) {
            if self.has_body(c) {
                let r = self.inline(c, Some(LV::Obj(o)), &args, n, span)?;
                let _ = r;
                return Ok(());
            }
        }
        // No body: trivial default, copy and move constructors, and the library's types.
        match args.len() {
            0 => Ok(()),
            // An implicit copy or move: from an object of this type or of a derived one (the
            // base part of it, as a base class's constructor in an initializer list does).
            1 if matches!(self.type_of(args[0]).unref(), CType::Record(r) if self.types.derives_from(*r, rec)) => {
                let rv = self.rvalue(args[0])?;
                self.store(LV::Obj(o), rv, span)
            }
            _ if ast.decl_is_system(rec) => self.library_construct(o, rec, &args, span),
            _ => Err(FrontError::unsupported(
                span,
                format!("constructor of `{}` without a body", self.types.record_name(rec)),
            )),
        }
    }

    /// The constructor of `rec` with the printed type `ctor_type` (specializations of member
    /// templates, such as converting constructors, are members too).
    fn find_ctor(&self, rec: u64, ctor_type: &str) -> Option<u64> {
        let d = self.ast.decls.get(&rec)?;
        let is_it = |m: &u64| {
            let md = &self.ast.decls[m];
            md.kind == NodeKind::CXXConstructorDecl && md.ty.is_some_and(|t| self.ast.str(t.qual) == ctor_type)
        };
        // Two member templates may have specializations of one signature; the one Clang
        // instantiated (the one called) has the body.
        let with_body = |m: &u64| {
            self.ast
                .decl_node(self.types.definition(*m))
                .is_some_and(|n| self.has_body(n))
        };
        let found: Vec<u64> = d.members.iter().copied().filter(is_it).collect();
        found.iter().copied().find(with_body).or_else(|| found.first().copied())
    }
}

/// A parameter type no binding represents (see `bind_arg`).
fn unrepresentable(t: &CType) -> bool {
    matches!(t, CType::Array(..) | CType::Other(_) | CType::Func)
}

/// Whether `body` refers to the declaration `id`.
fn names_decl(ast: &Ast, body: NodeId, id: u64) -> bool {
    let mut found = false;
    ast.walk(body, &mut |c| {
        found |= ast.kind(c) == NodeKind::DeclRefExpr && ast.node(c).attrs.referenced.is_some_and(|r| r.id == id);
    });
    found
}
