//! The bytes a `wgmma.mma_async` operand reads, decoded from its matrix descriptor (PTX ISA,
//! "Matrix Descriptor Format"): start address, leading- and stride-dimension byte offsets
//! (LBO, SBO) and swizzle mode, each a field of the 64-bit number the kernel computes from the
//! tile's address. The footprint is the hull of the core matrices the operand's shape covers
//! (rows in groups of 8; K is 32 bytes of each row for every type), a swizzled row widened to
//! its whole swizzle chunk since the swizzle permutes 16-byte pieces inside it.
//!
//! The descriptor holds the shared address itself, which is unknown (`&array`): it is decoded
//! at each of several placements of shared memory that the kernel's facts allow (its arrays'
//! alignment, the 256 KiB window), and the layout (size, swizzle) must be the same at all of
//! them, else the kernel is inconclusive. Where the operand's offset in its array is the same
//! at all of them it is that number; otherwise it is the decoding itself on the symbolic
//! address, so that the solver compares it with the threads' accesses at one placement. The
//! decoding assumes what the hardware requires of a descriptor whose base-offset field is 0:
//! the swizzle pattern starts at an address aligned to its atom.

use super::super::eval::eval;
use super::super::pipeline::{AgentIdx, AsyncEv};
use super::super::value::{Origin, Sym, Val};
use super::trace::*;
use super::warp::*;
use crate::ir::*;
use std::rc::Rc;

/// Placements of shared memory tried (those the kernel's facts about its addresses allow):
/// residues from 16 to 64 KiB.
const PLACEMENTS: [i64; 7] = [0, 16, 128, 1024, 4096, 1 << 16, (1 << 16) + 1024 + 128];

/// K of one instruction: 32 bytes of each row, whatever the type.
const K_BYTES: i64 = 32;

impl Emu<'_, '_> {
    /// A `wgmma.mma_async`: per lane, the bytes each operand's descriptor names; lanes
    /// reading alike share one agent, open until their wgmma group retires.
    pub(super) fn wgmma(&mut self, s: &Stmt, active: &[usize], ops: &[WgmmaOperand]) -> Result<(), Stop> {
        let mut agents: Vec<(Vec<(Val, u32)>, u32)> = vec![];
        for &li in active {
            let mut reads = vec![];
            for o in ops {
                let (desc, base) = (self.eval(li, &o.desc), self.eval(li, &o.base));
                reads.push(self.wgmma_footprint(o, desc, base)?);
            }
            match agents.iter_mut().find(|(r, _)| *r == reads) {
                Some((_, mask)) => *mask |= 1 << li,
                None => agents.push((reads, 1 << li)),
            }
        }
        for (reads, mask) in agents {
            let idx = self.ctx.agents.len() as AgentIdx;
            let mut agent = Agent {
                warp: self.w,
                event: self.trace.events.len() as u32,
                mask,
                done: AgentDone::Wgmma,
                conc: vec![],
                sym: vec![],
                label: s.label,
                span: s.span,
            };
            let lanes: Vec<usize> = (0..self.lanes.len()).filter(|l| mask & (1 << l) != 0).collect();
            for &li in &lanes {
                for ((offset, size), o) in reads.iter().zip(ops) {
                    let a = Access {
                        array: o.array,
                        kind: AccessKind::Read,
                        offset: Expr::Const(0, ScalarTy::U64),
                        size: *size,
                        span: o.span,
                    };
                    match self.record_at(li, s.label, &a, offset.clone(), 1)? {
                        Recorded::Conc(x) => agent.conc.push(x),
                        Recorded::Sym(x) => agent.sym.push(x),
                    }
                }
                self.lanes[li].wgmma_open.push(idx);
            }
            self.ctx.agents.push(agent);
            self.push_async(s, mask, AsyncEv::Issue { agent: idx });
        }
        Ok(())
    }

