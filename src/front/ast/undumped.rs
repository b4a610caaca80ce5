//! Declarations the dump refers to but does not show (those of a precompiled prelude),
//! indexed from what the references to them say.

use super::{Ast, DeclInfo, NodeId, NodeKind};

/// The record a type names (`const __cuda_builtin_threadIdx_t &` → `__cuda_builtin_threadIdx_t`;
/// template arguments dropped).
fn record_of_type(t: &str) -> String {
    let t = t.split('<').next().unwrap_or(t);
    t.trim_end_matches(['&', '*', ' '])
        .trim_start_matches("const ")
        .trim_start_matches("volatile ")
        .trim_start_matches("struct ")
        .trim_start_matches("class ")
        .trim()
        .to_string()
}

impl Ast {
    /// Indexes the declarations the dump refers to but does not show (those of a precompiled
    /// prelude) by what the references say: their name, kind, and for members the record the
    /// object's type names. They count as system declarations (no file).
    pub fn index_undumped_refs(&mut self) {
        // (id, kind, name, qualified name)
        let mut found: Vec<(u64, NodeKind, String, String)> = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let a = &n.attrs;
            for r in [a.referenced, a.conversion, a.dtor, a.any_init].into_iter().flatten() {
                if !self.decls.contains_key(&r.id) {
                    let name = self.str(r.name).to_string();
                    found.push((r.id, r.kind, name.clone(), name));
                }
            }
            if let (Some(m), NodeKind::MemberExpr) = (a.member, n.kind) {
                if !self.decls.contains_key(&m) {
                    let name = n.name.map(|s| self.str(s).to_string()).unwrap_or_default();
                    let is_call = n.ty.is_some_and(|t| self.str(t.qual).contains('('));
                    let owner = self.child(i as NodeId, 0).and_then(|b| self.ty(b)).map(record_of_type);
                    let qual = match owner {
                        Some(o) if !o.is_empty() => format!("{o}::{name}"),
                        _ => name.clone(),
                    };
                    let kind = if is_call {
                        NodeKind::CXXMethodDecl
                    } else {
                        NodeKind::FieldDecl
                    };
                    found.push((m, kind, name, qual));
                }
            }
        }
        // A member's entry names its record (`T::operator dim3`); a bare reference to the same
        // declaration (`conversionFunc`) does not.
        found.sort_by_key(|(_, _, _, qual)| !qual.contains("::"));
        for (id, kind, name, qual) in found {
            if self.decls.contains_key(&id) {
                continue;
            }
            let name = self.sym(&name);
            self.decls.insert(
                id,
                DeclInfo {
                    node: None,
                    kind,
                    name,
                    qual,
                    ty: None,
                    parent: None,
                    file: None,
                    members: Vec::new(),
                },
            );
        }
    }
}
