//! An inserted statement as synthesis chose it (position, kind, cost, guard, cycling ID) and
//! the kernel with such statements inserted in the order emission writes them.

use super::guard;
use super::settings::{NamedKind, NamedStyle};
use super::style;
use autosync_oracle::ir::{Barrier, Expr, Kernel};
use autosync_oracle::tree::{insert_guarded_barriers, Position};

/// One inserted statement.
#[derive(Clone, Debug)]
pub struct NamedPlaced {
    /// Where.
    pub pos: Position,
    /// What.
    pub kind: NamedKind,
    /// Its cost under the cost model.
    pub cost: f64,
    /// Indices of the initial report's races it helps order.
    pub covers: Vec<usize>,
    /// Whether it is one end of a producer/consumer channel.
    pub channel: bool,
    /// The condition it is written under (a shifted channel end), if any.
    pub guard: Option<guard::Guard>,
    /// When the ID cycles with the role loop's counter: the kind's ID is the first of them.
    pub rotation: Option<guard::Rotation>,
}

impl NamedPlaced {
    /// The IDs it uses.
    pub fn ids(&self) -> Vec<u32> {
        let (NamedKind::Sync { id, .. } | NamedKind::Arrive { id, .. }) = self.kind else {
            return vec![];
        };
        (id..id + self.rotation.as_ref().map_or(1, |r| r.by)).collect()
    }

    /// The IR statement's barrier (the guard is separate).
    pub fn barrier(&self) -> Barrier {
        let (NamedKind::Sync { id, .. } | NamedKind::Arrive { id, .. }) = self.kind else {
            return self.kind.barrier();
        };
        self.kind.barrier_with(self.rotation.as_ref().map(|r| r.id_expr(id)))
    }

    /// The source text, guard included.
    pub fn text(&self, style: NamedStyle) -> String {
        self.guarded(self.kind.text_with(style, self.id_text().as_deref()))
    }

    /// The source text written as `e` says (the kernel's helpers), guard included.
    pub fn text_in(&self, e: &style::Emission) -> String {
        self.guarded(e.statement(self.kind, self.id_text().as_deref()))
    }

    /// The ID as an expression of the loop counter, for a rotating ID.
    fn id_text(&self) -> Option<String> {
        match (self.kind, &self.rotation) {
            (NamedKind::Sync { id, .. } | NamedKind::Arrive { id, .. }, Some(r)) => Some(r.id_text(id)),
            _ => None,
        }
    }

    fn guarded(&self, stmt: String) -> String {
        match &self.guard {
            Some(g) => format!("if ({}) {stmt}", g.text),
            None => stmt,
        }
    }
}

/// The kernel with the statements inserted in the order emission writes them.
pub fn apply(k: &Kernel, placed: &[NamedPlaced]) -> Option<Kernel> {
    // `insert_guarded_barriers` puts each `After` insertion right after its statement, so a
    // group at one such position is inserted in reverse to keep the written order.
    type Item = (Barrier, Option<Expr>);
    let mut groups: Vec<(Position, Vec<Item>)> = Vec::new();
    for p in placed {
        let item = (p.barrier(), p.guard.as_ref().map(|g| g.cond.clone()));
        match groups.last_mut() {
            Some((pos, v)) if *pos == p.pos => v.push(item),
            _ => groups.push((p.pos, vec![item])),
        }
    }
    let mut inserts = Vec::new();
    for (pos, mut v) in groups {
        if matches!(pos, Position::After(_)) {
            v.reverse();
        }
        inserts.extend(v.into_iter().map(|(b, g)| (pos, b, g)));
    }
    insert_guarded_barriers(k, &inserts).ok().map(|x| x.0)
}
