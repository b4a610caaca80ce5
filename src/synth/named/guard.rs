//! Guards that peel a channel end off the first or last iterations of a counted role loop.
//!
//! A backward channel (consumer hands a buffer back to the producer) in aligned role loops can
//! be *shifted* by d iterations: the producer's `bar.sync` runs only from iteration d on
//! (`if (k >= d)`), the consumer's `bar.arrive` only while d more iterations follow
//! (`if (k + d < n)`). Both ends then run trips − d times, generation g pairing consumer
//! iteration g with producer iteration g + d. This is how authors write double-buffered
//! pipelines, and the cost model prices the guard like any other condition.

use autosync_oracle::ir::{BinOp, Block, Expr, Kernel, Label, Loop, Op, ScalarTy, StmtKind, VarId, VarKind};

/// A `for (v = start; v < bound; v++)` role loop whose bound does not change in the loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Counter {
    var: VarId,
    ty: ScalarTy,
    start: i64,
    cond: Expr,
}

/// A condition written around an inserted barrier: its IR and its C text.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    /// The condition in IR terms (what the checker sees).
    pub cond: Expr,
    /// The same condition as C source (what emission writes).
    pub text: String,
}

/// A barrier ID that cycles with the loop counter: `base + v % by`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rotation {
    var: VarId,
    ty: ScalarTy,
    name: String,
    /// How many IDs it cycles through.
    pub by: u32,
}

impl Rotation {
    /// The ID expression in IR terms.
    pub fn id_expr(&self, base: u32) -> Expr {
        let rem = Expr::Bin(
            BinOp::Rem,
            self.ty,
            Box::new(Expr::Var(self.var)),
            Box::new(Expr::Const(i64::from(self.by), self.ty)),
        );
        Expr::Bin(
            BinOp::Add,
            self.ty,
            Box::new(Expr::Const(i64::from(base), self.ty)),
            Box::new(rem),
        )
    }

    /// The ID expression as C source.
    pub fn id_text(&self, base: u32) -> String {
        format!("{base} + {} % {}", self.name, self.by)
    }
}

/// The counter of loop statement `l`, when the loop has that simple form.
pub fn counter(k: &Kernel, l: Label) -> Option<Counter> {
    let (parent, i) = find(&k.body, l)?;
    let StmtKind::Loop(Loop {
        header,
        cond,
        step,
        var: Some(v),
        ..
    }) = &parent.stmts[i].kind
    else {
        return None;
    };
    let v = *v;
    if !header.is_empty() {
        return None;
    }
    // `v < bound` with a bound made of parameters and constants only (so it cannot change).
    let Expr::Bin(BinOp::Lt, _, lhs, bound) = cond else {
        return None;
    };
    if **lhs != Expr::Var(v) || !invariant(k, bound) {
        return None;
    }
    // Step `v = v + 1`, init `v = c` right before the loop.
    let one = |e: &Expr| matches!(e, Expr::Bin(BinOp::Add, _, a, b) if **a == Expr::Var(v) && b.as_const() == Some(1));
    let stepped = step.len() == 1
        && matches!(&step[0].kind, StmtKind::Basic(ops) if matches!(ops.as_slice(), [Op::Assign(x, e)] if *x == v && one(e)));
    if !stepped {
        return None;
    }
    let prev = i.checked_sub(1).map(|j| &parent.stmts[j])?;
    let StmtKind::Basic(ops) = &prev.kind else { return None };
    let start = ops.iter().rev().find_map(|op| match op {
        Op::Assign(x, e) if *x == v => Some(e.as_const()),
        _ => None,
    })??;
    Some(Counter {
        var: v,
        ty: k.var(v).ty,
        start,
        cond: cond.clone(),
    })
}

impl Counter {
    /// IDs cycling through `by` values with the iteration: `v % by` is the iteration index
    /// modulo `by` when the counter starts at a non-negative multiple of `by`.
    pub fn rotation(&self, k: &Kernel, by: u32) -> Option<Rotation> {
        if by == 0 || self.start < 0 || self.start % i64::from(by) != 0 {
            return None;
        }
        let name = c_text(k, &Expr::Var(self.var), 0)?;
        Some(Rotation {
            var: self.var,
            ty: self.ty,
            name,
            by,
        })
    }

    /// `v >= start + d`: every iteration but the first `d`.
    pub fn from_iteration(&self, k: &Kernel, d: u32) -> Option<Guard> {
        let at = self.start.checked_add(i64::from(d))?;
        let cond = Expr::Bin(
            BinOp::Ge,
            self.ty,
            Box::new(Expr::Var(self.var)),
            Box::new(Expr::Const(at, self.ty)),
        );
        let text = c_text(k, &cond, 0)?;
        Some(Guard { cond, text })
    }

