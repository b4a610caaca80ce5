//! Concrete evaluation of Z3 bit-vector formulas: a term is compiled once into a flat program
//! (one node per distinct subterm, in dependency order) and then evaluated under many
//! assignments of its constants at a few nanoseconds per node, with SMT-LIB's semantics
//! (division by zero included). A checker uses it to look for a model before it asks Z3:
//! an assignment under which the formula evaluates to true *is* a model, so whatever the
//! search finds is exact, and whatever it does not find goes to the solver as before.
//!
//! Only the operators the checkers build are compiled; any other one (arrays, integers,
//! uninterpreted functions, widths over 127 bits) makes [`Program::compile`] answer `None`.

use crate::smt::op_kind;
use std::collections::HashMap;
use z3::ast::{Ast, Dynamic};
use z3::SortKind;

/// The operator kinds compiled, as the numbers Z3's API returns (its enum of them is not read
/// directly: a kind it does not list, such as the installed library's number for an
/// uninterpreted constant, would be an invalid value of the Rust enum).
mod k {
    use z3::DeclKind as D;
    pub const AND: u32 = D::And as u32;
    pub const BADD: u32 = D::Badd as u32;
    pub const BAND: u32 = D::Band as u32;
    pub const BASHR: u32 = D::Bashr as u32;
    pub const BLSHR: u32 = D::Blshr as u32;
    pub const BMUL: u32 = D::Bmul as u32;
    pub const BNEG: u32 = D::Bneg as u32;
    pub const BNOT: u32 = D::Bnot as u32;
    pub const BNUM: u32 = D::Bnum as u32;
    pub const BOR: u32 = D::Bor as u32;
    pub const BSDIV: u32 = D::Bsdiv as u32;
    pub const BSHL: u32 = D::Bshl as u32;
    pub const BSMOD: u32 = D::Bsmod as u32;
    pub const BSREM: u32 = D::Bsrem as u32;
    pub const BSUB: u32 = D::Bsub as u32;
    pub const BUDIV: u32 = D::Budiv as u32;
    pub const BUREM: u32 = D::Burem as u32;
    pub const BXOR: u32 = D::Bxor as u32;
    pub const CONCAT: u32 = D::Concat as u32;
    pub const DISTINCT: u32 = D::Distinct as u32;
    pub const EQ: u32 = D::Eq as u32;
    pub const EXTRACT: u32 = D::Extract as u32;
    pub const FALSE: u32 = D::False as u32;
    pub const IFF: u32 = D::Iff as u32;
    pub const IMPLIES: u32 = D::Implies as u32;
    pub const ITE: u32 = D::Ite as u32;
    pub const NOT: u32 = D::Not as u32;
    pub const OR: u32 = D::Or as u32;
    pub const SGEQ: u32 = D::Sgeq as u32;
    pub const SGT: u32 = D::Sgt as u32;
    pub const SIGN_EXT: u32 = D::SignExt as u32;
    pub const SLEQ: u32 = D::Sleq as u32;
    pub const SLT: u32 = D::Slt as u32;
    pub const TRUE: u32 = D::True as u32;
    pub const UGEQ: u32 = D::Ugeq as u32;
    pub const UGT: u32 = D::Ugt as u32;
    pub const ULEQ: u32 = D::Uleq as u32;
    pub const ULT: u32 = D::Ult as u32;
    pub const XOR: u32 = D::Xor as u32;
    pub const ZERO_EXT: u32 = D::ZeroExt as u32;
}

/// The kind the installed Z3 gives an uninterpreted constant (its number changes between
/// versions).
fn uninterpreted() -> u32 {
    static KIND: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *KIND.get_or_init(|| op_kind(&Dynamic::from_ast(&z3::ast::Bool::new_const("probe"))).unwrap_or(u32::MAX))
}

/// A constant of a compiled term: its name and width (0 for a Boolean). Z3 tells constants
/// apart by name and sort, and so does this.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Var {
    /// The constant's name, as Z3 prints it.
    pub name: String,
    /// Bits of a bit-vector constant; 0 for a Boolean.
    pub width: u32,
}

