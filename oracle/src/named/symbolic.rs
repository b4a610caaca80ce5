//! Race checks for accesses with a symbolic address or path predicate: one Z3 query per
//! concurrent candidate pair (thread ids and loop counters concrete, unknowns as bit-vectors,
//! wrap-around per IR type), identical queries answered once. Unknown → race, marked assumed.

use super::eval::eval;
use super::hb::Hb;
use super::races::{concurrent_with, conflicts, groups, kind_code, Buckets, RaceCtx, Rec, Side};
use super::skeleton::SymAccess;
use super::value::{Sym, Val};
use crate::ir::{ArrayId, BinOp, Label, ScalarTy, UnOp};
use std::collections::HashMap;
use std::rc::Rc;
use z3::ast::{Bool, BV};
use z3::{SatResult, Solver};

/// Queries issued before the remaining candidates are assumed racy.
const MAX_QUERIES: u64 = 20_000;
/// Distinct concrete offsets encoded exactly; beyond this their hull is used.
const MAX_OFFSETS: usize = 64;

/// A Z3 value: boolean or bit-vector.
#[derive(Clone)]
enum Z {
    B(Bool),
    V(BV),
}

fn to_bool(z: Z) -> Bool {
    match z {
        Z::B(b) => b,
        Z::V(v) => {
            let w = v.get_size();
            v.eq(BV::from_u64(0, w)).not()
        }
    }
}

/// Coerces to a bit-vector of `w` bits, extending by the signedness of `from`.
fn to_bv(z: Z, from: ScalarTy, w: u32) -> BV {
    let v = match z {
        Z::B(b) => return b.ite(&BV::from_u64(1, w), &BV::from_u64(0, w)),
        Z::V(v) => v,
    };
    let have = v.get_size();
    if have == w {
        v
    } else if have > w {
        v.extract(w - 1, 0)
    } else if from.is_signed() {
        v.sign_ext(w - have)
    } else {
        v.zero_ext(w - have)
    }
}

fn enc(s: &Sym) -> Z {
    match s {
        Sym::Const(v, ScalarTy::Bool) => Z::B(Bool::from_bool(*v != 0)),
        Sym::Const(v, t) => Z::V(BV::from_i64(*v, t.width())),
        Sym::Unknown(n, ScalarTy::Bool) => Z::B(Bool::new_const(format!("u{n}"))),
        Sym::Unknown(n, t) => Z::V(BV::new_const(format!("u{n}"), t.width())),
        Sym::Un(UnOp::Not, _, a) => Z::B(to_bool(enc(a)).not()),
        Sym::Un(op, t, a) => {
            let v = to_bv(enc(a), a.ty(), t.width());
            Z::V(if *op == UnOp::Neg { v.bvneg() } else { v.bvnot() })
        }
        Sym::Bin(op, t, a, b) => bin(*op, *t, a, b),
        Sym::Cast(t, a) => match t {
            ScalarTy::Bool => Z::B(to_bool(enc(a))),
            _ => Z::V(to_bv(enc(a), a.ty(), t.width())),
        },
        Sym::Select(c, a, b) => {
            let c = to_bool(enc(c));
            match (enc(a), enc(b)) {
                (Z::B(x), Z::B(y)) => Z::B(c.ite(&x, &y)),
                (x, y) => {
                    let w = a.ty().width();
                    Z::V(c.ite(&to_bv(x, a.ty(), w), &to_bv(y, b.ty(), w)))
                }
            }
        }
    }
}

