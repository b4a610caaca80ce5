//! Expressions: pure IR expressions plus the memory operations they perform.

use super::*;

fn dim_of(field: &str) -> Option<Dim> {
    match field {
        "x" => Some(Dim::X),
        "y" => Some(Dim::Y),
        "z" => Some(Dim::Z),
        _ => None,
    }
}

/// C's usual arithmetic conversions for two integer operands.
pub(crate) fn common_int(a: &CType, b: &CType) -> CType {
    let (ab, asg) = match a {
        CType::Int { bits, signed } => (*bits, *signed),
        _ => (32, true),
    };
    let (bb, bsg) = match b {
        CType::Int { bits, signed } => (*bits, *signed),
        _ => (32, true),
    };
    let (ab, asg) = if ab < 32 { (32, true) } else { (ab, asg) };
    let (bb, bsg) = if bb < 32 { (32, true) } else { (bb, bsg) };
    if ab == bb {
        CType::Int {
            bits: ab,
            signed: asg && bsg,
        }
    } else if ab > bb {
        CType::Int { bits: ab, signed: asg }
    } else {
        CType::Int { bits: bb, signed: bsg }
    }
}

/// Converts a pure expression between types.
pub(crate) fn convert(e: Expr, from: &CType, to: &CType) -> Expr {
    if from == to {
        return e;
    }
    match (from.is_integral(), to.is_integral()) {
        (true, true) => {
            if let Expr::Const(v, _) = e {
                return Expr::Const(fold_cast(v, to), to.scalar());
            }
            Expr::Cast(to.scalar(), Box::new(e))
        }
        _ if from.scalar() == to.scalar() => e,
        _ => Expr::Opaque(to.scalar(), vec![e]),
    }
}

fn fold_cast(v: i64, to: &CType) -> i64 {
    match to {
        CType::Bool => (v != 0) as i64,
        CType::Int { bits: 64, .. } => v,
        CType::Int { bits, signed: true } => {
            let sh = 64 - *bits as u32;
            (v << sh) >> sh
        }
        CType::Int { bits, signed: false } => v & ((1i64 << *bits) - 1),
        _ => v,
    }
}

/// Whether evaluating a syntax node may access memory or have effects (so it cannot be part of
/// a pure IR expression that is evaluated unconditionally).
pub(crate) fn may_touch_memory(src: &str, n: Node) -> bool {
    match n.kind() {
        "subscript_expression" | "call_expression" | "assignment_expression" | "update_expression" => true,
        "pointer_expression" => src[n.byte_range()].trim_start().starts_with('*'),
        "field_expression" => {
            let arg = n.child_by_field_name("argument");
            let is_builtin = arg
                .map(|a| matches!(&src[a.byte_range()], "threadIdx" | "blockIdx" | "blockDim" | "gridDim"))
                .unwrap_or(false);
            !is_builtin
        }
        _ => {
            let mut c = n.walk();
            let ch: Vec<Node> = n.named_children(&mut c).collect();
            ch.into_iter().any(|x| may_touch_memory(src, x))
        }
    }
}

impl<'u, 't> Lowerer<'u, 't> {
    /// The C type of a lowered value.
    pub(crate) fn val_type(&self, v: &Val) -> CType {
        match v {
            Val::Scalar(_, t) | Val::VarRef(_, t) => t.clone(),
            Val::Mem(p) => p.ty.clone(),
            Val::Ptr(_, _, p) | Val::NullPtr(p) => CType::Ptr(Box::new(p.clone())),
            Val::PtrVar(n) => match self.lookup(n) {
                Some(Binding::Ptr { pointee, .. }) => CType::Ptr(Box::new(pointee.clone())),
                _ => CType::Ptr(Box::new(CType::Void)),
            },
            Val::Obj(s, _) => CType::Struct(s.clone()),
            Val::Group(_) => CType::Struct("thread_group".into()),
            Val::Void => CType::Void,
        }
    }

    /// Emits a read of a memory location into a fresh temp; returns the temp.
    pub(crate) fn read(&mut self, p: &Place) -> Expr {
        let t = self.temp(p.ty.scalar());
        let size = self.u.layouts.size_of(&p.ty) as u32;
        self.ops.push(Op::Read(
            Some(t),
            Access {
                array: p.array,
                kind: AccessKind::Read,
                offset: p.off.clone(),
                size,
                span: p.span,
            },
        ));
        Expr::Var(t)
    }

    /// Emits a write of `value` to a memory location.
    pub(crate) fn write(&mut self, p: &Place, value: Expr) {
        let size = self.u.layouts.size_of(&p.ty) as u32;
        self.ops.push(Op::Write(
            Access {
                array: p.array,
                kind: AccessKind::Write,
                offset: p.off.clone(),
                size,
                span: p.span,
            },
            value,
        ));
    }

