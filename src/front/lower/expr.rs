//! Expressions: glvalues to places/variables/objects, prvalues to pure IR expressions, with
//! the memory operations they perform appended to the current statement.

use super::convert::*;
use super::lowerer::Lowerer;
use super::types::EnumInit;
use super::values::*;
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

/// A lowered expression: a glvalue or a prvalue.
pub(crate) enum Value {
    L(LV),
    R(RV),
}

/// The builtin a CUDA builtin variable's component reads (`blockDim` → `BlockDim`).
pub(crate) fn builtin_var(name: &str) -> Option<fn(Dim) -> Builtin> {
    match name {
        "threadIdx" => Some(Builtin::ThreadIdx),
        "blockIdx" => Some(Builtin::BlockIdx),
        "blockDim" => Some(Builtin::BlockDim),
        "gridDim" => Some(Builtin::GridDim),
        _ => None,
    }
}

fn dim_of(name: &str) -> Option<Dim> {
    match name.strip_prefix("__fetch_builtin_")? {
        "x" => Some(Dim::X),
        "y" => Some(Dim::Y),
        "z" => Some(Dim::Z),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// Lowers an expression used as a value.
    pub(crate) fn rvalue(&mut self, n: NodeId) -> FResult<RV> {
        // `c ? x : y` of two lvalues is an lvalue in C++; only its value is used here.
        let value = match self.lvalue_conditional(n) {
            Some(c) => self.conditional_as(c, true)?,
            None => self.eval(n)?,
        };
        match value {
            Value::R(rv) => Ok(rv),
            Value::L(lv) => {
                let span = self.span(n);
                self.load(lv, span)
            }
        }
    }

    /// The conditional operator `n` is (through parentheses), if it is one.
    fn lvalue_conditional(&self, n: NodeId) -> Option<NodeId> {
        let mut inner = n;
        loop {
            match self.ast.kind(inner) {
                "ParenExpr" => inner = *self.expr_children(inner).first()?,
                "ConditionalOperator" => return Some(inner),
                _ => return None,
            }
        }
    }

    /// Lowers an expression that denotes an object or location.
    /// Whether an expression is a string literal (`"..."`, `__func__`, `__extension__
    /// __PRETTY_FUNCTION__` as assert() writes it, in parentheses).
    fn is_string_literal(&self, n: NodeId) -> bool {
        let ast = self.ast;
        match ast.kind(n) {
            "StringLiteral" | "PredefinedExpr" => true,
            "ParenExpr" => ast.children(n).next().is_some_and(|c| self.is_string_literal(c)),
            "UnaryOperator" => {
                ast.node(n).attrs.opcode.is_some_and(|o| ast.str(o) == "__extension__")
                    && ast.children(n).next().is_some_and(|c| self.is_string_literal(c))
            }
            _ => false,
        }
    }

    pub(crate) fn lvalue(&mut self, n: NodeId) -> FResult<LV> {
        match self.eval(n)? {
            Value::L(lv) => Ok(lv),
            Value::R(RV::Obj(o)) => Ok(LV::Obj(o)),
            Value::R(RV::Group(g)) => Ok(LV::Group(g)),
            // A temporary bound to a const reference.
            Value::R(RV::Scalar(e, t)) => {
                let v = self.temp(t.scalar());
                self.ops.push(Op::Assign(v, e));
                Ok(LV::Var(v, t))
            }
            Value::R(RV::Ptr(p)) => {
                let v = self.temp(ScalarTy::U64);
                self.ops.push(Op::Assign(v, p.off));
                Ok(LV::Ptr(self.new_slot("$tmp", p.region, SlotOff::Var(v), p.pointee)))
            }
            Value::R(RV::Void) => Err(FrontError::input(
                self.span(n),
                "a void expression is used as an object",
            )),
        }
    }

    /// Lowers an expression for its effects only.
    pub(crate) fn discard(&mut self, n: NodeId) -> FResult<()> {
        let mut d = n;
        while self.ast.kind(d) == "ParenExpr" {
            match self.ast.children(d).next() {
                Some(c) => d = c,
                None => break,
            }
        }
        // A bare `s[i];` still reads (as a volatile access would); an assignment's result is
        // not read.
        let designator = match self.ast.kind(d) {
            "DeclRefExpr" | "ArraySubscriptExpr" | "MemberExpr" => true,
            "UnaryOperator" => self.ast.node(d).attrs.opcode.is_some_and(|o| self.ast.str(o) == "*"),
            _ => false,
        };
        if let Value::L(LV::Mem(p)) = self.eval(n)? {
            if designator && !matches!(p.ty, CType::Array(..) | CType::Record(_)) {
                self.read(&p)?;
            }
        }
        Ok(())
    }

    /// Lowers a scalar expression: its pure value and type (pointers give their offset).
    pub(crate) fn scalar(&mut self, n: NodeId) -> FResult<(Expr, CType)> {
        let span = self.span(n);
        match self.rvalue(n)? {
            RV::Scalar(e, t) => Ok((e, t)),
            RV::Ptr(_) | RV::Obj(_) | RV::Group(_) => {
                // A pointer or object used as a number (compared, printed): unknown.
                Ok((Expr::Unknown(ScalarTy::U64), CType::U64))
            }
            RV::Void => Err(FrontError::input(span, "a void expression is used as a value")),
        }
    }

    /// Lowers a condition to a boolean predicate.
    pub(crate) fn cond(&mut self, n: NodeId) -> FResult<Expr> {
        let (e, t) = self.scalar(n)?;
        Ok(to_bool(e, &t))
    }

    /// Lowers a pointer-valued expression.
    pub(crate) fn pointer(&mut self, n: NodeId) -> FResult<Pointer> {
        let span = self.span(n);
        match self.rvalue(n)? {
            RV::Ptr(p) => Ok(p),
            RV::Scalar(Expr::Const(0, _), _) => Ok(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Void,
            }),
            _ => Err(FrontError::unsupported(span, "expected a pointer")),
        }
    }

    /// Reads a glvalue.
    pub(crate) fn load(&mut self, lv: LV, span: Span) -> FResult<RV> {
        Ok(match lv {
            LV::Var(v, t) => RV::Scalar(Expr::Var(v), t),
            LV::Const(v, t) => RV::Scalar(Expr::Const(v, t.scalar()), t),
            LV::Ptr(s) => {
                let sl = &self.slots[s];
                RV::Ptr(Pointer {
                    region: sl.region.clone(),
                    off: sl.off.expr(),
                    pointee: sl.pointee.clone(),
                })
            }
            LV::Obj(o) => RV::Obj(o),
            LV::Group(g) => RV::Group(g),
            LV::Mem(p) => match p.ty.clone() {
                CType::Ptr(_) if p.alt.is_none() && self.pointer_arrays.contains_key(&p.array) => {
                    RV::Ptr(self.pointer_array_load(p.array, &p.off, span)?)
                }
                CType::Ptr(pointee) if p.alt.is_none() && self.pointer_tables.contains_key(&p.array) => {
                    RV::Ptr(Pointer {
                        region: self.table_entry(p.array, &p.off, span)?,
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: *pointee,
                    })
                }
                CType::Ptr(pointee) => {
                    self.read(&p)?;
                    RV::Ptr(Pointer {
                        region: Region::Unknown(format!(
                            "a pointer read from memory (`{}`)",
                            self.arrays[p.array.0 as usize].name
                        )),
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: *pointee,
                    })
                }
                CType::Record(r) => {
                    // A whole object read from memory: one access; its fields are unknown.
                    self.read(&p)?;
                    let name = format!("{}[]", self.arrays[p.array.0 as usize].name);
                    RV::Obj(self.new_obj(r, &name, span)?)
                }
                CType::Array(e, _) => RV::Ptr(Pointer {
                    region: p.region(),
                    off: p.off,
                    pointee: *e,
                }),
                t => {
                    let e = self.read(&p)?;
                    RV::Scalar(e, t)
                }
            },
        })
    }

    /// Emits a read of a memory location into a fresh temp; returns the temp.
    pub(crate) fn read(&mut self, p: &Place) -> FResult<Expr> {
        if let Some(alt) = p.alt.clone() {
            let t = self.temp(p.ty.scalar());
            self.in_each_array(p, &alt, &mut |lw, place| {
                let v = lw.read(place)?;
                lw.ops.push(Op::Assign(t, v));
                Ok(())
            })?;
            return Ok(Expr::Var(t));
        }
        let size = self.size_of(&p.ty, p.span)? as u32;
        let t = self.temp(p.ty.scalar());
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
        Ok(Expr::Var(t))
    }

    /// Emits a write of `value` to a memory location.
    pub(crate) fn write(&mut self, p: &Place, value: Expr) -> FResult<()> {
        if self.pointer_arrays.contains_key(&p.array) || self.pointer_tables.contains_key(&p.array) {
            // Their elements are followed as pointers: only a pointer stored into one element
            // (`store`) keeps them right; a block copy or a number would not.
            return Err(FrontError::unsupported(
                p.span,
                format!(
                    "a write into `{}`, an array of pointers, that is not a pointer stored into one element",
                    self.arrays[p.array.0 as usize].name
                ),
            ));
        }
        if let Some(alt) = p.alt.clone() {
            return self.in_each_array(p, &alt, &mut |lw, place| lw.write(place, value.clone()));
        }
        let size = self.size_of(&p.ty, p.span)? as u32;
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
        Ok(())
    }

    /// Runs `f` on the place in each array of a choice, under `if (selector == i)`.
    fn in_each_array(
        &mut self,
        p: &Place,
        alt: &(Vec<ArrayId>, Expr),
        f: &mut dyn FnMut(&mut Self, &Place) -> FResult<()>,
    ) -> FResult<()> {
        let (arrays, sel) = alt;
        // The statement's operations so far run first.
        self.flush(false);
        let mut tail: Option<Block> = None;
        for (i, a) in arrays.iter().enumerate().rev() {
            let place = Place {
                array: *a,
                alt: None,
                ..p.clone()
            };
            let then_blk = self.sub_block(|lw| f(lw, &place))?;
            if i == arrays.len() - 1 && arrays.len() > 1 {
                tail = Some(then_blk);
                continue;
            }
            let else_blk = match tail.take() {
                Some(b) => b,
                None => self.empty_block(),
            };
            let cond = Expr::Bin(
                BinOp::Eq,
                ScalarTy::U32,
                Box::new(sel.clone()),
                Box::new(Expr::Const(i as i64, ScalarTy::U32)),
            );
            let label = self.label();
            let span = self.stmt_span;
            let stmt = Stmt {
                label,
                span,
                emit_after: false,
                kind: StmtKind::If {
                    cond,
                    then_blk,
                    else_blk,
                },
            };
            if i == 0 {
                self.push(stmt);
            } else {
                let lbl = self.label();
                tail = Some(Block {
                    label: lbl,
                    span,
                    braced: false,
                    emit_start: false,
                    stmts: vec![stmt],
                });
            }
        }
        Ok(())
    }

    /// `lv = rv`.
    pub(crate) fn store(&mut self, lv: LV, rv: RV, span: Span) -> FResult<()> {
        match (lv, rv) {
            (LV::Var(v, t), RV::Scalar(e, et)) => {
                let e = convert(e, &et, &t);
                self.ops.push(Op::Assign(v, e));
            }
            (LV::Var(v, t), RV::Ptr(p)) => {
                self.ops.push(Op::Assign(v, Expr::Unknown(t.scalar())));
                // An integer variable that now holds an address (PTX-style code keeps shared
                // addresses in `unsigned`): from here on it is a pointer to that place.
                if t.is_integral() && matches!(p.region, Region::Array(_)) {
                    let ids: Vec<u64> = self
                        .env
                        .iter()
                        .filter(|(_, b)| matches!(b, Binding::Var(x, _) if *x == v))
                        .map(|(id, _)| *id)
                        .collect();
                    if !ids.is_empty() {
                        let name = self.vars[v.0 as usize].name.clone();
                        let ov = self.new_var(&name, ScalarTy::U64, VarKind::Temp);
                        let s = self.new_slot(
                            &name,
                            Region::Null,
                            SlotOff::Var(ov),
                            CType::Int { bits: 8, signed: false },
                        );
                        self.assign_ptr(s, p, span)?;
                        for id in ids {
                            self.env.insert(id, Binding::Ptr(s));
                        }
                    }
                }
            }
            (LV::Mem(p), RV::Ptr(ptr)) if p.alt.is_none() && self.pointer_arrays.contains_key(&p.array) => {
                self.pointer_array_store(p.array, &p.off, ptr, span)?;
            }
            (LV::Mem(p), _) if self.pointer_tables.contains_key(&p.array) => {
                return Err(FrontError::unsupported(
                    span,
                    format!(
                        "assignment into `{}`, an array of pointers in a kernel parameter",
                        self.arrays[p.array.0 as usize].name
                    ),
                )
                .with_help("keep the pointer in a local variable"));
            }
            (LV::Mem(p), rv) => {
                let value = self.stored_value(rv, &p.ty);
                self.write(&p, value)?;
            }
            (LV::Ptr(s), RV::Ptr(p)) => self.assign_ptr(s, p, span)?,
            (LV::Ptr(s), RV::Scalar(Expr::Const(0, _), _)) => {
                self.slots[s].region = Region::Null;
            }
            (LV::Obj(dst), RV::Obj(src)) => self.copy_obj(dst, src, span)?,
            (LV::Group(_), RV::Group(_)) => {}
            (LV::Const(..), _) => {
                return Err(FrontError::input(span, "assignment to a constant"));
            }
            (lv, rv) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("cannot assign {} to {}", rv_what(&rv), lv_what(&lv)),
                ))
            }
        }
        Ok(())
    }

    /// The value a store of `rv` into memory of type `ty` writes: a scalar converted; a pointer
    /// into an array, or an object whose fields are all scalars, as an opaque function of what
    /// it holds (so that equal contents are provably equal and per-thread contents differ);
    /// anything else an [`Expr::Unknown`].
    fn stored_value(&self, rv: RV, ty: &CType) -> Expr {
        let opaque = |parts: Vec<Expr>| Expr::Opaque(ty.scalar(), parts);
        match rv {
            RV::Scalar(e, et) if !matches!(ty, CType::Record(_)) => convert(e, &et, ty),
            RV::Scalar(e, _) => opaque(vec![e]),
            RV::Ptr(Pointer {
                region: Region::Array(a),
                off,
                ..
            }) => opaque(vec![Expr::Const(a.0 as i64, ScalarTy::U32), off]),
            RV::Ptr(Pointer {
                region: Region::Null, ..
            }) => opaque(vec![Expr::Const(0, ScalarTy::U64)]),
            RV::Obj(o) => {
                let mut parts = Vec::new();
                if self.obj_parts(o, &mut parts) {
                    opaque(parts)
                } else {
                    Expr::Unknown(ty.scalar())
                }
            }
            _ => Expr::Unknown(ty.scalar()),
        }
    }

    /// Appends the values of object `o`'s fields (in field order, nested objects flattened);
    /// false when a field holds something else (a pointer, memory).
    fn obj_parts(&self, o: usize, parts: &mut Vec<Expr>) -> bool {
        let mut fields: Vec<(&u64, &Binding)> = self.objs[o].fields.iter().collect();
        fields.sort_by_key(|(id, _)| **id);
        fields.into_iter().all(|(_, b)| match b {
            Binding::Var(v, _) => {
                parts.push(Expr::Var(*v));
                true
            }
            Binding::Const(c, t) => {
                parts.push(Expr::Const(*c, t.scalar()));
                true
            }
            Binding::Obj(inner) => self.obj_parts(*inner, parts),
            _ => false,
        })
    }

    /// Points a pointer variable at `p`.
    pub(crate) fn assign_ptr(&mut self, s: usize, p: Pointer, span: Span) -> FResult<()> {
        let old = self.slots[s].region.clone();
        let region = match (&old, &p.region) {
            (_, Region::Null) => old.clone(),
            (
                Region::Null | Region::Unknown(_),
                Region::Array(_) | Region::Obj(_) | Region::Slot(_) | Region::Unknown(_),
            ) => p.region.clone(),
            (Region::Null | Region::Code, Region::Code) => Region::Code,
            (a, b) if a == b && !matches!(a, Region::Choice(..)) => a.clone(),
            (Region::Obj(_) | Region::Slot(_), _) | (_, Region::Obj(_) | Region::Slot(_)) | (_, Region::Unknown(_)) => {
                return Err(FrontError::unsupported(
                    span,
                    format!(
                        "pointer `{}` is re-pointed from {} to {}",
                        self.slots[s].name,
                        self.region_name(&old),
                        self.region_name(&p.region)
                    ),
                )
                .with_help("autosync follows pointers into arrays; keep pointers to objects in one variable each"))
            }
            _ => self.choose(s, &old, &p.region, span)?,
        };
        let v = match self.slots[s].off.clone() {
            SlotOff::Var(v) => v,
            SlotOff::Fixed(start) => {
                // The first assignment may be conditional: the old offset holds elsewhere.
                let v = self.new_var(&self.slots[s].name.clone(), ScalarTy::U64, VarKind::Temp);
                self.late_inits.push(Op::Assign(v, start));
                self.slots[s].off = SlotOff::Var(v);
                v
            }
        };
        self.ops.push(Op::Assign(v, p.off));
        self.slots[s].region = region;
        Ok(())
    }

    /// A pointer variable that is given several arrays over the kernel (swapped buffers)
    /// points into a choice of them: its selector variable holds the index of the array meant.
    fn choose(&mut self, s: usize, old: &Region, new: &Region, span: Span) -> FResult<Region> {
        let name = self.slots[s].name.clone();
        let (mut arrays, sel) = match old {
            Region::Choice(arrs, Expr::Var(v)) => (arrs.clone(), *v),
            Region::Array(a) => {
                // It pointed into `a` up to here, on every path.
                let v = self.new_var(&format!("{name}$array"), ScalarTy::U32, VarKind::Temp);
                self.late_inits.push(Op::Assign(v, Expr::Const(0, ScalarTy::U32)));
                (vec![*a], v)
            }
            Region::Null | Region::Unknown(_) => {
                let v = self.new_var(&format!("{name}$array"), ScalarTy::U32, VarKind::Temp);
                (vec![], v)
            }
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    format!("pointer `{name}` autosync cannot follow"),
                ))
            }
        };
        let Some(value) = selector_value(&mut arrays, new) else {
            return Err(FrontError::unsupported(
                span,
                format!("pointer `{name}` autosync cannot follow"),
            ));
        };
        self.ops.push(Op::Assign(sel, value));
        Ok(Region::Choice(arrays, Expr::Var(sel)))
    }

    pub(crate) fn region_name(&self, r: &Region) -> String {
        match r {
            Region::Array(a) => format!("`{}`", self.arrays[a.0 as usize].name),
            Region::Choice(arrs, _) => {
                let names: Vec<String> = arrs
                    .iter()
                    .map(|a| format!("`{}`", self.arrays[a.0 as usize].name))
                    .collect();
                format!("one of {}", names.join(", "))
            }
            Region::Obj(o) => format!("object `{}`", self.objs[*o].name),
            Region::Slot(s) => format!("pointer variable `{}`", self.slots[*s].name),
            Region::Null => "null".into(),
            Region::Code => "a function".into(),
            Region::Unknown(why) => why.clone(),
        }
    }

    /// Copies every field of `src` into `dst` (objects of the same record, or a derived object
    /// into its base: only the fields `dst` has).
    pub(crate) fn copy_obj(&mut self, dst: usize, src: usize, span: Span) -> FResult<()> {
        if dst == src {
            return Ok(());
        }
        let fields: Vec<(u64, Binding)> = self.objs[dst].fields.iter().map(|(k, v)| (*k, v.clone())).collect();
        for (fid, d) in fields {
            let Some(s) = self.objs[src].fields.get(&fid).cloned() else {
                continue;
            };
            let rv = self.load(self.binding_lv(&s), span)?;
            let lv = self.binding_lv(&d);
            match lv {
                // A reference member of a copy refers to the same thing.
                LV::Const(_, CType::Void) => {
                    self.objs[dst].fields.insert(fid, s);
                }
                // Local arrays never race and their contents are opaque: nothing to copy.
                LV::Mem(p) if self.arrays[p.array.0 as usize].space == Space::Local => {}
                lv => self.store(lv, rv, span)?,
            }
        }
        Ok(())
    }

    /// The glvalue a pointer points at.
    pub(crate) fn deref(&mut self, p: Pointer, ty: CType, span: Span) -> FResult<LV> {
        match p.region {
            Region::Array(a) => Ok(LV::Mem(Place {
                array: a,
                off: p.off,
                ty,
                span,
                alt: None,
            })),
            Region::Obj(o) => self.obj_part(o, &p.off, &ty, span),
            // The offset is 0: arithmetic on a slot's address is refused (`no_slot_arith`).
            Region::Slot(s) if matches!(ty, CType::Ptr(_)) => Ok(LV::Ptr(s)),
            Region::Slot(s) => Err(FrontError::unsupported(
                span,
                format!(
                    "pointer variable `{}` read through a pointer as another type",
                    self.slots[s].name
                ),
            )),
            Region::Choice(arrays, sel) => Ok(LV::Mem(Place {
                array: arrays[0],
                off: p.off,
                ty,
                span,
                alt: Some(std::rc::Rc::new((arrays, sel))),
            })),
            Region::Null => Err(FrontError::unsupported(
                span,
                "dereference of a pointer that points into no known array",
            )
            .with_help("initialize the pointer from a __shared__ array, a pointer parameter or a local array")),
            Region::Code => Err(FrontError::unsupported(
                span,
                "a function's code read or written as data",
            )),
            Region::Unknown(why) => Err(FrontError::unsupported(
                span,
                format!("dereference of {why}: autosync cannot tell which array it points into"),
            )
            .with_help("keep pointers in local variables or parameters")),
        }
    }

    /// What a pointer into object `o` at byte offset `off` designates as a `ty`: the object
    /// itself, or (a `reinterpret_cast` to a member's type, as cuda_fp16 writes a `__half`'s
    /// bits through an `unsigned short *`) the member at that offset whose type is exactly `ty`,
    /// looked for in nested objects too. Anything else would reinterpret bits autosync does not
    /// follow: unsupported.
    fn obj_part(&mut self, o: usize, off: &Expr, ty: &CType, span: Span) -> FResult<LV> {
        let rec = self.objs[o].record;
        let same_record = matches!(ty, CType::Record(r) if self.types.definition(*r) == rec);
        let at = match off {
            Expr::Const(k, _) => *k as u64,
            _ if same_record || !ty.is_scalar_like() => return Ok(LV::Obj(o)),
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    "a member of an object reached through a pointer with a variable offset",
                ))
            }
        };
        if at == 0 && (same_record || !ty.is_scalar_like()) {
            return Ok(LV::Obj(o));
        }
        let layout = self.types.layout(rec).map_err(|m| FrontError::unsupported(span, m))?;
        for f in layout.fields.iter().filter(|f| f.offset <= at) {
            let Some(b) = self.objs[o].fields.get(&f.id).cloned() else {
                continue;
            };
            match (self.binding_lv(&b), &f.ty) {
                (lv, t) if f.offset == at && t == ty => return Ok(lv),
                (LV::Obj(inner), CType::Record(_)) => {
                    let size = self.size_of(&f.ty, span)?;
                    if at < f.offset + size {
                        let inner_off = Expr::Const((at - f.offset) as i64, ScalarTy::U64);
                        return self.obj_part(inner, &inner_off, ty, span);
                    }
                }
                _ => {}
            }
        }
        Err(FrontError::unsupported(
            span,
            format!("bytes {at}.. of an object read or written as another type"),
        )
        .with_help("access the member by name"))
    }

    /// Whether evaluating a subtree may touch memory or have effects (then it cannot be part
    /// of an expression evaluated unconditionally).
    pub(crate) fn has_effects(&self, n: NodeId) -> bool {
        let ast = self.ast;
        let mut found = false;
        ast.walk(n, &mut |c| {
            if found {
                return;
            }
            found = match ast.kind(c) {
                "CallExpr"
                | "CXXMemberCallExpr"
                | "CXXOperatorCallExpr"
                | "ArraySubscriptExpr"
                | "CompoundAssignOperator"
                | "CXXConstructExpr"
                | "CXXTemporaryObjectExpr"
                | "LambdaExpr"
                | "StmtExpr" => true,
                "UnaryOperator" => {
                    let op = ast.node(c).attrs.opcode.map(|o| ast.str(o)).unwrap_or("");
                    matches!(op, "*" | "++" | "--")
                }
                "BinaryOperator" => ast.node(c).attrs.opcode.is_some_and(|o| ast.str(o) == "="),
                "MemberExpr" => ast.node(c).attrs.is_arrow,
                "DeclRefExpr" => match ast.node(c).attrs.referenced {
                    Some(r) => match self.env.get(&r.id) {
                        Some(Binding::Mem(_)) => true,
                        Some(_) => false,
                        None => matches!(ast.str(r.kind), "VarDecl") && builtin_var(ast.str(r.name)).is_none(),
                    },
                    None => false,
                },
                _ => false,
            };
        });
        found
    }

    /// Lowers an expression node.
    pub(crate) fn eval(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let kind = ast.kind(n);
        let span = self.span(n);
        match kind {
            "IntegerLiteral" | "CharacterLiteral" | "CXXBoolLiteralExpr" => {
                let t = self.type_of(n);
                let v = ast.value(n).and_then(super::types::parse_int).unwrap_or(0);
                Ok(Value::R(RV::Scalar(Expr::Const(fold_cast(v, &t), t.scalar()), t)))
            }
            "FloatingLiteral" | "ImaginaryLiteral" | "FixedPointLiteral" => {
                let t = self.type_of(n);
                Ok(Value::R(RV::Scalar(Expr::Opaque(ScalarTy::Opaque, vec![]), t)))
            }
            "StringLiteral" | "PredefinedExpr" => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Unknown("a string literal".into()),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Int { bits: 8, signed: true },
            }))),
            "CXXNullPtrLiteralExpr" | "GNUNullExpr" => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Void,
            }))),
            "ConstantExpr" => {
                let t = self.type_of(n);
                if let (Some(v), true) = (ast.value(n).and_then(super::types::parse_int), t.is_integral()) {
                    return Ok(Value::R(RV::Scalar(Expr::Const(fold_cast(v, &t), t.scalar()), t)));
                }
                self.eval_only_child(n)
            }
            "ParenExpr" | "ExprWithCleanups" | "MaterializeTemporaryExpr" => self.eval_only_child(n),
            "CXXBindTemporaryExpr" => {
                if let Some(d) = ast.node(n).attrs.dtor {
                    self.check_trivial_dtor(d.id, span)?;
                }
                self.eval_only_child(n)
            }
            "SubstNonTypeTemplateParmExpr" => {
                let c = ast
                    .children(n)
                    .filter(|&c| !ast.kind(c).ends_with("Decl"))
                    .last()
                    .ok_or_else(|| FrontError::input(span, "template parameter without a value"))?;
                self.eval(c)
            }
            "OpaqueValueExpr" => self.eval_only_child(n),
            "DeclRefExpr" => self.decl_ref(n),
            "MemberExpr" => self.member(n),
            "PseudoObjectExpr" => self.pseudo_object(n),
            "ArraySubscriptExpr" => self.subscript(n),
            "UnaryOperator" => self.unary(n),
            "BinaryOperator" => self.binary(n),
            "CompoundAssignOperator" => self.compound_assign(n),
            "ConditionalOperator" => self.conditional(n),
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr"
            | "CXXReinterpretCastExpr"
            | "CXXConstCastExpr"
            | "BuiltinBitCastExpr" => self.cast(n),
            "UnaryExprOrTypeTraitExpr" => self.size_or_align_of(n, span),
            "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" | "CUDAKernelCallExpr" | "UserDefinedLiteral" => {
                self.call(n)
            }
            "CXXConstructExpr" | "CXXTemporaryObjectExpr" => {
                let o = self.construct_temp(n)?;
                Ok(Value::R(o))
            }
            "InitListExpr" => self.init_list(n, span),
            "ImplicitValueInitExpr" | "CXXScalarValueInitExpr" => self.value_init(n, span),
            "CXXThisExpr" => self.this_expr(span),
            "LambdaExpr" => self.lambda(n),
            "CXXDefaultArgExpr" | "CXXDefaultInitExpr" => Err(FrontError::unsupported(
                span,
                "a default argument or member initializer outside a call autosync inlines",
            )),
            "GCCAsmStmt" => Err(FrontError::unsupported(span, "asm used as an expression")),
            "CXXNewExpr" | "CXXDeleteExpr" => Err(FrontError::unsupported(span, "new/delete in device code")
                .with_help("allocate shared memory statically or take a pointer parameter")),
            "StmtExpr" => Err(
                FrontError::unsupported(span, "GNU statement expressions are not supported")
                    .with_help("write the statements out, or use an inline __device__ function"),
            ),
            "RecoveryExpr" => Err(FrontError::input(span, "Clang could not make sense of this expression")),
            k => Err(FrontError::unsupported(
                span,
                format!(
                    "expression `{}` ({k}) is not supported",
                    first_line(&self.src.spelled_text(n).unwrap_or_default())
                ),
            )),
        }
    }

    /// `sizeof`/`alignof` of a type or an expression: a constant.
    fn size_or_align_of(&mut self, n: NodeId, span: Span) -> FResult<Value> {
        let ast = self.ast;
        let what = ast.name(n).to_string();
        let t = match ast.node(n).attrs.arg_type {
            Some(t) => self.types.resolve(ast.type_str(t), &self.scope()),
            None => match ast.children(n).next() {
                Some(c) => self.type_of(c),
                None => return Err(FrontError::unsupported(span, format!("`{what}` without an operand"))),
            },
        };
        let v = match what.as_str() {
            "sizeof" => self.size_of(&t, span)?,
            "alignof" | "__alignof" | "_Alignof" => {
                self.types.align_of(&t).map_err(|m| FrontError::unsupported(span, m))?
            }
            _ => return Err(FrontError::unsupported(span, format!("`{what}` is not supported"))),
        };
        let rt = self.type_of(n);
        Ok(Value::R(RV::Scalar(Expr::Const(v as i64, rt.scalar()), rt)))
    }

    /// A brace initializer used as a value: a new object, or its scalar element.
    fn init_list(&mut self, n: NodeId, span: Span) -> FResult<Value> {
        let ast = self.ast;
        let t = self.type_of(n);
        match t {
            CType::Record(r) => {
                let o = self.new_obj(r, "$init", span)?;
                self.init_obj_list(o, n, span)?;
                Ok(Value::R(RV::Obj(o)))
            }
            t if t.is_integral() || matches!(t, CType::Float(_) | CType::Ptr(_)) => match ast.children(n).next() {
                Some(c) => self.eval(c),
                None => Ok(Value::R(RV::Scalar(Expr::Const(0, t.scalar()), t))),
            },
            _ => Err(FrontError::unsupported(
                span,
                "a brace initializer of this type is not supported",
            )),
        }
    }

    /// A value-initialized (zero, null, or fresh-object) value of the node's type.
    fn value_init(&mut self, n: NodeId, span: Span) -> FResult<Value> {
        let t = self.type_of(n);
        match t {
            CType::Ptr(p) => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: *p,
            }))),
            CType::Record(r) => Ok(Value::R(RV::Obj(self.new_obj(r, "$init", span)?))),
            t => Ok(Value::R(RV::Scalar(Expr::Const(0, t.scalar()), t))),
        }
    }

    /// `this` inside an inlined method: a pointer to the receiver.
    fn this_expr(&self, span: Span) -> FResult<Value> {
        let this = self.frames.iter().rev().find_map(|f| f.this.clone());
        match this {
            Some(LV::Obj(o)) => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Obj(o),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Record(self.objs[o].record),
            }))),
            Some(LV::Mem(p)) => Ok(Value::R(RV::Ptr(Pointer {
                region: p.region(),
                off: p.off,
                pointee: p.ty,
            }))),
            Some(LV::Group(g)) => Ok(Value::R(RV::Group(g))),
            _ => Err(FrontError::unsupported(span, "`this` outside an inlined method")),
        }
    }

    fn eval_only_child(&mut self, n: NodeId) -> FResult<Value> {
        let span = self.span(n);
        let c = self
            .ast
            .children(n)
            .find(|&c| !self.ast.kind(c).ends_with("Decl") && self.ast.kind(c) != "TemplateArgument")
            .ok_or_else(|| FrontError::input(span, format!("empty {}", self.ast.kind(n))))?;
        self.eval(c)
    }

    /// A node without the parentheses and implicit conversions around it.
    pub(crate) fn strip(&self, mut n: NodeId) -> NodeId {
        while matches!(self.ast.kind(n), "ParenExpr" | "ImplicitCastExpr") {
            match self.expr_children(n).first() {
                Some(&c) => n = c,
                None => break,
            }
        }
        n
    }

    /// The expression children of a node (skipping declarations and type nodes).
    pub(crate) fn expr_children(&self, n: NodeId) -> Vec<NodeId> {
        self.ast
            .children(n)
            .filter(|&c| {
                let k = self.ast.kind(c);
                !(k.ends_with("Decl") || k.ends_with("Type") || k == "TemplateArgument")
            })
            .collect()
    }

    /// Refuses objects whose destructor does something (autosync would have to run it).
    pub(crate) fn check_trivial_dtor(&self, dtor: u64, span: Span) -> FResult<()> {
        let def = self.types.definition(dtor);
        let Some(d) = self.ast.decl_node(def) else {
            // System destructors: none of the modelled library types has one with effects.
            return Ok(());
        };
        let body = self.ast.children_of_kind(d, "CompoundStmt").next();
        if body.is_some_and(|b| self.ast.children(b).next().is_some()) {
            return Err(FrontError::unsupported(
                span,
                format!("destructor `{}` has effects autosync does not run", self.ast.name(d)),
            ));
        }
        Ok(())
    }

    fn decl_ref(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let r = ast
            .node(n)
            .attrs
            .referenced
            .ok_or_else(|| FrontError::input(span, "reference to nothing"))?;
        if let Some(b) = self.env.get(&r.id) {
            return Ok(Value::L(self.binding_lv(&b.clone())));
        }
        let name = ast.str(r.name).to_string();
        match ast.str(r.kind) {
            "VarDecl" => self.global_var(r.id, &name, span),
            "EnumConstantDecl" => {
                let t = self.type_of(n);
                let v = self.enumerator(r.id).ok_or_else(|| {
                    FrontError::unsupported(span, format!("the value of enumerator `{name}` is unknown"))
                })?;
                Ok(Value::R(RV::Scalar(Expr::Const(v, t.scalar()), t)))
            }
            "ParmVarDecl" => Err(FrontError::input(
                span,
                format!("parameter `{name}` used outside its function"),
            )),
            "FunctionDecl" => Ok(Value::R(RV::Ptr(self.function_address(r.id, span)?))),
            "CXXMethodDecl" => Err(FrontError::unsupported(
                span,
                format!("method `{name}` used as a value (pointers to members are not supported)"),
            )
            .with_help("call the method directly")),
            "NonTypeTemplateParmDecl" => Err(FrontError::missing(
                span,
                format!("template parameter `{name}` has no value"),
                format!("instantiate the template, or pass --define {name}=VALUE"),
            )),
            k => Err(FrontError::unsupported(
                span,
                format!("reference to `{name}` ({k}) is not supported"),
            )),
        }
    }

    /// The value of an enumerator declaration: Clang's folded value, else its initializer
    /// evaluated here (enum members of class template specializations are left unfolded).
    fn enumerator(&self, id: u64) -> Option<i64> {
        let d = self.ast.decls.get(&id)?;
        let name = self.ast.str(d.name);
        let known = self
            .types
            .enum_values(d.parent?)
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|x| x.1);
        known.or_else(|| self.enumerator_at(self.ast.decl_node(id)?, 0))
    }

    fn enumerator_at(&self, n: NodeId, depth: u32) -> Option<i64> {
        match self.types.enumerator_init(n)? {
            _ if depth > 64 => None,
            EnumInit::Expr(e) => self.const_eval(e, depth + 1),
            EnumInit::First => Some(0),
            EnumInit::After(prev) => self.enumerator_at(prev, depth + 1).map(|v| v.wrapping_add(1)),
        }
    }

    /// A variable declared outside the kernel: `__shared__`/`__device__`/`__constant__`
    /// arrays and scalars, constants, `warpSize`.
    pub(crate) fn global_var(&mut self, id: u64, name: &str, span: Span) -> FResult<Value> {
        let ast = self.ast;
        let Some(node) = ast.decl_node(self.types.definition(id)).or_else(|| ast.decl_node(id)) else {
            if name == "warpSize" {
                return Ok(Value::R(RV::Scalar(Expr::Builtin(Builtin::WarpSize), CType::INT)));
            }
            if builtin_var(name).is_some() {
                return Err(FrontError::unsupported(
                    span,
                    format!("`{name}` used as a whole; use its .x/.y/.z fields"),
                ));
            }
            return Err(FrontError::unsupported(
                span,
                format!("variable `{name}` from a system header is not modelled"),
            ));
        };
        let t = self.types.resolve(
            ast.node(node).ty.map(|t| ast.type_str(t)).unwrap_or("int"),
            &self.types.scope_of(id),
        );
        // A const integral variable with a constant initializer is a constant, whatever memory
        // Clang gives it (`static const int k = 4;`, `constexpr int N = 32;`).
        let is_const = ast.node(node).ty.is_some_and(|ty| {
            let q = ast.str(ty.qual);
            q.starts_with("const ") || q.contains(" const")
        });
        if is_const && t.is_integral() {
            if let Some(init) = ast.children(node).find(|&c| !ast.kind(c).ends_with("Attr")) {
                if let Some(v) = self.const_eval(init, 0) {
                    let b = Binding::Const(fold_cast(v, &t), t);
                    self.env.insert(id, b.clone());
                    return Ok(Value::L(self.binding_lv(&b)));
                }
            }
        }
        let shared = ast.has_attr(node, "CUDASharedAttr");
        let device = ast.has_attr(node, "CUDADeviceAttr")
            || ast.has_attr(node, "CUDAConstantAttr")
            || ast.has_attr(node, "CUDAManagedAttr");
        if shared || device {
            let space = if shared { Space::Shared } else { Space::Global };
            let decl_span = self.src.node_span(node);
            let place = self.memory_var(name, space, &t, decl_span, node)?;
            let b = Binding::Mem(place);
            self.env.insert(id, b.clone());
            return Ok(Value::L(self.binding_lv(&b)));
        }
        // A constant (const/constexpr integral with an initializer).
        if let Some(init) = ast.children(node).find(|&c| !ast.kind(c).ends_with("Attr")) {
            if let Some(v) = self.const_eval(init, 0) {
                let b = Binding::Const(fold_cast(v, &t), t);
                self.env.insert(id, b.clone());
                return Ok(Value::L(self.binding_lv(&b)));
            }
        }
        Err(FrontError::unsupported(
            span,
            format!("`{name}` is neither a __device__/__shared__ variable nor a constant"),
        )
        .with_help("device code can only read __device__, __constant__ and __shared__ variables and constants"))
    }

    /// The array for a variable in shared or global memory (`extern __shared__` arrays all
    /// share one array: they alias the dynamic shared memory).
    pub(crate) fn memory_var(
        &mut self,
        name: &str,
        space: Space,
        t: &CType,
        span: Span,
        decl: NodeId,
    ) -> FResult<Place> {
        let is_extern = self
            .ast
            .node(decl)
            .attrs
            .storage_class
            .is_some_and(|s| self.ast.str(s) == "extern");
        if is_extern && space == Space::Shared {
            let elem = match t {
                CType::Array(e, _) => (**e).clone(),
                t => t.clone(),
            };
            let array = match self.extern_shared {
                Some(a) => a,
                None => {
                    let a = self.new_array(name, Space::Shared, &elem, vec![None], span)?;
                    self.extern_shared = Some(a);
                    a
                }
            };
            return Ok(Place {
                array,
                off: Expr::Const(0, ScalarTy::U64),
                ty: CType::Array(Box::new(elem), None),
                span,
                alt: None,
            });
        }
        self.array_for(name, space, t, span)
    }

    /// The value of a local variable initialized with a constant and never modified (every
    /// use of it a read: no assignment, increment, `&` or reference binding), such as
    /// `size_t len = 4;` passed to `memcpy`; `None` otherwise.
    pub(crate) fn unmodified_local(&self, n: NodeId) -> Option<i64> {
        let ast = self.ast;
        let mut e = n;
        while matches!(ast.kind(e), "ParenExpr" | "ImplicitCastExpr") {
            e = *self.expr_children(e).first()?;
        }
        let r = ast.node(e).attrs.referenced.filter(|r| ast.str(r.kind) == "VarDecl")?;
        if !matches!(self.env.get(&r.id), Some(Binding::Var(..))) {
            return None;
        }
        let only_read = ast.nodes.iter().all(|u| {
            ast.str(u.kind) != "DeclRefExpr"
                || u.attrs.referenced.is_none_or(|x| x.id != r.id)
                || u.parent.is_some_and(|p| {
                    let p = ast.node(p);
                    ast.str(p.kind) == "ImplicitCastExpr"
                        && p.attrs.cast_kind.is_some_and(|k| ast.str(k) == "LValueToRValue")
                })
        });
        let d = ast.decl_node(r.id)?;
        let init = ast.children(d).find(|&c| !ast.kind(c).ends_with("Attr"))?;
        let t = self.type_of(d);
        (only_read && t.is_integral())
            .then(|| self.const_eval(init, 0))
            .flatten()
            .map(|v| fold_cast(v, &t))
    }

    /// Evaluates an integral constant expression (array sizes, constants, case labels).
    pub(crate) fn const_eval(&self, n: NodeId, depth: u32) -> Option<i64> {
        if depth > 64 {
            return None;
        }
        let ast = self.ast;
        if let Some(v) = self.types.const_value(n) {
            return Some(v);
        }
        let kids: Vec<NodeId> = self.expr_children(n);
        let child = |i: usize| kids.get(i).copied();
        match ast.kind(n) {
            "ParenExpr" | "SubstNonTypeTemplateParmExpr" | "ExprWithCleanups" => {
                self.const_eval(*kids.last()?, depth + 1)
            }
            "ImplicitCastExpr" | "CStyleCastExpr" | "CXXStaticCastExpr" | "CXXFunctionalCastExpr" => {
                let v = self.const_eval(child(0)?, depth + 1)?;
                let t = self.type_of(n);
                t.is_integral().then(|| fold_cast(v, &t))
            }
            "DeclRefExpr" => {
                let r = ast.node(n).attrs.referenced?;
                match self.env.get(&r.id) {
                    Some(Binding::Const(v, _)) => return Some(*v),
                    Some(_) => return None,
                    None => {}
                }
                match ast.str(r.kind) {
                    "EnumConstantDecl" => self.enumerator(r.id),
                    "VarDecl" => {
                        let d = ast.decl_node(r.id)?;
                        let init = ast.children(d).find(|&c| !ast.kind(c).ends_with("Attr"))?;
                        self.const_eval(init, depth + 1)
                    }
                    _ => None,
                }
            }
            "UnaryOperator" => {
                let v = self.const_eval(child(0)?, depth + 1)?;
                match ast.str(ast.node(n).attrs.opcode?) {
                    "-" => Some(v.wrapping_neg()),
                    "~" => Some(!v),
                    "!" => Some((v == 0) as i64),
                    "+" => Some(v),
                    _ => None,
                }
            }
            "BinaryOperator" => {
                let a = self.const_eval(child(0)?, depth + 1)?;
                let b = self.const_eval(child(1)?, depth + 1)?;
                let t = self.type_of(n);
                let unsigned = matches!(self.type_of(child(0)?), CType::Int { signed: false, .. });
                let v = match ast.str(ast.node(n).attrs.opcode?) {
                    "+" => a.wrapping_add(b),
                    "-" => a.wrapping_sub(b),
                    "*" => a.wrapping_mul(b),
                    "/" if b != 0 => {
                        if unsigned {
                            ((a as u64) / (b as u64)) as i64
                        } else {
                            a.wrapping_div(b)
                        }
                    }
                    "%" if b != 0 => {
                        if unsigned {
                            ((a as u64) % (b as u64)) as i64
                        } else {
                            a.wrapping_rem(b)
                        }
                    }
                    "<<" => a.wrapping_shl(b as u32),
                    ">>" => {
                        if unsigned {
                            ((a as u64) >> (b as u32 & 63)) as i64
                        } else {
                            a.wrapping_shr(b as u32)
                        }
                    }
                    "&" => a & b,
                    "|" => a | b,
                    "^" => a ^ b,
                    "<" => (a < b) as i64,
                    "<=" => (a <= b) as i64,
                    ">" => (a > b) as i64,
                    ">=" => (a >= b) as i64,
                    "==" => (a == b) as i64,
                    "!=" => (a != b) as i64,
                    "&&" => (a != 0 && b != 0) as i64,
                    "||" => (a != 0 || b != 0) as i64,
                    _ => return None,
                };
                Some(fold_cast(v, &t))
            }
            "ConditionalOperator" => {
                let c = self.const_eval(child(0)?, depth + 1)?;
                self.const_eval(if c != 0 { child(1)? } else { child(2)? }, depth + 1)
            }
            "UnaryExprOrTypeTraitExpr" if ast.name(n) == "sizeof" => {
                let t = match ast.node(n).attrs.arg_type {
                    Some(t) => self.types.resolve(ast.type_str(t), &self.scope()),
                    None => self.type_of(child(0)?),
                };
                self.types.size_of(&t).ok().map(|v| v as i64)
            }
            _ => None,
        }
    }

    fn pseudo_object(&mut self, n: NodeId) -> FResult<Value> {
        // `threadIdx.x`: Clang's builtin variables are properties read by `__fetch_builtin_x`.
        let ast = self.ast;
        let span = self.span(n);
        let mut var = None;
        let mut dim = None;
        ast.walk(n, &mut |c| match ast.kind(c) {
            "DeclRefExpr" => {
                if let Some(r) = ast.node(c).attrs.referenced {
                    var = var.or(builtin_var(ast.str(r.name)));
                }
            }
            "MemberExpr" => dim = dim.or(dim_of(ast.name(c))),
            _ => {}
        });
        match (var, dim) {
            (Some(b), Some(d)) => Ok(Value::R(RV::Scalar(Expr::Builtin(b(d)), CType::UINT))),
            _ => Err(FrontError::unsupported(
                span,
                "property access (__declspec(property)) is not supported",
            )),
        }
    }

    fn member(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let node = ast.node(n);
        let member = node
            .attrs
            .member
            .ok_or_else(|| FrontError::input(span, "member access without a member"))?;
        let base = *self
            .expr_children(n)
            .first()
            .ok_or_else(|| FrontError::input(span, "member access without an object"))?;
        let mkind = ast.decls.get(&member).map(|d| ast.str(d.kind)).unwrap_or("");
        if mkind == "VarDecl" {
            // A static data member.
            self.discard(base)?;
            let name = ast.name(n).to_string();
            if let Some(b) = self.env.get(&member) {
                return Ok(Value::L(self.binding_lv(&b.clone())));
            }
            return self.global_var(member, &name, span);
        }
        if mkind == "EnumConstantDecl" {
            // A member enumerator named through an object (`f.num_storage_elements`).
            self.discard(base)?;
            let t = self.type_of(n);
            let v = self.enumerator(member).ok_or_else(|| {
                FrontError::unsupported(span, format!("the value of enumerator `{}` is unknown", ast.name(n)))
            })?;
            return Ok(Value::R(RV::Scalar(Expr::Const(v, t.scalar()), t)));
        }
        let obj = if node.attrs.is_arrow {
            let p = self.pointer(base)?;
            let t = p.pointee.clone();
            self.deref(p, t, span)?
        } else {
            self.lvalue(base)?
        };
        self.field(obj, member, ast.name(n), span).map(Value::L)
    }

    /// The id under which a record's layout knows a field: `field` itself, or for a record
    /// the precompiled prelude declares (its fields are not in the dump), the field of that name.
    fn field_id(&self, record: u64, field: u64, name: &str) -> u64 {
        if self.ast.decls.get(&field).is_some_and(|d| d.node.is_some()) || name.is_empty() {
            return field;
        }
        match self.types.layout(record) {
            Ok(l) if !l.fields.iter().any(|f| f.id == field) => {
                l.fields.iter().find(|f| f.name == name).map_or(field, |f| f.id)
            }
            _ => field,
        }
    }

    /// A field (`field`, named `written` at the access) of an object or of a record in memory.
    pub(crate) fn field(&mut self, obj: LV, field: u64, written: &str, span: Span) -> FResult<LV> {
        let fname = self
            .ast
            .decls
            .get(&field)
            .map(|d| self.ast.str(d.name).to_string())
            .unwrap_or_else(|| written.to_string());
        match obj {
            LV::Obj(o) => match self.objs[o]
                .fields
                .get(&self.field_id(self.objs[o].record, field, &fname))
            {
                Some(b) => Ok(self.binding_lv(&b.clone())),
                None => Err(FrontError::unsupported(
                    span,
                    format!("object `{}` has no field `{fname}` autosync knows", self.objs[o].name),
                )),
            },
            LV::Mem(p) => {
                let CType::Record(r) = p.ty else {
                    return Err(FrontError::unsupported(
                        span,
                        format!("field `{fname}` of a non-record"),
                    ));
                };
                let layout = self.types.layout(r).map_err(|m| FrontError::unsupported(span, m))?;
                // A record the precompiled prelude declares has fields autosync knows by name
                // only (the dump does not show their declarations).
                let field = self.field_id(r, field, &fname);
                let f = layout.fields.iter().find(|f| f.id == field).ok_or_else(|| {
                    FrontError::unsupported(
                        span,
                        format!("`{}` has no field `{fname}` autosync knows", self.types.record_name(r)),
                    )
                })?;
                if matches!(f.ty, CType::Ref(_)) {
                    return Err(FrontError::unsupported(
                        span,
                        "a reference member of an object in memory",
                    ));
                }
                Ok(LV::Mem(Place {
                    array: p.array,
                    off: add_offset(p.off, Expr::Const(f.offset as i64, ScalarTy::U64), 1),
                    ty: f.ty.clone(),
                    span,
                    alt: p.alt.clone(),
                }))
            }
            LV::Group(g) => Ok(LV::Group(g)),
            other => Err(FrontError::unsupported(
                span,
                format!("field `{fname}` of {}", lv_what(&other)),
            )),
        }
    }

    fn subscript(&mut self, n: NodeId) -> FResult<Value> {
        let span = self.span(n);
        let kids = self.expr_children(n);
        let [a, b] = kids[..] else {
            return Err(FrontError::input(span, "bad subscript"));
        };
        // `i[p]` is legal C: the pointer operand is the base.
        let (base, idx) = if matches!(self.type_of(b), CType::Ptr(_) | CType::Array(..)) {
            (b, a)
        } else {
            (a, b)
        };
        let p = self.pointer(base)?;
        let (ie, it) = self.scalar(idx)?;
        if !it.is_integral() {
            return Err(FrontError::input(span, "array index is not an integer"));
        }
        let elem = self.type_of(n);
        let size = self.size_of(&elem, span)? as i64;
        no_slot_arith(&p.region, &ie, span)?;
        let off = add_offset(p.off, convert(ie, &it, &CType::U64), size);
        self.deref(
            Pointer {
                region: p.region,
                off,
                pointee: elem.clone(),
            },
            elem,
            span,
        )
        .map(Value::L)
    }

    fn unary(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let op = ast.node(n).attrs.opcode.map(|o| ast.str(o)).unwrap_or("");
        let c = *self
            .expr_children(n)
            .first()
            .ok_or_else(|| FrontError::input(span, "operator without operand"))?;
        match op {
            "*" => {
                let p = self.pointer(c)?;
                let t = self.type_of(n);
                self.deref(p, t, span).map(Value::L)
            }
            "&" => {
                let lv = self.lvalue(c)?;
                match lv {
                    LV::Mem(p) => Ok(Value::R(RV::Ptr(Pointer {
                        region: p.region(),
                        off: p.off,
                        pointee: p.ty,
                    }))),
                    LV::Obj(o) => Ok(Value::R(RV::Ptr(Pointer {
                        region: Region::Obj(o),
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: CType::Record(self.objs[o].record),
                    }))),
                    LV::Group(g) => Ok(Value::R(RV::Group(g))),
                    LV::Ptr(s) => Ok(Value::R(RV::Ptr(Pointer {
                        region: Region::Slot(s),
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: self.type_of(c),
                    }))),
                    _ => Err(
                        FrontError::unsupported(span, "the address of a local variable is not supported")
                            .with_help("pass the variable by reference, or use a local array"),
                    ),
                }
            }
            "++" | "--" => {
                let lv = self.lvalue(c)?;
                let postfix = ast.node(n).attrs.is_postfix;
                let one = RV::Scalar(Expr::int(1), CType::INT);
                let r = self.modify(lv.clone(), if op == "++" { "+" } else { "-" }, one, None, postfix, span)?;
                Ok(if postfix { Value::R(r.0) } else { Value::L(lv) })
            }
            "__extension__" => self.eval(c),
            "-" | "~" | "!" | "+" => {
                let (e, t) = self.scalar(c)?;
                let rt = self.type_of(n);
                Ok(Value::R(RV::Scalar(
                    match op {
                        "!" => Expr::Un(UnOp::Not, ScalarTy::Bool, Box::new(to_bool(e, &t))),
                        "+" => convert(e, &t, &rt),
                        _ if rt.is_integral() => Expr::Un(
                            if op == "-" { UnOp::Neg } else { UnOp::BitNot },
                            rt.scalar(),
                            Box::new(convert(e, &t, &rt)),
                        ),
                        _ => Expr::Opaque(rt.scalar(), vec![e]),
                    },
                    rt,
                )))
            }
            _ => Err(FrontError::unsupported(
                span,
                format!("operator `{op}` is not supported"),
            )),
        }
    }

    /// `lv op= value` and `++`/`--`: returns (old value, new value) as rvalues.
    pub(crate) fn modify(
        &mut self,
        lv: LV,
        op: &str,
        value: RV,
        compute: Option<CType>,
        want_old: bool,
        span: Span,
    ) -> FResult<(RV, RV)> {
        match lv {
            LV::Ptr(s) => {
                let RV::Scalar(ve, vt) = value else {
                    return Err(FrontError::unsupported(span, "pointer arithmetic with a non-integer"));
                };
                let sl = self.slots[s].clone();
                if sl.region == Region::Code {
                    return Err(FrontError::unsupported(span, "arithmetic on a function's address")
                        .with_help("call the function through the pointer it was given"));
                }
                let size = self.size_of(&sl.pointee, span)? as i64;
                no_slot_arith(&sl.region, &ve, span)?;
                let mut idx = convert(ve, &vt, &CType::U64);
                if op == "-" {
                    idx = Expr::Un(UnOp::Neg, ScalarTy::U64, Box::new(idx));
                }
                let old = sl.off.expr();
                let new = add_offset(old.clone(), idx, size);
                let old_off = if want_old {
                    self.snapshot(old, ScalarTy::U64)
                } else {
                    old
                };
                let old_p = Pointer {
                    region: sl.region.clone(),
                    off: old_off,
                    pointee: sl.pointee.clone(),
                };
                let new_p = Pointer {
                    region: sl.region.clone(),
                    off: new.clone(),
                    pointee: sl.pointee.clone(),
                };
                self.assign_ptr(s, new_p.clone(), span)?;
                Ok((RV::Ptr(old_p), RV::Ptr(new_p)))
            }
            LV::Var(v, t) => {
                let old = Expr::Var(v);
                let snap = if want_old {
                    self.snapshot(old.clone(), t.scalar())
                } else {
                    old.clone()
                };
                let new = self.arith(op, RV::Scalar(old, t.clone()), value, compute.as_ref(), &t, span)?;
                self.ops.push(Op::Assign(v, new.clone()));
                Ok((RV::Scalar(snap, t.clone()), RV::Scalar(Expr::Var(v), t)))
            }
            LV::Mem(p) => {
                let old = self.read(&p)?;
                let new = self.arith(
                    op,
                    RV::Scalar(old.clone(), p.ty.clone()),
                    value,
                    compute.as_ref(),
                    &p.ty,
                    span,
                )?;
                self.write(&p, new.clone())?;
                Ok((RV::Scalar(old, p.ty.clone()), RV::Scalar(new, p.ty)))
            }
            other => Err(FrontError::unsupported(
                span,
                format!("cannot modify {}", lv_what(&other)),
            )),
        }
    }

    /// `a op b` computed in `compute` (the promoted type) and converted to `result`.
    fn arith(&mut self, op: &str, a: RV, b: RV, compute: Option<&CType>, result: &CType, span: Span) -> FResult<Expr> {
        let (RV::Scalar(ae, at), RV::Scalar(be, bt)) = (a, b) else {
            return Err(FrontError::unsupported(span, "arithmetic on a pointer or object"));
        };
        if !at.is_integral() || !bt.is_integral() || !result.is_integral() {
            // Floating-point arithmetic: opaque, a function of its operands.
            return Ok(Expr::Opaque(result.scalar(), vec![ae, be]));
        }
        let ct = compute.cloned().unwrap_or_else(|| promote(&at, &bt));
        let e = bin_expr(op, convert(ae, &at, &ct), convert(be, &bt, &ct), &ct);
        Ok(convert(e, &ct, result))
    }

    pub(crate) fn snapshot(&mut self, e: Expr, t: ScalarTy) -> Expr {
        if matches!(e, Expr::Const(..)) {
            return e;
        }
        let tmp = self.temp(t);
        self.ops.push(Op::Assign(tmp, e));
        Expr::Var(tmp)
    }

    fn binary(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let op = ast.node(n).attrs.opcode.map(|o| ast.str(o)).unwrap_or("").to_string();
        let kids = self.expr_children(n);
        let [l, r] = kids[..] else {
            return Err(FrontError::input(span, "bad binary operator"));
        };
        match op.as_str() {
            "=" => {
                // The right side is sequenced before the left (C++17).
                let rv = self.rvalue(r)?;
                let lv = self.lvalue(l)?;
                self.store(lv.clone(), rv, span)?;
                return Ok(Value::L(lv));
            }
            "," => {
                self.discard(l)?;
                return self.eval(r);
            }
            "&&" | "||" if self.has_effects(r) => return self.short_circuit(op == "&&", l, r).map(Value::R),
            _ => {}
        }
        let lt = self.type_of(l);
        let rt = self.type_of(r);
        let result = self.type_of(n);
        // Pointer arithmetic and comparisons.
        if lt.is_pointer() || rt.is_pointer() {
            return self.pointer_binary(&op, l, r, &result, span).map(Value::R);
        }
        let (le, lt) = self.scalar(l)?;
        let (re, rt) = self.scalar(r)?;
        let e = match op.as_str() {
            "&&" | "||" => {
                let b = if op == "&&" { BinOp::And } else { BinOp::Or };
                Expr::Bin(
                    b,
                    ScalarTy::Bool,
                    Box::new(to_bool(le, &lt)),
                    Box::new(to_bool(re, &rt)),
                )
            }
            "<" | "<=" | ">" | ">=" | "==" | "!=" => {
                if lt.is_integral() && rt.is_integral() {
                    // Clang converted both operands to their common type already.
                    let ct = promote(&lt, &rt);
                    bin_expr(&op, convert(le, &lt, &ct), convert(re, &rt, &ct), &ct)
                } else {
                    Expr::Opaque(ScalarTy::Bool, vec![le, re])
                }
            }
            "<<" | ">>" => {
                if result.is_integral() && rt.is_integral() {
                    bin_expr(&op, convert(le, &lt, &result), convert(re, &rt, &result), &result)
                } else {
                    Expr::Opaque(result.scalar(), vec![le, re])
                }
            }
            _ => {
                if result.is_integral() && lt.is_integral() && rt.is_integral() {
                    bin_expr(&op, convert(le, &lt, &result), convert(re, &rt, &result), &result)
                } else {
                    Expr::Opaque(result.scalar(), vec![le, re])
                }
            }
        };
        Ok(Value::R(RV::Scalar(e, result)))
    }

    fn pointer_binary(&mut self, op: &str, l: NodeId, r: NodeId, result: &CType, span: Span) -> FResult<RV> {
        let lt = self.type_of(l);
        let rt = self.type_of(r);
        match op {
            "+" | "-" if lt.is_pointer() && rt.is_integral() || op == "+" && rt.is_pointer() && lt.is_integral() => {
                let (pn, inn) = if lt.is_pointer() { (l, r) } else { (r, l) };
                let p = self.pointer(pn)?;
                if p.region == Region::Code {
                    return Err(FrontError::unsupported(span, "arithmetic on a function's address")
                        .with_help("call the function through the pointer it was given"));
                }
                let (ie, it) = self.scalar(inn)?;
                let size = self.size_of(&p.pointee, span)? as i64;
                no_slot_arith(&p.region, &ie, span)?;
                let mut idx = convert(ie, &it, &CType::U64);
                if op == "-" {
                    idx = Expr::Un(UnOp::Neg, ScalarTy::U64, Box::new(idx));
                }
                Ok(RV::Ptr(Pointer {
                    region: p.region,
                    off: add_offset(p.off, idx, size),
                    pointee: p.pointee,
                }))
            }
            "-" => {
                // Pointer difference: exact within one array.
                let a = self.pointer(l)?;
                let b = self.pointer(r)?;
                let size = self.size_of(&a.pointee, span)? as i64;
                if a.region == b.region && matches!(a.region, Region::Array(_)) {
                    let d = Expr::Bin(BinOp::Sub, ScalarTy::I64, Box::new(a.off), Box::new(b.off));
                    let d = Expr::Bin(
                        BinOp::Div,
                        ScalarTy::I64,
                        Box::new(d),
                        Box::new(Expr::Const(size, ScalarTy::I64)),
                    );
                    return Ok(RV::Scalar(
                        convert(d, &CType::Int { bits: 64, signed: true }, result),
                        result.clone(),
                    ));
                }
                Ok(RV::Scalar(Expr::Unknown(result.scalar()), result.clone()))
            }
            "==" | "!=" | "<" | "<=" | ">" | ">=" => {
                let a = self.rvalue(l)?;
                let b = self.rvalue(r)?;
                let (RV::Ptr(a), RV::Ptr(b)) = (a, b) else {
                    return Ok(RV::Scalar(Expr::Unknown(ScalarTy::Bool), CType::Bool));
                };
                if a.region == b.region && matches!(a.region, Region::Array(_)) {
                    let s = CType::Int { bits: 64, signed: true };
                    return Ok(RV::Scalar(bin_expr(op, a.off, b.off, &s), CType::Bool));
                }
                // Function addresses (and null, 0) compare by their numbers.
                if matches!(a.region, Region::Code | Region::Null) && matches!(b.region, Region::Code | Region::Null) {
                    return Ok(RV::Scalar(bin_expr(op, a.off, b.off, &CType::U64), CType::Bool));
                }
                Ok(RV::Scalar(Expr::Unknown(ScalarTy::Bool), CType::Bool))
            }
            "&&" | "||" => {
                let (le, lt) = self.scalar(l)?;
                let (re, rt) = self.scalar(r)?;
                let b = if op == "&&" { BinOp::And } else { BinOp::Or };
                Ok(RV::Scalar(
                    Expr::Bin(
                        b,
                        ScalarTy::Bool,
                        Box::new(to_bool(le, &lt)),
                        Box::new(to_bool(re, &rt)),
                    ),
                    CType::Bool,
                ))
            }
            _ => Err(FrontError::unsupported(span, format!("operator `{op}` on pointers"))),
        }
    }

    fn compound_assign(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let op = ast.node(n).attrs.opcode.map(|o| ast.str(o)).unwrap_or("").to_string();
        let kids = self.expr_children(n);
        let [l, r] = kids[..] else {
            return Err(FrontError::input(span, "bad compound assignment"));
        };
        let rv = self.rvalue(r)?;
        let lv = self.lvalue(l)?;
        let lt = self.type_of(l);
        let rt = self.type_of(r);
        let compute = if lt.is_integral() && rt.is_integral() {
            Some(match op.as_str() {
                "<<=" | ">>=" => promote(&lt, &CType::INT),
                _ => promote(&lt, &rt),
            })
        } else {
            None
        };
        self.modify(lv.clone(), op.trim_end_matches('='), rv, compute, false, span)?;
        Ok(Value::L(lv))
    }

    /// `a && b` / `a || b` where `b` has effects: `b` runs only when needed.
    fn short_circuit(&mut self, and: bool, l: NodeId, r: NodeId) -> FResult<RV> {
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
        self.synthetic_if(guard, then_blk);
        Ok(RV::Scalar(Expr::Var(c), CType::Bool))
    }

    fn conditional(&mut self, n: NodeId) -> FResult<Value> {
        self.conditional_as(n, false)
    }

    /// `c ? a : b`; with `loaded`, a glvalue conditional whose value is read right away is
    /// lowered as the choice between the two values.
    fn conditional_as(&mut self, n: NodeId, loaded: bool) -> FResult<Value> {
        let span = self.span(n);
        let kids = self.expr_children(n);
        let [c, a, b] = kids[..] else {
            return Err(FrontError::input(span, "bad ?:"));
        };
        let ce = self.cond(c)?;
        let t = self.type_of(n);
        let glvalue = self
            .ast
            .node(n)
            .attrs
            .value_category
            .is_some_and(|v| self.ast.str(v) != "prvalue")
            && !loaded;
        if !self.has_effects(a) && !self.has_effects(b) && !glvalue {
            let av = self.rvalue(a)?;
            let bv = self.rvalue(b)?;
            return match (av, bv) {
                (RV::Scalar(ae, at), RV::Scalar(be, bt)) => Ok(Value::R(RV::Scalar(
                    Expr::Select(
                        Box::new(ce),
                        Box::new(convert(ae, &at, &t)),
                        Box::new(convert(be, &bt, &t)),
                    ),
                    t,
                ))),
                (RV::Ptr(pa), RV::Ptr(pb)) => Ok(Value::R(RV::Ptr(self.select_pointer(&ce, pa, pb, span)?))),
                (RV::Group(g), _) => Ok(Value::R(RV::Group(g))),
                _ => Err(FrontError::unsupported(span, "?: on objects")),
            };
        }
        if glvalue {
            // `(c ? x : y) = v`: both places in one array → select the offset.
            let la = self.lvalue(a)?;
            let lb = self.lvalue(b)?;
            return match (la, lb) {
                (LV::Mem(pa), LV::Mem(pb)) if pa.array == pb.array => Ok(Value::L(LV::Mem(Place {
                    array: pa.array,
                    off: Expr::Select(Box::new(ce), Box::new(pa.off), Box::new(pb.off)),
                    ty: pa.ty,
                    span,
                    alt: None,
                }))),
                _ => Err(FrontError::unsupported(
                    span,
                    "?: choosing between two different variables as an lvalue",
                )),
            };
        }
        // Memory accesses in a branch run only for the threads that take it.
        let cv = self.temp(ScalarTy::Bool);
        self.ops.push(Op::Assign(cv, ce));
        self.flush(false);
        match &t {
            CType::Ptr(pointee) => {
                let slot_var = self.temp(ScalarTy::U64);
                let slot = self.new_slot("$sel", Region::Null, SlotOff::Var(slot_var), (**pointee).clone());
                let then_blk = self.sub_block(|lw| {
                    let p = lw.pointer(a)?;
                    lw.assign_ptr(slot, p, span)
                })?;
                let else_blk = self.sub_block(|lw| {
                    let p = lw.pointer(b)?;
                    lw.assign_ptr(slot, p, span)
                })?;
                self.push_synthetic(StmtKind::If {
                    cond: Expr::Var(cv),
                    then_blk,
                    else_blk,
                });
                self.load(LV::Ptr(slot), span).map(Value::R)
            }
            CType::Void => {
                let then_blk = self.sub_block(|lw| lw.discard(a))?;
                let else_blk = self.sub_block(|lw| lw.discard(b))?;
                self.push_synthetic(StmtKind::If {
                    cond: Expr::Var(cv),
                    then_blk,
                    else_blk,
                });
                Ok(Value::R(RV::Void))
            }
            CType::Record(_) => Err(FrontError::unsupported(span, "?: on objects with side effects")),
            t => {
                let result = self.temp(t.scalar());
                let t2 = t.clone();
                let then_blk = self.sub_block(|lw| {
                    let (e, et) = lw.scalar(a)?;
                    lw.ops.push(Op::Assign(result, convert(e, &et, &t2)));
                    Ok(())
                })?;
                let t3 = t.clone();
                let else_blk = self.sub_block(|lw| {
                    let (e, et) = lw.scalar(b)?;
                    lw.ops.push(Op::Assign(result, convert(e, &et, &t3)));
                    Ok(())
                })?;
                self.push_synthetic(StmtKind::If {
                    cond: Expr::Var(cv),
                    then_blk,
                    else_blk,
                });
                Ok(Value::R(RV::Scalar(Expr::Var(result), t.clone())))
            }
        }
    }

    fn cast(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let ck = ast
            .node(n)
            .attrs
            .cast_kind
            .map(|c| ast.str(c))
            .unwrap_or("NoOp")
            .to_string();
        let c = *self
            .expr_children(n)
            .first()
            .ok_or_else(|| FrontError::input(span, "cast without operand"))?;
        let to = self.type_of(n);
        match ck.as_str() {
            "LValueToRValue" => {
                if self.lvalue_conditional(c).is_some() {
                    return self.rvalue(c).map(Value::R);
                }
                let lv = self.lvalue(c)?;
                self.load(lv, span).map(Value::R)
            }
            "NoOp" | "AtomicToNonAtomic" | "NonAtomicToAtomic" | "AddressSpaceConversion" => match self.eval(c)? {
                Value::R(RV::Scalar(e, t)) if to.is_integral() && t != to => {
                    Ok(Value::R(RV::Scalar(convert(e, &t, &to), to)))
                }
                v => Ok(v),
            },
            "ToVoid" => {
                self.discard(c)?;
                Ok(Value::R(RV::Void))
            }
            "ArrayToPointerDecay" => self.array_decay(c, span),
            "FunctionToPointerDecay" => Ok(Value::R(RV::Ptr(self.code_pointer(c)?))),
            "NullToPointer" => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: to.pointee().cloned().unwrap_or(CType::Void),
            }))),
            "BitCast"
            | "CPointerToObjCPointerCast"
            | "ReinterpretMemberPointer"
            | "LValueBitCast"
            | "DerivedToBase"
            | "UncheckedDerivedToBase"
            | "BaseToDerived" => self.pointer_cast(n, &ck, c, &to, span),
            "IntegralCast" if self.derived_address(c) => self.eval(c),
            "IntegralCast"
            | "IntegralToBoolean"
            | "BooleanToSignedIntegral"
            | "IntegralToFloating"
            | "FloatingToIntegral"
            | "FloatingCast"
            | "FloatingToBoolean"
            | "FloatingRealToComplex"
            | "IntegralRealToComplex" => {
                let (e, t) = self.scalar(c)?;
                let e = if ck == "BooleanToSignedIntegral" {
                    Expr::Select(
                        Box::new(to_bool(e, &t)),
                        Box::new(Expr::Const(-1, to.scalar())),
                        Box::new(Expr::Const(0, to.scalar())),
                    )
                } else {
                    convert(e, &t, &to)
                };
                Ok(Value::R(RV::Scalar(e, to)))
            }
            "PointerToBoolean" => match self.rvalue(c)? {
                RV::Ptr(p) => Ok(Value::R(RV::Scalar(
                    match p.region {
                        Region::Null => Expr::bool(false),
                        Region::Array(_) | Region::Obj(_) | Region::Slot(_) | Region::Choice(..) => Expr::bool(true),
                        Region::Unknown(_) => Expr::Unknown(ScalarTy::Bool),
                        // A function's number is never 0; 0 is null.
                        Region::Code => Expr::Bin(
                            BinOp::Ne,
                            ScalarTy::U64,
                            Box::new(p.off),
                            Box::new(Expr::Const(0, ScalarTy::U64)),
                        ),
                    },
                    CType::Bool,
                ))),
                _ => Ok(Value::R(RV::Scalar(Expr::Unknown(ScalarTy::Bool), CType::Bool))),
            },
            "PointerToIntegral" => match self.rvalue(c)? {
                // An address as a number: kept as the pointer, for inline asm and `__cvta_*`.
                RV::Ptr(p) => Ok(Value::R(RV::Ptr(p))),
                _ => Ok(Value::R(RV::Scalar(Expr::Unknown(to.scalar()), to))),
            },
            "IntegralToPointer" => {
                self.scalar(c)?;
                Ok(Value::R(RV::Ptr(Pointer {
                    region: Region::Unknown("a pointer made from an integer".into()),
                    off: Expr::Const(0, ScalarTy::U64),
                    pointee: to.pointee().cloned().unwrap_or(CType::Void),
                })))
            }
            "UserDefinedConversion" | "ConstructorConversion" => self.eval(c),
            "Dependent" => Err(FrontError::missing(
                span,
                "a dependent expression in uninstantiated template code",
                "instantiate the template",
            )),
            other => Err(FrontError::unsupported(
                span,
                format!("cast `{other}` is not supported"),
            )),
        }
    }

    /// An array decaying to a pointer to its first element.
    fn array_decay(&mut self, c: NodeId, span: Span) -> FResult<Value> {
        // A string literal (an assertion's message): a pointer nothing may read through.
        if self.is_string_literal(c) {
            return Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Unknown("a string literal".into()),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Int { bits: 8, signed: true },
            })));
        }
        match self.lvalue(c)? {
            LV::Mem(p) => {
                let elem = match &p.ty {
                    CType::Array(e, _) => (**e).clone(),
                    t => t.clone(),
                };
                Ok(Value::R(RV::Ptr(Pointer {
                    region: p.region(),
                    off: p.off,
                    pointee: elem,
                })))
            }
            other => Err(FrontError::unsupported(
                span,
                format!("array decay of {}", lv_what(&other)),
            )),
        }
    }

    /// Casts that keep the address and change the type: bit casts, reinterpreted references, base/derived conversions.
    fn pointer_cast(&mut self, n: NodeId, ck: &str, c: NodeId, to: &CType, span: Span) -> FResult<Value> {
        let ast = self.ast;
        match ck {
            "BitCast" | "CPointerToObjCPointerCast" | "ReinterpretMemberPointer" => match self.rvalue(c)? {
                RV::Ptr(p) => Ok(Value::R(RV::Ptr(Pointer {
                    pointee: to.pointee().cloned().unwrap_or(p.pointee),
                    ..p
                }))),
                other => Ok(Value::R(other)),
            },
            // `reinterpret_cast<T&>(obj)`: the same bytes read as another type (CUB's
            // `Uninitialized<T>::Alias()` over temporary storage, a union member by reference).
            "LValueBitCast" => match self.lvalue(c)? {
                LV::Mem(p) => Ok(Value::L(LV::Mem(Place {
                    ty: to.unref().clone(),
                    ..p
                }))),
                LV::Obj(o) if matches!(to.unref(), CType::Record(r) if self.types.definition(*r) == self.objs[o].record) => {
                    Ok(Value::L(LV::Obj(o)))
                }
                other => Err(FrontError::unsupported(
                    span,
                    format!(
                        "reinterpreting {} as `{}`",
                        lv_what(&other),
                        ast.ty(n).unwrap_or("another type")
                    ),
                )
                .with_help("autosync follows reinterpreted memory in shared or global arrays, not in local objects")),
            },
            "DerivedToBase" | "UncheckedDerivedToBase" | "BaseToDerived" => {
                let from = self.type_of(c);
                match self.eval(c)? {
                    Value::R(RV::Ptr(p)) => {
                        let delta = self.base_offset(from.pointee(), to.pointee(), ck, span)?;
                        Ok(Value::R(RV::Ptr(Pointer {
                            off: add_offset(p.off, Expr::Const(delta, ScalarTy::I64), 1),
                            pointee: to.pointee().cloned().unwrap_or(p.pointee),
                            region: p.region,
                        })))
                    }
                    Value::L(LV::Mem(p)) => {
                        let delta = self.base_offset(Some(&from), Some(to), ck, span)?;
                        Ok(Value::L(LV::Mem(Place {
                            off: add_offset(p.off, Expr::Const(delta, ScalarTy::I64), 1),
                            ty: to.clone(),
                            ..p
                        })))
                    }
                    // Local objects hold their bases' fields: the same object.
                    v => Ok(v),
                }
            }
            other => unreachable!("not a pointer cast: {other}"),
        }
    }

    /// Whether an integer expression holds an address (a `__cvta_*` result, a pointer cast to
    /// an integer, or a variable holding one): integer casts keep it a pointer.
    pub(crate) fn derived_address(&self, n: NodeId) -> bool {
        let ast = self.ast;
        match ast.kind(n) {
            "ImplicitCastExpr" | "CStyleCastExpr" | "CXXStaticCastExpr" | "CXXFunctionalCastExpr" | "ParenExpr" => {
                let ck = ast.node(n).attrs.cast_kind.map(|c| ast.str(c)).unwrap_or("");
                ck == "PointerToIntegral" || self.expr_children(n).first().is_some_and(|&c| self.derived_address(c))
            }
            "CallExpr" => self.expr_children(n).first().is_some_and(|&callee| {
                let mut found = false;
                ast.walk(callee, &mut |x| {
                    if let Some(r) = ast.node(x).attrs.referenced {
                        found |= ast.str(r.name).starts_with("__cvta_generic_to_");
                    }
                });
                found
            }),
            "DeclRefExpr" => {
                ast.node(n).attrs.referenced.is_some_and(|r| {
                    self.type_of(n).is_integral() && matches!(self.env.get(&r.id), Some(Binding::Ptr(_)))
                })
            }
            _ => false,
        }
    }

    /// Byte offset of a base class inside a derived one (for pointer casts along the
    /// hierarchy; negative for base-to-derived).
    fn base_offset(&self, from: Option<&CType>, to: Option<&CType>, kind: &str, span: Span) -> FResult<i64> {
        let (Some(CType::Record(f)), Some(CType::Record(t))) = (from, to) else {
            return Ok(0);
        };
        let (derived, base, sign) = if kind == "BaseToDerived" {
            (*t, *f, -1)
        } else {
            (*f, *t, 1)
        };
        let base = self.types.definition(base);
        let mut stack = vec![(self.types.definition(derived), 0u64)];
        while let Some((r, off)) = stack.pop() {
            if r == base {
                return Ok(sign * off as i64);
            }
            let l = self.types.layout(r).map_err(|m| FrontError::unsupported(span, m))?;
            for (b, o) in &l.bases {
                stack.push((self.types.definition(*b), off + o));
            }
        }
        Ok(0)
    }

    fn lambda(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let rec = ast
            .children_of_kind(n, "CXXRecordDecl")
            .next()
            .ok_or_else(|| FrontError::unsupported(span, "lambda without a closure class"))?;
        let rec_id = ast.node(rec).id;
        if let Some(t) = ast.node(n).ty {
            self.types.add_lambda(ast.type_str(t), rec_id);
        }
        let o = self.new_obj(rec_id, "$lambda", span)?;
        let layout = self
            .types
            .layout(rec_id)
            .map_err(|m| FrontError::unsupported(span, m))?;
        // Capture initializers follow the class, one per field, before the body.
        let inits: Vec<NodeId> = ast
            .children(n)
            .filter(|&c| !matches!(ast.kind(c), "CXXRecordDecl" | "CompoundStmt" | "ParmVarDecl"))
            .collect();
        for (f, init) in layout.fields.iter().zip(inits) {
            self.init_field(o, f.id, &f.ty, init, span)?;
        }
        Ok(Value::R(RV::Obj(o)))
    }

    /// Initializes field `fid` of object `o` from expression `init`.
    pub(crate) fn init_field(&mut self, o: usize, fid: u64, ty: &CType, init: NodeId, span: Span) -> FResult<()> {
        if let CType::Ref(_) = ty {
            let lv = self.lvalue(init)?;
            let b = self.lv_binding(lv);
            self.objs[o].fields.insert(fid, b);
            return Ok(());
        }
        let dst = self.objs[o]
            .fields
            .get(&fid)
            .cloned()
            .ok_or_else(|| FrontError::unsupported(span, "initializer for an unknown field"))?;
        let dst = self.binding_lv(&dst);
        match (&dst, self.ast.kind(init)) {
            (LV::Obj(d), "InitListExpr") => self.init_obj_list(*d, init, span),
            (LV::Mem(p), "InitListExpr") if self.arrays[p.array.0 as usize].space == Space::Local => {
                // Local arrays never race; evaluate the elements for their effects.
                for c in self.expr_children(init) {
                    self.discard(c)?;
                }
                Ok(())
            }
            (LV::Obj(d), "CXXConstructExpr") => self.construct_into(*d, init),
            (_, "ArrayInitLoopExpr") => self.copy_array(dst, init, span),
            _ => {
                let rv = self.rvalue(init)?;
                self.store(dst, rv, span)
            }
        }
    }

    /// An array member copied element by element (`ArrayInitLoopExpr`, what Clang writes for
    /// an array member in an implicit copy constructor or a lambda's capture): a read of the
    /// whole source array and a write of the whole destination, except where either is a
    /// local array (local arrays never race; their contents are opaque).
    fn copy_array(&mut self, dst: LV, init: NodeId, span: Span) -> FResult<()> {
        let src = self
            .expr_children(init)
            .first()
            .and_then(|&o| self.expr_children(o).first().copied())
            .ok_or_else(|| FrontError::input(span, "an array copy without a source"))?;
        let local = |l: &Self, p: &Place| l.arrays[p.array.0 as usize].space == Space::Local;
        match self.lvalue(src)? {
            LV::Mem(p) if !local(self, &p) => {
                self.read(&p)?;
            }
            LV::Mem(_) => {}
            other => {
                return Err(FrontError::unsupported(
                    span,
                    format!("an array copy from {}", lv_what(&other)),
                ))
            }
        }
        match dst {
            LV::Mem(p) if !local(self, &p) => self.write(&p, Expr::Unknown(ScalarTy::Opaque)),
            LV::Mem(_) => Ok(()),
            other => Err(FrontError::unsupported(
                span,
                format!("an array copy into {}", lv_what(&other)),
            )),
        }
    }

    /// Aggregate initialization `T x = {a, b, ...}`: fields in order.
    pub(crate) fn init_obj_list(&mut self, o: usize, list: NodeId, span: Span) -> FResult<()> {
        let rec = self.objs[o].record;
        let layout = self.types.layout(rec).map_err(|m| FrontError::unsupported(span, m))?;
        let elems = self.expr_children(list);
        // Direct fields only (aggregate bases come first as whole objects; rare in kernels).
        let direct: Vec<&super::types::Field> = layout
            .fields
            .iter()
            .filter(|f| self.ast.decls.get(&f.id).and_then(|d| d.parent) == Some(rec) || layout.bases.is_empty())
            .collect();
        for (f, e) in direct.into_iter().zip(elems) {
            if self.ast.kind(e) == "ImplicitValueInitExpr" {
                continue;
            }
            self.init_field(o, f.id, &f.ty.clone(), e, span)?;
        }
        Ok(())
    }
}

