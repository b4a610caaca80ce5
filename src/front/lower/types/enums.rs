//! Enumerators: values by name (including those a using-declaration brings into another
//! scope), an enum's values, and integer constants Clang printed as text.

use super::spelling::parse_int;
use super::table::*;
use crate::front::ast::{DeclInfo, NodeId, NodeKind};

/// The qualified names `name` may have seen from `scope`: innermost scope first, the global
/// one last.
fn qualified_names<'n>(name: &'n str, scope: &str) -> impl Iterator<Item = String> + 'n {
    let mut prefixes = vec![scope.to_string()];
    let mut s = scope.to_string();
    while let Some(i) = s.rfind("::") {
        s.truncate(i);
        prefixes.push(s.clone());
    }
    prefixes.push(String::new());
    prefixes.into_iter().map(move |p| {
        if p.is_empty() {
            name.to_string()
        } else {
            format!("{p}::{name}")
        }
    })
}

/// How many constants deep a folded initializer may name others.
const MAX_CONSTANT_DEPTH: u32 = 16;

impl<'a> Types<'a> {
    /// The value of a printed non-type template argument (`32`, `16UL`, `true`, `'a'`,
    /// `(E)2`, `ns::E::B`).
    pub fn eval_printed(&self, s: &str, scope: &str) -> Option<i64> {
        let s = s.trim();
        match s {
            "true" => return Some(1),
            "false" => return Some(0),
            _ => {}
        }
        if let Some(c) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
            return c.chars().next().map(|c| c as i64);
        }
        if let Some(rest) = s.strip_prefix('(') {
            // `(E)2`: an enum value with no enumerator.
            if let Some(i) = rest.find(')') {
                return self.eval_printed(&rest[i + 1..], scope);
            }
        }
        if let Some(v) = parse_int(s) {
            return Some(v);
        }
        self.enumerator_value(s, scope)
            .or_else(|| self.constant_value(s, scope))
    }

    /// The value of a constant named by a (possibly qualified) name, seen from `scope`: a
    /// `const`/`constexpr` integral variable whose initializer folds (`BLOCK_SIZE` printed in
    /// `st_bf<BLOCK_SIZE, BLOCK_SIZE>`).
    pub fn constant_value(&self, name: &str, scope: &str) -> Option<i64> {
        qualified_names(name, scope).find_map(|q| {
            // A function's locals carry their namespace's qualified name: a printed name that
            // may be one of them is not read (the type may be written inside that function),
            // and every other declaration found must agree.
            let vars: Vec<(&u64, &DeclInfo)> = (self.ast.decls.iter())
                .filter(|(_, d)| d.kind == NodeKind::VarDecl && d.qual == q)
                .collect();
            if vars.iter().any(|(_, d)| self.in_function(d.parent)) {
                return None;
            }
            let values: Vec<Option<i64>> = vars.iter().map(|(&id, _)| self.variable_init_value(id, 0)).collect();
            let first = *values.first()?;
            values.iter().all(|v| *v == first).then_some(first).flatten()
        })
    }

    /// Whether a declaration's enclosing declaration is a function (or a block in one).
    fn in_function(&self, parent: Option<u64>) -> bool {
        parent.and_then(|p| self.ast.decls.get(&p)).is_some_and(|d| {
            matches!(
                d.kind,
                NodeKind::FunctionDecl
                    | NodeKind::CXXMethodDecl
                    | NodeKind::CXXConstructorDecl
                    | NodeKind::CXXDestructorDecl
                    | NodeKind::CXXConversionDecl
            )
        })
    }

    /// A `const` integral variable's folded initializer.
    fn variable_init_value(&self, id: u64, depth: u32) -> Option<i64> {
        let d = self
            .ast
            .decl_node(self.definition(id))
            .or_else(|| self.ast.decl_node(id))?;
        let qual = self.ast.node(d).ty.map(|t| self.ast.str(t.qual))?;
        let constant = qual.starts_with("const ") || qual.contains(" const");
        let integral = self.resolve(qual, &self.scope_of(id)).is_integral();
        (constant && integral)
            .then(|| self.folded(self.ast.var_init(d)?, depth + 1))
            .flatten()
    }

    /// The value of an enumerator named by a (possibly qualified) name.
    pub fn enumerator_value(&self, name: &str, scope: &str) -> Option<i64> {
        qualified_names(name, scope).find_map(|q| self.enumerator_by_qual(&q))
    }

    fn enumerator_by_qual(&self, q: &str) -> Option<i64> {
        // Enumerators of unscoped enums are also visible in the enclosing scope.
        let (parent_q, name) = q.rsplit_once("::").unwrap_or(("", q));
        let mut enums: Vec<u64> = self.by_qual.get(parent_q).cloned().unwrap_or_default();
        enums.retain(|id| self.ast.decls[id].kind == NodeKind::EnumDecl);
        let scope_enums = self.ast.decls.iter().filter(|(_, d)| {
            d.kind == NodeKind::EnumDecl && {
                let dq = &d.qual;
                let ps = dq.rsplit_once("::").map(|x| x.0).unwrap_or("");
                ps == parent_q
            }
        });
        let mut all: Vec<u64> = enums;
        all.extend(scope_enums.map(|(id, _)| *id));
        for e in all {
            if let Some(v) = self.enum_values(e).into_iter().find(|(n, _)| n == name).map(|x| x.1) {
                return Some(v);
            }
        }
        let used = *self.used_enumerators.get(q)?;
        let e = self.ast.decls.get(&used)?.parent?;
        self.enum_values(e).into_iter().find(|(n, _)| n == name).map(|x| x.1)
    }

    /// The enumerators of an enum whose values Clang folded, with their values. An enumerator
    /// whose initializer is an expression Clang left unfolded (an enum member of a class
    /// template specialization), and the implicit ones after it, are left out: see
    /// [`Types::enumerator_init`].
    pub fn enum_values(&self, e: u64) -> Vec<(String, i64)> {
        let Some(n) = self.ast.decl_node(e) else { return vec![] };
        let mut next = Some(0i64);
        let mut out = Vec::new();
        for c in self.ast.children_of_kind(n, NodeKind::EnumConstantDecl) {
            let v = match self.ast.children(c).find(|&x| !self.ast.is_attr(x)) {
                Some(init) => self.const_value(init),
                None => next,
            };
            if let Some(v) = v {
                out.push((self.ast.name(c).to_string(), v));
            }
            next = v.map(|v| v.wrapping_add(1));
        }
        out
    }

    /// An enumerator's initializer, or (implicit value) the enumerator before it.
    pub fn enumerator_init(&self, n: NodeId) -> Option<EnumInit> {
        if let Some(init) = self.ast.children(n).find(|&x| !self.ast.is_attr(x)) {
            return Some(EnumInit::Expr(init));
        }
        let parent = self.ast.node(n).parent?;
        let siblings: Vec<NodeId> = self.ast.children_of_kind(parent, NodeKind::EnumConstantDecl).collect();
        let i = siblings.iter().position(|&s| s == n)?;
        Some(match i {
            0 => EnumInit::First,
            i => EnumInit::After(siblings[i - 1]),
        })
    }

    /// A constant Clang evaluated (`ConstantExpr` value), or an integer literal.
    pub fn const_value(&self, n: NodeId) -> Option<i64> {
        match self.ast.kind(n) {
            // Clang writes a boolean constant's value as a word.
            NodeKind::ConstantExpr
            | NodeKind::IntegerLiteral
            | NodeKind::CharacterLiteral
            | NodeKind::CXXBoolLiteralExpr => match self.ast.value(n)? {
                "true" => Some(1),
                "false" => Some(0),
                v => parse_int(v),
            },
            NodeKind::ImplicitCastExpr | NodeKind::ParenExpr => {
                self.ast.children(n).next().and_then(|c| self.const_value(c))
            }
            _ => None,
        }
    }

    /// The value of an attribute's integer argument (`__launch_bounds__(32 * ROWS)`, `alignas`):
    /// Clang's value when it computed one, else the argument's integer arithmetic folded, with
    /// template parameters as the instantiation substitutes them. None when it is anything else
    /// (an unknown is never taken for a constant inside it).
    pub fn attr_value(&self, n: NodeId) -> Option<i64> {
        self.folded(n, 0)
    }

    /// [`Self::attr_value`], `depth` constants deep (a constant's initializer names another).
    fn folded(&self, n: NodeId, depth: u32) -> Option<i64> {
        use crate::front::ast::BinaryOp::*;
        if let Some(v) = self.const_value(n) {
            return Some(v);
        }
        if depth > MAX_CONSTANT_DEPTH {
            return None;
        }
        let last = || self.ast.children(n).filter(|&c| !self.ast.is_decl(c)).last();
        match self.ast.kind(n) {
            NodeKind::ConstantExpr
            | NodeKind::ImplicitCastExpr
            | NodeKind::ParenExpr
            | NodeKind::SubstNonTypeTemplateParmExpr => self.folded(last()?, depth),
            // A constant named in the expression: its own initializer folded.
            NodeKind::DeclRefExpr => {
                let r = self
                    .ast
                    .node(n)
                    .attrs
                    .referenced
                    .filter(|r| r.kind == NodeKind::VarDecl)?;
                self.variable_init_value(r.id, depth)
            }
            NodeKind::BinaryOperator => {
                let mut c = self.ast.children(n);
                let (a, b) = (self.folded(c.next()?, depth)?, self.folded(c.next()?, depth)?);
                match self.ast.binary_op(n)? {
                    Add => a.checked_add(b),
                    Sub => a.checked_sub(b),
                    Mul => a.checked_mul(b),
                    Div => a.checked_div(b),
                    Rem => a.checked_rem(b),
                    Shl => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)),
                    Shr => u32::try_from(b).ok().and_then(|s| a.checked_shr(s)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
