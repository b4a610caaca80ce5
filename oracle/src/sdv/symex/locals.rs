//! Thread-local arrays (`float acc[4]` in registers or local memory): what a load reads is the
//! last store of the walk's own thread to the same element, when the walk can tell which that
//! is. Every store is kept with the control predicate it ran under, so a load reads
//! `ite(ctrl_n ∧ same element, value_n, … ite(ctrl_1 ∧ same element, value_1, fresh))`. A loop
//! that writes an array forgets its stores at its head and exit (the summarised iteration
//! does not know earlier iterations' stores), as does an atomic on it. Only stores and loads
//! of one size, each at `index * size` of the array, are compared (equal indices are then the
//! same element, other indices disjoint); any other load is a fresh value.

use super::terms::{LocalStore, Val};
use super::walker::Walker;
use crate::ir::*;
use crate::smt::resize;
use z3::ast::Bool;

impl Walker<'_> {
    /// Whether `array` is thread-local.
    fn is_local(&self, array: ArrayId) -> bool {
        self.k.array(array).space == Space::Local
    }

    /// After the site of a store `acc` (label, op) was recorded: keep it for later loads.
    pub(super) fn local_store(&mut self, label: Label, op: usize, acc: &Access) {
        if !self.is_local(acc.array) {
            return;
        }
        let Some(site) = self.out.sites.get(&(label, op)) else {
            self.locals.remove(&acc.array);
            return;
        };
        let Some(value) = site.stored.clone() else {
            // Values are not tracked in this walk: later loads read fresh values.
            self.locals.remove(&acc.array);
            return;
        };
        let index = site
            .index
            .as_ref()
            .filter(|_| site.base.is_none())
            .map(|(i, signed)| resize(i, 64, *signed));
        let store = LocalStore {
            ctrl: site.at.ctrl.clone(),
            index,
            size: acc.size,
            value,
        };
        self.locals.entry(acc.array).or_default().push(store);
    }

    /// The value a load `acc` (label, op) of a local array reads into a variable of type
    /// `ty`, when the walk's stores say it; `None`: a fresh value.
    pub(super) fn local_load(&mut self, label: Label, op: usize, acc: &Access, ty: ScalarTy) -> Option<Val> {
        if !self.is_local(acc.array) {
            return None;
        }
        let site = self.out.sites.get(&(label, op))?;
        let index = site
            .index
            .as_ref()
            .filter(|_| site.base.is_none())
            .map(|(i, signed)| resize(i, 64, *signed))?;
        let stores = self.locals.get(&acc.array).cloned().unwrap_or_default();
        if stores.is_empty() {
            return None;
        }
        let fits = |v: &Val| match (v, ty) {
            (Val::B(_), ScalarTy::Bool) => true,
            (Val::Bv(x), t) if t != ScalarTy::Bool => x.get_size() == t.width(),
            _ => false,
        };
        let comparable = stores
            .iter()
            .all(|s| s.size == acc.size && s.index.is_some() && fits(&s.value));
        if !comparable {
            return None;
        }
        let mut out = self.unknown("rd", ty, false);
        for s in stores {
            let same = Bool::and(&[s.ctrl.clone(), s.index.as_ref()?.eq(&index)]);
            out = self.ite(&same, s.value, out);
        }
        Some(out)
    }

    /// An atomic on a local array: its stores so far no longer say what a load reads.
    pub(super) fn local_clobber(&mut self, array: ArrayId) {
        if self.is_local(array) {
            self.locals.remove(&array);
        }
    }

    /// Forgets the stores to the local arrays loop `lp` writes.
    pub(super) fn forget_locals_written(&mut self, lp: &Loop) {
        if self.locals.is_empty() {
            return;
        }
        let mut written = Vec::new();
        for b in [&lp.header[..], &lp.body.stmts[..], &lp.step[..]] {
            for s in b.iter() {
                crate::tree::visit_stmt(s, &mut |st: &Stmt| {
                    if let StmtKind::Basic(ops) = &st.kind {
                        for o in ops {
                            if let Op::Write(a, _) | Op::Atomic(_, a, _) = o {
                                written.push(a.array);
                            }
                        }
                    }
                });
            }
        }
        for a in written {
            self.locals.remove(&a);
        }
    }
}