    /// Turns a value into a pure expression of type `want`, reading memory if needed.
    pub(crate) fn rvalue(&mut self, v: Val, want: &CType) -> FResult<Expr> {
        let (e, t) = match v {
            Val::Scalar(e, t) => (e, t),
            Val::VarRef(var, t) => (Expr::Var(var), t),
            Val::Mem(p) => {
                let e = self.read(&p);
                (e, p.ty)
            }
            Val::Ptr(..) | Val::PtrVar(_) | Val::NullPtr(_) | Val::Obj(..) | Val::Group(_) => {
                // Pointer or object used as a plain value (compared, printed): opaque but uniform
                // when its parts are.
                return Ok(Expr::Opaque(want.scalar(), vec![]));
            }
            Val::Void => {
                return Err(FrontError::input(
                    self.stmt_span,
                    "a void expression is used as a value",
                ))
            }
        };
        Ok(if matches!(want, CType::Void) {
            e
        } else {
            convert(e, &t, want)
        })
    }

    /// Lowers an expression and returns its pure value and type.
    pub(crate) fn scalar(&mut self, n: Node<'t>) -> FResult<(Expr, CType)> {
        let v = self.expr(n)?;
        let t = self.val_type(&v);
        let t = match t {
            CType::Array(..) | CType::Ptr(_) => CType::U64,
            t => t,
        };
        let e = self.rvalue(v, &CType::Void)?;
        Ok((e, t))
    }

    /// Lowers an expression to a boolean predicate.
    pub(crate) fn cond(&mut self, n: Node<'t>) -> FResult<Expr> {
        let (e, t) = self.scalar(n)?;
        Ok(to_bool(e, &t))
    }

    /// Lowers a syntax node to a value.
    pub(crate) fn expr(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        match n.kind() {
            "number_literal" => Ok(self.number(n)),
            "true" => Ok(Val::Scalar(Expr::bool(true), CType::Bool)),
            "false" => Ok(Val::Scalar(Expr::bool(false), CType::Bool)),
            "null" | "nullptr" => Ok(Val::NullPtr(CType::Void)),
            "char_literal" => {
                let t = self.text(n);
                let v = t.chars().nth(1).map(|c| c as i64).unwrap_or(0);
                Ok(Val::Scalar(
                    Expr::Const(v, ScalarTy::Int { bits: 8, signed: true }),
                    CType::Int { bits: 8, signed: true },
                ))
            }
            "string_literal" | "concatenated_string" | "raw_string_literal" => {
                Ok(Val::NullPtr(CType::Int { bits: 8, signed: true }))
            }
            "parenthesized_expression" => {
                let inner = n
                    .named_child(0)
                    .ok_or_else(|| FrontError::input(span, "empty parentheses"))?;
                self.expr(inner)
            }
            "identifier" => self.ident(n),
            "this" => self
                .lookup("this")
                .cloned()
                .map(|b| self.binding_val("this", b))
                .ok_or_else(|| FrontError::input(span, "`this` outside a method")),
            "qualified_identifier" => {
                let name = n.child_by_field_name("name").map(|x| self.text(x)).unwrap_or("");
                match self.lookup(name).cloned() {
                    Some(b) => Ok(self.binding_val(name, b)),
                    None => Err(FrontError::unsupported(
                        span,
                        format!("unknown name `{}`", self.text(n)),
                    )),
                }
            }
            "field_expression" => self.field(n),
            "subscript_expression" => self.subscript(n),
            "pointer_expression" => self.pointer_expr(n),
            "unary_expression" => self.unary(n),
            "binary_expression" => self.binary(n),
            "update_expression" => self.update(n),
            "assignment_expression" => self.assignment(n),
            "conditional_expression" => self.conditional(n),
            "cast_expression" => {
                let tyn = n
                    .child_by_field_name("type")
                    .ok_or_else(|| FrontError::input(span, "cast without type"))?;
                let to = self.descriptor(tyn);
                let v = self.expr(
                    n.child_by_field_name("value")
                        .ok_or_else(|| FrontError::input(span, "cast without value"))?,
                )?;
                self.cast_val(v, &to)
            }
            "sizeof_expression" => {
                let v = self.const_eval(n).unwrap_or(4);
                Ok(Val::Scalar(Expr::Const(v, ScalarTy::U64), CType::U64))
            }
            "comma_expression" => {
                let l = n
                    .child_by_field_name("left")
                    .ok_or_else(|| FrontError::input(span, "bad comma"))?;
                let r = n
                    .child_by_field_name("right")
                    .ok_or_else(|| FrontError::input(span, "bad comma"))?;
                let lv = self.expr(l)?;
                if let Val::Mem(p) = lv {
                    self.read(&p);
                }
                self.expr(r)
            }
            "call_expression" => self.call(n),
            "initializer_list" => Err(FrontError::unsupported(span, "brace initializer used as a value")),
            "lambda_expression" => Err(FrontError::unsupported(span, "lambdas are not supported")
                .with_help("move the code into a __device__ function")),
            "gnu_asm_expression" => self.asm(n),
            "ERROR" => Err(FrontError::input(
                span,
                format!("syntax error near `{}`", first_line(self.text(n))),
            )),
            k => Err(FrontError::unsupported(
                span,
                format!("unsupported expression ({k}): `{}`", first_line(self.text(n))),
            )),
        }
    }