/// What a node computes.
#[derive(Clone, Debug)]
enum Node {
    Var(usize),
    Num(u128),
    Op(Op, Vec<usize>),
}

/// The operators evaluated (bit-vector operators carry the width of their operands where it
/// differs from the result's).
#[derive(Clone, Copy, Debug)]
enum Op {
    And,
    Or,
    Not,
    Implies,
    Xor,
    Eq,
    Distinct,
    Ite,
    Neg,
    Add,
    Sub,
    Mul,
    Udiv,
    Sdiv,
    Urem,
    Srem,
    Smod,
    /// Unsigned or signed comparison (`<=`, `>=`, `<`, `>`), at the operands' width.
    Cmp(Cmp, bool, u32),
    BitAnd,
    BitOr,
    BitXor,
    BitNot,
    Concat(u32),
    SignExt(u32),
    ZeroExt,
    Extract(u32),
    Shl,
    Lshr,
    Ashr,
    /// The unsigned product of the two operands (of the given width) fits in it.
    MulNoOverflow(u32),
}

#[derive(Clone, Copy, Debug)]
enum Cmp {
    Le,
    Ge,
    Lt,
    Gt,
}

/// What a comparison root asks of its operands (see [`Program::root_relation`]): `a - b`, as
/// numbers (signed or not), lies within `lo ..= hi` (an absent end is open).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Relation {
    pub a: usize,
    pub b: usize,
    pub width: u32,
    pub signed: bool,
    pub lo: Option<i128>,
    pub hi: Option<i128>,
}

/// A term compiled for evaluation.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    nodes: Vec<Node>,
    /// The width of each node's value (1 for a Boolean).
    widths: Vec<u32>,
    vars: Vec<Var>,
    /// The node of each compiled root.
    roots: Vec<usize>,
}

/// The low `w` bits set.
pub(crate) fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// `x` (of `w` bits) as a signed number.
fn signed(x: u128, w: u32) -> i128 {
    let shift = 128 - w;
    ((x << shift) as i128) >> shift
}

impl Program {
    /// Compiles `root`; `None` when it uses anything this module does not evaluate.
    pub(crate) fn compile(root: &Dynamic) -> Option<Program> {
        Program::compile_all(std::slice::from_ref(root))
    }

    /// Compiles the terms `roots` into one program (their shared subterms once); the value of
    /// root `i` is [`Program::root_value`]`(i)` after [`Program::eval`].
    pub(crate) fn compile_all(roots: &[Dynamic]) -> Option<Program> {
        let mut p = Program {
            nodes: Vec::new(),
            widths: Vec::new(),
            vars: Vec::new(),
            roots: Vec::new(),
        };
        let mut index: HashMap<Dynamic, usize> = HashMap::new();
        let mut vars: HashMap<Var, usize> = HashMap::new();
        for root in roots {
            // Iterative post-order: the terms of a long kernel are deep.
            let mut stack: Vec<(Dynamic, bool)> = vec![(root.clone(), false)];
            while let Some((t, expanded)) = stack.pop() {
                if index.contains_key(&t) {
                    continue;
                }
                let children = t.children();
                if !expanded {
                    stack.push((t.clone(), true));
                    stack.extend(
                        children
                            .into_iter()
                            .rev()
                            .filter(|c| !index.contains_key(c))
                            .map(|c| (c, false)),
                    );
                    continue;
                }
                let args: Vec<usize> = children.iter().map(|c| index[c]).collect();
                let (node, width) = p.node(&t, args, &mut vars)?;
                p.nodes.push(node);
                p.widths.push(width);
                index.insert(t, p.nodes.len() - 1);
            }
            p.roots.push(index[root]);
        }
        Some(p)
    }

