//! `std::is_same_v<A, B>` (the standard library's, from a system header) in a template
//! instantiation. When its specialization lives in the precompiled prelude the dump shows
//! neither its value nor its arguments, only a reference to it; Clang's dump of the template's
//! pattern does show them, on the `UnresolvedLookupExpr` written at the same place: the
//! pattern's template parameters among them are replaced by the instantiation's arguments,
//! and the value is whether the two are one type. Anything else (a dependent type other than
//! a bare parameter, a parameter pack, a member template) leaves the reference unknown.

use crate::front::ast::{NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::lower::lowerer::Lowerer;

impl Lowerer<'_> {
    /// The value of a reference to a `std::is_same_v` specialization Clang does not show.
    pub(super) fn is_same_v(&self, n: NodeId) -> Option<bool> {
        let ast = self.ast;
        let r = ast.node(n).attrs.referenced?;
        if r.kind != NodeKind::VarTemplateSpecializationDecl || ast.str(r.name) != "is_same_v" {
            return None;
        }
        let (a, b, scope) = match ast.decl_node(r.id) {
            // A user's own `is_same_v` means what its initializer says: not this.
            Some(_) if !ast.decl_is_system(r.id) => return None,
            // The specialization is in the dump (no precompiled prelude): its own arguments.
            Some(d) => {
                let args: Vec<NodeId> = ast.children_of_kind(d, NodeKind::TemplateArgument).collect();
                let [a, b] = args.as_slice() else { return None };
                (spelled(self, *a)?, spelled(self, *b)?, self.types.scope_of(r.id))
            }
            None => self.is_same_from_pattern(n)?,
        };
        if cv(&a) != cv(&b) {
            return Some(false);
        }
        let (ta, tb) = (self.types.resolve(&a, &scope), self.types.resolve(&b, &scope));
        match (&ta, &tb) {
            _ if a == b => Some(true),
            (CType::Other(_), _) | (_, CType::Other(_)) => None,
            _ => Some(ta == tb),
        }
    }

    /// The two type arguments of the `is_same_v` reference `n` makes inside an instantiation,
    /// read from the pattern, and the scope to resolve them in.
    fn is_same_from_pattern(&self, n: NodeId) -> Option<(String, String, String)> {
        let ast = self.ast;
        let inst = self.enclosing_function(n)?;
        let template = ast
            .node(inst)
            .parent
            .filter(|&t| ast.kind(t) == NodeKind::FunctionTemplateDecl)?;
        let pattern = ast
            .children(template)
            .find(|&c| matches!(ast.kind(c), NodeKind::FunctionDecl | NodeKind::CXXMethodDecl))?;
        if pattern == inst {
            return None;
        }
        let lookup = self.same_place(pattern, n, NodeKind::UnresolvedLookupExpr)?;
        let args: Vec<NodeId> = ast.children_of_kind(lookup, NodeKind::TemplateArgument).collect();
        let [a, b] = args.as_slice() else { return None };
        let scope = self.types.scope_of(ast.node(inst).id);
        Some((
            self.argument_type(template, inst, *a)?,
            self.argument_type(template, inst, *b)?,
            scope,
        ))
    }

    /// The function (an instantiation) a node is in.
    fn enclosing_function(&self, mut n: NodeId) -> Option<NodeId> {
        let ast = self.ast;
        while let Some(p) = ast.node(n).parent {
            if matches!(ast.kind(p), NodeKind::FunctionDecl | NodeKind::CXXMethodDecl) {
                return Some(p);
            }
            n = p;
        }
        None
    }

    /// The one node of `kind` inside `root` written at exactly the place of `at`.
    fn same_place(&self, root: NodeId, at: NodeId, kind: NodeKind) -> Option<NodeId> {
        let ast = self.ast;
        let place = |x: NodeId| {
            ast.node(x)
                .range
                .map(|r| (r.begin.expansion.file, r.begin.expansion.offset, r.end.expansion.offset))
        };
        let want = place(at)?;
        let mut found = Vec::new();
        ast.walk(root, &mut |x| {
            if ast.kind(x) == kind && place(x) == Some(want) {
                found.push(x);
            }
        });
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// A pattern's template argument as a type spelled in the instantiation: itself when it
    /// does not depend on the template, else the instantiation's argument for the parameter it
    /// names.
    fn argument_type(&self, template: NodeId, inst: NodeId, arg: NodeId) -> Option<String> {
        let ast = self.ast;
        let spelled = |x: NodeId| spelled(self, x);
        let text = ast.str(ast.node(arg).ty?.qual).to_string();
        let params: Vec<NodeId> = ast
            .children(template)
            .filter(|&c| {
                matches!(
                    ast.kind(c),
                    NodeKind::TemplateTypeParmDecl
                        | NodeKind::NonTypeTemplateParmDecl
                        | NodeKind::TemplateTemplateParmDecl
                )
            })
            .collect();
        let Some(i) = params.iter().position(|&p| ast.name(p) == text) else {
            // Not a bare parameter: usable only if it names no parameter at all.
            let mentions = params.iter().any(|&p| mentions_word(&text, ast.name(p)));
            return (!mentions).then(|| spelled(arg)).flatten();
        };
        if ast.kind(params[i]) != NodeKind::TemplateTypeParmDecl {
            return None;
        }
        spelled(ast.children_of_kind(inst, NodeKind::TemplateArgument).nth(i)?)
    }
}

/// A type argument's type as Clang spells it without sugar.
fn spelled(l: &Lowerer<'_>, arg: NodeId) -> Option<String> {
    let t = l.ast.node(arg).ty?;
    Some(l.ast.str(t.desugared.unwrap_or(t.qual)).to_string())
}

/// `const`/`volatile` at the top level of a type's spelling.
fn cv(t: &str) -> (bool, bool) {
    let outer = t.rsplit(['*', '&']).next().unwrap_or(t);
    let has = |q: &str| outer.split_whitespace().any(|w| w == q);
    (has("const"), has("volatile"))
}

/// Whether `word` occurs in `text` as a whole identifier.
fn mentions_word(text: &str, word: &str) -> bool {
    !word.is_empty()
        && text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == word)
}
