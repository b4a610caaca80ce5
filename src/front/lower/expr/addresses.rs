//! Addresses as numbers. A shared or global array's address is the same in every thread of a
//! block but unknown: it is a uniform symbolic value of its own (a parameter named `&array`:
//! 32 bits for shared memory, whose addresses fit in 32 bits in the shared window as PTX
//! code keeps them, 64 for global), so integer arithmetic on an address (rounding a pointer up
//! to an alignment, a swizzle that flips bits of it) is exact, and the integer turned back into
//! a pointer points into the same array at `number - &array`.
//!
//! Which array a number is the address of is its provenance: the one array whose address
//! it is computed from, directly or through variables that hold such numbers. A number
//! computed from two arrays' addresses (a difference of pointers) points into neither.

use super::super::convert::convert;
use super::super::lowerer::Lowerer;
use super::super::values::{Origin, Pointer, Region};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

impl Lowerer<'_> {
    /// A pointer as a number: `&array + offset` for a shared or global array, `None` where
    /// the address differs between threads or is not known (locals, unknown regions).
    pub(super) fn address_number(&mut self, p: &Pointer) -> Option<Expr> {
        let Region::Array(a) = p.region else {
            return None;
        };
        if self.arrays[a.0 as usize].space == Space::Local {
            return None;
        }
        let base = self.address_var(a);
        Some(Expr::Bin(
            BinOp::Add,
            ScalarTy::U64,
            Box::new(self.base_number(base)),
            Box::new(p.off.clone()),
        ))
    }

    /// The integer `e` of type `t` as a pointer: into the one array whose address it is
    /// computed from, at `e - &array`; `None` when that is not one array.
    pub(crate) fn pointer_from_number(&mut self, e: &Expr, t: &CType, pointee: CType, span: Span) -> Option<Pointer> {
        let a = self.provenance(e)?;
        self.rely_on_origins(e, span);
        let base = self.address_vars[&a];
        let e = convert(e.clone(), t, &CType::U64);
        let off = peel(&e, base)
            .unwrap_or_else(|| Expr::Bin(BinOp::Sub, ScalarTy::U64, Box::new(e), Box::new(self.base_number(base))));
        Some(Pointer {
            region: Region::Array(a),
            off,
            pointee,
        })
    }

    /// Records what variable `v`, just given the value `e`, holds: a variable given numbers
    /// of two origins (two arrays' addresses, or an address and a plain number) holds no
    /// known array's address from then on.
    pub(crate) fn note_number(&mut self, v: VarId, e: &Expr) {
        let now = self.origin(e);
        let next = match self.number_vars.get(&v) {
            None => now,
            Some(&before) if before == now => return,
            Some(_) => Origin::Mixed,
        };
        self.number_vars.insert(v, next);
    }

    /// Records the origins of the variables `e` mentions as the pointer made from it relies
    /// on them: a variable given a number of another origin later in a loop would make
    /// that pointer wrong on the next iteration (`check_number_origins`).
    fn rely_on_origins(&mut self, e: &Expr, span: Span) {
        let mut vars = Vec::new();
        e.for_each_var(&mut |v| vars.push(v));
        for v in vars {
            if !self.address_vars.values().any(|&b| b == v) {
                let origin = self.number_vars.get(&v).copied().unwrap_or(Origin::Plain);
                self.number_uses.push((v, origin, span));
            }
        }
    }

    /// Fails where a pointer was made from a number whose variables' origins changed after
    /// (a loop-carried variable given another array's address, or a plain number).
    pub(crate) fn check_number_origins(&self) -> FResult<()> {
        for &(v, origin, span) in &self.number_uses {
            let now = self.number_vars.get(&v).copied().unwrap_or(Origin::Plain);
            if now != origin {
                let name = &self.vars[v.0 as usize].name;
                return Err(FrontError::unsupported(
                    span,
                    format!("a pointer made from the integer `{name}`, which later holds numbers of another origin"),
                )
                .with_help("keep one array's address per integer variable, or use a pointer"));
            }
        }
        Ok(())
    }

    /// The one array whose address `e` is computed from.
    pub(crate) fn provenance(&self, e: &Expr) -> Option<ArrayId> {
        match self.origin(e) {
            Origin::Address(a) => Some(a),
            _ => None,
        }
    }

    /// Where a number comes from: the addresses and variables it mentions.
    fn origin(&self, e: &Expr) -> Origin {
        let mut arrays: Vec<ArrayId> = Vec::new();
        let mut mixed = false;
        e.for_each_var(&mut |v| {
            let a = match self.number_vars.get(&v) {
                Some(Origin::Address(a)) => Some(*a),
                Some(Origin::Mixed) => {
                    mixed = true;
                    None
                }
                Some(Origin::Plain) => None,
                None => self.address_vars.iter().find(|(_, &b)| b == v).map(|(&a, _)| a),
            };
            if let Some(a) = a.filter(|a| !arrays.contains(a)) {
                arrays.push(a);
            }
        });
        match arrays[..] {
            _ if mixed => Origin::Mixed,
            [] => Origin::Plain,
            [a] => Origin::Address(a),
            _ => Origin::Mixed,
        }
    }

    /// Array `a`'s address as a 64-bit number.
    pub(crate) fn address_number_of(&mut self, a: ArrayId) -> Expr {
        let base = self.address_var(a);
        self.base_number(base)
    }

    /// The variable holding an array's address (made on first use).
    fn address_var(&mut self, a: ArrayId) -> VarId {
        if let Some(&v) = self.address_vars.get(&a) {
            return v;
        }
        let array = &self.arrays[a.0 as usize];
        let (shared, len) = (array.space == Space::Shared, array.byte_len());
        let ty = if shared { ScalarTy::U32 } else { ScalarTy::U64 };
        let name = format!("&{}", array.name);
        let v = self.new_var(&name, ty, VarKind::Param);
        self.address_vars.insert(a, v);
        // The address is a multiple of the element type's alignment: a swizzle's bits of it
        // (`addr ^ ((addr >> 7) & 7) << 4`) then depend on the offset alone.
        let align = self.array_aligns.get(&a).copied().unwrap_or(1);
        if align > 1 {
            let rem = Expr::Bin(
                BinOp::Rem,
                ty,
                Box::new(Expr::Var(v)),
                Box::new(Expr::Const(align as i64, ty)),
            );
            let aligned = Expr::Bin(BinOp::Eq, ty, Box::new(rem), Box::new(Expr::Const(0, ty)));
            self.address_facts.push(aligned);
        }
        // Shared memory is a window of less than 256 KiB (228 KiB on sm_90/sm_100): the whole
        // array lies below 2^18, which the 18-bit address fields of matrix descriptors rely on.
        if shared {
            let end = (1i64 << 18) - len.unwrap_or(0).min(1 << 18) as i64;
            let below = Expr::Bin(BinOp::Le, ty, Box::new(Expr::Var(v)), Box::new(Expr::Const(end, ty)));
            self.address_facts.push(below);
        }
        v
    }

    /// An address variable's value as a 64-bit number.
    fn base_number(&self, base: VarId) -> Expr {
        match self.vars[base.0 as usize].ty {
            ScalarTy::U64 => Expr::Var(base),
            _ => Expr::Cast(ScalarTy::U64, Box::new(Expr::Var(base))),
        }
    }
}