    /// The nodes root `i` depends on, in evaluation order (see [`Program::eval_cone`]), and
    /// the constants among them (indices into [`Program::vars`]).
    pub(crate) fn cone(&self, i: usize) -> (Vec<usize>, Vec<usize>) {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![self.roots[i]];
        let mut nodes = Vec::new();
        let mut vars = Vec::new();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            nodes.push(n);
            match &self.nodes[n] {
                Node::Var(v) => vars.push(*v),
                Node::Num(_) => {}
                Node::Op(_, args) => stack.extend(args),
            }
        }
        // Nodes are numbered after their operands.
        nodes.sort_unstable();
        vars.sort_unstable();
        (nodes, vars)
    }

    /// Evaluates only `cone` (a root's nodes, from [`Program::cone`]) into `scratch` (of one
    /// entry per node, as [`Program::eval`] leaves it), and returns the value of its last node.
    pub(crate) fn eval_cone(&self, cone: &[usize], values: &[u128], scratch: &mut [u128]) -> u128 {
        for &i in cone {
            let w = self.widths[i];
            scratch[i] = match &self.nodes[i] {
                Node::Var(v) => values[*v] & mask(w),
                Node::Num(x) => *x,
                Node::Op(op, args) => apply(*op, w, args, scratch),
            };
        }
        cone.last().map_or(0, |&i| scratch[i])
    }

    /// For a root that compares two bit-vectors (`=`, or an ordering), possibly negated or as
    /// an implication's conclusion: what must hold of them for the root to hold.
    pub(crate) fn root_relation(&self, i: usize) -> Option<Relation> {
        let mut n = self.roots[i];
        let mut negated = false;
        loop {
            match &self.nodes[n] {
                Node::Op(op @ (Op::Eq | Op::Cmp(..)), args) if args.len() == 2 && self.widths[args[0]] > 1 => {
                    // `a - b` must lie in [lo, hi] (`a < b`: at most -1); negated, outside.
                    let (lo, hi, signed) = match *op {
                        Op::Cmp(Cmp::Lt, s, _) => (None, Some(-1), s),
                        Op::Cmp(Cmp::Le, s, _) => (None, Some(0), s),
                        Op::Cmp(Cmp::Gt, s, _) => (Some(1), None, s),
                        Op::Cmp(Cmp::Ge, s, _) => (Some(0), None, s),
                        _ => (Some(0), Some(0), false),
                    };
                    let (lo, hi) = match (negated, lo, hi) {
                        (false, _, _) => (lo, hi),
                        (true, None, Some(h)) => (Some(h + 1), None),
                        (true, Some(l), None) => (None, Some(l - 1)),
                        // `a != b`: either side of 0; the search takes 1.
                        _ => (Some(1), None),
                    };
                    return Some(Relation {
                        a: args[0],
                        b: args[1],
                        width: self.widths[args[0]],
                        signed,
                        lo,
                        hi,
                    });
                }
                Node::Op(Op::Implies, args) => n = args[1],
                Node::Op(Op::Not, args) => {
                    negated = !negated;
                    n = args[0];
                }
                _ => return None,
            }
        }
    }

    /// The value of node `n` as [`Program::eval`] or [`Program::eval_cone`] left it in
    /// `scratch`, as a number: signed (two's complement at its width) or not.
    pub(crate) fn number(&self, n: usize, signed_: bool, scratch: &[u128]) -> i128 {
        let w = self.widths[n];
        if signed_ {
            signed(scratch[n], w)
        } else {
            scratch[n] as i128
        }
    }

    /// The number of nodes (what one evaluation costs).
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The constants of the program, in the order [`Program::eval`] takes their values.
    pub(crate) fn vars(&self) -> &[Var] {
        &self.vars
    }

    /// The node of `t` (whose children are the nodes `args`) and its width.
    fn node(&mut self, t: &Dynamic, args: Vec<usize>, vars: &mut HashMap<Var, usize>) -> Option<(Node, u32)> {
        let width = match t.sort_kind() {
            SortKind::Bool => 1,
            SortKind::Bv => t.as_bv()?.get_size(),
            _ => return None,
        };
        if width > 127 || !t.is_app() {
            return None;
        }
        let kind = op_kind(t)?;
        let arg_w = args.first().map_or(width, |&a| self.widths[a]);
        let op = match kind {
            _ if args.is_empty() && kind == uninterpreted() => {
                let var = Var {
                    name: t.safe_decl().ok()?.name(),
                    width: if t.sort_kind() == SortKind::Bool { 0 } else { width },
                };
                let next = self.vars.len();
                let v = *vars.entry(var.clone()).or_insert_with(|| {
                    self.vars.push(var);
                    next
                });
                return Some((Node::Var(v), width));
            }
            k::TRUE => return Some((Node::Num(1), 1)),
            k::FALSE => return Some((Node::Num(0), 1)),
            k::BNUM => return Some((Node::Num(numeral(t)?), width)),
            k::AND => Op::And,
            k::OR => Op::Or,
            k::NOT => Op::Not,
            k::IMPLIES => Op::Implies,
            k::XOR => Op::Xor,
            k::EQ | k::IFF => Op::Eq,
            k::DISTINCT => Op::Distinct,
            k::ITE => Op::Ite,
            k::BNEG => Op::Neg,
            k::BADD => Op::Add,
            k::BSUB => Op::Sub,
            k::BMUL => Op::Mul,
            k::BUDIV => Op::Udiv,
            k::BSDIV => Op::Sdiv,
            k::BUREM => Op::Urem,
            k::BSREM => Op::Srem,
            k::BSMOD => Op::Smod,
            k::ULEQ => Op::Cmp(Cmp::Le, false, arg_w),
            k::UGEQ => Op::Cmp(Cmp::Ge, false, arg_w),
            k::ULT => Op::Cmp(Cmp::Lt, false, arg_w),
            k::UGT => Op::Cmp(Cmp::Gt, false, arg_w),
            k::SLEQ => Op::Cmp(Cmp::Le, true, arg_w),
            k::SGEQ => Op::Cmp(Cmp::Ge, true, arg_w),
            k::SLT => Op::Cmp(Cmp::Lt, true, arg_w),
            k::SGT => Op::Cmp(Cmp::Gt, true, arg_w),
            k::BAND => Op::BitAnd,
            k::BOR => Op::BitOr,
            k::BXOR => Op::BitXor,
            k::BNOT => Op::BitNot,
            k::CONCAT if args.len() == 2 => Op::Concat(self.widths[args[1]]),
            k::SIGN_EXT => Op::SignExt(arg_w),
            k::ZERO_EXT => Op::ZeroExt,
            k::EXTRACT => Op::Extract(decl_param(t, 1)?),
            k::BSHL => Op::Shl,
            k::BLSHR => Op::Lshr,
            k::BASHR => Op::Ashr,
            // Z3 numbers the overflow predicates differently from version to version (4.8 gives
            // `bvumul_noovfl` the number later versions give the signed one): told by name. The
            // signed ones are not evaluated: Z3 4.8 gets them wrong on negative operands, and the
            // checkers do not build them.
            _ if t.safe_decl().ok()?.name() == "bvumul_noovfl" => Op::MulNoOverflow(arg_w),
            _ => return None,
        };
        let arity_ok = match op {
            Op::Not | Op::Neg | Op::BitNot | Op::SignExt(_) | Op::ZeroExt | Op::Extract(_) => args.len() == 1,
            Op::Ite => args.len() == 3,
            Op::And | Op::Or => true,
            Op::Distinct | Op::Add | Op::Mul | Op::BitAnd | Op::BitOr | Op::BitXor => !args.is_empty(),
            Op::Eq | Op::Xor => args.len() == 2,
            _ => args.len() == 2,
        };
        arity_ok.then_some((Node::Op(op, args), width))
    }

    /// Evaluates every node under `values` (one per [`Program::vars`], Booleans as 0 or 1,
    /// bit-vectors in their low bits) into `scratch`, and returns the last root's value (0 or
    /// 1 for a formula).
    pub(crate) fn eval(&self, values: &[u128], scratch: &mut Vec<u128>) -> u128 {
        scratch.clear();
        for (i, n) in self.nodes.iter().enumerate() {
            let w = self.widths[i];
            let v = match n {
                Node::Var(v) => values[*v] & mask(w),
                Node::Num(x) => *x,
                Node::Op(op, args) => apply(*op, w, args, scratch),
            };
            scratch.push(v);
        }
        self.roots.last().map_or(0, |&r| scratch[r])
    }
}

