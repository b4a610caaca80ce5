//! The WMMA builtins Clang lowers `nvcuda::wmma` to (`__hmma_<shape>_ld_a/_ld_b/_ld_c_*`,
//! `_st_c_*`, `_mma_*`): warp-collective accesses of a tile in memory. CUDA leaves unspecified
//! which lane loads or stores which element, so:
//! - a load is, for every lane, a read of the whole tile (any lane may read any element);
//! - a store writes each element exactly once: lane `l` writes elements `(l + 32k + r) mod n`
//!   for `k < n / 32`, with `r` an unknown the same for every warp. For each `r` the lanes'
//!   elements are disjoint (no race inside the store); over all `r` any lane may write any
//!   element (so a race with another lane's access elsewhere is never hidden).
//!
//! Fragments are the thread's own storage, read and written through their pointers like any
//! memory.

use super::convert::add_offset;
use super::expr::Value;
use super::lowerer::Lowerer;
use super::values::RV;
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::{BinOp, Expr, Op, ScalarTy, Span};

/// Elements in every tile of the half-precision shapes (16x16, 32x8, 8x32).
const TILE: i64 = 256;
/// Bytes of a fragment's storage per lane: A and B (8 registers), C/D in f32 (8), in f16 (4).
const FRAG_AB: u64 = 32;

/// Which matrix of the product, and so which of the shape's sides a tile spans.
#[derive(Clone, Copy)]
enum Operand {
    A,
    B,
    C,
}

impl<'a> Lowerer<'a> {
    /// A `__hmma_*` builtin, or an error naming it when it is a WMMA form autosync does not
    /// model (never ignored).
    pub(crate) fn wmma(&mut self, name: &str, args: &[NodeId], span: Span) -> FResult<Value> {
        let unsupported = || {
            FrontError::unsupported(span, format!("the WMMA builtin `{name}` is not modelled")).with_help(
                "autosync models the half-precision m16n16k16, m32n8k16 and m8n32k16 loads, stores and products",
            )
        };
        let rest = name.strip_prefix("__hmma_").ok_or_else(unsupported)?;
        let (shape, op) = rest.split_once('_').ok_or_else(unsupported)?;
        let (m, n, k) = match shape {
            "m16n16k16" => (16, 16, 16),
            "m32n8k16" => (32, 8, 16),
            "m8n32k16" => (8, 32, 16),
            _ => return Err(unsupported()),
        };
        let (operand, bytes, store) = match op {
            "ld_a" => (Operand::A, 2, false),
            "ld_b" => (Operand::B, 2, false),
            "ld_c_f16" => (Operand::C, 2, false),
            "ld_c_f32" => (Operand::C, 4, false),
            "st_c_f16" => (Operand::C, 2, true),
            "st_c_f32" => (Operand::C, 4, true),
            _ if op.starts_with("mma_") => return self.wmma_mma(op, args, span),
            _ => return Err(unsupported()),
        };
        let (rows, cols) = match operand {
            Operand::A => (m, k),
            Operand::B => (k, n),
            Operand::C => (m, n),
        };
        // Loads are (fragment, memory, ldm, layout); stores (memory, fragment, ldm, layout).
        let [first, second, ldm, layout] = args[..] else {
            return Err(FrontError::input(span, format!("{name} needs four arguments")));
        };
        let col_major = match self.const_eval(layout, 0) {
            Some(v) => v != 0,
            None => {
                return Err(FrontError::unsupported(
                    span,
                    format!("{name} with a layout that is not a constant"),
                ))
            }
        };
        let (ldm, lt) = self.scalar(ldm)?;
        let ldm = super::convert::convert(ldm, &lt, &CType::U64);
        let tile = Tile {
            rows,
            cols,
            bytes,
            col_major,
            ldm,
        };
        // The fragment side, in the thread's own storage (C/D in f16 is 4 registers).
        let frag_bytes = if matches!(operand, Operand::C) && bytes == 2 {
            16
        } else {
            FRAG_AB
        };
        if store {
            self.fragment_access(second, frag_bytes, false, span)?;
            self.tile_store(first, &tile, span)?;
        } else {
            self.tile_load(second, &tile, span)?;
            self.fragment_access(first, frag_bytes, true, span)?;
        }
        Ok(Value::R(RV::Void))
    }

