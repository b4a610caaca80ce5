//! What an inserted mbarrier operation names, read from the kernel's own source: the barrier
//! operand (`&empty[s]`, the array element the role loop's other operations use for its stage)
//! and the phase parity (the loop's phase variable, or the ring's wrap count).
//!
//! Everything here is text the kernel already contains, recombined; whether it means what it
//! should is decided by lowering the patched text again and checking it.

use super::protocol::{MbarUse, Use};
use autosync_oracle::ir::{ArrayId, BinOp, Expr, Kernel, Label, Loop, Op, Stmt, StmtKind, VarId, VarKind};
use autosync_oracle::tree::{for_each_stmt, LabelTree};

/// The source texts of a unit, with the kernel and its label tree.
pub struct Source<'a> {
    /// The kernel.
    pub k: &'a Kernel,
    /// Its label tree.
    pub tree: &'a LabelTree,
    /// Texts by file id.
    pub texts: &'a [String],
}

impl Source<'_> {
    /// The text of statement `l` (for inlined code, the call).
    pub fn stmt_text(&self, l: Label) -> Option<&str> {
        let span = self.tree.get(l).span;
        if span.is_dummy() {
            return None;
        }
        self.texts
            .get(span.file.0 as usize)?
            .get(span.lo as usize..span.hi as usize)
    }

    /// The operand naming array `a`'s barrier in role loop `lp`: one of the loop's own uses of
    /// it, else a use of another mbarrier array in the loop with the array name replaced, else
    /// any use of `a`.
    pub fn operand(&self, uses: &[MbarUse], a: ArrayId, lp: Label) -> Option<String> {
        let name = &self.k.array(a).name;
        let own = |u: &&MbarUse| u.role_loop == Some(lp);
        let find = |u: &MbarUse| {
            let text = self.stmt_text(u.stmt)?;
            element_ref(text, &self.k.array(u.array).name).map(|(_, idx)| format!("&{name}[{idx}]"))
        };
        let pick = |pred: &dyn Fn(&MbarUse) -> bool| uses.iter().filter(|u| pred(u)).find_map(find);
        pick(&|u| own(&u) && u.array == a)
            .or_else(|| pick(&|u| own(&u) && u.what != Use::Init))
            .or_else(|| pick(&|u| u.array == a && u.what != Use::Init))
    }

    /// The parity text of a wait that waits for a fill in loop `lp` (its flip waits for a free
    /// stage): the parity argument of the loop's own waits written through a helper, else the
    /// loop's phase variable, else `(k / STAGES) & 1` from the loop's stage index `k % STAGES`.
    pub fn parity(&self, uses: &[MbarUse], fills: &dyn Fn(ArrayId) -> bool, lp: Label) -> Option<String> {
        let from_waits = uses
            .iter()
            .filter(|u| u.role_loop == Some(lp) && u.what == Use::Wait)
            .find_map(|u| self.wait_parity(u, fills(u.array)));
        from_waits
            .or_else(|| self.phase_variable(lp))
            .or_else(|| self.wrap_count(lp))
    }

    /// The data parity of an existing wait written `helper(&bar[i], parity)`.
    fn wait_parity(&self, u: &MbarUse, fills: bool) -> Option<String> {
        let text = self.stmt_text(u.stmt)?;
        let args = call_args(text)?;
        let [a, b] = &args[..] else { return None };
        let name = &self.k.array(u.array).name;
        let p = if element_ref(a, name).is_some() { b } else { a };
        if fills {
            return Some(p.trim().to_string());
        }
        unflip(p)
    }

    /// The loop's phase variable: assigned `(k / C) % 2` or `(k / C) & 1` of its counter `k`.
    fn phase_variable(&self, lp: Label) -> Option<String> {
        let (body, var) = loop_of(self.k, lp)?;
        let var = var?;
        body.iter().find_map(|s| {
            let StmtKind::Basic(ops) = &s.kind else { return None };
            ops.iter().find_map(|op| match op {
                Op::Assign(v, e) if self.k.var(*v).kind == VarKind::Local && is_wrap_parity(e, var) => {
                    Some(self.k.var(*v).name.clone())
                }
                _ => None,
            })
        })
    }

    /// `(k / C) & 1` from the loop's stage index statement `s = k % C`, written as the source
    /// writes `k` and `C`.
    fn wrap_count(&self, lp: Label) -> Option<String> {
        let (body, var) = loop_of(self.k, lp)?;
        let var = var?;
        let stage = body.iter().find(|s| {
            let StmtKind::Basic(ops) = &s.kind else { return false };
            ops.iter()
                .any(|op| matches!(op, Op::Assign(_, e) if is_counter_mod(e, var)))
        })?;
        let text = self.stmt_text(stage.label)?;
        let rhs = text.split_once('=')?.1.trim().trim_end_matches(';').trim();
        let (k, c) = rhs.split_once('%')?;
        Some(format!("({} / {}) & 1", k.trim(), c.trim()))
    }

    /// The first statement of loop `lp`'s body that assigns a local variable named `name`
    /// (its declaration): an inserted statement naming it goes after it.
    pub fn declaration(&self, lp: Label, name: &str) -> Option<Label> {
        let (body, _) = loop_of(self.k, lp)?;
        body.iter().find_map(|s| {
            let StmtKind::Basic(ops) = &s.kind else { return None };
            ops.iter()
                .any(|op| {
                    matches!(op, Op::Assign(v, _) if self.k.var(*v).kind == VarKind::Local && self.k.var(*v).name == name)
                })
                .then_some(s.label)
        })
    }
}