/// `op` of width `w` on the values of `args` (already in `vals`).
fn apply(op: Op, w: u32, args: &[usize], vals: &[u128]) -> u128 {
    let a = |i: usize| vals[args[i]];
    let m = mask(w);
    let fold = |f: fn(u128, u128) -> u128| args[1..].iter().fold(a(0), |acc, &j| f(acc, vals[j])) & m;
    match op {
        Op::And => args.iter().all(|&j| vals[j] != 0) as u128,
        Op::Or => args.iter().any(|&j| vals[j] != 0) as u128,
        Op::Not => (a(0) == 0) as u128,
        Op::Implies => (a(0) == 0 || a(1) != 0) as u128,
        Op::Xor => ((a(0) != 0) != (a(1) != 0)) as u128,
        Op::Eq => (a(0) == a(1)) as u128,
        Op::Distinct => {
            let xs: Vec<u128> = args.iter().map(|&j| vals[j]).collect();
            (0..xs.len()).all(|i| (i + 1..xs.len()).all(|j| xs[i] != xs[j])) as u128
        }
        Op::Ite => {
            if a(0) != 0 {
                a(1)
            } else {
                a(2)
            }
        }
        Op::Neg => a(0).wrapping_neg() & m,
        Op::Add => fold(u128::wrapping_add),
        Op::Sub => a(0).wrapping_sub(a(1)) & m,
        Op::Mul => fold(u128::wrapping_mul),
        Op::BitAnd => fold(|x, y| x & y),
        Op::BitOr => fold(|x, y| x | y),
        Op::BitXor => fold(|x, y| x ^ y),
        Op::BitNot => !a(0) & m,
        Op::Udiv => a(0).checked_div(a(1)).unwrap_or(m),
        Op::Urem => a(0).checked_rem(a(1)).unwrap_or(a(0)),
        Op::Sdiv | Op::Srem | Op::Smod => signed_division(op, w, a(0), a(1)),
        Op::Cmp(c, is_signed, aw) => {
            let (x, y) = if is_signed {
                (signed(a(0), aw), signed(a(1), aw))
            } else {
                (a(0) as i128, a(1) as i128)
            };
            (match c {
                Cmp::Le => x <= y,
                Cmp::Ge => x >= y,
                Cmp::Lt => x < y,
                Cmp::Gt => x > y,
            }) as u128
        }
        Op::Concat(low) => ((a(0) << low) | a(1)) & m,
        Op::SignExt(aw) => signed(a(0), aw) as u128 & m,
        Op::ZeroExt => a(0),
        Op::Extract(lo) => (a(0) >> lo) & m,
        Op::Shl => shift(a(1), w).map_or(0, |s| (a(0) << s) & m),
        Op::Lshr => shift(a(1), w).map_or(0, |s| a(0) >> s),
        Op::Ashr => {
            let s = shift(a(1), w).unwrap_or(w - 1);
            (signed(a(0), w) >> s) as u128 & m
        }
        Op::MulNoOverflow(aw) => a(0).checked_mul(a(1)).is_some_and(|p| p <= mask(aw)) as u128,
    }
}