    fn number(&self, n: Node) -> Val {
        let t = self.text(n);
        let lower = t.to_ascii_lowercase();
        let is_hex = lower.starts_with("0x");
        if !is_hex && (lower.contains('.') || lower.contains('e') || lower.ends_with('f')) {
            return Val::Scalar(
                Expr::Opaque(ScalarTy::Opaque, vec![]),
                CType::Float(if lower.ends_with('f') { 32 } else { 64 }),
            );
        }
        let v = const_int(t).unwrap_or(0);
        let unsigned = lower.contains('u');
        let long = lower.contains('l') || v > i32::MAX as i64 || v < i32::MIN as i64;
        let ty = CType::Int {
            bits: if long { 64 } else { 32 },
            signed: !unsigned,
        };
        Val::Scalar(Expr::Const(v, ty.scalar()), ty)
    }

    fn ident(&mut self, n: Node<'t>) -> FResult<Val> {
        let name = self.text(n);
        if let Some(b) = self.lookup(name).cloned() {
            return Ok(self.binding_val(name, b));
        }
        match name {
            "warpSize" => Ok(Val::Scalar(Expr::Builtin(Builtin::WarpSize), CType::INT)),
            "NULL" => Ok(Val::NullPtr(CType::Void)),
            "INT_MAX" => Ok(Val::Scalar(Expr::int(i32::MAX as i64), CType::INT)),
            "FLT_MAX" | "INFINITY" | "NAN" => Ok(Val::Scalar(Expr::Opaque(ScalarTy::Opaque, vec![]), CType::Float(32))),
            _ => Err(FrontError::unsupported(self.span(n), format!("unknown name `{name}`"))
                .with_help("declare it in the file, or pass -D for a macro that a header would define")),
        }
    }

    pub(crate) fn binding_val(&mut self, name: &str, b: Binding) -> Val {
        match b {
            Binding::Var(v, t) => Val::VarRef(v, t),
            Binding::Const(v, t) => Val::Scalar(Expr::Const(v, t.scalar()), t),
            Binding::Array(id, t) => {
                let span = self.arrays[id.0 as usize].span;
                Val::Mem(Place {
                    array: id,
                    off: Expr::Const(0, ScalarTy::U64),
                    ty: t,
                    span,
                })
            }
            Binding::Ptr { .. } => Val::PtrVar(name.to_string()),
            Binding::NullPtr(t) => Val::NullPtr(t),
            Binding::Obj(s, f) => Val::Obj(s, f),
            Binding::Group(g) => Val::Group(g),
            Binding::Ref(p) => Val::Mem(p),
        }
    }

    /// The pointer a value denotes: (array, byte offset, pointee type).
    pub(crate) fn as_pointer(&mut self, v: Val, span: Span) -> FResult<(ArrayId, Expr, CType)> {
        match v {
            Val::Ptr(a, off, t) => Ok((a, off, t)),
            Val::PtrVar(name) => match self.lookup(&name).cloned() {
                Some(Binding::Ptr { array, off, pointee }) => Ok((array, off.expr(), pointee)),
                _ => Err(FrontError::unsupported(
                    span,
                    format!("pointer `{name}` does not point into a known array"),
                )),
            },
            Val::Mem(p) => match p.ty {
                // An array decays to a pointer to its first element.
                CType::Array(e, _) => Ok((p.array, p.off, *e)),
                CType::Ptr(_) => Err(
                    FrontError::unsupported(span, "pointers stored in memory are not supported")
                        .with_help("keep pointers in local variables or parameters"),
                ),
                _ => Err(FrontError::input(
                    span,
                    "subscript of a value that is not an array or pointer",
                )),
            },
            Val::Obj(sname, fields) if self.has_method(&sname, "operator") => {
                let r = self.inline_conversion(&sname, Val::Obj(sname.clone(), fields), span)?;
                self.as_pointer(r, span)
            }
            Val::NullPtr(_) => Err(
                FrontError::unsupported(span, "pointer does not point into a known array")
                    .with_help("initialize the pointer from a __shared__ array or a pointer parameter"),
            ),
            _ => Err(FrontError::input(span, "expected a pointer or array")),
        }
    }