/// The usual arithmetic conversions of two integer operands.
pub(crate) fn promote(a: &CType, b: &CType) -> CType {
    let bits_sign = |t: &CType| match t.unref() {
        CType::Int { bits, signed } => (*bits, *signed),
        _ => (32, true),
    };
    let (ab, asg) = bits_sign(a);
    let (bb, bsg) = bits_sign(b);
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

/// A binary operator on two operands of type `t`.
pub(crate) fn bin_expr(op: &str, l: Expr, r: Expr, t: &CType) -> Expr {
    let s = t.scalar();
    let b = match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "&&" => BinOp::And,
        "||" => BinOp::Or,
        _ => return Expr::Opaque(s, vec![l, r]),
    };
    Expr::Bin(b, s, Box::new(l), Box::new(r))
}

pub(crate) fn lv_what(lv: &LV) -> &'static str {
    match lv {
        LV::Mem(_) => "a memory location",
        LV::Var(..) => "a variable",
        LV::Ptr(_) => "a pointer variable",
        LV::Obj(_) => "an object",
        LV::Const(..) => "a constant",
        LV::Group(_) => "a thread group",
    }
}

pub(crate) fn rv_what(rv: &RV) -> &'static str {
    match rv {
        RV::Scalar(..) => "a number",
        RV::Ptr(_) => "a pointer",
        RV::Obj(_) => "an object",
        RV::Group(_) => "a thread group",
        RV::Void => "nothing",
    }
}