/// `e - base` where `base` (as a 64-bit number) is a summand of `e`, through 64-bit additions,
/// subtractions and casts on the way down: `e` with that summand left out. Iterative, since
/// the chain is as long as the source's sum.
fn peel(e: &Expr, base: VarId) -> Option<Expr> {
    let is_base = |x: &Expr| match x {
        Expr::Var(v) => *v == base,
        Expr::Cast(ScalarTy::U64, x) => matches!(**x, Expr::Var(v) if v == base),
        _ => false,
    };
    let mentions = |x: &Expr| {
        let mut m = false;
        x.for_each_var(&mut |v| m |= v == base);
        m
    };
    let wide = |x: &Expr| match x {
        Expr::Bin(op, t, ..) => op.result_ty(*t).width() == 64,
        Expr::Cast(t, _) => t.width() == 64,
        _ => false,
    };
    // The path down to the summand: at each step, the other operand and whether it is
    // subtracted.
    let mut path: Vec<(&Expr, bool)> = Vec::new();
    let mut cur = e;
    while !is_base(cur) {
        cur = match cur {
            Expr::Bin(BinOp::Add, ty, a, b) if ty.width() == 64 => {
                let (down, other) = if mentions(a) { (a, b) } else { (b, a) };
                path.push((other, false));
                down
            }
            Expr::Bin(BinOp::Sub, ty, a, b) if ty.width() == 64 && !mentions(b) => {
                path.push((b, true));
                a
            }
            Expr::Cast(ty, x) if ty.width() == 64 && wide(x) => x,
            _ => return None,
        };
    }
    let mut off = Expr::Const(0, ScalarTy::U64);
    for (other, sub) in path.into_iter().rev() {
        let op = if sub { BinOp::Sub } else { BinOp::Add };
        off = Expr::Bin(op, ScalarTy::U64, Box::new(off), Box::new(other.clone()));
    }
    Some(off)
}