fn bin(op: BinOp, t: ScalarTy, a: &Sym, b: &Sym) -> Z {
    use BinOp::*;
    if matches!(op, And | Or) || (t == ScalarTy::Bool && matches!(op, Eq | Ne)) {
        let (x, y) = (to_bool(enc(a)), to_bool(enc(b)));
        return Z::B(match op {
            And => Bool::and(&[x, y]),
            Or => Bool::or(&[x, y]),
            Eq => x.iff(&y),
            _ => x.xor(&y),
        });
    }
    let w = t.width();
    let (x, y) = (to_bv(enc(a), a.ty(), w), to_bv(enc(b), b.ty(), w));
    let s = t.is_signed();
    match op {
        Add => Z::V(x.bvadd(&y)),
        Sub => Z::V(x.bvsub(&y)),
        Mul => Z::V(x.bvmul(&y)),
        Div => Z::V(if s { x.bvsdiv(&y) } else { x.bvudiv(&y) }),
        Rem => Z::V(if s { x.bvsrem(&y) } else { x.bvurem(&y) }),
        Shl => Z::V(x.bvshl(&y)),
        Shr => Z::V(if s { x.bvashr(&y) } else { x.bvlshr(&y) }),
        BitAnd => Z::V(x.bvand(&y)),
        BitOr => Z::V(x.bvor(&y)),
        BitXor => Z::V(x.bvxor(&y)),
        Lt => Z::B(if s { x.bvslt(&y) } else { x.bvult(&y) }),
        Le => Z::B(if s { x.bvsle(&y) } else { x.bvule(&y) }),
        Gt => Z::B(if s { x.bvsgt(&y) } else { x.bvugt(&y) }),
        Ge => Z::B(if s { x.bvsge(&y) } else { x.bvuge(&y) }),
        Eq => Z::B(x.eq(&y)),
        Ne => Z::B(x.eq(&y).not()),
        And | Or => unreachable!("handled above"),
    }
}

/// The 64-bit byte offset of an access.
fn offset(v: &Val) -> BV {
    match v {
        Val::K(o) => BV::from_i64(*o, 64),
        Val::S(s) => to_bv(enc(s), s.ty(), 64),
    }
}

/// `[a, a+sa)` and `[b, b+sb)` intersect.
fn overlap(a: &BV, sa: u32, b: &BV, sb: u32) -> Bool {
    let sa = BV::from_u64(sa.max(1) as u64, 64);
    let sb = BV::from_u64(sb.max(1) as u64, 64);
    Bool::and(&[a.bvslt(b.bvadd(&sb)), b.bvslt(a.bvadd(&sa))])
}

/// One side of a symbolic query (the key for deduplication).
#[derive(Clone, PartialEq, Eq, Hash)]
enum Other {
    /// A symbolic access: offset, size, predicate.
    Sym(Val, u32, Option<Rc<Sym>>),
    /// Concrete unit ranges `[lo, hi)` in bytes.
    Units(Vec<(i64, i64)>),
}

/// A query: the symbolic access (offset, size, predicate) against the other side.
type QueryKey = (Val, u32, Option<Rc<Sym>>, Other);
/// An answer: `Some((witness offset, assumed))` when the sides may overlap.
type Answer = Option<(Option<i64>, bool)>;
/// Concrete records of one (label, kind) group with their address units.
type UnitGroup = (Vec<Rec>, Vec<i64>);

/// The solver with its cache.
struct Queries {
    /// The kernel's facts (asserted in the solver; a model found without it must meet them).
    facts: Vec<Rc<Sym>>,
    solver: Solver,
    cache: HashMap<QueryKey, Answer>,
    issued: u64,
}

impl Queries {
    /// `Some((offset, assumed))` when the two sides can touch a common byte.
    /// `len` is the array's size in bytes when known: accesses outside it are undefined
    /// behaviour, not races, as in the SDV checker.
    fn ask(&mut self, x: &SymAccess, other: Other, len: Option<u64>) -> Answer {
        let key = (x.offset.clone(), x.size, x.pred.clone(), other.clone());
        if let Some(r) = self.cache.get(&key) {
            return *r;
        }
        if let Some(off) = evaluated(x, &other, len, &self.facts) {
            let r = Some((Some(off), false));
            self.cache.insert(key, r);
            return r;
        }
        if self.issued >= MAX_QUERIES {
            return Some((None, true));
        }
        self.issued += 1;
        let ox = offset(&x.offset);
        let mut parts = vec![];
        if let Some(p) = &x.pred {
            parts.push(to_bool(enc(p)));
        }
        if let Some(len) = len {
            parts.push(crate::smt::in_bounds(&ox, x.size, len));
        }
        match &other {
            Other::Sym(o, size, pred) => {
                if let Some(p) = pred {
                    parts.push(to_bool(enc(p)));
                }
                let oy = offset(o);
                if let Some(len) = len {
                    parts.push(crate::smt::in_bounds(&oy, *size, len));
                }
                parts.push(overlap(&ox, x.size, &oy, *size));
            }
            Other::Units(r) => {
                let alts: Vec<Bool> = r
                    .iter()
                    .map(|&(lo, hi)| overlap(&ox, x.size, &BV::from_i64(lo, 64), (hi - lo) as u32))
                    .collect();
                parts.push(Bool::or(&alts));
            }
        }
        self.solver.push();
        self.solver.assert(Bool::and(&parts));
        let r = match self.solver.check() {
            SatResult::Unsat => None,
            SatResult::Sat => {
                let off = self
                    .solver
                    .get_model()
                    .and_then(|m| m.eval(&ox, true))
                    .and_then(|v| v.as_i64());
                Some((off, false))
            }
            SatResult::Unknown => Some((None, true)),
        };
        self.solver.pop(1);
        self.cache.insert(key, r);
        r
    }
}