    /// The bytes operand `o` reads, as (byte offset in its array, size), from the values of
    /// its descriptor and of its array's address in one lane.
    fn wgmma_footprint(&self, o: &WgmmaOperand, desc: Val, base: Val) -> Result<(Val, u32), Stop> {
        let mut seen: Vec<Footprint> = vec![];
        for fill in PLACEMENTS {
            if !self.ctx.facts.iter().all(|f| eval(f, fill) == Some(1)) {
                continue;
            }
            let (Some(d), Some(b)) = (self.address_only(&desc, fill), self.address_only(&base, fill)) else {
                let blame = match &desc {
                    Val::S(s) => self.unk.blame(s).message("the matrix descriptor of a wgmma operand"),
                    Val::K(_) => "the address of a wgmma operand's array is not known".into(),
                };
                return Err(self.inconclusive(o.span, blame));
            };
            let fp = footprint(d, b, o).map_err(|why| self.inconclusive(o.span, format!("wgmma operand: {why}")))?;
            seen.push(fp);
        }
        let Some(&fp) = seen.first() else {
            return Err(self.inconclusive(
                o.span,
                "no placement of shared memory meets what the kernel assumes of its addresses".into(),
            ));
        };
        if seen.iter().any(|s| (s.len, s.align) != (fp.len, fp.align)) {
            return Err(self.inconclusive(
                o.span,
                "the layout a wgmma descriptor names depends on where shared memory is placed (its start field carries into its offsets)".into(),
            ));
        }
        let offset = match (&desc, &base) {
            (Val::K(_), Val::K(_)) => Val::K(fp.offset),
            // The same offset wherever shared memory is placed.
            _ if seen.iter().all(|s| s.offset == fp.offset) => Val::K(fp.offset),
            // The same decoding on the symbolic address: (start & ~(align - 1)) - base.
            _ => {
                let u64c = |v: i64| Rc::new(Sym::Const(v, ScalarTy::U64));
                let bin = |op, a, b| Rc::new(Sym::Bin(op, ScalarTy::U64, a, b));
                let field = bin(BinOp::BitAnd, desc.term(ScalarTy::U64), u64c(0x3FFF));
                let start = bin(BinOp::Shl, field, u64c(4));
                let lo = bin(BinOp::BitAnd, start, u64c(!(fp.align - 1)));
                Val::S(bin(BinOp::Sub, lo, base.term(ScalarTy::U64)))
            }
        };
        Ok((offset, fp.len))
    }

    /// `v` with every unknown in it an array's address, all placed at `fill`.
    fn address_only(&self, v: &Val, fill: i64) -> Option<i64> {
        match v {
            Val::K(x) => Some(*x),
            Val::S(s) => {
                let mut ok = true;
                s.for_each_unknown(&mut |n| {
                    ok &= matches!(&self.unk.info[n as usize].0, Origin::Param(p) if p.starts_with('&'));
                });
                ok.then(|| eval(s, fill)).flatten()
            }
        }
    }
}

/// What one operand reads: from `offset` (relative to its array), `len` bytes; the start
/// address rounded down to `align` (its swizzle row) begins it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Footprint {
    offset: i64,
    len: u32,
    align: i64,
}

