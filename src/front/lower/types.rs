//! Types: Clang prints them as text (`const float *__restrict`, `ns::Tile<32, true>`,
//! `float (*)[65]`); this module parses that text and resolves names against the AST's
//! declarations (typedefs, records, enums, class template specializations), and lays out
//! records the way the NVPTX target does.

use crate::front::ast::{Ast, NodeId};
use crate::front::ctype::CType;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A field of a record layout.
#[derive(Clone, Debug)]
pub struct Field {
    /// The `FieldDecl` id.
    pub id: u64,
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: CType,
    /// Byte offset in the record.
    pub offset: u64,
}

/// The layout of a record.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Data members, bases' members included (with their offsets in this record).
    pub fields: Vec<Field>,
    /// Base classes with their offsets.
    pub bases: Vec<(u64, u64)>,
    /// `sizeof`.
    pub size: u64,
    /// `alignof`.
    pub align: u64,
    /// A union.
    pub union: bool,
}

/// Deepest nesting of type resolutions (a template argument's type, resolved to match a
/// specialization, can name another specialization, and so on).
const MAX_RESOLVE_DEPTH: u32 = 48;

/// Deepest nesting at which a default template argument is resolved with the given arguments
/// put in (`time_point<system_clock>` resolves `system_clock::duration`, whose class names
/// `time_point<system_clock>` again).
const MAX_SUBSTITUTION_DEPTH: u32 = 4;

/// A type's spelling, the scope and the local context it is resolved in.
type CacheKey = (String, String, Vec<u64>);

/// Resolves types of one translation unit (results are cached).
pub struct Types<'a> {
    ast: &'a Ast,
    /// Type declarations by qualified name.
    by_qual: HashMap<String, Vec<u64>>,
    /// Any declaration id of a function or record → the id of its definition.
    definitions: HashMap<u64, u64>,
    /// Enumerators a using-declaration brings into another scope (`cuda::thread_scope_block`
    /// for `cuda::std::thread_scope_block`): the name they get there → the enumerator.
    used_enumerators: HashMap<String, u64>,
    /// Qualified names of the inline namespaces (`cuda::std::__4`), which Clang prints in some
    /// types' names.
    inline_namespaces: std::collections::HashSet<String>,
    cache: RefCell<HashMap<CacheKey, CType>>,
    /// The declarations the types being resolved are written in (the function being lowered
    /// and its enclosing records): a typedef local to them wins over one of the same name
    /// elsewhere (another instantiation of the same template).
    context: RefCell<Vec<u64>>,
    layouts: RefCell<HashMap<u64, Result<Rc<Layout>, String>>>,
    /// Closure types of lambdas (`(lambda at f.cu:3:7)`) seen by the lowering.
    lambdas: RefCell<HashMap<String, u64>>,
    /// Nesting of `resolve` calls (template arguments resolved while matching
    /// specializations): a bound, so that a name that resolves through itself cannot overflow
    /// the stack.
    depth: std::cell::Cell<u32>,
    /// The resolutions in progress: one that needs itself is a cycle, not a type.
    resolving: RefCell<std::collections::HashSet<CacheKey>>,
    /// The main file's text (Clang names it `<stdin>`; other files are read from disk).
    main_text: Option<String>,
}

/// The enumerators using-declarations bring into a scope, by the name they get there (a
/// `UsingShadowDecl` is named after its scope and refers to its target).
fn used_enumerators(ast: &Ast) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for n in &ast.nodes {
        let Some(t) = n.attrs.referenced else { continue };
        if ast.str(n.kind) != "UsingShadowDecl" || ast.str(t.kind) != "EnumConstantDecl" {
            continue;
        }
        let Some(d) = ast.decls.get(&n.id) else { continue };
        let name = ast.str(t.name);
        let q = if d.qual.is_empty() {
            name.to_string()
        } else {
            format!("{}::{name}", d.qual)
        };
        out.insert(q, t.id);
    }
    out
}