    /// `__hmma_<shape>_mma_<d><c>(d, a, b, c, layout, satf)`: reads the three fragments,
    /// writes the result fragment.
    fn wmma_mma(&mut self, op: &str, args: &[NodeId], span: Span) -> FResult<Value> {
        let [d, a, b, c, layout, satf] = args[..] else {
            return Err(FrontError::input(span, "a WMMA product needs six arguments"));
        };
        let types = op.strip_prefix("mma_").unwrap_or(op);
        let frag = |t: &str| if t == "f16" { 16 } else { FRAG_AB };
        let (dt, ct) = types.split_at(types.len().min(3));
        self.scalar(layout)?;
        self.scalar(satf)?;
        self.fragment_access(a, FRAG_AB, false, span)?;
        self.fragment_access(b, FRAG_AB, false, span)?;
        self.fragment_access(c, frag(ct), false, span)?;
        self.fragment_access(d, frag(dt), true, span)?;
        Ok(Value::R(RV::Void))
    }

    /// A read or write of `bytes` bytes of fragment storage through pointer `p`.
    fn fragment_access(&mut self, p: NodeId, bytes: u64, write: bool, span: Span) -> FResult<()> {
        let ptr = self.pointer(p)?;
        let ty = CType::Array(Box::new(CType::Int { bits: 8, signed: false }), Some(bytes));
        if let super::values::LV::Mem(place) = self.deref(ptr, ty, span)? {
            if write {
                self.write(&place, Expr::Unknown(ScalarTy::Opaque))?;
            } else {
                self.read(&place)?;
            }
        }
        Ok(())
    }

    /// Every lane reads the whole tile: one read per contiguous run (a row, or a column when
    /// column-major).
    fn tile_load(&mut self, mem: NodeId, t: &Tile, span: Span) -> FResult<()> {
        let base = self.pointer(mem)?;
        let (runs, run_len) = if t.col_major {
            (t.cols, t.rows)
        } else {
            (t.rows, t.cols)
        };
        let elem = t.elem();
        for i in 0..runs {
            let first = mul(t.ldm.clone(), Expr::Const(i, ScalarTy::U64));
            let mut p = base.clone();
            p.off = add_offset(p.off, first, t.bytes);
            let ty = CType::Array(Box::new(elem.clone()), Some(run_len as u64));
            if let super::values::LV::Mem(place) = self.deref(p, ty, span)? {
                self.read(&place)?;
            }
        }
        Ok(())
    }

    /// Lane `l` writes elements `(l + 32k + r) mod 256`, `k < 8` (see the module comment).
    fn tile_store(&mut self, mem: NodeId, t: &Tile, span: Span) -> FResult<()> {
        let base = self.pointer(mem)?;
        let u = ScalarTy::U32;
        let bin = |op, a: Expr, b: Expr| Expr::Bin(op, u, Box::new(a), Box::new(b));
        let lane = bin(BinOp::Rem, super::library::linear_tid(), Expr::Const(32, u));
        // One unknown rotation for every store and every warp: a fixed, unspecified split. It
        // is computed once, so that the store's eight writes use the same one.
        let rot = self.temp(u);
        self.ops
            .push(Op::Assign(rot, Expr::Opaque(u, vec![Expr::Const(0x776d_6d61, u)])));
        let r = Expr::Var(rot);
        for k in 0..TILE / 32 {
            let x = bin(
                BinOp::Rem,
                bin(
                    BinOp::Add,
                    bin(BinOp::Add, lane.clone(), Expr::Const(32 * k, u)),
                    r.clone(),
                ),
                Expr::Const(TILE, u),
            );
            let row = bin(BinOp::Div, x.clone(), Expr::Const(t.cols, u));
            let col = bin(BinOp::Rem, x, Expr::Const(t.cols, u));
            let (major, minor) = if t.col_major { (col, row) } else { (row, col) };
            let to64 = |e: Expr| Expr::Cast(ScalarTy::U64, Box::new(e));
            let index = Expr::Bin(
                BinOp::Add,
                ScalarTy::U64,
                Box::new(mul(to64(major), t.ldm.clone())),
                Box::new(to64(minor)),
            );
            let mut p = base.clone();
            p.off = add_offset(p.off, index, t.bytes);
            if let super::values::LV::Mem(place) = self.deref(p, t.elem(), span)? {
                self.write(&place, Expr::Unknown(t.elem().scalar()))?;
            }
        }
        Ok(())
    }
}

/// A tile in memory: its logical size, element width, layout and leading dimension (in
/// elements).
struct Tile {
    rows: i64,
    cols: i64,
    bytes: i64,
    col_major: bool,
    ldm: Expr,
}

impl Tile {
    /// The element type as memory sees it (an unsigned integer of the element's width).
    fn elem(&self) -> CType {
        CType::Int {
            bits: (self.bytes * 8) as u8,
            signed: false,
        }
    }
}

fn mul(a: Expr, b: Expr) -> Expr {
    Expr::Bin(BinOp::Mul, ScalarTy::U64, Box::new(a), Box::new(b))
}