/// A shift amount below the width `w`, else `None` (the result is then all zeros, or the sign).
fn shift(s: u128, w: u32) -> Option<u32> {
    (s < u128::from(w)).then_some(s as u32)
}

/// `bvsdiv`, `bvsrem` or `bvsmod` of `w`-bit `x` and `y`, as SMT-LIB defines them (by zero
/// too: `bvsdiv x 0` is -1 for a non-negative `x` and 1 for a negative one; the remainders of
/// a division by zero are `x`).
fn signed_division(op: Op, w: u32, x: u128, y: u128) -> u128 {
    let m = mask(w);
    let (sx, sy) = (signed(x, w), signed(y, w));
    if sy == 0 {
        return match op {
            Op::Sdiv if sx < 0 => 1,
            Op::Sdiv => m,
            _ => x,
        };
    }
    // Widths are at most 127 bits, so `MIN / -1` does not overflow an i128.
    let r = match op {
        Op::Sdiv => sx / sy,
        Op::Srem => sx % sy,
        _ => {
            let r = sx % sy;
            if r != 0 && (r < 0) != (sy < 0) {
                r + sy
            } else {
                r
            }
        }
    };
    r as u128 & m
}

/// The value of a bit-vector numeral.
pub(crate) fn numeral(t: &Dynamic) -> Option<u128> {
    let bv = t.as_bv()?;
    if let Some(v) = bv.as_u64() {
        return Some(u128::from(v));
    }
    // Wider than 64 bits.
    numeral_string(t)?.parse().ok()
}

