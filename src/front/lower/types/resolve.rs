//! Resolution of type spellings to types: names looked up through scopes, inline namespaces,
//! typedefs and enums, class template specializations matched by their arguments (defaults that
//! name other parameters put in), unnamed records and lambdas.

use super::spelling::*;
use super::table::*;
use crate::front::ast::{NodeId, NodeKind};
use crate::front::ctype::CType;
use std::cell::RefCell;
use std::rc::Rc;

/// Deepest nesting of type resolutions (a template argument's type, resolved to match a
/// specialization, can name another specialization, and so on).
const MAX_RESOLVE_DEPTH: u32 = 48;

/// Deepest nesting at which a default template argument is resolved with the given arguments
/// put in (`time_point<system_clock>` resolves `system_clock::duration`, whose class names
/// `time_point<system_clock>` again).
const MAX_SUBSTITUTION_DEPTH: u32 = 4;

/// A default template argument with the given arguments put in for the parameters it names
/// (whole identifiers only; `typename` dropped): `typename _Clock::duration` with `_Clock` =
/// `system_clock` is `system_clock::duration`.
pub(super) fn substitute_params(default: &str, params: &[String], args: &[String]) -> String {
    let text = default.trim().trim_start_matches("typename ").trim();
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match params.iter().position(|p| p == word).and_then(|i| args.get(i)) {
            Some(a) if !word.is_empty() => out.push_str(a.trim()),
            _ => out.push_str(word),
        }
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_alphanumeric() || ch == '_' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

impl<'a> Types<'a> {
    /// Resolves a type as Clang printed it, looking names up from `scope` (a qualified
    /// namespace/record name) outwards.
    pub fn resolve(&self, text: &str, scope: &str) -> CType {
        if let Some((deps, t)) = self.cached(text, scope) {
            self.note_deps(&deps);
            return t;
        }
        let key = (text.to_string(), scope.to_string(), self.context.borrow().clone());
        if self.depth.get() > MAX_RESOLVE_DEPTH || !self.resolving.borrow_mut().insert(key.clone()) {
            return CType::Other(format!("{text} (its resolution needs itself)"));
        }
        self.depth.set(self.depth.get() + 1);
        self.deps.borrow_mut().push(Default::default());
        let t = match parse(text) {
            Some(te) => self.lower(&te, scope, 0),
            None => CType::Other(text.to_string()),
        };
        let deps: ContextDeps = self.deps.borrow_mut().pop().unwrap_or_default().into_iter().collect();
        self.note_deps(&deps);
        self.depth.set(self.depth.get() - 1);
        self.resolving.borrow_mut().remove(&key);
        // Not cached when unresolved: a lambda's closure type becomes known later.
        if !matches!(t, CType::Other(_)) {
            let mut cache = self.cache.borrow_mut();
            let by_scope = cache.entry(text.to_string()).or_default();
            by_scope.entry(scope.to_string()).or_default().push((deps, t.clone()));
        }
        t
    }

    /// A resolution of `key` made in a context that answers its questions as the current
    /// one does (so it is the one this context would make).
    fn cached(&self, text: &str, scope: &str) -> Option<(ContextDeps, CType)> {
        let cache = self.cache.borrow();
        let ctx = self.context.borrow();
        cache
            .get(text)?
            .get(scope)?
            .iter()
            .find(|(deps, _)| deps.iter().all(|(d, held)| ctx.contains(d) == *held))
            .cloned()
    }

    /// Records that the resolution in progress depends on these context answers.
    fn note_deps(&self, deps: &[(u64, bool)]) {
        if let Some(top) = self.deps.borrow_mut().last_mut() {
            top.extend(deps.iter().copied());
        }
    }

    /// The type of a node (desugared at the top level when Clang gave that).
    pub fn of_node(&self, n: NodeId, scope: &str) -> CType {
        match self.ast.node(n).ty {
            Some(t) => self.resolve(self.ast.type_str(t), scope),
            None => CType::Void,
        }
    }

    fn lower(&self, te: &TyExpr, scope: &str, depth: u32) -> CType {
        if depth > 32 {
            return CType::Other("typedef cycle".into());
        }
        match te {
            TyExpr::Builtin(t) => t.clone(),
            TyExpr::Ptr(t) => CType::Ptr(Box::new(self.lower(t, scope, depth))),
            TyExpr::Ref(t) => CType::Ref(Box::new(self.lower(t, scope, depth))),
            TyExpr::Array(t, n) => CType::Array(Box::new(self.lower(t, scope, depth)), *n),
            TyExpr::Func => CType::Func,
            TyExpr::Other(s) => {
                if let Some(&r) = self.lambdas.borrow().get(s) {
                    return CType::Record(r);
                }
                // Anonymous enums (`enum { kRows = 16 };`) print by location.
                if s.starts_with("(unnamed enum") || s.starts_with("(anonymous enum") {
                    return CType::INT;
                }
                if let Some(r) = self.unnamed_record(&[], s) {
                    return CType::Record(r);
                }
                CType::Other(s.clone())
            }
            TyExpr::Named(segs) if segs.last().is_some_and(|l| is_unnamed_record(&l.name)) => {
                // A member of unnamed struct or union type (`S::(unnamed union at f.h:12:5)`).
                let (last, scope_segs) = segs.split_last().expect("checked above");
                match self.unnamed_record(scope_segs, &last.name) {
                    Some(r) => CType::Record(r),
                    None => CType::Other(segs_text(segs)),
                }
            }
            TyExpr::Named(segs)
                if segs
                    .last()
                    .is_some_and(|l| l.name.starts_with("(unnamed enum") || l.name.starts_with("(anonymous enum")) =>
            {
                // An anonymous enum member of a class (`Tile<16>::(unnamed enum at ...)`).
                CType::INT
            }
            TyExpr::Named(segs) if segs.len() == 1 && segs[0].args.is_none() && self.prelude_only(segs, scope) => {
                // A CUDA vector type only the precompiled prelude declares.
                match crate::front::lower::vector_types::record_id(&segs[0].name) {
                    Some(id) => CType::Record(id),
                    None => self
                        .prelude_alias(segs, scope, depth)
                        .unwrap_or_else(|| CType::Other(segs_text(segs))),
                }
            }
            TyExpr::Named(segs) => match self.resolve_path(segs, scope) {
                Some(Resolved::Record(id)) => CType::Record(id),
                Some(Resolved::Typedef(id)) => {
                    // The typedef names a record or enum directly (`typedef struct {...} S;`):
                    // that declaration, not its spelling (an anonymous struct prints as `S`).
                    if let Some(t) = self.typedef_target(id) {
                        return t;
                    }
                    let d = &self.ast.decls[&id];
                    let inner_scope = self.scope_of(id);
                    match d.ty {
                        Some(t) => match parse(self.ast.type_str(t)) {
                            Some(x) => self.lower(&x, &inner_scope, depth + 1),
                            None => CType::Other(self.ast.type_str(t).to_string()),
                        },
                        // Known only from references to it (a precompiled prelude's), or its
                        // type is a child node (some Clang versions).
                        None => self
                            .prelude_alias(segs, scope, depth)
                            .unwrap_or_else(|| CType::Other(segs_text(segs))),
                    }
                }
                Some(Resolved::Enum(id)) => self.enum_type(id),
                None => self
                    .prelude_alias(segs, scope, depth)
                    .unwrap_or_else(|| CType::Other(segs_text(segs))),
            },
        }
    }

    /// A type alias only the precompiled prelude declares (`int32_t`, `std::size_t`): the type
    /// Clang said it stands for, looked up from `scope` outwards.
    fn prelude_alias(&self, segs: &[Seg], scope: &str, depth: u32) -> Option<CType> {
        let table = &self.ast.prelude_types;
        if table.is_empty() || segs.iter().any(|s| s.args.is_some()) {
            return None;
        }
        let name = segs_text(segs);
        let mut prefix = scope.to_string();
        let target = loop {
            let key = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}::{name}")
            };
            if let Some(t) = table.get(&key) {
                break t;
            }
            match prefix.rfind("::") {
                Some(i) => prefix.truncate(i),
                None if !prefix.is_empty() => prefix.clear(),
                None => return None,
            }
        };
        let t = self.lower(&parse(target)?, "", depth + 1);
        (!matches!(t, CType::Other(_))).then_some(t)
    }

    /// The unnamed struct or union `printed` (`(unnamed union at FILE:LINE:COL)`) declared in
    /// the record or namespace `scope`: the only unnamed record there, else the one at that line
    /// and column.
    fn unnamed_record(&self, scope: &[Seg], printed: &str) -> Option<u64> {
        if !is_unnamed_record(printed) {
            return None;
        }
        let owner = match scope {
            [] => None,
            // Nested unnamed records (`S::(anonymous union at ...)::(unnamed struct at ...)`).
            [outer @ .., last] if is_unnamed_record(&last.name) => self.unnamed_record(outer, &last.name),
            _ => match self.resolve_path(scope, "") {
                Some(Resolved::Record(r)) => Some(r),
                // `typedef struct { union {...}; ... } block;`: the struct the typedef names.
                Some(Resolved::Typedef(t)) => match self.typedef_target(t) {
                    Some(CType::Record(r)) => Some(r),
                    _ => None,
                },
                _ => None,
            },
        };
        let prefix = segs_text(scope);
        let unnamed = |id: &u64| {
            let d = &self.ast.decls[id];
            matches!(d.kind, NodeKind::CXXRecordDecl | NodeKind::RecordDecl) && self.ast.str(d.name).is_empty()
        };
        let candidates: Vec<u64> = match owner {
            // The owner's unnamed members, and theirs (a struct inside an anonymous union).
            Some(r) => {
                let mut found = Vec::new();
                let mut stack = vec![r];
                while let Some(o) = stack.pop() {
                    let inner: Vec<u64> = self.ast.decls[&o].members.iter().copied().filter(unnamed).collect();
                    stack.extend(inner.iter().copied().filter(|m| !found.contains(m)));
                    found.extend(inner);
                }
                found
            }
            None => {
                let mut v: Vec<u64> = self
                    .ast
                    .decls
                    .keys()
                    .copied()
                    .filter(|id| unnamed(id) && self.ast.decls[id].qual == prefix)
                    .collect();
                v.sort();
                v
            }
        };
        // Where the printed name says the record is, when its declaration says where it is.
        let at = printed.rsplit(' ').next().map(|a| a.trim_end_matches(')'));
        let mut parts = at.map(|a| a.rsplitn(3, ':')).into_iter().flatten();
        let written = match (parts.next().map(str::parse::<u32>), parts.next().map(str::parse::<u32>)) {
            (Some(Ok(col)), Some(Ok(line))) => Some((line, col)),
            _ => None,
        };
        let here = |id: &u64| match (written, self.line_col(*id)) {
            (Some(w), Some(l)) => w == l,
            _ => true,
        };
        let matching: Vec<u64> = candidates.into_iter().filter(here).collect();
        match (&matching[..], written) {
            ([only], _) => Some(self.definition(*only)),
            (many, Some(w)) => many
                .iter()
                .find(|id| self.line_col(**id) == Some(w))
                .map(|id| self.definition(*id)),
            _ => None,
        }
    }

    /// The 1-based line and column of a declaration, from its file on disk.
    fn line_col(&self, id: u64) -> Option<(u32, u32)> {
        let loc = self.ast.node(self.ast.decl_node(id)?).loc?.expansion;
        let file = self.ast.files.get(loc.file.0 as usize)?;
        let text = match (&self.main_text, file.name.as_str()) {
            (Some(t), crate::front::clang::STDIN_NAME) => t.as_bytes().to_vec(),
            _ => std::fs::read(file.text_path()).ok()?,
        };
        let before = text.get(..loc.offset as usize)?;
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let col = (before.len() - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)) as u32 + 1;
        Some((line, col))
    }

    /// The record or enum a typedef names directly, from its type nodes.
    fn typedef_target(&self, id: u64) -> Option<CType> {
        let n = self.ast.decl_node(id)?;
        let mut t = self.ast.children(n).next()?;
        loop {
            match self.ast.kind(t) {
                NodeKind::ElaboratedType | NodeKind::ParenType | NodeKind::QualType => {
                    t = self.ast.children(t).next()?
                }
                NodeKind::RecordType => {
                    let d = self.ast.node(t).attrs.referenced?;
                    return Some(CType::Record(self.definition(d.id)));
                }
                NodeKind::EnumType => {
                    let d = self.ast.node(t).attrs.referenced?;
                    return Some(self.enum_type(d.id));
                }
                _ => return None,
            }
        }
    }

    fn enum_type(&self, id: u64) -> CType {
        let fixed = self
            .ast
            .decl_node(id)
            .and_then(|n| self.ast.node(n).attrs.fixed_type)
            .map(|t| self.resolve(self.ast.type_str(t), ""));
        match fixed {
            Some(t @ CType::Int { .. }) => t,
            _ => CType::INT,
        }
    }

    fn resolve_path(&self, segs: &[Seg], scope: &str) -> Option<Resolved> {
        let mut prefixes = Vec::new();
        let mut s = scope.to_string();
        loop {
            prefixes.push(s.clone());
            match s.rfind("::") {
                Some(i) => s.truncate(i),
                None if !s.is_empty() => s.clear(),
                None => break,
            }
        }
        prefixes
            .into_iter()
            .find_map(|p| self.resolve_from(&p, segs, scope))
            .or_else(|| self.resolve_unique_name(segs, scope))
    }

    /// A name no enclosing scope declares, found through a using-directive (`using namespace
    /// kittens;` and then `alignment_dummy`): the unit's one type declaration of that simple
    /// name, if there is exactly one (Clang resolved the name, so it names that one); none
    /// when several could be meant.
    fn resolve_unique_name(&self, segs: &[Seg], from: &str) -> Option<Resolved> {
        let quals = self.by_name.get(&segs.first()?.name)?;
        let [q] = quals.as_slice() else { return None };
        let prefix = q.rfind("::").map_or("", |i| &q[..i]);
        self.resolve_from(prefix, segs, from)
    }

    /// `segs` looked up from namespace `prefix`; template arguments are read in `from`, the
    /// scope the type was written in.
    fn resolve_from(&self, prefix: &str, segs: &[Seg], from: &str) -> Option<Resolved> {
        // Walk namespaces by name until a record is found, then its members.
        let mut ns = prefix.to_string();
        let mut record: Option<u64> = None;
        for (i, seg) in segs.iter().enumerate() {
            let last = i + 1 == segs.len();
            let candidates: Vec<u64> = match record {
                None => {
                    let q = if ns.is_empty() {
                        seg.name.clone()
                    } else {
                        format!("{ns}::{}", seg.name)
                    };
                    match self.by_qual.get(&q) {
                        Some(v) => v.clone(),
                        // An inline namespace (`cuda::std::__4`) is not part of the names of
                        // what it holds.
                        None if !last && self.inline_namespaces.contains(&q) => continue,
                        None if !last => {
                            ns = q;
                            continue;
                        }
                        None => return None,
                    }
                }
                Some(r) => self.ast.decls[&r]
                    .members
                    .iter()
                    .copied()
                    .filter(|m| {
                        let d = &self.ast.decls[m];
                        self.ast.str(d.name) == seg.name && is_type_decl(d.kind)
                    })
                    .collect(),
            };
            let found = self.pick(&candidates, seg, from)?;
            if last {
                return Some(found);
            }
            match found {
                Resolved::Record(r) => record = Some(r),
                Resolved::Typedef(t) => match self.lower(&TyExpr::Named(vec![seg.clone()]), prefix, 1) {
                    CType::Record(r) => record = Some(r),
                    _ => {
                        let _ = t;
                        return None;
                    }
                },
                Resolved::Enum(_) => return None,
            }
        }
        None
    }

    /// Whether a name is declared only by the precompiled prelude: unknown, or known only from
    /// references to it (a record without a dumped definition, its fields unknown).
    fn prelude_only(&self, segs: &[Seg], scope: &str) -> bool {
        match self.resolve_path(segs, scope) {
            None => true,
            Some(Resolved::Record(id)) => {
                crate::front::lower::vector_types::record_id(&segs[0].name).is_some()
                    && self.ast.decl_node(id).is_none()
            }
            Some(_) => false,
        }
    }

    /// Chooses among declarations of one name: a matching specialization when template
    /// arguments are given, else the definition of a record, a typedef or an enum.
    fn pick(&self, candidates: &[u64], seg: &Seg, from: &str) -> Option<Resolved> {
        let kind = |id: &u64| self.ast.decls[id].kind;
        if let Some(args) = &seg.args {
            let specs: Vec<u64> = candidates
                .iter()
                .copied()
                .filter(|id| kind(id) == NodeKind::ClassTemplateSpecializationDecl)
                .collect();
            let printed = Printed::new(args);
            let matching: Vec<u64> = specs
                .iter()
                .copied()
                .filter(|s| self.spec_matches(*s, &printed, from))
                .collect();
            // A printed list is a prefix of the arguments when defaults are left out; the one
            // with exactly the printed arguments comes first (`dict<>` of a variadic `dict`
            // is not `dict<A, B>`).
            let exact = matching.iter().copied().find(|&s| {
                self.ast
                    .decl_node(s)
                    .is_some_and(|n| self.spec_args(n).len() == args.len())
            });
            let chosen = exact.or(matching.first().copied()).or_else(|| {
                // Specializations of light system headers are indexed without their arguments.
                specs
                    .iter()
                    .copied()
                    .find(|s| self.ast.decl_node(*s).is_none() && specs.len() == 1)
            });
            return match chosen {
                Some(c) => Some(Resolved::Record(self.definition(c))),
                None => self.alias_instance(candidates, args, from),
            };
        }
        // Declarations local to the code being lowered (a typedef in this instantiation of a
        // function template, a member typedef of this class specialization) come first.
        let ctx = self.context.borrow().clone();
        // Which candidates are local is a question to the context: the answer is part of the
        // result (see `cached`).
        let asked: ContextDeps = candidates
            .iter()
            .filter_map(|id| self.ast.decls[id].parent)
            .map(|p| (p, ctx.contains(&p)))
            .collect();
        self.note_deps(&asked);
        let local: Vec<u64> = candidates
            .iter()
            .copied()
            .filter(|id| self.ast.decls[id].parent.is_some_and(|p| ctx.contains(&p)))
            .collect();
        let candidates: &[u64] = if local.is_empty() { candidates } else { &local };
        let records: Vec<u64> = candidates
            .iter()
            .copied()
            .filter(|id| matches!(kind(id), NodeKind::CXXRecordDecl | NodeKind::RecordDecl))
            .collect();
        // `typedef struct X X;`: a typedef and a record of one name are the same type.
        if records.is_empty() {
            for id in candidates {
                match kind(id) {
                    NodeKind::TypedefDecl | NodeKind::TypeAliasDecl => return Some(Resolved::Typedef(*id)),
                    NodeKind::EnumDecl => return Some(Resolved::Enum(*id)),
                    _ => {}
                }
            }
        }
        let def = records
            .iter()
            .copied()
            .find(|id| self.definitions.get(id) == Some(id))
            .or_else(|| records.iter().copied().find(|id| self.ast.decl_node(*id).is_none()))
            .or_else(|| records.first().copied())?;
        Some(Resolved::Record(self.definition(def)))
    }

    /// An alias template's pattern with the printed arguments put in (`st_bf<BLOCK_SIZE, 64>`
    /// is `st<bf16, 64, 64>` when `BLOCK_SIZE` is 64): the record it names.
    fn alias_instance(&self, candidates: &[u64], args: &[String], from: &str) -> Option<Resolved> {
        let id = *candidates
            .iter()
            .find(|id| self.ast.decls[*id].kind == NodeKind::TypeAliasTemplateDecl)?;
        let n = self.ast.decl_node(id)?;
        let alias = self.ast.children_of_kind(n, NodeKind::TypeAliasDecl).next()?;
        let pattern = self.ast.type_str(self.ast.node(alias).ty?);
        let params: Vec<NodeId> = self
            .ast
            .children(n)
            .filter(|&c| {
                matches!(
                    self.ast.kind(c),
                    NodeKind::TemplateTypeParmDecl | NodeKind::NonTypeTemplateParmDecl
                )
            })
            .collect();
        if args.len() > params.len() {
            return None;
        }
        // A value argument is put in as its value: the alias's scope may not see its name.
        let mut put: Vec<String> = args
            .iter()
            .map(|a| self.eval_printed(a, from).map_or_else(|| a.clone(), |v| v.to_string()))
            .collect();
        // Arguments left out are the parameters' defaults.
        for &p in &params[args.len()..] {
            let mut d = Vec::new();
            self.template_args(p, &mut d);
            let default = match d.into_iter().next() {
                Some(TemplateArg::Value(v)) => v.to_string(),
                Some(TemplateArg::Type(t)) => t,
                // A value default Clang shows as an expression (`bool sw = true`).
                None => {
                    let arg = self.ast.children_of_kind(p, NodeKind::TemplateArgument).next()?;
                    self.attr_value(self.ast.children(arg).next()?)?.to_string()
                }
            };
            put.push(default);
        }
        // A `bool` parameter's value is written as a word (a specialization's `true` is -1).
        for (a, &p) in put.iter_mut().zip(&params) {
            let boolean = self.ast.node(p).ty.is_some_and(|t| self.ast.type_str(t) == "bool");
            if let Some(v) = parse_int(a).filter(|_| boolean) {
                *a = if v != 0 { "true" } else { "false" }.to_string();
            }
        }
        let (args, params): (Vec<String>, Vec<String>) =
            (put, params.iter().map(|&c| self.ast.name(c).to_string()).collect());
        let text = substitute_params(pattern, &params, &args);
        match self.resolve(&text, &self.scope_of(id)) {
            CType::Record(r) => Some(Resolved::Record(r)),
            _ => match self.resolve(&text, from) {
                CType::Record(r) => Some(Resolved::Record(r)),
                _ => None,
            },
        }
    }

    /// Whether a specialization's arguments match printed ones (a prefix: defaults may be
    /// left out when printed as written).
    fn spec_matches(&self, spec: u64, printed: &Printed, from: &str) -> bool {
        let args = printed.args;
        let Some(n) = self.ast.decl_node(spec) else {
            return false;
        };
        let have = self.spec_args(n);
        if args.len() > have.len() {
            return false;
        }
        let scope = self.scope_of(spec);
        let printed_match = args
            .iter()
            .zip(have.iter())
            .enumerate()
            .all(|(i, (text, arg))| match arg {
                // Clang writes a `true` argument's value as a one-bit integer (-1).
                TemplateArg::Value(v) => match text.trim() {
                    "true" | "false" => (*v != 0) == (text.trim() == "true"),
                    _ => {
                        printed
                            .value(i, || self.eval_printed(text, from))
                            .or_else(|| self.eval_printed(text, &scope))
                            == Some(*v)
                    }
                },
                TemplateArg::Type(t) => {
                    let a = self.resolve(t, &scope);
                    // Written where the type is used (a member alias of the class using it), or
                    // printed relative to the template's own scope.
                    let b = match printed.ty(i, || self.resolve(text, from)) {
                        CType::Other(_) => self.resolve(text, &scope),
                        b => b,
                    };
                    a == b && !matches!(a, CType::Other(_))
                }
            });
        // Arguments left out of the printed type are the template's defaults (`Tile<32>` is
        // `Tile<32, void>`, not `Tile<32, Block>`).
        if !printed_match {
            return false;
        }
        let defaults = self.default_args(n);
        have.iter()
            .enumerate()
            .skip(args.len())
            .all(|(i, arg)| match defaults.get(i) {
                // A default that names an earlier parameter (`typename _Clock::duration`):
                // with the printed arguments put in.
                Some(Some(TemplateArg::Type(d)))
                    if self.depth.get() < MAX_SUBSTITUTION_DEPTH
                        && matches!(self.resolve(d, &scope), CType::Other(_)) =>
                {
                    let d = substitute_params(d, &self.param_names(n), args);
                    self.same_arg(&TemplateArg::Type(d), arg, &scope)
                }
                Some(Some(d)) => self.same_arg(d, arg, &scope),
                _ => true,
            })
    }

    /// The parameters of the class template a specialization node belongs to.
    fn template_params(&self, spec: NodeId) -> Vec<NodeId> {
        let Some(t) = self
            .ast
            .node(spec)
            .parent
            .filter(|&p| self.ast.kind(p) == NodeKind::ClassTemplateDecl)
        else {
            return Vec::new();
        };
        self.ast
            .children(t)
            .filter(|&c| {
                matches!(
                    self.ast.kind(c),
                    NodeKind::TemplateTypeParmDecl
                        | NodeKind::NonTypeTemplateParmDecl
                        | NodeKind::TemplateTemplateParmDecl
                )
            })
            .collect()
    }

    /// The default arguments of the template a specialization node belongs to, by parameter.
    fn default_args(&self, spec: NodeId) -> Vec<Option<TemplateArg>> {
        self.template_params(spec)
            .into_iter()
            .map(|p| {
                let mut d = Vec::new();
                self.template_args(p, &mut d);
                d.into_iter().next()
            })
            .collect()
    }

    /// The parameter names of the template a specialization node belongs to.
    fn param_names(&self, spec: NodeId) -> Vec<String> {
        self.template_params(spec)
            .into_iter()
            .map(|p| self.ast.name(p).to_string())
            .collect()
    }

    fn same_arg(&self, a: &TemplateArg, b: &TemplateArg, scope: &str) -> bool {
        match (a, b) {
            (TemplateArg::Value(x), TemplateArg::Value(y)) => x == y,
            (TemplateArg::Type(x), TemplateArg::Type(y)) => {
                x == y || {
                    let (p, q) = (self.resolve(x, scope), self.resolve(y, scope));
                    p == q && !matches!(p, CType::Other(_))
                }
            }
            _ => false,
        }
    }

    /// [`Self::template_args`] of a specialization node, kept.
    fn spec_args(&self, n: NodeId) -> Rc<Vec<TemplateArg>> {
        if let Some(a) = self.spec_args.borrow().get(&n) {
            return a.clone();
        }
        let mut have = Vec::new();
        self.template_args(n, &mut have);
        let have = Rc::new(have);
        self.spec_args.borrow_mut().insert(n, have.clone());
        have
    }

    /// The template arguments of a specialization node, packs flattened.
    pub fn template_args(&self, n: NodeId, out: &mut Vec<TemplateArg>) {
        for c in self.ast.children(n) {
            if self.ast.kind(c) != NodeKind::TemplateArgument {
                continue;
            }
            if let Some(v) = self.ast.value(c) {
                // Clang writes integers in decimal and booleans as words.
                let value = match v {
                    "true" => Some(1),
                    "false" => Some(0),
                    v => v.parse().ok(),
                };
                match value {
                    Some(x) => out.push(TemplateArg::Value(x)),
                    // An argument autosync cannot read matches no printed one.
                    None => out.push(TemplateArg::Type(format!("<value {v}>"))),
                }
            } else if let Some(t) = self.ast.node(c).ty {
                out.push(TemplateArg::Type(self.ast.type_str(t).to_string()));
            } else {
                // A pack: its elements are nested template arguments.
                self.template_args(c, out);
            }
        }
    }
}