/// A model of the query [`Queries::ask`] would build, found without the solver: every unknown
/// 0, then every unknown 1 (see [`super::eval`]). Returns the first side's byte offset in it.
/// Most racing pairs of a block compute their addresses from the same unknowns (`blockIdx`,
/// sizes): with those at 0 or 1, two threads that touch the same element show it.
fn evaluated(x: &SymAccess, other: &Other, len: Option<u64>, facts: &[Rc<Sym>]) -> Option<i64> {
    let at = |v: &Val, fill: i64| match v {
        Val::K(o) => Some(*o),
        Val::S(s) => eval(s, fill),
    };
    let holds = |p: &Option<Rc<Sym>>, fill: i64| p.as_ref().is_none_or(|p| eval(p, fill).is_some_and(|v| v != 0));
    // Exactly `crate::smt::in_bounds`.
    let inside = |o: i64, size: u32| len.is_none_or(|len| o >= 0 && o as i128 + size as i128 <= len as i128);
    (0..2).find_map(|fill| {
        let ox = at(&x.offset, fill)?;
        let facts_hold = facts.iter().all(|f| holds(&Some(f.clone()), fill));
        if !facts_hold || !holds(&x.pred, fill) || !inside(ox, x.size) {
            return None;
        }
        let meets = match other {
            Other::Sym(o, size, pred) => {
                let oy = at(o, fill)?;
                holds(pred, fill) && inside(oy, *size) && overlap_at(ox, x.size, oy, *size)
            }
            Other::Units(r) => r.iter().any(|&(lo, hi)| overlap_at(ox, x.size, lo, (hi - lo) as u32)),
        };
        meets.then_some(ox)
    })
}

/// [`overlap`] on numbers: signed 64-bit comparisons of wrapping sums.
fn overlap_at(a: i64, sa: u32, b: i64, sb: u32) -> bool {
    a < b.wrapping_add(sb.max(1) as i64) && b < a.wrapping_add(sa.max(1) as i64)
}

/// A symbolic access with its warp.
struct Inst<'a> {
    warp: u32,
    a: &'a SymAccess,
}

impl Inst<'_> {
    fn rec(&self) -> Rec {
        Rec {
            label: self.a.label.0,
            kind: kind_code(self.a.kind),
            warp: self.warp,
            seg: self.a.seg,
            lane: self.a.lane,
        }
    }
    fn side(&self) -> Side {
        Side {
            label: self.a.label,
            kind: self.a.kind,
            warp: self.warp,
            seg: self.a.seg,
            lane: self.a.lane,
        }
    }
}