    fn subscript(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let base = n
            .child_by_field_name("argument")
            .ok_or_else(|| FrontError::input(span, "bad subscript"))?;
        let bv = self.expr(base)?;
        let (array, off, elem) = self.as_pointer(bv, span)?;
        let idxs = n
            .child_by_field_name("indices")
            .or_else(|| n.child_by_field_name("index"));
        let idx_node = match idxs {
            Some(l) if l.kind() == "subscript_argument_list" => l
                .named_child(0)
                .ok_or_else(|| FrontError::input(span, "empty subscript"))?,
            Some(l) => l,
            None => return Err(FrontError::input(span, "subscript without index")),
        };
        let (ie, it) = self.scalar(idx_node)?;
        if !it.is_integral() {
            return Err(FrontError::input(span, "array index is not an integer"));
        }
        let size = self.u.layouts.size_of(&elem) as i64;
        let off = add_offset(off, convert(ie, &it, &CType::U64), size);
        Ok(Val::Mem(Place {
            array,
            off,
            ty: elem,
            span,
        }))
    }

    fn pointer_expr(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| FrontError::input(span, "bad pointer expression"))?;
        let op = self.text(n).trim_start().chars().next().unwrap_or('*');
        let v = self.expr(arg)?;
        if op == '&' {
            return match v {
                Val::Mem(p) => Ok(Val::Ptr(p.array, p.off, p.ty)),
                Val::VarRef(..) => Err(FrontError::unsupported(span, "address of a local variable")
                    .with_help("use a local array or shared memory instead")),
                other => Ok(other),
            };
        }
        let (array, off, ty) = self.as_pointer(v, span)?;
        Ok(Val::Mem(Place { array, off, ty, span }))
    }

    fn field(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| FrontError::input(span, "bad field access"))?;
        let fname = n.child_by_field_name("field").map(|f| self.text(f)).unwrap_or("");
        let atext = self.text(arg);
        let builtin = match atext {
            "threadIdx" => Some(Builtin::ThreadIdx as fn(Dim) -> Builtin),
            "blockIdx" => Some(Builtin::BlockIdx as fn(Dim) -> Builtin),
            "blockDim" => Some(Builtin::BlockDim as fn(Dim) -> Builtin),
            "gridDim" => Some(Builtin::GridDim as fn(Dim) -> Builtin),
            _ => None,
        };
        if let Some(b) = builtin {
            if self.lookup(atext).is_none() {
                let d = dim_of(fname)
                    .ok_or_else(|| FrontError::input(span, format!("`{atext}` has no field `{fname}`")))?;
                return Ok(Val::Scalar(Expr::Builtin(b(d)), CType::UINT));
            }
        }
        let arrow = self.text(n)[arg.end_byte() - n.start_byte()..]
            .trim_start()
            .starts_with("->");
        let base = self.expr(arg)?;
        let base = if arrow {
            match base {
                Val::Obj(..) => base,
                other => {
                    let (a, off, t) = self.as_pointer(other, span)?;
                    Val::Mem(Place {
                        array: a,
                        off,
                        ty: t,
                        span,
                    })
                }
            }
        } else {
            base
        };
        match base {
            Val::Obj(sname, fields) => match fields.get(fname).cloned() {
                Some(b) => Ok(self.binding_val(fname, b)),
                None => Err(FrontError::input(span, format!("`{sname}` has no field `{fname}`"))),
            },
            Val::Mem(p) => {
                let CType::Struct(sname) = &p.ty else {
                    return Err(FrontError::input(
                        span,
                        format!("field `{fname}` of a value that is not a struct"),
                    ));
                };
                let f =
                    self.u.layouts.field(sname, fname).cloned().ok_or_else(|| {
                        FrontError::unsupported(span, format!("unknown field `{fname}` of `{sname}`"))
                    })?;
                let off = add_offset(p.off, Expr::Const(f.offset as i64, ScalarTy::U64), 1);
                Ok(Val::Mem(Place {
                    array: p.array,
                    off,
                    ty: f.ty,
                    span,
                }))
            }
            Val::Scalar(e, t) => {
                // A field of a struct value (e.g. of an opaque call result): opaque.
                let _ = t;
                Ok(Val::Scalar(Expr::Opaque(ScalarTy::Opaque, vec![e]), CType::Float(32)))
            }
            Val::VarRef(v, _) => Ok(Val::Scalar(
                Expr::Opaque(ScalarTy::Opaque, vec![Expr::Var(v)]),
                CType::Float(32),
            )),
            Val::Group(g) => Ok(Val::Group(g)),
            _ => Err(FrontError::unsupported(
                span,
                format!("cannot access field `{fname}` here"),
            )),
        }
    }

    fn unary(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| FrontError::input(span, "bad unary"))?;
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
        let (e, t) = self.scalar(arg)?;
        Ok(match op {
            "!" => Val::Scalar(
                Expr::Un(UnOp::Not, ScalarTy::Bool, Box::new(to_bool(e, &t))),
                CType::Bool,
            ),
            "-" | "~" if t.is_integral() => {
                let pt = common_int(&t, &CType::INT);
                let u = if op == "-" { UnOp::Neg } else { UnOp::BitNot };
                Val::Scalar(Expr::Un(u, pt.scalar(), Box::new(convert(e, &t, &pt))), pt)
            }
            "+" => Val::Scalar(e, t),
            _ => Val::Scalar(Expr::Opaque(t.scalar(), vec![e]), t),
        })
    }

    fn binary(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let l = n
            .child_by_field_name("left")
            .ok_or_else(|| FrontError::input(span, "bad binary"))?;
        let r = n
            .child_by_field_name("right")
            .ok_or_else(|| FrontError::input(span, "bad binary"))?;
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
        if (op == "&&" || op == "||") && may_touch_memory(self.u.src, r) {
            return self.short_circuit(op == "&&", l, r);
        }
        let lv = self.expr(l)?;
        // Pointer arithmetic: p + i, p - i.
        if matches!(op, "+" | "-") && matches!(self.val_type(&lv), CType::Ptr(_) | CType::Array(..)) {
            let rv = self.expr(r)?;
            if matches!(self.val_type(&rv), CType::Ptr(_) | CType::Array(..)) {
                return Ok(Val::Scalar(
                    Expr::Opaque(ScalarTy::I64, vec![]),
                    CType::Int { bits: 64, signed: true },
                ));
            }
            let (a, off, elem) = self.as_pointer(lv, span)?;
            let rt = self.val_type(&rv);
            let re = self.rvalue(rv, &CType::Void)?;
            let mut idx = convert(re, &rt, &CType::U64);
            if op == "-" {
                idx = Expr::Un(UnOp::Neg, ScalarTy::U64, Box::new(idx));
            }
            let size = self.u.layouts.size_of(&elem) as i64;
            return Ok(Val::Ptr(a, add_offset(off, idx, size), elem));
        }
        let lt = self.val_type(&lv);
        let le = self.rvalue(lv, &CType::Void)?;
        let (re, rt) = self.scalar(r)?;
        if op == "+" && matches!(rt, CType::Ptr(_)) {
            return Err(FrontError::unsupported(
                span,
                "integer + pointer: write pointer + integer",
            ));
        }
        let lt = if matches!(lt, CType::Ptr(_) | CType::Array(..)) {
            CType::U64
        } else {
            lt
        };
        Ok(bin_op(op, le, &lt, re, &rt))
    }

    /// `a && b` / `a || b` where `b` touches memory: `b` runs only when needed.
    fn short_circuit(&mut self, and: bool, l: Node<'t>, r: Node<'t>) -> FResult<Val> {
        let c = self.temp(ScalarTy::Bool);
        let le = self.cond(l)?;
        self.ops.push(Op::Assign(c, le));
        self.flush(false);
        let guard = if and {
            Expr::Var(c)
        } else {
            Expr::Un(UnOp::Not, ScalarTy::Bool, Box::new(Expr::Var(c)))
        };
        let then_blk = self.sub_block(|lw| {
            let re = lw.cond(r)?;
            lw.ops.push(Op::Assign(c, re));
            Ok(())
        })?;
        let else_blk = self.empty_block();
        let label = self.label();
        self.push(Stmt {
            label,
            span: self.stmt_span,
            emit_after: false,
            kind: StmtKind::If {
                cond: guard,
                then_blk,
                else_blk,
            },
        });
        Ok(Val::Scalar(Expr::Var(c), CType::Bool))
    }

    fn conditional(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let c = n
            .child_by_field_name("condition")
            .ok_or_else(|| FrontError::input(span, "bad ?:"))?;
        let a = n
            .child_by_field_name("consequence")
            .ok_or_else(|| FrontError::input(span, "bad ?:"))?;
        let b = n
            .child_by_field_name("alternative")
            .ok_or_else(|| FrontError::input(span, "bad ?:"))?;
        let ce = self.cond(c)?;
        let src = self.u.src;
        if !may_touch_memory(src, a) && !may_touch_memory(src, b) {
            let av = self.expr(a)?;
            let bv = self.expr(b)?;
            // Pointers into the same array: select the offset.
            let at = self.val_type(&av);
            if matches!(at, CType::Ptr(_)) {
                let (aa, ao, ae) = self.as_pointer(av, span)?;
                let (ba, bo, _) = self.as_pointer(bv, span)?;
                if aa != ba {
                    return Err(FrontError::unsupported(
                        span,
                        "a pointer that may point into two different arrays",
                    ));
                }
                return Ok(Val::Ptr(aa, Expr::Select(Box::new(ce), Box::new(ao), Box::new(bo)), ae));
            }
            let ae = self.rvalue(av, &CType::Void)?;
            let (be, bt) = self.scalar(b)?;
            let t = if at.is_integral() && bt.is_integral() {
                common_int(&at, &bt)
            } else if at.is_integral() {
                bt.clone()
            } else {
                at.clone()
            };
            let ae = convert(ae, &at, &t);
            let be = convert(be, &bt, &t);
            return Ok(Val::Scalar(Expr::Select(Box::new(ce), Box::new(ae), Box::new(be)), t));
        }
        // Memory accesses in a branch run only for the threads that take it.
        let cv = self.temp(ScalarTy::Bool);
        self.ops.push(Op::Assign(cv, ce));
        self.flush(false);
        let result = self.temp(ScalarTy::Opaque);
        let rt = std::cell::RefCell::new(CType::Float(32));
        let then_blk = self.sub_block(|lw| {
            let (e, t) = lw.scalar(a)?;
            *rt.borrow_mut() = t.clone();
            lw.vars[result.0 as usize].ty = t.scalar();
            lw.ops.push(Op::Assign(result, e));
            Ok(())
        })?;
        let rtype = rt.into_inner();
        let else_blk = self.sub_block(|lw| {
            let (e, t) = lw.scalar(b)?;
            lw.ops.push(Op::Assign(result, convert(e, &t, &rtype)));
            Ok(())
        })?;
        let label = self.label();
        self.push(Stmt {
            label,
            span: self.stmt_span,
            emit_after: false,
            kind: StmtKind::If {
                cond: Expr::Var(cv),
                then_blk,
                else_blk,
            },
        });
        let t = self.vars[result.0 as usize].ty;
        Ok(Val::Scalar(
            Expr::Var(result),
            if t.is_int() || t == ScalarTy::Bool {
                rtype_of(t)
            } else {
                CType::Float(32)
            },
        ))
    }

    /// Lowers statements produced by `f` into a fresh (synthetic, brace-less) block.
    pub(crate) fn sub_block(&mut self, f: impl FnOnce(&mut Self) -> FResult<()>) -> FResult<Block> {
        self.blocks.push(Vec::new());
        let saved = std::mem::take(&mut self.ops);
        let r = f(self);
        self.flush(false);
        self.ops = saved;
        let stmts = self.blocks.pop().unwrap_or_default();
        r?;
        let label = self.label();
        Ok(Block {
            label,
            span: self.stmt_span,
            braced: false,
            emit_start: false,
            stmts,
        })
    }

    pub(crate) fn empty_block(&mut self) -> Block {
        let label = self.label();
        Block {
            label,
            span: self.stmt_span,
            braced: false,
            emit_start: false,
            stmts: vec![],
        }
    }

    fn update(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| FrontError::input(span, "bad ++/--"))?;
        let text = self.text(n);
        let inc = text.contains("++");
        let prefix = text.trim_start().starts_with(['+', '-']);
        let target = self.expr(arg)?;
        let op = if inc { "+" } else { "-" };
        self.modify(target, op, Val::Scalar(Expr::int(1), CType::INT), prefix, span)
    }

    fn assignment(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let l = n
            .child_by_field_name("left")
            .ok_or_else(|| FrontError::input(span, "bad assignment"))?;
        let r = n
            .child_by_field_name("right")
            .ok_or_else(|| FrontError::input(span, "bad assignment"))?;
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("=");
        let rv = self.expr(r)?;
        let target = self.expr(l)?;
        if op == "=" {
            return self.store(target, rv, span);
        }
        self.modify(target, op.trim_end_matches('='), rv, true, span)
    }

    /// `target = value`.
    pub(crate) fn store(&mut self, target: Val, value: Val, span: Span) -> FResult<Val> {
        match target {
            Val::VarRef(v, t) => {
                let e = self.rvalue(value, &t)?;
                self.ops.push(Op::Assign(v, e.clone()));
                Ok(Val::Scalar(e, t))
            }
            Val::Mem(p) => {
                let e = match value {
                    Val::Obj(..) => Expr::Opaque(ScalarTy::Opaque, vec![]),
                    v => {
                        let t = p.ty.clone();
                        let want = if matches!(t, CType::Struct(_)) { CType::Void } else { t };
                        self.rvalue(v, &want)?
                    }
                };
                self.write(&p, e.clone());
                Ok(Val::Scalar(e, p.ty))
            }
            Val::PtrVar(name) => {
                let (array, off, pointee) = match value {
                    Val::NullPtr(_) => {
                        return Err(FrontError::unsupported(span, format!("pointer `{name}` set to null")));
                    }
                    v => self.as_pointer(v, span)?,
                };
                match self.lookup(&name).cloned() {
                    Some(Binding::Ptr {
                        array: old,
                        off: PtrOff::Var(var),
                        ..
                    }) if old == array => {
                        let _ = pointee;
                        self.ops.push(Op::Assign(var, off));
                        Ok(Val::PtrVar(name.clone()))
                    }
                    Some(Binding::Ptr { array: old, .. }) if old != array => Err(FrontError::unsupported(
                        span,
                        format!("pointer `{name}` is re-pointed to a different array"),
                    )
                    .with_help("use one pointer per array")),
                    _ => Err(FrontError::unsupported(
                        span,
                        format!("cannot assign pointer `{name}` here"),
                    )),
                }
            }
            Val::Obj(..) => Ok(Val::Void),
            _ => Err(FrontError::input(span, "left side of assignment is not assignable")),
        }
    }

    /// `target op= value` (and `++`/`--`): a read and a write of the same location.
    fn modify(&mut self, target: Val, op: &str, value: Val, prefix: bool, span: Span) -> FResult<Val> {
        match target {
            Val::PtrVar(name) => {
                let Some(Binding::Ptr { array, off, pointee }) = self.lookup(&name).cloned() else {
                    return Err(FrontError::unsupported(
                        span,
                        format!("pointer `{name}` does not point into a known array"),
                    ));
                };
                let vt = self.val_type(&value);
                let ve = self.rvalue(value, &CType::Void)?;
                let mut idx = convert(ve, &vt, &CType::U64);
                if op == "-" {
                    idx = Expr::Un(UnOp::Neg, ScalarTy::U64, Box::new(idx));
                }
                let size = self.u.layouts.size_of(&pointee) as i64;
                let new = add_offset(off.expr(), idx, size);
                match off {
                    PtrOff::Var(v) => self.ops.push(Op::Assign(v, new)),
                    PtrOff::Fixed(_) => {
                        let v = self.new_var(&name, ScalarTy::U64, VarKind::Temp);
                        self.ops.push(Op::Assign(v, new));
                        self.rebind(
                            &name,
                            Binding::Ptr {
                                array,
                                off: PtrOff::Var(v),
                                pointee,
                            },
                        );
                    }
                }
                Ok(Val::PtrVar(name))
            }
            Val::VarRef(v, t) => {
                let vt = self.val_type(&value);
                let ve = self.rvalue(value, &CType::Void)?;
                let old = Expr::Var(v);
                let Val::Scalar(new, _) = bin_op(op, old.clone(), &t, ve, &vt) else {
                    unreachable!()
                };
                let new = convert(new, &common_type(&t, &vt), &t);
                let keep = if prefix { new.clone() } else { self.snapshot(old, &t) };
                self.ops.push(Op::Assign(v, new));
                Ok(Val::Scalar(keep, t))
            }
            Val::Mem(p) => {
                let vt = self.val_type(&value);
                let ve = self.rvalue(value, &CType::Void)?;
                let old = self.read(&p);
                let Val::Scalar(new, _) = bin_op(op, old.clone(), &p.ty, ve, &vt) else {
                    unreachable!()
                };
                let new = convert(new, &common_type(&p.ty, &vt), &p.ty);
                self.write(&p, new.clone());
                Ok(Val::Scalar(if prefix { new } else { old }, p.ty))
            }
            _ => Err(FrontError::input(span, "operand of ++/--/op= is not assignable")),
        }
    }

    fn snapshot(&mut self, e: Expr, t: &CType) -> Expr {
        let tmp = self.temp(t.scalar());
        self.ops.push(Op::Assign(tmp, e));
        Expr::Var(tmp)
    }

    /// Applies a cast to a value.
    pub(crate) fn cast_val(&mut self, v: Val, to: &CType) -> FResult<Val> {
        match to {
            CType::Ptr(pointee) => match v {
                Val::NullPtr(_) => Ok(Val::NullPtr((**pointee).clone())),
                other => {
                    let span = self.stmt_span;
                    match self.as_pointer(other, span) {
                        Ok((a, off, _)) => Ok(Val::Ptr(a, off, (**pointee).clone())),
                        Err(_) => Ok(Val::NullPtr((**pointee).clone())),
                    }
                }
            },
            CType::Void => {
                if let Val::Mem(p) = &v {
                    self.read(p);
                }
                Ok(Val::Void)
            }
            _ => {
                let from = self.val_type(&v);
                let e = self.rvalue(v, &CType::Void)?;
                Ok(Val::Scalar(convert(e, &from, to), to.clone()))
            }
        }
    }

    /// The type named by a `type_descriptor` node.
    pub(crate) fn descriptor(&self, n: Node) -> CType {
        let base = n
            .child_by_field_name("type")
            .map(|t| self.resolve_type(t))
            .unwrap_or(CType::INT);
        match n.child_by_field_name("declarator") {
            Some(d) => self.abstract_declarator(d, base),
            None => base,
        }
    }
}