/// The body statements and counter of loop statement `lp`.
fn loop_of(k: &Kernel, lp: Label) -> Option<(&[Stmt], Option<VarId>)> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s| {
        if let (true, StmtKind::Loop(Loop { body, var, .. })) = (s.label == lp, &s.kind) {
            found = Some((&body.stmts[..], *var));
        }
    });
    found
}

fn strip_casts(e: &Expr) -> &Expr {
    match e {
        Expr::Cast(_, a) => strip_casts(a),
        e => e,
    }
}

/// `k % C` for counter `k` and a constant `C`.
fn is_counter_mod(e: &Expr, k: VarId) -> bool {
    match strip_casts(e) {
        Expr::Bin(BinOp::Rem, _, a, c) => matches!(strip_casts(a), Expr::Var(v) if *v == k) && c.as_const().is_some(),
        _ => false,
    }
}

/// `(k / C) % 2` or `(k / C) & 1` for counter `k`.
fn is_wrap_parity(e: &Expr, k: VarId) -> bool {
    let Expr::Bin(op, _, a, m) = strip_casts(e) else {
        return false;
    };
    let bit = matches!((op, m.as_const()), (BinOp::Rem, Some(2)) | (BinOp::BitAnd, Some(1)));
    let Expr::Bin(BinOp::Div, _, x, c) = strip_casts(a) else {
        return false;
    };
    bit && c.as_const().is_some() && matches!(strip_casts(x), Expr::Var(v) if *v == k)
}

/// The first `&name[index]` in `text` (`name` a whole identifier): its byte range and index.
pub fn element_ref(text: &str, name: &str) -> Option<(std::ops::Range<usize>, String)> {
    let mut from = 0;
    while let Some(i) = text[from..].find(name).map(|i| i + from) {
        from = i + name.len();
        let before = text[..i].trim_end();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        if !before.ends_with('&') || text[..i].ends_with(ident) || text[from..].starts_with(ident) {
            continue;
        }
        let rest = text[from..].trim_start();
        if !rest.starts_with('[') {
            continue;
        }
        let open = text.len() - rest.len();
        let close = matching(text, open)?;
        let start = before.len() - 1;
        return Some((start..close + 1, text[open + 1..close].trim().to_string()));
    }
    None
}

/// The index of the bracket or parenthesis closing the one at `open`.
pub fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The top-level arguments of the call `name(a, b);` that `text` is.
pub fn call_args(text: &str) -> Option<Vec<String>> {
    let open = text.find('(')?;
    let head = text[..open].trim();
    if head.is_empty() || !head.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':') {
        return None;
    }
    let close = matching(text, open)?;
    Some(split_top(&text[open + 1..close]))
}

/// `text` split at its top-level commas.
pub fn split_top(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().expect("never empty").push(c);
    }
    out.iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `x` for a parity written `x ^ 1` (parentheses around the whole kept off).
fn unflip(p: &str) -> Option<String> {
    let p = p.trim();
    let x = p.strip_suffix('1')?.trim_end().strip_suffix('^')?.trim_end();
    Some(x.to_string())
}

/// The flipped parity `p ^ 1`, parenthesized unless `p` is one identifier or group.
pub fn flip(p: &str) -> String {
    let simple = p.chars().all(|c| c.is_alphanumeric() || c == '_')
        || (p.starts_with('(') && matching(p, 0) == Some(p.len() - 1));
    if simple {
        format!("{p} ^ 1")
    } else {
        format!("({p}) ^ 1")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_refs_are_whole_names_behind_an_ampersand() {
        let t = "mbar_wait(&full[s], phase); mbar_arrive(& empty [ k % 2 ]);";
        assert_eq!(element_ref(t, "full").map(|x| x.1), Some("s".into()));
        assert_eq!(element_ref(t, "empty").map(|x| x.1), Some("k % 2".into()));
        assert_eq!(element_ref("&fuller[s]", "full"), None);
        assert_eq!(element_ref("full[s]", "full"), None);
        let (r, _) = element_ref("f(&full[a[i]])", "full").unwrap();
        assert_eq!(&"f(&full[a[i]])"[r], "&full[a[i]]");
    }

    #[test]
    fn calls_split_at_top_level_commas() {
        assert_eq!(
            call_args("bar_wait_parity(&full[s], ((k / STAGES) & 1) ^ 1);"),
            Some(vec!["&full[s]".to_string(), "((k / STAGES) & 1) ^ 1".to_string()])
        );
        assert_eq!(call_args("x = f(a);"), None);
    }

    #[test]
    fn parities_flip_and_unflip() {
        assert_eq!(flip("phase"), "phase ^ 1");
        assert_eq!(flip("(k / STAGES) & 1"), "((k / STAGES) & 1) ^ 1");
        assert_eq!(flip("((k / STAGES) & 1)"), "((k / STAGES) & 1) ^ 1");
        assert_eq!(unflip("((k / STAGES) & 1) ^ 1"), Some("((k / STAGES) & 1)".into()));
        assert_eq!(unflip("phase ^ 1"), Some("phase".into()));
        assert_eq!(unflip("phase"), None);
    }
}