    /// `v + d < bound`: every iteration but the last `d`.
    pub fn before_last(&self, k: &Kernel, d: u32) -> Option<Guard> {
        let Expr::Bin(op, ty, _, bound) = &self.cond else {
            return None;
        };
        let shifted = Expr::Bin(
            BinOp::Add,
            self.ty,
            Box::new(Expr::Var(self.var)),
            Box::new(Expr::Const(i64::from(d), self.ty)),
        );
        let cond = Expr::Bin(*op, *ty, Box::new(shifted), bound.clone());
        let text = c_text(k, &cond, 0)?;
        Some(Guard { cond, text })
    }
}

/// The block holding statement `l` and its index there.
fn find(b: &Block, l: Label) -> Option<(&Block, usize)> {
    if let Some(i) = b.stmts.iter().position(|s| s.label == l) {
        return Some((b, i));
    }
    b.stmts.iter().find_map(|s| match &s.kind {
        StmtKind::If { then_blk, else_blk, .. } => find(then_blk, l).or_else(|| find(else_blk, l)),
        StmtKind::Loop(Loop { body, .. }) => find(body, l),
        _ => None,
    })
}

/// Whether `e` only reads parameters, constants and launch geometry.
fn invariant(k: &Kernel, e: &Expr) -> bool {
    match e {
        Expr::Const(..) | Expr::Builtin(_) => true,
        Expr::Var(v) => k.var(*v).kind == VarKind::Param,
        Expr::Un(_, _, a) | Expr::Cast(_, a) => invariant(k, a),
        Expr::Bin(_, _, a, b) => invariant(k, a) && invariant(k, b),
        Expr::Select(..) | Expr::Opaque(..) | Expr::Unknown(_) | Expr::Vote(..) | Expr::GroupValue(..) => false,
    }
}

/// C precedence of a binary operator (higher binds tighter).
fn prec(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        Mul | Div | Rem => 10,
        Add | Sub => 9,
        Shl | Shr => 8,
        Lt | Le | Gt | Ge => 7,
        Eq | Ne => 6,
        BitAnd => 5,
        BitXor => 4,
        BitOr => 3,
        And => 2,
        Or => 1,
    }
}

/// `e` as C source, parenthesized only where precedence needs it; `None` for what has no
/// faithful source form (temporaries, casts, opaque values).
fn c_text(k: &Kernel, e: &Expr, outer: u8) -> Option<String> {
    Some(match e {
        // Constants and launch geometry print the same as in the IR text.
        Expr::Const(..) | Expr::Builtin(_) => autosync_oracle::print::expr(k, e),
        Expr::Var(v) => {
            let var = k.var(*v);
            if var.kind == VarKind::Temp || !var.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            var.name.clone()
        }
        Expr::Bin(op, _, a, b) => {
            let p = prec(*op);
            let sym = autosync_oracle::print::bin_symbol(*op);
            // Left-associative: the right operand needs parentheses at equal precedence.
            let s = format!("{} {sym} {}", c_text(k, a, p)?, c_text(k, b, p + 1)?);
            if p < outer {
                format!("({s})")
            } else {
                s
            }
        }
        Expr::Un(..)
        | Expr::Cast(..)
        | Expr::Select(..)
        | Expr::Opaque(..)
        | Expr::Unknown(_)
        | Expr::Vote(..)
        | Expr::GroupValue(..) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(src: &str) -> Kernel {
        let opts = crate::front::FrontOptions::default();
        crate::front::lower_text(std::path::Path::new("t.cu"), src, &opts)
            .unwrap()
            .kernels
            .remove(0)
    }

    fn loops(k: &Kernel) -> Vec<Label> {
        let mut out = vec![];
        autosync_oracle::tree::for_each_stmt(&k.body, &mut |s| {
            if matches!(s.kind, StmtKind::Loop(_)) {
                out.push(s.label);
            }
        });
        out
    }

    #[test]
    fn counted_loops_get_guards() {
        let k = kernel(
            "//--blockDim=64\n__global__ void f(int *o, int n) {\n  for (int k = 2; k < n - 1; ++k) { o[k] = 1; }\n}\n",
        );
        let c = counter(&k, loops(&k)[0]).expect("a counted loop");
        assert_eq!(c.from_iteration(&k, 1).unwrap().text, "k >= 3");
        assert_eq!(c.before_last(&k, 2).unwrap().text, "k + 2 < n - 1");
        // k starts at 2: k % 2 is the iteration index modulo 2, k % 3 is not.
        assert_eq!(c.rotation(&k, 2).unwrap().id_text(5), "5 + k % 2");
        assert!(c.rotation(&k, 3).is_none());
    }

    #[test]
    fn other_loops_have_no_counter() {
        for body in [
            "for (int k = 0; k < n; k += 2) { o[k] = 1; }",
            "for (int k = 0; k <= n; ++k) { o[k] = 1; }",
            "int m = n; for (int k = 0; k < m; ++k) { o[k] = 1; }",
            "int k = 0; while (k < n) { o[k] = 1; k++; }",
        ] {
            let k = kernel(&format!(
                "//--blockDim=64\n__global__ void f(int *o, int n) {{\n  {body}\n}}\n"
            ));
            assert!(counter(&k, loops(&k)[0]).is_none(), "{body}");
        }
    }
}