fn rtype_of(t: ScalarTy) -> CType {
    match t {
        ScalarTy::Int { bits, signed } => CType::Int { bits, signed },
        ScalarTy::Bool => CType::Bool,
        ScalarTy::Opaque => CType::Float(32),
    }
}

fn common_type(a: &CType, b: &CType) -> CType {
    if a.is_integral() && b.is_integral() {
        common_int(a, b)
    } else if a.is_integral() {
        b.clone()
    } else {
        a.clone()
    }
}

/// `e != 0` for integers; booleans as they are; opaque values stay opaque predicates.
pub(crate) fn to_bool(e: Expr, t: &CType) -> Expr {
    match t {
        CType::Bool => e,
        CType::Int { .. } => {
            let s = t.scalar();
            Expr::Bin(BinOp::Ne, s, Box::new(e), Box::new(Expr::Const(0, s)))
        }
        _ => Expr::Opaque(ScalarTy::Bool, vec![e]),
    }
}

/// `base + idx * size` on 64-bit byte offsets, folding constants.
pub(crate) fn add_offset(base: Expr, idx: Expr, size: i64) -> Expr {
    let scaled = match (&idx, size) {
        (_, 1) => idx,
        (Expr::Const(v, _), s) => Expr::Const(v.wrapping_mul(s), ScalarTy::U64),
        (_, s) => Expr::Bin(
            BinOp::Mul,
            ScalarTy::U64,
            Box::new(idx),
            Box::new(Expr::Const(s, ScalarTy::U64)),
        ),
    };
    match (&base, &scaled) {
        (Expr::Const(0, _), _) => scaled,
        (_, Expr::Const(0, _)) => base,
        (Expr::Const(a, _), Expr::Const(b, _)) => Expr::Const(a.wrapping_add(*b), ScalarTy::U64),
        _ => Expr::Bin(BinOp::Add, ScalarTy::U64, Box::new(base), Box::new(scaled)),
    }
}