/// Checks every symbolic access against concrete and symbolic ones; returns queries issued.
pub(crate) fn check_symbolic(
    cx: &mut RaceCtx,
    hb: &Hb,
    b: &Buckets,
    facts: &[Rc<Sym>],
    warp_sync: bool,
    timeout_ms: u32,
) -> u64 {
    let insts: Vec<Inst> = cx
        .warps
        .iter()
        .enumerate()
        .flat_map(|(w, t)| t.sym.iter().map(move |a| Inst { warp: w as u32, a }))
        .filter(|i| {
            cx.k.arrays
                .get(i.a.array.0 as usize)
                .is_some_and(|x| x.space != crate::ir::Space::Local)
        })
        .collect();
    if insts.is_empty() {
        return 0;
    }
    let solver = crate::smt::query_solver(timeout_ms);
    for f in facts {
        solver.assert(to_bool(enc(f)));
    }
    let mut q = Queries {
        facts: facts.to_vec(),
        solver,
        cache: HashMap::new(),
        issued: 0,
    };
    // Concrete records of each array with a symbolic access, grouped by (label, kind).
    let mut per_array: HashMap<u32, Vec<Rec>> = HashMap::new();
    let mut rec_unit: HashMap<u32, Vec<i64>> = HashMap::new();
    for i in &insts {
        per_array.entry(i.a.array.0).or_default();
    }
    for (bi, &(arr, u)) in b.keys.iter().enumerate() {
        if let Some(v) = per_array.get_mut(&arr) {
            let units = rec_unit.entry(arr).or_default();
            for r in b.bucket(bi as u32) {
                v.push(*r);
                units.push(u);
            }
        }
    }
    let mut grouped: HashMap<u32, Vec<UnitGroup>> = HashMap::new();
    for (arr, recs) in per_array {
        let us = rec_unit.remove(&arr).unwrap_or_default();
        let mut idx: Vec<usize> = (0..recs.len()).collect();
        idx.sort_unstable_by_key(|&i| recs[i]);
        let sorted: Vec<Rec> = idx.iter().map(|&i| recs[i]).collect();
        let sorted_units: Vec<i64> = idx.iter().map(|&i| us[i]).collect();
        let mut out = vec![];
        let mut start = 0;
        for g in groups(&sorted) {
            out.push((g.to_vec(), sorted_units[start..start + g.len()].to_vec()));
            start += g.len();
        }
        grouped.insert(arr, out);
    }
    for x in &insts {
        let arr = x.a.array;
        let g = b.unit.get(&arr.0).copied().unwrap_or(1).max(1);
        let xr = x.rec();
        for (grp, us) in grouped.get(&arr.0).map(|v| v.as_slice()).unwrap_or(&[]) {
            let l = Label(grp[0].label);
            if !conflicts(xr.kind, grp[0].kind) || cx.reported(x.a.label, l, arr) {
                continue;
            }
            // Offsets of every concurrent instance of another thread in this group.
            let mut offs = vec![];
            let mut witness_rec = None;
            let mut i = 0;
            while i < grp.len() {
                let end = i + grp[i..].partition_point(|r| r.warp == grp[i].warp);
                let part = &grp[i..end];
                if let Some(y) = concurrent_with(hb, &xr, part, warp_sync) {
                    witness_rec.get_or_insert(y);
                    for (r, &u) in part.iter().zip(&us[i..end]) {
                        if concurrent_with(hb, &xr, std::slice::from_ref(r), warp_sync).is_some() {
                            offs.push(u);
                        }
                    }
                }
                i = end;
            }
            let Some(y) = witness_rec else { continue };
            offs.sort_unstable();
            offs.dedup();
            let g = g as i64;
            let ranges: Vec<(i64, i64)> = if offs.len() <= MAX_OFFSETS {
                offs.iter().map(|&u| (u * g, (u + 1) * g)).collect()
            } else {
                vec![(offs[0] * g, (offs[offs.len() - 1] + 1) * g)]
            };
            if let Some((off, assumed)) = q.ask(x.a, Other::Units(ranges), cx.k.array(arr).byte_len()) {
                let side = Side {
                    label: l,
                    kind: super::races::kind_of(y.kind),
                    warp: y.warp,
                    seg: y.seg,
                    lane: y.lane,
                };
                cx.report(arr, x.side(), side, off, assumed);
            }
        }
    }
    // Symbolic against symbolic.
    let mut by_array: HashMap<ArrayId, Vec<usize>> = HashMap::new();
    for (i, x) in insts.iter().enumerate() {
        by_array.entry(x.a.array).or_default().push(i);
    }
    for (arr, ix) in by_array {
        sym_pairs(cx, hb, &mut q, &insts, arr, &ix, warp_sync);
    }
    q.issued
}

/// The instances of one statement on one array: their positions in the array's instance list,
/// the kinds they access with (a bit per [`kind_code`]) and the distinct (warp, segment) they
/// run in.
struct OfLabel {
    label: Label,
    kinds: u8,
    pos: Vec<usize>,
    blocks: Vec<(u32, u32)>,
}

/// The instances of `ix` (positions into `insts`) grouped by statement, in order of first
/// appearance.
fn of_labels(insts: &[Inst], ix: &[usize]) -> Vec<OfLabel> {
    let mut at: HashMap<Label, usize> = HashMap::new();
    let mut out: Vec<OfLabel> = vec![];
    for (p, &i) in ix.iter().enumerate() {
        let a = insts[i].a;
        let n = *at.entry(a.label).or_insert_with(|| {
            out.push(OfLabel {
                label: a.label,
                kinds: 0,
                pos: vec![],
                blocks: vec![],
            });
            out.len() - 1
        });
        let l = &mut out[n];
        l.kinds |= 1 << kind_code(a.kind);
        l.pos.push(p);
        let b = (insts[i].warp, a.seg);
        if !l.blocks.contains(&b) {
            l.blocks.push(b);
        }
    }
    out
}

