//! autosync-oracle: the kernel IR and the checkers that decide whether a kernel is correctly
//! synchronized (the SDV checker for block-wide barriers, the named-barrier checker).

mod arith;
mod bv_eval;
pub mod exec;
pub mod ir;
pub mod named;
pub mod print;
pub mod report;
pub mod sdv;
mod smt;
pub mod traps;
pub mod tree;

pub use smt::solver_version;

#[cfg(test)]
mod t {
    #[test]
    fn z3_links() {
        use z3::ast::BV;
        let s = z3::Solver::new();
        let x = BV::new_const("x", 32);
        s.assert(x.bvadd(BV::from_u64(1, 32)).eq(BV::from_u64(0, 32)));
        assert_eq!(s.check(), z3::SatResult::Sat);
    }
}