/// The descriptor `desc`'s operand relative to its array at `base`: (offset, bytes).
fn footprint(desc: i64, base: i64, o: &WgmmaOperand) -> Result<Footprint, String> {
    let field = |shift: u32| ((desc >> shift) & 0x3FFF) << 4;
    let (start, lbo, sbo) = (field(0), field(16), field(32));
    if (desc >> 49) & 7 != 0 {
        return Err("a descriptor with a nonzero base offset is not modelled".into());
    }
    let swizzle = match (desc >> 62) & 3 {
        0 => None,
        1 => Some(128),
        2 => Some(64),
        _ => Some(32),
    };
    let rows = o.rows as i64;
    let row_bytes = rows * o.elem_bytes as i64;
    if rows % 8 != 0 {
        return Err(format!("{rows} rows are not whole core matrices"));
    }
    let align = swizzle.unwrap_or(1);
    let (lo, len) = match (swizzle, o.mn_major) {
        // K-major, swizzled: 8-row atoms of `s`-byte rows, SBO apart; K within one row.
        (Some(s), false) => {
            let p = start % s;
            if p + K_BYTES > s {
                return Err(format!("K runs past the {s}-byte swizzle row"));
            }
            (start - p, (rows / 8 - 1) * sbo + 8 * s)
        }
        // MN-major, swizzled: atoms of 8 K-rows of `s` bytes; MN atoms LBO apart, 8-row
        // groups of K SBO apart.
        (Some(s), true) => {
            let p = start % s;
            if p + row_bytes.min(s) > s {
                return Err(format!("the MN extent runs past the {s}-byte swizzle row"));
            }
            let (n_mn, n_k) = ((row_bytes + s - 1) / s, (K_BYTES / o.elem_bytes as i64 + 7) / 8);
            (start - p, (n_mn - 1) * lbo + (n_k - 1) * sbo + 8 * s)
        }
        // K-major, interleaved: 8x16-byte core matrices, two along K (LBO apart), rows/8
        // along M/N (SBO apart).
        (None, false) => (start, (rows / 8 - 1) * sbo + lbo + 128),
        // MN-major, interleaved: which offset strides which dimension is taken at its worst.
        (None, true) => {
            let (n_mn, n_k) = ((row_bytes + 15) / 16, (K_BYTES / o.elem_bytes as i64 + 7) / 8);
            (start, (n_mn - 1 + n_k - 1) * lbo.max(sbo) + 128)
        }
    };
    if len <= 0 || len > 1 << 18 {
        return Err(format!("a footprint of {len} bytes"));
    }
    Ok(Footprint {
        offset: lo - base,
        len: len as u32,
        align,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operand(rows: u32, mn_major: bool) -> WgmmaOperand {
        WgmmaOperand {
            array: ArrayId(0),
            desc: Expr::Const(0, ScalarTy::U64),
            base: Expr::Const(0, ScalarTy::U64),
            rows,
            elem_bytes: 2,
            mn_major,
            span: Span::DUMMY,
        }
    }

    fn at(desc: i64, base: i64, o: &WgmmaOperand) -> Result<(i64, u32), String> {
        footprint(desc, base, o).map(|f| (f.offset, f.len))
    }

    /// A descriptor as kernels build it: fields in units of 16 bytes.
    fn desc(start: i64, lbo: i64, sbo: i64, mode: i64) -> i64 {
        (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62
    }

    #[test]
    fn k_major_128b_swizzle_covers_its_atoms() {
        // A 64x64 bf16 tile at 8192, K chunk 1 (32 bytes in): 8 atoms of 1024 bytes.
        let d = desc(8192 + 32, 16, 1024, 1);
        assert_eq!(at(d, 0, &operand(64, false)), Ok((8192, 8192)));
        // Relative to the array's base.
        assert_eq!(at(d, 4096, &operand(64, false)), Ok((4096, 8192)));
    }

    #[test]
    fn mn_major_128b_swizzle_is_two_k_groups() {
        // N = 64 bf16 = one 128-byte atom along N; K chunk 2: 16 K-rows, two 8-row groups.
        let d = desc(4096, 8192, 1024, 1);
        assert_eq!(at(d, 0, &operand(64, true)), Ok((4096, 2048)));
    }

    #[test]
    fn interleaved_k_major_spans_its_core_matrices() {
        let d = desc(0, 128, 256, 0);
        assert_eq!(at(d, 0, &operand(16, false)), Ok((0, 256 + 128 + 128)));
    }

    #[test]
    fn k_past_the_swizzle_row_is_refused() {
        let d = desc(112, 16, 1024, 1);
        assert!(footprint(d, 0, &operand(64, false)).is_err());
    }
}