/// Whether some instance of `a` may run concurrently with some instance of `b`, judged per
/// (warp, segment) block: either order of different warps, or one warp's lanes (decided per
/// instance later).
fn may_meet(hb: &Hb, a: &OfLabel, b: &OfLabel, warp_sync: bool) -> bool {
    let rec = |(warp, seg): (u32, u32)| Rec {
        label: 0,
        kind: 0,
        warp,
        seg,
        lane: 0,
    };
    a.blocks.iter().any(|&x| {
        b.blocks.iter().any(|&y| {
            if x.0 == y.0 {
                return !warp_sync;
            }
            concurrent_with(hb, &rec(x), &[rec(y)], warp_sync).is_some()
                || concurrent_with(hb, &rec(y), &[rec(x)], warp_sync).is_some()
        })
    })
}

/// Whether an access of a kind in `a` conflicts with one of a kind in `b` (bit sets of
/// [`kind_code`]s).
fn kinds_conflict(a: u8, b: u8) -> bool {
    (0..3u8).any(|x| a & (1 << x) != 0 && (0..3u8).any(|y| b & (1 << y) != 0 && conflicts(x, y)))
}

/// The symbolic accesses of one array (`ix`, positions into `insts`) against each other.
///
/// Per pair of statements, the instance pairs `(p, q)`, `p <= q` positions in `ix`, are tried
/// in order until one races; a statement pair whose (warp, segment) blocks never meet, or whose
/// kinds never conflict, is passed over whole (no instance pair of it could be asked). The
/// races are reported in the order of their instance pairs: as the plain all-pairs scan over
/// `ix` would report them, at the cost of the statement pairs rather than the instance pairs.
fn sym_pairs(cx: &mut RaceCtx, hb: &Hb, q: &mut Queries, insts: &[Inst], arr: ArrayId, ix: &[usize], warp_sync: bool) {
    let labels = of_labels(insts, ix);
    let mut found: Vec<FirstRace> = vec![];
    for (n, a) in labels.iter().enumerate() {
        for b in &labels[n..] {
            if !kinds_conflict(a.kinds, b.kinds) || cx.reported(a.label, b.label, arr) || !may_meet(hb, a, b, warp_sync)
            {
                continue;
            }
            if let Some(f) = first_race(cx, hb, q, insts, ix, (a, b), warp_sync) {
                found.push(f);
            }
        }
    }
    found.sort_by_key(|f| f.0);
    for (_, x, y, (off, assumed)) in found {
        cx.report(arr, x, y, off, assumed);
    }
}

/// A statement pair's first racing instance pair (positions), its sides, and the witness offset
/// with whether the race is assumed.
type FirstRace = ((usize, usize), Side, Side, (Option<i64>, bool));

/// The first instance pair (in position order) of statements `a` and `b` that races.
fn first_race(
    cx: &RaceCtx,
    hb: &Hb,
    q: &mut Queries,
    insts: &[Inst],
    ix: &[usize],
    (a, b): (&OfLabel, &OfLabel),
    warp_sync: bool,
) -> Option<FirstRace> {
    let arr = insts[ix[a.pos[0]]].a.array;
    let len = cx.k.array(arr).byte_len();
    // Every position of either statement, each with the other statement's positions.
    let mut firsts: Vec<(usize, &[usize])> = a.pos.iter().map(|&p| (p, b.pos.as_slice())).collect();
    if a.label != b.label {
        firsts.extend(b.pos.iter().map(|&p| (p, a.pos.as_slice())));
        firsts.sort_unstable_by_key(|f| f.0);
    }
    for (p, others) in firsts {
        let x = &insts[ix[p]];
        let start = others.partition_point(|&o| o < p);
        for &o in &others[start..] {
            let y = &insts[ix[o]];
            if !conflicts(kind_code(x.a.kind), kind_code(y.a.kind))
                || concurrent_with(hb, &x.rec(), &[y.rec()], warp_sync).is_none()
                || super::distance::disjoint(&x.a.offset, x.a.size, &y.a.offset, y.a.size)
            {
                continue;
            }
            let other = Other::Sym(y.a.offset.clone(), y.a.size, y.a.pred.clone());
            if let Some(answer) = q.ask(x.a, other, len) {
                return Some(((p, o), x.side(), y.side(), answer));
            }
        }
    }
    None
}