/// A default template argument with the given arguments put in for the parameters it names
/// (whole identifiers only; `typename` dropped): `typename _Clock::duration` with `_Clock` =
/// `system_clock` is `system_clock::duration`.
fn substitute_params(default: &str, params: &[String], args: &[String]) -> String {
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

fn is_type_decl(kind: &str) -> bool {
    matches!(
        kind,
        "TypedefDecl"
            | "TypeAliasDecl"
            | "CXXRecordDecl"
            | "RecordDecl"
            | "ClassTemplateDecl"
            | "ClassTemplateSpecializationDecl"
            | "EnumDecl"
            | "TemplateTypeParmDecl"
            | "TypeAliasTemplateDecl"
    )
}

impl<'a> Types<'a> {
    /// Indexes the type declarations of `ast`.
    pub fn new(ast: &'a Ast) -> Types<'a> {
        let mut by_qual: HashMap<String, Vec<u64>> = HashMap::new();
        let mut definitions: HashMap<u64, u64> = HashMap::new();
        let mut ids: Vec<&u64> = ast.decls.keys().collect();
        // Declaration ids are addresses: allocation order, close to source order.
        ids.sort();
        for id in ids {
            let d = &ast.decls[id];
            let kind = ast.str(d.kind);
            // Unnamed declarations (anonymous enums, unnamed template parameters) carry their
            // scope's name: they are not found by name.
            if is_type_decl(kind) && !ast.str(d.name).is_empty() {
                by_qual.entry(d.qual.clone()).or_default().push(*id);
            }
        }
        // Redeclaration chains: every declaration of a function or record points at the one
        // with the body / the complete definition.
        for (i, n) in ast.nodes.iter().enumerate() {
            let kind = ast.str(n.kind);
            let is_def = match kind {
                "FunctionDecl" | "CXXMethodDecl" | "CXXConstructorDecl" | "CXXDestructorDecl" | "CXXConversionDecl" => {
                    ast.node(i as NodeId)
                        .inner
                        .iter()
                        .flatten()
                        .any(|&c| ast.kind(c) == "CompoundStmt")
                }
                "CXXRecordDecl" | "RecordDecl" | "ClassTemplateSpecializationDecl" => n.attrs.complete,
                _ => false,
            };
            if !is_def {
                continue;
            }
            definitions.insert(n.id, n.id);
            let mut prev = n.attrs.previous;
            let mut guard = 0;
            while let Some(p) = prev {
                definitions.insert(p, n.id);
                prev = ast.decl_node(p).and_then(|pn| ast.node(pn).attrs.previous);
                guard += 1;
                if guard > 64 {
                    break;
                }
            }
        }
        let used_enumerators = used_enumerators(ast);
        let inline_namespaces = ast
            .decls
            .iter()
            .filter(|(_, d)| ast.str(d.kind) == "NamespaceDecl")
            .filter(|(_, d)| d.node.is_some_and(|n| ast.node(n).attrs.inline_ns))
            .map(|(_, d)| d.qual.clone())
            .collect();
        Types {
            ast,
            by_qual,
            definitions,
            used_enumerators,
            inline_namespaces,
            cache: RefCell::default(),
            context: RefCell::default(),
            layouts: RefCell::default(),
            lambdas: RefCell::default(),
            depth: std::cell::Cell::new(0),
            resolving: RefCell::default(),
            main_text: None,
        }
    }

    /// The same, knowing the main file's text (to place its unnamed records by line).
    pub fn with_main_text(mut self, text: &str) -> Types<'a> {
        self.main_text = Some(text.to_string());
        self
    }

    /// The definition of a function or record declaration (itself when it is one, or when no
    /// definition is known).
    pub fn definition(&self, id: u64) -> u64 {
        self.definitions.get(&id).copied().unwrap_or(id)
    }

    /// Whether a definition exists for this declaration.
    pub fn has_definition(&self, id: u64) -> bool {
        self.definitions.contains_key(&id)
    }

    /// Sets the declarations (innermost first) whose local types take precedence.
    pub fn set_context(&self, ids: Vec<u64>) {
        *self.context.borrow_mut() = ids;
    }

    /// The function `f` and the declarations enclosing it, innermost first.
    pub fn context_of(&self, f: u64) -> Vec<u64> {
        let mut out = vec![f];
        let mut cur = f;
        while let Some(p) = self.ast.decls.get(&cur).and_then(|d| d.parent) {
            out.push(p);
            cur = p;
            if out.len() > 32 {
                break;
            }
        }
        out
    }

    /// Remembers the closure type of a lambda.
    pub fn add_lambda(&self, printed: &str, record: u64) {
        self.lambdas.borrow_mut().insert(printed.to_string(), record);
    }

    /// Resolves a type as Clang printed it, looking names up from `scope` (a qualified
    /// namespace/record name) outwards.
    pub fn resolve(&self, text: &str, scope: &str) -> CType {
        let key = (text.to_string(), scope.to_string(), self.context.borrow().clone());
        if let Some(t) = self.cache.borrow().get(&key) {
            return t.clone();
        }
        if self.depth.get() > MAX_RESOLVE_DEPTH || !self.resolving.borrow_mut().insert(key.clone()) {
            return CType::Other(format!("{text} (its resolution needs itself)"));
        }
        self.depth.set(self.depth.get() + 1);
        let t = match parse(text) {
            Some(te) => self.lower(&te, scope, 0),
            None => CType::Other(text.to_string()),
        };
        self.depth.set(self.depth.get() - 1);
        self.resolving.borrow_mut().remove(&key);
        // Not cached when unresolved: a lambda's closure type becomes known later.
        if !matches!(t, CType::Other(_)) {
            self.cache.borrow_mut().insert(key, t.clone());
        }
        t
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
                match super::vector_types::record_id(&segs[0].name) {
                    Some(id) => CType::Record(id),
                    None => CType::Other(segs_text(segs)),
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
                        // Typedef nodes carry their type as a child node in some versions.
                        None => CType::Other(segs_text(segs)),
                    }
                }
                Some(Resolved::Enum(id)) => self.enum_type(id),
                None => CType::Other(segs_text(segs)),
            },
        }
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
            _ => match self.resolve_path(scope, "") {
                Some(Resolved::Record(r)) => Some(r),
                _ => None,
            },
        };
        let prefix = segs_text(scope);
        let unnamed = |id: &u64| {
            let d = &self.ast.decls[id];
            matches!(self.ast.str(d.kind), "CXXRecordDecl" | "RecordDecl") && self.ast.str(d.name).is_empty()
        };
        let candidates: Vec<u64> = match owner {
            Some(r) => self.ast.decls[&r].members.iter().copied().filter(unnamed).collect(),
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
        if let [only] = candidates[..] {
            return Some(self.definition(only));
        }
        let at = printed.rsplit(' ').next()?.trim_end_matches(')');
        let mut parts = at.rsplitn(3, ':');
        let (col, line) = (parts.next()?.parse::<u32>().ok()?, parts.next()?.parse::<u32>().ok()?);
        candidates
            .into_iter()
            .find(|id| self.line_col(*id) == Some((line, col)))
            .map(|id| self.definition(id))
    }

    /// The 1-based line and column of a declaration, from its file on disk.
    fn line_col(&self, id: u64) -> Option<(u32, u32)> {
        let loc = self.ast.node(self.ast.decl_node(id)?).loc?.expansion;
        let name = &self.ast.files.get(loc.file.0 as usize)?.name;
        let text = match (&self.main_text, name.as_str()) {
            (Some(t), crate::front::clang::STDIN_NAME) => t.as_bytes().to_vec(),
            _ => std::fs::read(name).ok()?,
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
                "ElaboratedType" | "ParenType" | "QualType" => t = self.ast.children(t).next()?,
                "RecordType" => {
                    let d = self.ast.node(t).attrs.referenced?;
                    return Some(CType::Record(self.definition(d.id)));
                }
                "EnumType" => {
                    let d = self.ast.node(t).attrs.referenced?;
                    return Some(self.enum_type(d.id));
                }
                _ => return None,
            }
        }
    }

    /// The qualified name of the scope a declaration is in.
    pub fn scope_of(&self, id: u64) -> String {
        let q = self.ast.decls.get(&id).map(|d| d.qual.as_str()).unwrap_or("");
        match q.rfind("::") {
            Some(i) => q[..i].to_string(),
            None => String::new(),
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
        prefixes.into_iter().find_map(|p| self.resolve_from(&p, segs))
    }

    fn resolve_from(&self, prefix: &str, segs: &[Seg]) -> Option<Resolved> {
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
                        self.ast.str(d.name) == seg.name && is_type_decl(self.ast.str(d.kind))
                    })
                    .collect(),
            };
            let found = self.pick(&candidates, seg)?;
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
                super::vector_types::record_id(&segs[0].name).is_some() && self.ast.decl_node(id).is_none()
            }
            Some(_) => false,
        }
    }

    /// Chooses among declarations of one name: a matching specialization when template
    /// arguments are given, else the definition of a record, a typedef or an enum.
    fn pick(&self, candidates: &[u64], seg: &Seg) -> Option<Resolved> {
        let kind = |id: &u64| self.ast.str(self.ast.decls[id].kind);
        if let Some(args) = &seg.args {
            let specs: Vec<u64> = candidates
                .iter()
                .copied()
                .filter(|id| kind(id) == "ClassTemplateSpecializationDecl")
                .collect();
            let matching: Vec<u64> = specs.iter().copied().filter(|s| self.spec_matches(*s, args)).collect();
            let chosen = matching.first().copied().or_else(|| {
                // Specializations of light system headers are indexed without their arguments.
                specs
                    .iter()
                    .copied()
                    .find(|s| self.ast.decl_node(*s).is_none() && specs.len() == 1)
            })?;
            return Some(Resolved::Record(self.definition(chosen)));
        }
        // Declarations local to the code being lowered (a typedef in this instantiation of a
        // function template, a member typedef of this class specialization) come first.
        let ctx = self.context.borrow().clone();
        let local: Vec<u64> = candidates
            .iter()
            .copied()
            .filter(|id| self.ast.decls[id].parent.is_some_and(|p| ctx.contains(&p)))
            .collect();
        let candidates: &[u64] = if local.is_empty() { candidates } else { &local };
        let records: Vec<u64> = candidates
            .iter()
            .copied()
            .filter(|id| matches!(kind(id), "CXXRecordDecl" | "RecordDecl"))
            .collect();
        // `typedef struct X X;`: a typedef and a record of one name are the same type.
        if records.is_empty() {
            for id in candidates {
                match kind(id) {
                    "TypedefDecl" | "TypeAliasDecl" => return Some(Resolved::Typedef(*id)),
                    "EnumDecl" => return Some(Resolved::Enum(*id)),
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

    /// Whether a specialization's arguments match printed ones (a prefix: defaults may be
    /// left out when printed as written).
    fn spec_matches(&self, spec: u64, args: &[String]) -> bool {
        let Some(n) = self.ast.decl_node(spec) else {
            return false;
        };
        let mut have = Vec::new();
        self.template_args(n, &mut have);
        if args.len() > have.len() {
            return false;
        }
        let scope = self.scope_of(spec);
        let printed_match = args.iter().zip(&have).all(|(printed, arg)| match arg {
            // Clang writes a `true` argument's value as a one-bit integer (-1).
            TemplateArg::Value(v) => match printed.trim() {
                "true" | "false" => (*v != 0) == (printed.trim() == "true"),
                _ => self.eval_printed(printed, &scope) == Some(*v),
            },
            TemplateArg::Type(t) => {
                let a = self.resolve(t, &scope);
                let b = self.resolve(printed, &scope);
                a == b && !matches!(a, CType::Other(_))
            }
        });
        // Arguments left out of the printed type are the template's defaults (`Tile<32>` is
        // `Tile<32, void>`, not `Tile<32, Block>`).
        let defaults = self.default_args(n);
        printed_match
            && have
                .iter()
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
            .filter(|&p| self.ast.kind(p) == "ClassTemplateDecl")
        else {
            return Vec::new();
        };
        self.ast
            .children(t)
            .filter(|&c| {
                matches!(
                    self.ast.kind(c),
                    "TemplateTypeParmDecl" | "NonTypeTemplateParmDecl" | "TemplateTemplateParmDecl"
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

    /// The template arguments of a specialization node, packs flattened.
    pub fn template_args(&self, n: NodeId, out: &mut Vec<TemplateArg>) {
        for c in self.ast.children(n) {
            if self.ast.kind(c) != "TemplateArgument" {
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
    }

    /// The value of an enumerator named by a (possibly qualified) name.
    pub fn enumerator_value(&self, name: &str, scope: &str) -> Option<i64> {
        let mut prefixes = vec![scope.to_string()];
        let mut s = scope.to_string();
        while let Some(i) = s.rfind("::") {
            s.truncate(i);
            prefixes.push(s.clone());
        }
        prefixes.push(String::new());
        for p in prefixes {
            let q = if p.is_empty() {
                name.to_string()
            } else {
                format!("{p}::{name}")
            };
            if let Some(v) = self.enumerator_by_qual(&q) {
                return Some(v);
            }
        }
        None
    }

    fn enumerator_by_qual(&self, q: &str) -> Option<i64> {
        // Enumerators of unscoped enums are also visible in the enclosing scope.
        let (parent_q, name) = q.rsplit_once("::").unwrap_or(("", q));
        let mut enums: Vec<u64> = self.by_qual.get(parent_q).cloned().unwrap_or_default();
        enums.retain(|id| self.ast.str(self.ast.decls[id].kind) == "EnumDecl");
        let scope_enums = self.ast.decls.iter().filter(|(_, d)| {
            self.ast.str(d.kind) == "EnumDecl" && {
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
        for c in self.ast.children_of_kind(n, "EnumConstantDecl") {
            let v = match self.ast.children(c).find(|&x| !self.ast.kind(x).ends_with("Attr")) {
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
        if let Some(init) = self.ast.children(n).find(|&x| !self.ast.kind(x).ends_with("Attr")) {
            return Some(EnumInit::Expr(init));
        }
        let parent = self.ast.node(n).parent?;
        let siblings: Vec<NodeId> = self.ast.children_of_kind(parent, "EnumConstantDecl").collect();
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
            "ConstantExpr" | "IntegerLiteral" | "CharacterLiteral" | "CXXBoolLiteralExpr" => match self.ast.value(n)? {
                "true" => Some(1),
                "false" => Some(0),
                v => parse_int(v),
            },
            "ImplicitCastExpr" | "ParenExpr" => self.ast.children(n).next().and_then(|c| self.const_value(c)),
            _ => None,
        }
    }

    /// Size of a type in bytes (`Err` names what is unknown).
    pub fn size_of(&self, t: &CType) -> Result<u64, String> {
        Ok(match t {
            CType::Int { bits, .. } => (*bits as u64 / 8).max(1),
            CType::Bool => 1,
            CType::Float(b) => (*b as u64 / 8).max(1),
            CType::Void => 1,
            CType::Ptr(_) => 8,
            CType::Ref(t) => return self.size_of(t),
            CType::Array(e, n) => self.size_of(e)?.saturating_mul(n.unwrap_or(1)),
            CType::Record(r) => self.layout(*r)?.size,
            CType::Func => 1,
            CType::Other(s) => return Err(format!("the size of `{s}` is unknown")),
        })
    }

    /// Alignment of a type in bytes.
    pub fn align_of(&self, t: &CType) -> Result<u64, String> {
        Ok(match t {
            CType::Array(e, _) => self.align_of(e)?,
            CType::Record(r) => self.layout(*r)?.align,
            CType::Ref(t) => self.align_of(t)?,
            t => self.size_of(t)?.clamp(1, 16),
        })
    }

    /// The layout of a record.
    pub fn layout(&self, id: u64) -> Result<Rc<Layout>, String> {
        if let Some((fields, size, align)) = super::vector_types::layout(id) {
            let fields = fields
                .into_iter()
                .enumerate()
                .map(|(i, (name, ty, offset))| Field {
                    id: id ^ ((i as u64 + 1) << 40),
                    name: name.to_string(),
                    ty,
                    offset,
                })
                .collect();
            return Ok(Rc::new(Layout {
                fields,
                bases: vec![],
                size,
                align,
                union: false,
            }));
        }
        let id = self.definition(id);
        if let Some(l) = self.layouts.borrow().get(&id) {
            return l.clone();
        }
        // Mark as in progress: a record containing itself is an error, not a stack overflow.
        self.layouts
            .borrow_mut()
            .insert(id, Err(format!("record `{}` contains itself", self.record_name(id))));
        // Member typedefs of this record (of this specialization, not of its template) name its
        // fields' types: it is the context they are resolved in.
        let saved = self.context.replace(self.context_of(id));
        let l = self.compute_layout(id).map(Rc::new);
        *self.context.borrow_mut() = saved;
        self.layouts.borrow_mut().insert(id, l.clone());
        l
    }

    /// Whether record `derived` is `base` or has it among its (transitive) bases.
    pub fn derives_from(&self, derived: u64, base: u64) -> bool {
        let base = self.definition(base);
        let mut stack = vec![self.definition(derived)];
        while let Some(r) = stack.pop() {
            if r == base {
                return true;
            }
            if let Ok(l) = self.layout(r) {
                stack.extend(l.bases.iter().map(|(b, _)| self.definition(*b)));
            }
        }
        false
    }

    /// The qualified name of a record (for messages).
    pub fn record_name(&self, id: u64) -> String {
        if let Some(n) = super::vector_types::name_of(id) {
            return n.to_string();
        }
        self.ast.qual_name(id).unwrap_or("<record>").to_string()
    }

    fn compute_layout(&self, id: u64) -> Result<Layout, String> {
        let d = self
            .ast
            .decls
            .get(&id)
            .ok_or_else(|| "a record autosync has not seen".to_string())?;
        let scope = d.qual.clone();
        let union = self
            .ast
            .decl_node(id)
            .and_then(|n| self.ast.node(n).attrs.tag)
            .is_some_and(|t| self.ast.str(t) == "union");
        let mut off = 0u64;
        let mut align = 1u64;
        let mut size = 0u64;
        let mut fields = Vec::new();
        let mut bases = Vec::new();
        // Bases first, in order; an empty base takes no room (the empty-base optimization).
        if let Some(n) = self.ast.decl_node(id) {
            for b in self.ast.node(n).attrs.bases.clone() {
                let bt = self.resolve(self.ast.type_str(b), &self.scope_of(id));
                let CType::Record(bid) = bt else {
                    return Err(format!(
                        "base class `{}` of `{}` is unknown",
                        self.ast.type_str(b),
                        d.qual
                    ));
                };
                let bl = self.layout(bid)?;
                let empty = bl.fields.is_empty();
                let ba = bl.align;
                align = align.max(ba);
                let at = if empty { 0 } else { off.div_ceil(ba) * ba };
                bases.push((bid, at));
                for f in &bl.fields {
                    fields.push(Field {
                        offset: at + f.offset,
                        ..f.clone()
                    });
                }
                if !empty {
                    off = at + bl.size;
                    size = size.max(off);
                }
            }
        }
        let explicit_align = self.explicit_align(id);
        for m in &d.members {
            let md = &self.ast.decls[m];
            if self.ast.str(md.kind) != "FieldDecl" {
                continue;
            }
            let ty = match md.ty {
                Some(t) => self.resolve(self.ast.type_str(t), &scope),
                None => return Err(format!("field `{}` of `{}` has no type", self.ast.str(md.name), d.qual)),
            };
            let fsize = self.size_of(&ty)?;
            let falign = self.align_of(&ty)?;
            align = align.max(falign);
            let at = if union { 0 } else { off.div_ceil(falign) * falign };
            fields.push(Field {
                id: *m,
                name: self.ast.str(md.name).to_string(),
                ty,
                offset: at,
            });
            off = if union { off.max(fsize) } else { at + fsize };
            size = size.max(off);
        }
        if let Some(a) = explicit_align {
            align = align.max(a);
        }
        let size = size.max(1).div_ceil(align) * align;
        Ok(Layout {
            fields,
            bases,
            size,
            align,
            union,
        })
    }

    /// `__align__(N)` / `alignas(N)` on a record definition.
    fn explicit_align(&self, id: u64) -> Option<u64> {
        let n = self.ast.decl_node(id)?;
        let attr = self.ast.children_of_kind(n, "AlignedAttr").next()?;
        let mut v = None;
        self.ast.walk(attr, &mut |x| {
            if v.is_none() {
                v = self.const_value(x);
            }
        });
        v.map(|v| v as u64)
    }
}

/// An integer as Clang prints it (`42`, `-1`, `16UL`, `0x10`).
pub fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let body = body.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()? as i64
    } else {
        body.parse::<u64>()
            .ok()
            .map(|v| v as i64)
            .or_else(|| body.parse::<i64>().ok())?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// A template argument of a specialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateArg {
    /// An integral value (bools are 0/1, enums their value).
    Value(i64),
    /// A type, as Clang printed it.
    Type(String),
}

enum Resolved {
    Record(u64),
    Typedef(u64),
    Enum(u64),
}

/// A parsed type.
#[derive(Clone, Debug, PartialEq)]
pub enum TyExpr {
    /// A built-in arithmetic type or void.
    Builtin(CType),
    /// A (possibly qualified, possibly templated) name.
    Named(Vec<Seg>),
    /// `T *`.
    Ptr(Box<TyExpr>),
    /// `T &`, `T &&`.
    Ref(Box<TyExpr>),
    /// `T [N]`.
    Array(Box<TyExpr>, Option<u64>),
    /// A function type.
    Func,
    /// Something not understood (kept as text).
    Other(String),
}

/// One component of a qualified name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seg {
    /// The identifier.
    pub name: String,
    /// Template arguments as printed, when present.
    pub args: Option<Vec<String>>,
}

/// `(unnamed union at f.h:3:5)`, `(anonymous struct at ...)`.
fn is_unnamed_record(name: &str) -> bool {
    [
        "(unnamed struct",
        "(unnamed union",
        "(anonymous struct",
        "(anonymous union",
        "(unnamed class",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

fn segs_text(segs: &[Seg]) -> String {
    segs.iter()
        .map(|s| match &s.args {
            Some(a) => format!("{}<{}>", s.name, a.join(", ")),
            None => s.name.clone(),
        })
        .collect::<Vec<_>>()
        .join("::")
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(String),
    Punct(&'static str),
}

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '(' {
            // `(lambda at f.cu:3:7)`, `(anonymous namespace)`, `(unnamed struct at ...)`.
            let rest = &s[i + 1..];
            if rest.starts_with("lambda at ") || rest.starts_with("anonymous") || rest.starts_with("unnamed") {
                let end = rest.find(')')?;
                out.push(Tok::Ident(s[i..i + 2 + end].to_string()));
                i += end + 2;
                continue;
            }
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
            continue;
        }
        if c.is_ascii_digit() || (c == '-' && i + 1 < b.len() && (b[i + 1] as char).is_ascii_digit()) {
            let st = i;
            i += 1;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric()) {
                i += 1;
            }
            out.push(Tok::Num(s[st..i].to_string()));
            continue;
        }
        if c == '\'' {
            let end = s[i + 1..].find('\'')?;
            out.push(Tok::Num(s[i..i + end + 2].to_string()));
            i += end + 2;
            continue;
        }
        let two = s.get(i..i + 2).unwrap_or("");
        let p: &'static str = match two {
            "::" => "::",
            "&&" => "&&",
            _ => match c {
                '<' => "<",
                '>' => ">",
                ',' => ",",
                '*' => "*",
                '&' => "&",
                '(' => "(",
                ')' => ")",
                '[' => "[",
                ']' => "]",
                _ => return None,
            },
        };
        i += p.len();
        out.push(Tok::Punct(p));
    }
    Some(out)
}

/// Where an enumerator's value comes from.
pub enum EnumInit {
    /// Its initializer expression.
    Expr(NodeId),
    /// The first enumerator, without one: 0.
    First,
    /// One more than this enumerator's.
    After(NodeId),
}

/// Parses a type as Clang prints it.
pub fn parse(s: &str) -> Option<TyExpr> {
    if s.contains("<dependent type>") || s.contains("<overloaded function type>") || s.contains("<bound member") {
        return Some(TyExpr::Other(s.to_string()));
    }
    let toks = tokenize(s)?;
    let mut p = Parser { toks: &toks, i: 0 };
    let t = p.full_type()?;
    (p.i == toks.len()).then_some(t)
}

struct Parser<'t> {
    toks: &'t [Tok],
    i: usize,
}

const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "__restrict",
    "__restrict__",
    "restrict",
    "struct",
    "class",
    "union",
    "enum",
    "typename",
    "__unaligned",
];

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }
    fn punct(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn skip_qualifiers(&mut self) {
        loop {
            match self.peek() {
                Some(Tok::Ident(w)) if QUALIFIERS.contains(&w.as_str()) => self.i += 1,
                Some(Tok::Ident(w)) if w == "__attribute__" => {
                    self.i += 1;
                    self.skip_group();
                }
                _ => break,
            }
        }
    }
    /// Skips a balanced `( ... )`.
    fn skip_group(&mut self) {
        if !self.punct("(") {
            return;
        }
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                Some(Tok::Punct("(")) => depth += 1,
                Some(Tok::Punct(")")) => depth -= 1,
                None => return,
                _ => {}
            }
            self.i += 1;
        }
    }

    fn full_type(&mut self) -> Option<TyExpr> {
        self.skip_qualifiers();
        let base = self.base()?;
        self.skip_qualifiers();
        self.declarator(base)
    }

    fn base(&mut self) -> Option<TyExpr> {
        let mut words: Vec<String> = Vec::new();
        while let Some(Tok::Ident(w)) = self.peek() {
            if is_builtin_word(w) {
                words.push(w.clone());
                self.i += 1;
                self.skip_qualifiers();
            } else {
                break;
            }
        }
        if !words.is_empty() {
            return builtin(&words).map(TyExpr::Builtin);
        }
        // A qualified name.
        let mut segs = Vec::new();
        self.punct("::");
        loop {
            let Some(Tok::Ident(name)) = self.peek().cloned() else {
                return None;
            };
            self.i += 1;
            let args = if self.punct("<") {
                Some(self.template_args()?)
            } else {
                None
            };
            segs.push(Seg { name, args });
            if !self.punct("::") {
                break;
            }
        }
        if segs.len() == 1 && segs[0].name.starts_with('(') && segs[0].args.is_none() {
            return Some(TyExpr::Other(segs[0].name.clone()));
        }
        Some(TyExpr::Named(segs))
    }

    /// Template arguments after `<`, up to the matching `>`, each as text.
    fn template_args(&mut self) -> Option<Vec<String>> {
        let mut args = Vec::new();
        let mut cur = String::new();
        let mut depth = 0;
        loop {
            let t = self.peek()?.clone();
            self.i += 1;
            match t {
                Tok::Punct(">") if depth == 0 => {
                    if !cur.trim().is_empty() {
                        args.push(cur.trim().to_string());
                    }
                    return Some(args);
                }
                Tok::Punct(",") if depth == 0 => {
                    args.push(cur.trim().to_string());
                    cur.clear();
                }
                Tok::Punct(p) => {
                    if matches!(p, "<" | "(" | "[") {
                        depth += 1;
                    } else if matches!(p, ">" | ")" | "]") {
                        depth -= 1;
                    }
                    if p == "*" || p == "&" || p == "&&" {
                        cur.push(' ');
                    }
                    cur.push_str(p);
                }
                Tok::Ident(w) | Tok::Num(w) => {
                    if cur.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        cur.push(' ');
                    }
                    cur.push_str(&w);
                }
            }
        }
    }

    /// Pointer/reference prefixes, then a parenthesized inner declarator or array/function
    /// suffixes (`float (*)[65]` is a pointer to arrays of 65 floats).
    fn declarator(&mut self, base: TyExpr) -> Option<TyExpr> {
        let mut t = base;
        loop {
            if self.punct("*") {
                t = TyExpr::Ptr(Box::new(t));
            } else if self.punct("&") || self.punct("&&") {
                t = TyExpr::Ref(Box::new(t));
            } else {
                break;
            }
            self.skip_qualifiers();
        }
        // `( inner ) suffixes`: the inner declarator applies to the suffixed type.
        if matches!(self.peek(), Some(Tok::Punct("("))) && self.is_inner_declarator() {
            self.i += 1;
            let start = self.i;
            let mut depth = 1;
            while depth > 0 {
                match self.peek()? {
                    Tok::Punct("(") => depth += 1,
                    Tok::Punct(")") => depth -= 1,
                    _ => {}
                }
                self.i += 1;
            }
            let inner_end = self.i - 1;
            let suffixed = self.suffixes(t)?;
            let mut sub = Parser {
                toks: &self.toks[start..inner_end],
                i: 0,
            };
            let r = sub.declarator(suffixed)?;
            return (sub.i == sub.toks.len()).then_some(r);
        }
        // Arrays of references do not exist: Clang prints a substituted `const T &` with an
        // array `T` as `const int &[2]`, a reference to the array.
        match t {
            TyExpr::Ref(inner) => Some(TyExpr::Ref(Box::new(self.suffixes(*inner)?))),
            t => self.suffixes(t),
        }
    }

    fn is_inner_declarator(&self) -> bool {
        matches!(self.toks.get(self.i + 1), Some(Tok::Punct("*" | "&" | "&&" | "(")))
    }

    fn suffixes(&mut self, base: TyExpr) -> Option<TyExpr> {
        let mut dims: Vec<Option<u64>> = Vec::new();
        let mut func = false;
        loop {
            if self.punct("[") {
                let n = match self.peek() {
                    Some(Tok::Num(v)) => {
                        let v = parse_int(v).map(|x| x as u64);
                        self.i += 1;
                        v
                    }
                    _ => None,
                };
                if !self.punct("]") {
                    return None;
                }
                dims.push(n);
            } else if matches!(self.peek(), Some(Tok::Punct("("))) {
                self.skip_group();
                func = true;
                // `noexcept`, `const` after a function type.
                while matches!(self.peek(), Some(Tok::Ident(w)) if w == "noexcept" || w == "const" || w == "volatile") {
                    self.i += 1;
                }
            } else {
                break;
            }
        }
        if func {
            return Some(TyExpr::Func);
        }
        let mut t = base;
        for d in dims.into_iter().rev() {
            t = TyExpr::Array(Box::new(t), d);
        }
        Some(t)
    }
}

fn is_builtin_word(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "bool"
            | "_Bool"
            | "char"
            | "signed"
            | "unsigned"
            | "short"
            | "int"
            | "long"
            | "float"
            | "double"
            | "__int128"
            | "wchar_t"
            | "char8_t"
            | "char16_t"
            | "char32_t"
            | "__fp16"
            | "_Float16"
            | "__bf16"
            | "half"
    )
}

fn builtin(words: &[String]) -> Option<CType> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let longs = words.iter().filter(|w| *w == "long").count();
    if has("void") {
        return Some(CType::Void);
    }
    if has("bool") || has("_Bool") {
        return Some(CType::Bool);
    }
    if has("float") {
        return Some(CType::Float(32));
    }
    if has("double") {
        // NVPTX: long double is double.
        return Some(CType::Float(64));
    }
    if has("__fp16") || has("_Float16") || has("__bf16") || has("half") {
        return Some(CType::Float(16));
    }
    let unsigned = has("unsigned");
    let bits = if has("__int128") {
        return Some(CType::Other("__int128".into()));
    } else if has("char") || has("char8_t") {
        8
    } else if has("short") || has("char16_t") {
        16
    } else if longs >= 1 {
        64
    } else {
        32
    };
    // Plain `char` is signed on the targets CUDA supports; wchar_t/char32_t widths as on Linux.
    let signed = !unsigned && !has("char16_t") && !has("char32_t") && !has("char8_t");
    Some(CType::Int { bits, signed })
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

    fn b(t: CType) -> TyExpr {
        TyExpr::Builtin(t)
    }

    #[test]
    fn parses_declarators() {
        assert_eq!(parse("unsigned int"), Some(b(CType::UINT)));
        assert_eq!(
            parse("const float *__restrict"),
            Some(TyExpr::Ptr(Box::new(b(CType::Float(32)))))
        );
        assert_eq!(
            parse("float[64][65]"),
            Some(TyExpr::Array(
                Box::new(TyExpr::Array(Box::new(b(CType::Float(32))), Some(65))),
                Some(64)
            ))
        );
        assert_eq!(
            parse("float (*)[65]"),
            Some(TyExpr::Ptr(Box::new(TyExpr::Array(
                Box::new(b(CType::Float(32))),
                Some(65)
            ))))
        );
        assert_eq!(
            parse("float *[4]"),
            Some(TyExpr::Array(
                Box::new(TyExpr::Ptr(Box::new(b(CType::Float(32))))),
                Some(4)
            ))
        );
        assert_eq!(
            parse("const int &[2]"),
            Some(TyExpr::Ref(Box::new(TyExpr::Array(Box::new(b(CType::INT)), Some(2)))))
        );
        assert_eq!(parse("void (int *, int)"), Some(TyExpr::Func));
        assert_eq!(parse("int (*)(int)"), Some(TyExpr::Ptr(Box::new(TyExpr::Func))));
        assert_eq!(parse("unsigned long long"), Some(b(CType::U64)));
        assert_eq!(
            parse("const ns::Foo<float *, true, ns::E::B> &"),
            Some(TyExpr::Ref(Box::new(TyExpr::Named(vec![
                Seg {
                    name: "ns".into(),
                    args: None
                },
                Seg {
                    name: "Foo".into(),
                    args: Some(vec!["float *".into(), "true".into(), "ns::E::B".into()])
                }
            ]))))
        );
        assert_eq!(
            parse("Outer<Inner<2>, 3>::T"),
            Some(TyExpr::Named(vec![
                Seg {
                    name: "Outer".into(),
                    args: Some(vec!["Inner<2>".into(), "3".into()])
                },
                Seg {
                    name: "T".into(),
                    args: None
                }
            ]))
        );
        assert_eq!(
            parse("(lambda at k.cu:3:7)"),
            Some(TyExpr::Other("(lambda at k.cu:3:7)".into()))
        );
        assert_eq!(parse("int"), Some(b(CType::INT)));
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("16UL"), Some(16));
        assert_eq!(parse_int("-1"), Some(-1));
        assert_eq!(parse_int("0x10"), Some(16));
        assert_eq!(parse_int("18446744073709551615"), Some(-1));
    }
}