/// A printed template argument list being matched against the specializations of one name:
/// what each argument means where it is written is worked out once, not once per candidate.
struct Printed<'s> {
    args: &'s [String],
    types: RefCell<Vec<Option<CType>>>,
    values: RefCell<Vec<Option<Option<i64>>>>,
}

impl<'s> Printed<'s> {
    fn new(args: &'s [String]) -> Self {
        Printed {
            args,
            types: RefCell::new(vec![None; args.len()]),
            values: RefCell::new(vec![None; args.len()]),
        }
    }

    /// Argument `i` as a type, by `f` the first time.
    fn ty(&self, i: usize, f: impl FnOnce() -> CType) -> CType {
        if let Some(t) = &self.types.borrow()[i] {
            return t.clone();
        }
        let t = f();
        self.types.borrow_mut()[i] = Some(t.clone());
        t
    }

    /// Argument `i` as a value, by `f` the first time.
    fn value(&self, i: usize, f: impl FnOnce() -> Option<i64>) -> Option<i64> {
        if let Some(v) = self.values.borrow()[i] {
            return v;
        }
        let v = f();
        self.values.borrow_mut()[i] = Some(v);
        v
    }
}

enum Resolved {
    Record(u64),
    Typedef(u64),
    Enum(u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A default argument naming an earlier parameter gets the printed argument, whole
    /// identifiers only, `typename` dropped.
    #[test]
    fn dependent_defaults_get_the_arguments_put_in() {
        let params = ["_Clock".to_string(), "_Duration".to_string()];
        let args = ["cuda::std::chrono::system_clock".to_string()];
        assert_eq!(
            substitute_params("typename _Clock::duration", &params, &args),
            "cuda::std::chrono::system_clock::duration"
        );
        assert_eq!(
            substitute_params("_Clock2<_Clock>", &params, &args),
            "_Clock2<cuda::std::chrono::system_clock>"
        );
        // A parameter with no printed argument stays as written.
        assert_eq!(substitute_params("_Duration", &params, &args), "_Duration");
    }
}
