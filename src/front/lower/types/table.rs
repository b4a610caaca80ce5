//! The type table of one translation unit ([`Types`]): its type declarations by qualified name,
//! definitions of redeclared functions and records, caches, and the data it hands out (record
//! layouts, template arguments, enumerator initializers).

use crate::front::ast::{Ast, NodeId, NodeKind};
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

/// A type's spelling, the scope and the local context it is resolved in.
type CacheKey = (String, String, Vec<u64>);

/// Which declarations a resolution asked whether the context holds, with the answer: the
/// result holds in every context that answers alike.
pub(super) type ContextDeps = Vec<(u64, bool)>;

/// Resolutions by text and scope, each with the context answers it depended on.
pub(super) type ResolveCache = HashMap<String, HashMap<String, Vec<(ContextDeps, CType)>>>;

/// Resolves types of one translation unit (results are cached).
pub struct Types<'a> {
    pub(super) ast: &'a Ast,
    /// Type declarations by qualified name.
    pub(super) by_qual: HashMap<String, Vec<u64>>,
    /// The distinct qualified names of the type declarations of each simple name.
    pub(super) by_name: HashMap<String, Vec<String>>,
    /// Any declaration id of a function or record → the id of its definition.
    pub(super) definitions: HashMap<u64, u64>,
    /// Enumerators a using-declaration brings into another scope (`cuda::thread_scope_block`
    /// for `cuda::std::thread_scope_block`): the name they get there → the enumerator.
    pub(super) used_enumerators: HashMap<String, u64>,
    /// Qualified names of the inline namespaces (`cuda::std::__4`), which Clang prints in some
    /// types' names.
    pub(super) inline_namespaces: std::collections::HashSet<String>,
    pub(super) cache: RefCell<ResolveCache>,
    /// The template arguments of specialization nodes (asked for every candidate of a
    /// specialized name).
    pub(super) spec_args: RefCell<HashMap<NodeId, Rc<Vec<TemplateArg>>>>,
    /// The context answers of the resolutions in progress, innermost last.
    pub(super) deps: RefCell<Vec<std::collections::HashSet<(u64, bool)>>>,
    /// The declarations the types being resolved are written in (the function being lowered
    /// and its enclosing records): a typedef local to them wins over one of the same name
    /// elsewhere (another instantiation of the same template).
    pub(super) context: RefCell<Vec<u64>>,
    pub(super) layouts: RefCell<HashMap<u64, Result<Rc<Layout>, String>>>,
    /// Closure types of lambdas (`(lambda at f.cu:3:7)`) seen by the lowering.
    pub(super) lambdas: RefCell<HashMap<String, u64>>,
    /// Nesting of `resolve` calls (template arguments resolved while matching
    /// specializations): a bound, so that a name that resolves through itself cannot overflow
    /// the stack.
    pub(super) depth: std::cell::Cell<u32>,
    /// The resolutions in progress: one that needs itself is a cycle, not a type.
    pub(super) resolving: RefCell<std::collections::HashSet<CacheKey>>,
    /// The main file's text (Clang names it `<stdin>`; other files are read from disk).
    pub(super) main_text: Option<String>,
}

/// The enumerators using-declarations bring into a scope, by the name they get there (a
/// `UsingShadowDecl` is named after its scope and refers to its target).
pub(super) fn used_enumerators(ast: &Ast) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for n in &ast.nodes {
        let Some(t) = n.attrs.referenced else { continue };
        if n.kind != NodeKind::UsingShadowDecl || t.kind != NodeKind::EnumConstantDecl {
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

/// Whether a declaration kind declares a type.
pub(super) fn is_type_decl(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::TypedefDecl
            | NodeKind::TypeAliasDecl
            | NodeKind::CXXRecordDecl
            | NodeKind::RecordDecl
            | NodeKind::ClassTemplateDecl
            | NodeKind::ClassTemplateSpecializationDecl
            | NodeKind::EnumDecl
            | NodeKind::TemplateTypeParmDecl
            | NodeKind::TypeAliasTemplateDecl
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
            let kind = d.kind;
            // Unnamed declarations (anonymous enums, unnamed template parameters) carry their
            // scope's name: they are not found by name.
            if is_type_decl(kind) && !ast.str(d.name).is_empty() {
                by_qual.entry(d.qual.clone()).or_default().push(*id);
            }
        }
        // Redeclaration chains: every declaration of a function or record points at the one
        // with the body / the complete definition.
        for (i, n) in ast.nodes.iter().enumerate() {
            let kind = n.kind;
            let is_def = match kind {
                NodeKind::FunctionDecl
                | NodeKind::CXXMethodDecl
                | NodeKind::CXXConstructorDecl
                | NodeKind::CXXDestructorDecl
                | NodeKind::CXXConversionDecl => ast
                    .node(i as NodeId)
                    .inner
                    .iter()
                    .flatten()
                    .any(|&c| ast.kind(c) == NodeKind::CompoundStmt),
                NodeKind::CXXRecordDecl | NodeKind::RecordDecl | NodeKind::ClassTemplateSpecializationDecl => {
                    n.attrs.complete
                }
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
        // A class's injected name (the implicit `struct S` inside `S`, which its own members'
        // types name) is the class itself.
        for (id, d) in &ast.decls {
            let is_record = |k: NodeKind| {
                matches!(
                    k,
                    NodeKind::CXXRecordDecl | NodeKind::RecordDecl | NodeKind::ClassTemplateSpecializationDecl
                )
            };
            let Some(parent) = d.parent.and_then(|p| ast.decls.get(&p).map(|pd| (p, pd))) else {
                continue;
            };
            if is_record(d.kind) && is_record(parent.1.kind) && d.members.is_empty() && d.name == parent.1.name {
                let target = definitions.get(&parent.0).copied().unwrap_or(parent.0);
                definitions.entry(*id).or_insert(target);
            }
        }
        let used_enumerators = used_enumerators(ast);
        let inline_namespaces = ast
            .decls
            .iter()
            .filter(|(_, d)| d.kind == NodeKind::NamespaceDecl)
            .filter(|(_, d)| d.node.is_some_and(|n| ast.node(n).attrs.inline_ns))
            .map(|(_, d)| d.qual.clone())
            .collect();
        let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
        for q in by_qual.keys() {
            let mut parts = q.rsplit("::");
            let simple = parts.next().unwrap_or(q);
            // A class's injected name (`S::S`, an implicit member) is the class itself.
            if parts.next() != Some(simple) {
                by_name.entry(simple.to_string()).or_default().push(q.clone());
            }
        }
        Types {
            ast,
            by_qual,
            by_name,
            definitions,
            used_enumerators,
            inline_namespaces,
            cache: RefCell::default(),
            deps: RefCell::default(),
            spec_args: RefCell::default(),
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

    /// The qualified name of the scope a declaration is in.
    pub fn scope_of(&self, id: u64) -> String {
        let q = self.ast.decls.get(&id).map(|d| d.qual.as_str()).unwrap_or("");
        match q.rfind("::") {
            Some(i) => q[..i].to_string(),
            None => String::new(),
        }
    }
}

/// A template argument of a specialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateArg {
    /// An integral value (bools are 0/1, enums their value).
    Value(i64),
    /// A type, as Clang printed it.
    Type(String),
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