/// The decimal digits of a numeral, from Z3's API.
fn numeral_string(t: &Dynamic) -> Option<String> {
    let ctx = z3::Context::thread_local();
    // SAFETY: `t` is a live numeral of the thread's context; Z3 owns the returned string until
    // the next call on that context, and it is copied at once.
    unsafe {
        let s = z3_sys::Z3_get_numeral_string(ctx.get_z3_context(), t.get_z3_ast());
        let s = s.as_ref()?;
        Some(std::ffi::CStr::from_ptr(s).to_string_lossy().into_owned())
    }
}

/// Integer parameter `i` of the operator of `t` (`extract`'s `lo` is parameter 1).
fn decl_param(t: &Dynamic, i: u32) -> Option<u32> {
    let ctx = z3::Context::thread_local();
    // SAFETY: `t` is a live application of the thread's context whose operator has at least
    // `i + 1` integer parameters (an `extract` has two).
    unsafe {
        let c = ctx.get_z3_context();
        let app = z3_sys::Z3_to_app(c, t.get_z3_ast())?;
        let decl = z3_sys::Z3_get_app_decl(c, app)?;
        if z3_sys::Z3_get_decl_num_parameters(c, decl) <= i {
            return None;
        }
        Some(z3_sys::Z3_get_decl_int_parameter(c, decl, i) as u32)
    }
}