/// A binary operator on two pure operands with C's conversions.
pub(crate) fn bin_op(op: &str, le: Expr, lt: &CType, re: Expr, rt: &CType) -> Val {
    let pred = |b: BinOp, t: &CType, l: Expr, r: Expr| {
        Val::Scalar(Expr::Bin(b, t.scalar(), Box::new(l), Box::new(r)), CType::Bool)
    };
    if matches!(op, "&&" | "||") {
        let b = if op == "&&" { BinOp::And } else { BinOp::Or };
        return pred(b, &CType::Bool, to_bool(le, lt), to_bool(re, rt));
    }
    if !lt.is_integral() || !rt.is_integral() {
        // Float arithmetic or comparison: opaque, a function of its operands.
        let is_cmp = matches!(op, "<" | "<=" | ">" | ">=" | "==" | "!=");
        let t = if is_cmp {
            CType::Bool
        } else if lt.is_integral() {
            rt.clone()
        } else {
            lt.clone()
        };
        return Val::Scalar(Expr::Opaque(t.scalar(), vec![le, re]), t);
    }
    let t = if matches!(op, "<<" | ">>") {
        common_int(lt, &CType::INT)
    } else {
        common_int(lt, rt)
    };
    let l = convert(le, lt, &t);
    let r = convert(re, rt, &t);
    let arith = |b: BinOp| {
        Val::Scalar(
            Expr::Bin(b, t.scalar(), Box::new(l.clone()), Box::new(r.clone())),
            t.clone(),
        )
    };
    match op {
        "+" => arith(BinOp::Add),
        "-" => arith(BinOp::Sub),
        "*" => arith(BinOp::Mul),
        "/" => arith(BinOp::Div),
        "%" => arith(BinOp::Rem),
        "<<" => arith(BinOp::Shl),
        ">>" => arith(BinOp::Shr),
        "&" => arith(BinOp::BitAnd),
        "|" => arith(BinOp::BitOr),
        "^" => arith(BinOp::BitXor),
        "<" => pred(BinOp::Lt, &t, l, r),
        "<=" => pred(BinOp::Le, &t, l, r),
        ">" => pred(BinOp::Gt, &t, l, r),
        ">=" => pred(BinOp::Ge, &t, l, r),
        "==" => pred(BinOp::Eq, &t, l, r),
        "!=" => pred(BinOp::Ne, &t, l, r),
        _ => Val::Scalar(Expr::Opaque(t.scalar(), vec![l, r]), t),
    }
}

/// The first line of a snippet, for messages.
pub(crate) fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    if l.len() > 60 {
        format!(
            "{}…",
            &l[..l.char_indices().take(60).last().map(|(i, _)| i).unwrap_or(0)]
        )
    } else {
        l.to_string()
    }
}
