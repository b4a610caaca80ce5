//! Operators: unary, binary and compound assignments as IR expressions (pointer arithmetic and
//! comparisons on regions), `&&`/`||` with effects short-circuited, and `?:`. An operator the IR
//! has no counterpart for is a located "unsupported" error, never an opaque value.

use super::value::*;
use crate::front::ast::{BinaryOp, NodeId, UnaryOp};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// A unary operator.
    pub(super) fn unary(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let op = ast.unary_op(n);
        let c = *self
            .expr_children(n)
            .first()
            .ok_or_else(|| FrontError::input(span, "operator without operand"))?;
        match op {
            Some(UnaryOp::Deref) => {
                let p = self.pointer(c)?;
                let t = self.type_of(n);
                self.deref(p, t, span).map(Value::L)
            }
            Some(UnaryOp::AddrOf) => {
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
            Some(UnaryOp::Inc | UnaryOp::Dec) => {
                let lv = self.lvalue(c)?;
                let postfix = ast.node(n).attrs.is_postfix;
                let one = RV::Scalar(Expr::int(1), CType::INT);
                let step = if op == Some(UnaryOp::Inc) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let r = self.modify(lv.clone(), step, one, None, postfix, span)?;
                Ok(if postfix { Value::R(r.0) } else { Value::L(lv) })
            }
            Some(UnaryOp::Extension) => self.eval(c),
            Some(UnaryOp::Minus | UnaryOp::Not | UnaryOp::LNot | UnaryOp::Plus) => {
                let (e, t) = self.scalar(c)?;
                let rt = self.type_of(n);
                Ok(Value::R(RV::Scalar(
                    match op {
                        Some(UnaryOp::LNot) => Expr::Un(UnOp::Not, ScalarTy::Bool, Box::new(to_bool(e, &t))),
                        Some(UnaryOp::Plus) => convert(e, &t, &rt),
                        _ if rt.is_integral() => Expr::Un(
                            if op == Some(UnaryOp::Minus) {
                                UnOp::Neg
                            } else {
                                UnOp::BitNot
                            },
                            rt.scalar(),
                            Box::new(convert(e, &t, &rt)),
                        ),
                        _ => Expr::Opaque(rt.scalar(), vec![e]),
                    },
                    rt,
                )))
            }
            _ => Err(self.unsupported_operator(n, span)),
        }
    }

    /// How operator node `n` spells its operator (empty when it has none).
    fn spelled_operator(&self, n: NodeId) -> &str {
        self.ast
            .node(n)
            .attrs
            .opcode
            .map(|o| self.ast.op_spelling(o))
            .unwrap_or("")
    }

    /// The error for an operator the lowering does not model, naming it.
    pub(super) fn unsupported_operator(&self, n: NodeId, span: Span) -> FrontError {
        let op = self.spelled_operator(n);
        FrontError::unsupported(span, format!("operator `{op}` is not supported"))
    }

    /// `lv op= value` and `++`/`--`: returns (old value, new value) as rvalues.
    pub(crate) fn modify(
        &mut self,
        lv: LV,
        op: BinOp,
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
                if op == BinOp::Sub {
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
    pub(super) fn arith(
        &mut self,
        op: BinOp,
        a: RV,
        b: RV,
        compute: Option<&CType>,
        result: &CType,
        span: Span,
    ) -> FResult<Expr> {
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

    /// The value of `e` now, in a temporary unless it is a constant.
    pub(crate) fn snapshot(&mut self, e: Expr, t: ScalarTy) -> Expr {
        if matches!(e, Expr::Const(..)) {
            return e;
        }
        let tmp = self.temp(t);
        self.ops.push(Op::Assign(tmp, e));
        Expr::Var(tmp)
    }

    /// A binary operator (assignment and comma included).
    pub(super) fn binary(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let op = ast.binary_op(n);
        let kids = self.expr_children(n);
        let [l, r] = kids[..] else {
            return Err(FrontError::input(span, "bad binary operator"));
        };
        match op {
            Some(BinaryOp::Assign) => {
                // The right side is sequenced before the left (C++17).
                let rv = self.rvalue(r)?;
                let lv = self.lvalue(l)?;
                self.store(lv.clone(), rv, span)?;
                return Ok(Value::L(lv));
            }
            Some(BinaryOp::Comma) => {
                self.discard(l)?;
                return self.eval(r);
            }
            Some(BinaryOp::LAnd | BinaryOp::LOr) if self.has_effects(r) => {
                return self.short_circuit(op == Some(BinaryOp::LAnd), l, r).map(Value::R)
            }
            _ => {}
        }
        // Pointers to members, `<=>` and operators Clang's later versions add are not modelled.
        let Some(op) = op.and_then(ir_op) else {
            return Err(self.unsupported_operator(n, span));
        };
        let lt = self.type_of(l);
        let rt = self.type_of(r);
        let result = self.type_of(n);
        // Pointer arithmetic and comparisons.
        if lt.is_pointer() || rt.is_pointer() {
            return self.pointer_binary(n, op, l, r, span).map(Value::R);
        }
        let (le, lt) = self.scalar(l)?;
        let (re, rt) = self.scalar(r)?;
        let e = match op {
            BinOp::And | BinOp::Or => Expr::Bin(
                op,
                ScalarTy::Bool,
                Box::new(to_bool(le, &lt)),
                Box::new(to_bool(re, &rt)),
            ),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                if lt.is_integral() && rt.is_integral() {
                    // Clang converted both operands to their common type already.
                    let ct = promote(&lt, &rt);
                    bin_expr(op, convert(le, &lt, &ct), convert(re, &rt, &ct), &ct)
                } else {
                    Expr::Opaque(ScalarTy::Bool, vec![le, re])
                }
            }
            BinOp::Shl | BinOp::Shr => {
                if result.is_integral() && rt.is_integral() {
                    bin_expr(op, convert(le, &lt, &result), convert(re, &rt, &result), &result)
                } else {
                    Expr::Opaque(result.scalar(), vec![le, re])
                }
            }
            _ => {
                if result.is_integral() && lt.is_integral() && rt.is_integral() {
                    bin_expr(op, convert(le, &lt, &result), convert(re, &rt, &result), &result)
                } else {
                    Expr::Opaque(result.scalar(), vec![le, re])
                }
            }
        };
        Ok(Value::R(RV::Scalar(e, result)))
    }

    /// A number for a region whose address is the same in every thread of the block (a global
    /// or shared array: its number + 1; null: 0); `None` for thread-local arrays and unknown
    /// regions.
    fn shared_address(&self, r: &Region) -> Option<i64> {
        match r {
            Region::Array(a) if self.arrays[a.0 as usize].space != Space::Local => Some(a.0 as i64 + 1),
            Region::Null => Some(0),
            _ => None,
        }
    }

    /// A binary operator with a pointer operand: arithmetic, difference, comparison, `&&`/`||`.
    pub(super) fn pointer_binary(&mut self, n: NodeId, op: BinOp, l: NodeId, r: NodeId, span: Span) -> FResult<RV> {
        let lt = self.type_of(l);
        let rt = self.type_of(r);
        let result = &self.type_of(n);
        match op {
            BinOp::Add | BinOp::Sub
                if lt.is_pointer() && rt.is_integral() || op == BinOp::Add && rt.is_pointer() && lt.is_integral() =>
            {
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
                if op == BinOp::Sub {
                    idx = Expr::Un(UnOp::Neg, ScalarTy::U64, Box::new(idx));
                }
                Ok(RV::Ptr(Pointer {
                    region: p.region,
                    off: add_offset(p.off, idx, size),
                    pointee: p.pointee,
                }))
            }
            BinOp::Sub => {
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
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
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
                // Arrays whose address every thread sees alike (global, shared) and null: the
                // result is a function of which arrays, which offsets and the operator, so a
                // parameter checked against null (`p != nullptr`) is as uniform as the offsets.
                if let (Some(ta), Some(tb)) = (self.shared_address(&a.region), self.shared_address(&b.region)) {
                    let code = [BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge]
                        .iter()
                        .position(|o| *o == op)
                        .unwrap_or(0) as i64;
                    let c = |v: i64| Expr::Const(v, ScalarTy::I64);
                    let args = vec![c(code), c(ta), a.off, c(tb), b.off];
                    return Ok(RV::Scalar(Expr::Opaque(ScalarTy::Bool, args), CType::Bool));
                }
                Ok(RV::Scalar(Expr::Unknown(ScalarTy::Bool), CType::Bool))
            }
            BinOp::And | BinOp::Or => {
                let (le, lt) = self.scalar(l)?;
                let (re, rt) = self.scalar(r)?;
                Ok(RV::Scalar(
                    Expr::Bin(
                        op,
                        ScalarTy::Bool,
                        Box::new(to_bool(le, &lt)),
                        Box::new(to_bool(re, &rt)),
                    ),
                    CType::Bool,
                ))
            }
            _ => {
                let spelled = self.spelled_operator(n);
                Err(FrontError::unsupported(
                    span,
                    format!("operator `{spelled}` on pointers"),
                ))
            }
        }
    }

    /// `lv op= value`.
    pub(super) fn compound_assign(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let kids = self.expr_children(n);
        let [l, r] = kids[..] else {
            return Err(FrontError::input(span, "bad compound assignment"));
        };
        let Some(op) = ast.binary_op(n).and_then(ir_op) else {
            return Err(self.unsupported_operator(n, span));
        };
        let rv = self.rvalue(r)?;
        let lv = self.lvalue(l)?;
        let lt = self.type_of(l);
        let rt = self.type_of(r);
        let compute = if lt.is_integral() && rt.is_integral() {
            Some(match op {
                BinOp::Shl | BinOp::Shr => promote(&lt, &CType::INT),
                _ => promote(&lt, &rt),
            })
        } else {
            None
        };
        self.modify(lv.clone(), op, rv, compute, false, span)?;
        Ok(Value::L(lv))
    }

    /// `a && b` / `a || b` where `b` has effects: `b` runs only when needed.
    pub(super) fn short_circuit(&mut self, and: bool, l: NodeId, r: NodeId) -> FResult<RV> {
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

    /// `c ? a : b`.
    pub(super) fn conditional(&mut self, n: NodeId) -> FResult<Value> {
        self.conditional_as(n, false)
    }

    /// `c ? a : b`; with `loaded`, a glvalue conditional whose value is read right away is
    /// lowered as the choice between the two values.
    pub(super) fn conditional_as(&mut self, n: NodeId, loaded: bool) -> FResult<Value> {
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
        let object = matches!(t, CType::Record(_));
        if !self.has_effects(a) && !self.has_effects(b) && !glvalue && !object {
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
            CType::Record(r) => {
                // Each branch copies its object into one fresh object.
                let o = self.new_obj(*r, "$sel", span)?;
                let copy_in = |lw: &mut Self, arm: NodeId| match lw.rvalue(arm)? {
                    RV::Obj(src) => lw.copy_obj(o, src, span),
                    other => Err(FrontError::unsupported(
                        span,
                        format!("?: between an object and {}", rv_what(&other)),
                    )),
                };
                let then_blk = self.sub_block(|lw| copy_in(lw, a))?;
                let else_blk = self.sub_block(|lw| copy_in(lw, b))?;
                self.push_synthetic(StmtKind::If {
                    cond: Expr::Var(cv),
                    then_blk,
                    else_blk,
                });
                Ok(Value::R(RV::Obj(o)))
            }
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
pub(crate) fn bin_expr(op: BinOp, l: Expr, r: Expr, t: &CType) -> Expr {
    Expr::Bin(op, t.scalar(), Box::new(l), Box::new(r))
}

/// The IR operator of a C++ binary operator that computes a value from two scalars (`None`:
/// assignment, comma, pointers to members, `<=>`, or one not listed).
pub(crate) fn ir_op(op: BinaryOp) -> Option<BinOp> {
    Some(match op {
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Sub => BinOp::Sub,
        BinaryOp::Mul => BinOp::Mul,
        BinaryOp::Div => BinOp::Div,
        BinaryOp::Rem => BinOp::Rem,
        BinaryOp::Shl => BinOp::Shl,
        BinaryOp::Shr => BinOp::Shr,
        BinaryOp::BitAnd => BinOp::BitAnd,
        BinaryOp::BitOr => BinOp::BitOr,
        BinaryOp::BitXor => BinOp::BitXor,
        BinaryOp::Lt => BinOp::Lt,
        BinaryOp::Le => BinOp::Le,
        BinaryOp::Gt => BinOp::Gt,
        BinaryOp::Ge => BinOp::Ge,
        BinaryOp::Eq => BinOp::Eq,
        BinaryOp::Ne => BinOp::Ne,
        BinaryOp::LAnd => BinOp::And,
        BinaryOp::LOr => BinOp::Or,
        BinaryOp::PtrMemD | BinaryOp::PtrMemI | BinaryOp::Cmp | BinaryOp::Assign | BinaryOp::Comma => return None,
        BinaryOp::Other(_) => return None,
    })
}