/// `f` with each of `vars` replaced by its value in `values`, simplified by Z3: what Z3 makes
/// of an assignment, for tests to compare evaluation with.
#[cfg(test)]
pub(crate) fn substituted(f: &Dynamic, vars: &[Var], values: &[u128]) -> Dynamic {
    use z3::ast::{Bool, BV};
    let subst: Vec<(Dynamic, Dynamic)> = vars
        .iter()
        .zip(values)
        .map(|(v, &x)| {
            if v.width == 0 {
                (
                    Dynamic::from_ast(&Bool::new_const(v.name.as_str())),
                    Dynamic::from_ast(&Bool::from_bool(x != 0)),
                )
            } else {
                (
                    Dynamic::from_ast(&BV::new_const(v.name.as_str(), v.width)),
                    Dynamic::from_ast(&BV::from_str(v.width, &x.to_string()).expect("numeral")),
                )
            }
        })
        .collect();
    let pairs: Vec<(&Dynamic, &Dynamic)> = subst.iter().map(|(a, b)| (a, b)).collect();
    f.substitute(&pairs).simplify()
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Bool, BV};

    /// Evaluates `f` under `values` (by constant name; others 0) with this module and with Z3's
    /// own simplifier after substitution, and checks that they agree.
    fn agree(f: &Dynamic, values: &[(&str, u128)]) -> u128 {
        let p = Program::compile(f).expect("compiles");
        let vals: Vec<u128> = p
            .vars()
            .iter()
            .map(|v| values.iter().find(|(n, _)| *n == v.name).map_or(0, |x| x.1))
            .collect();
        let ours = p.eval(&vals, &mut Vec::new());
        let z = substituted(f, p.vars(), &vals);
        let theirs = match z.as_bool() {
            Some(b) => b.as_bool().expect("a constant") as u128,
            None => {
                let bv = z.as_bv().expect("a bit-vector");
                numeral(&Dynamic::from_ast(&bv)).expect("a numeral")
            }
        };
        assert_eq!(ours, theirs, "{f} under {values:?}");
        ours
    }

    #[test]
    fn operators_agree_with_z3() {
        let x = BV::new_const("x", 8);
        let y = BV::new_const("y", 8);
        let ops: Vec<BV> = vec![
            x.bvadd(&y),
            x.bvsub(&y),
            x.bvmul(&y),
            x.bvudiv(&y),
            x.bvsdiv(&y),
            x.bvurem(&y),
            x.bvsrem(&y),
            x.bvsmod(&y),
            x.bvshl(&y),
            x.bvlshr(&y),
            x.bvashr(&y),
            x.bvand(&y),
            x.bvor(&y),
            x.bvxor(&y),
            x.bvnot(),
            x.bvneg(),
            x.concat(&y).extract(11, 3),
            x.sign_ext(5).extract(12, 0),
            x.zero_ext(3).extract(10, 0),
        ];
        let samples = [0u128, 1, 2, 3, 7, 8, 9, 127, 128, 129, 200, 254, 255];
        for t in &ops {
            for &a in &samples {
                for &b in &samples {
                    agree(&Dynamic::from_ast(t), &[("x", a), ("y", b)]);
                }
            }
        }
        let cmps: Vec<Bool> = vec![
            x.bvule(&y),
            x.bvsle(&y),
            x.bvult(&y),
            x.bvslt(&y),
            x.bvuge(&y),
            x.bvsge(&y),
            x.bvugt(&y),
            x.bvsgt(&y),
            x.eq(&y).not(),
            Bool::and(&[x.bvult(&y), y.bvult(BV::from_u64(100, 8))]),
            Bool::or(&[x.eq(&y), x.bvsgt(&y)]).implies(x.bvugt(&y)),
            x.bvult(&y).ite(&x, &y).eq(BV::from_u64(7, 8)),
            Bool::new_const("b").xor(x.bvult(&y)),
            Bool::new_const("b").iff(x.bvslt(&y)),
            x.bvmul_no_overflow(&y, false),
            Bool::and(&[] as &[Bool]),
            Bool::or(&[] as &[Bool]),
        ];
        for f in &cmps {
            for &a in &samples {
                for &b in &samples {
                    agree(&Dynamic::from_ast(f), &[("x", a), ("y", b), ("b", (a > b) as u128)]);
                }
            }
        }
    }

    #[test]
    fn wide_numerals_and_distinct() {
        let x = BV::new_const("w", 32);
        let wide = x.sign_ext(34).bvadd(BV::from_i64(-5, 66));
        let f = wide.bvsge(BV::from_u64(0, 66));
        assert_eq!(agree(&Dynamic::from_ast(&f), &[("w", 4)]), 0);
        assert_eq!(agree(&Dynamic::from_ast(&f), &[("w", 5)]), 1);
        let d = BV::distinct(&[x.clone(), BV::new_const("v", 32), BV::from_u64(3, 32)]);
        assert_eq!(agree(&Dynamic::from_ast(&d), &[("w", 1), ("v", 2)]), 1);
        assert_eq!(agree(&Dynamic::from_ast(&d), &[("w", 1), ("v", 3)]), 0);
    }

    #[test]
    fn what_is_not_evaluated_is_refused() {
        let i = z3::ast::Int::new_const("i");
        let f = i.gt(z3::ast::Int::from_i64(0));
        assert!(Program::compile(&Dynamic::from_ast(&f)).is_none());
    }
}
