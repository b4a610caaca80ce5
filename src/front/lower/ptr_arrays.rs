//! Local arrays of pointers (`T *counters[ITEMS];`, as CUB's radix rank keeps pointers into
//! shared memory): each element is a pointer variable of its own, so what it points into is
//! followed like any pointer's. An element chosen by a run-time index is the choice of all of
//! them (`i == 0 ? p0 : i == 1 ? p1 : ...`); a store at a run-time index updates each element
//! under `i == k`.

use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

/// The most elements an array of pointers is followed for (each is a pointer variable).
const MAX_ELEMS: u64 = 64;

impl Lowerer<'_> {
    /// For a local `T *name[n]`: a pointer variable per element, registered for `place`'s
    /// array. Whether it was one.
    pub(crate) fn local_pointer_array(&mut self, name: &str, t: &CType, place: &Place) -> bool {
        let CType::Array(e, Some(n)) = t else { return false };
        let CType::Ptr(pointee) = e.as_ref() else { return false };
        if matches!(**pointee, CType::Func) || *n > MAX_ELEMS {
            return false;
        }
        let slots = (0..*n)
            .map(|k| {
                let elem = format!("{name}[{k}]");
                let v = self.new_var(&elem, ScalarTy::U64, VarKind::Temp);
                self.new_slot(&elem, Region::Null, SlotOff::Var(v), (**pointee).clone())
            })
            .collect();
        self.pointer_arrays.insert(place.array, slots);
        true
    }

    /// The element at byte offset `off` of a local array of pointers, read.
    pub(crate) fn pointer_array_load(&mut self, array: ArrayId, off: &Expr, span: Span) -> FResult<Pointer> {
        let slots = self.pointer_arrays[&array].clone();
        if let Some(k) = const_elem(off, slots.len()) {
            return Ok(self.slot_pointer(slots[k]));
        }
        let index = self.elem_index(off);
        let mut acc = self.slot_pointer(*slots.last().expect("non-empty"));
        for (k, &s) in slots.iter().enumerate().rev().skip(1) {
            let here = self.slot_pointer(s);
            acc = self.select_pointer(&elem_is(&index, k), here, acc, span)?;
        }
        Ok(acc)
    }

    /// A store of pointer `p` at byte offset `off` of a local array of pointers.
    pub(crate) fn pointer_array_store(&mut self, array: ArrayId, off: &Expr, p: Pointer, span: Span) -> FResult<()> {
        let slots = self.pointer_arrays[&array].clone();
        if let Some(k) = const_elem(off, slots.len()) {
            return self.assign_ptr(slots[k], p, span);
        }
        let index = self.elem_index(off);
        for (k, &s) in slots.iter().enumerate() {
            let old = self.slot_pointer(s);
            let new = self.select_pointer(&elem_is(&index, k), p.clone(), old, span)?;
            self.assign_ptr(s, new, span)?;
        }
        Ok(())
    }

    /// The pointer variable `s` holds now.
    fn slot_pointer(&self, s: usize) -> Pointer {
        let sl = &self.slots[s];
        Pointer {
            region: sl.region.clone(),
            off: sl.off.expr(),
            pointee: sl.pointee.clone(),
        }
    }

    /// The element index of byte offset `off`, in a fresh variable (the offset may change).
    fn elem_index(&mut self, off: &Expr) -> Expr {
        let t = self.temp(ScalarTy::U64);
        let index = Expr::Bin(
            BinOp::Div,
            ScalarTy::U64,
            Box::new(off.clone()),
            Box::new(Expr::Const(8, ScalarTy::U64)),
        );
        self.ops.push(Op::Assign(t, index));
        Expr::Var(t)
    }

    /// `c ? a : b` for two pointers: one region when they share it, else the choice of their
    /// arrays.
    pub(crate) fn select_pointer(&mut self, c: &Expr, a: Pointer, b: Pointer, span: Span) -> FResult<Pointer> {
        let region = match (&a.region, &b.region) {
            (x, Region::Null) | (Region::Null, x) => x.clone(),
            (x, y) if x == y => x.clone(),
            (x, y) => match (array_choice(x), array_choice(y)) {
                (Some(ca), Some(cb)) => {
                    // The selector is taken now: `c` may change later.
                    let (arrays, sel) = choice_of(c, ca, cb);
                    let t = self.temp(ScalarTy::U32);
                    self.ops.push(Op::Assign(t, sel));
                    Region::Choice(arrays, Expr::Var(t))
                }
                _ => {
                    return Err(FrontError::unsupported(
                        span,
                        format!(
                            "a pointer that may point into {} or into {}",
                            self.region_name(x),
                            self.region_name(y)
                        ),
                    )
                    .with_help("use one pointer per array"))
                }
            },
        };
        Ok(Pointer {
            region,
            off: Expr::Select(Box::new(c.clone()), Box::new(a.off), Box::new(b.off)),
            pointee: a.pointee,
        })
    }
}

/// The element a constant byte offset names, if it is a whole element in range.
fn const_elem(off: &Expr, n: usize) -> Option<usize> {
    match off {
        Expr::Const(k, _) if *k >= 0 && k % 8 == 0 && ((k / 8) as usize) < n => Some((k / 8) as usize),
        _ => None,
    }
}

/// `index == k`.
fn elem_is(index: &Expr, k: usize) -> Expr {
    Expr::Bin(
        BinOp::Eq,
        ScalarTy::U64,
        Box::new(index.clone()),
        Box::new(Expr::Const(k as i64, ScalarTy::U64)),
    )
}

/// A region that is one or several arrays, as the list and the selector of the one meant.
fn array_choice(r: &Region) -> Option<(Vec<ArrayId>, Expr)> {
    match r {
        Region::Array(a) => Some((vec![*a], Expr::Const(0, ScalarTy::U32))),
        Region::Choice(arrays, sel) => Some((arrays.clone(), sel.clone())),
        _ => None,
    }
}

/// `c ? a : b` over two array choices: the arrays of both, `b`'s indexes shifted past `a`'s.
fn choice_of(
    c: &Expr,
    (mut arrays, sa): (Vec<ArrayId>, Expr),
    (others, sb): (Vec<ArrayId>, Expr),
) -> (Vec<ArrayId>, Expr) {
    let shift = arrays.len() as i64;
    arrays.extend(others);
    let sb = Expr::Bin(
        BinOp::Add,
        ScalarTy::U32,
        Box::new(sb),
        Box::new(Expr::Const(shift, ScalarTy::U32)),
    );
    (arrays, Expr::Select(Box::new(c.clone()), Box::new(sa), Box::new(sb)))
}