/// Refuses arithmetic on the address of a pointer variable (`&p + 1`): such an address only
/// ever points at the variable itself, which is what lets `deref` take it at offset 0.
fn no_slot_arith(region: &Region, idx: &Expr, span: Span) -> FResult<()> {
    match (region, idx) {
        (Region::Slot(_), Expr::Const(0, _)) | (Region::Array(_) | Region::Obj(_) | Region::Choice(..), _) => Ok(()),
        (Region::Slot(_), _) => Err(
            FrontError::unsupported(span, "arithmetic on the address of a pointer variable")
                .with_help("keep pointers in local variables, one per array"),
        ),
        _ => Ok(()),
    }
}

impl Lowerer<'_> {
    /// The region of the pointer at byte offset `off` of pointer table `table`: its element's
    /// array, or for a variable index the choice of all of them.
    fn table_entry(&mut self, table: ArrayId, off: &Expr, span: Span) -> FResult<Region> {
        let n = self.pointer_tables[&table].elems.len();
        match off {
            Expr::Const(k, _) if *k >= 0 && k % 8 == 0 && ((*k / 8) as usize) < n => {
                Ok(Region::Array(self.table_array(table, (*k / 8) as usize, span)?))
            }
            Expr::Const(..) => Err(FrontError::unsupported(
                span,
                "an element outside an array of pointers in a kernel parameter",
            )),
            _ => {
                let arrays = (0..n)
                    .map(|i| self.table_array(table, i, span))
                    .collect::<FResult<Vec<_>>>()?;
                let index = Expr::Bin(
                    BinOp::Div,
                    ScalarTy::U64,
                    Box::new(off.clone()),
                    Box::new(Expr::Const(8, ScalarTy::U64)),
                );
                let t = self.temp(ScalarTy::U32);
                self.ops.push(Op::Assign(t, Expr::Cast(ScalarTy::U32, Box::new(index))));
                Ok(Region::Choice(arrays, Expr::Var(t)))
            }
        }
    }

    /// The array element `i` of pointer table `table` points into (made on first use).
    fn table_array(&mut self, table: ArrayId, i: usize, span: Span) -> FResult<ArrayId> {
        if let Some(a) = self.pointer_tables[&table].elems[i] {
            return Ok(a);
        }
        let t = &self.pointer_tables[&table];
        let (name, elem) = (format!("{}[{i}]", t.name), t.pointee.clone());
        let elem = match elem {
            CType::Void => CType::Int { bits: 8, signed: false },
            e => e,
        };
        let a = self.new_array(&name, Space::Global, &elem, vec![None], span)?;
        self.pointer_tables.get_mut(&table).expect("table").elems[i] = Some(a);
        Ok(a)
    }
}
