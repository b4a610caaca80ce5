//! Clang's AST as the lowering reads it: a compact arena of every node the dump holds (the
//! user's files and the headers they include, system headers alike: a function with a body is
//! inlined wherever it is defined), and an index of every declaration by clang id and
//! qualified name, including those the dump only refers to (the precompiled CUDA prelude).
//!
//! [`read`] builds it from `clang -Xclang -ast-dump=json`, streaming.

mod compact;
pub mod read;

use std::collections::HashMap;

/// Index of a node in [`Ast::nodes`].
pub type NodeId = u32;

/// Index of an interned string in [`Ast::strs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// Index of a file in [`Ast::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileIdx(pub u32);

/// A file named by Clang's locations.
#[derive(Clone, Debug)]
pub struct FileName {
    /// The name as Clang printed it (`<stdin>` for the main file).
    pub name: String,
    /// A system header (the shim, the C++ library, a CUDA toolkit, `-isystem` directories).
    pub system: bool,
}

/// One source position: the file, byte offset and length of the token there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// The file.
    pub file: FileIdx,
    /// Byte offset in the file.
    pub offset: u32,
    /// Length of the token that starts there.
    pub tok_len: u32,
}

/// A location as Clang dumps it: where the token is, and where its macro expansion is when
/// it comes from a macro.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The expansion location (the token itself when no macro is involved).
    pub expansion: Pos,
    /// The spelling location when the token comes from a macro body or argument.
    pub spelling: Option<Pos>,
    /// The token is a macro argument (its spelling is in the file where the macro is used).
    pub macro_arg: bool,
}

impl Loc {
    /// Whether the token comes from a macro body (not from an argument written at the use site).
    pub fn in_macro_body(&self) -> bool {
        self.spelling.is_some() && !self.macro_arg
    }
}

/// A source range; `end` is the first byte of the last token (Clang's convention).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// First token.
    pub begin: Loc,
    /// Last token.
    pub end: Loc,
}

/// The type of a node: as written (`qualType`) and desugared at the top level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeRef {
    /// As written, with sugar (`uint *`, `Foo<N>`).
    pub qual: Sym,
    /// Without top-level sugar, when it differs (`unsigned int`).
    pub desugared: Option<Sym>,
}

/// A reference to a declaration (`referencedDecl`, `conversionFunc`, `anyInit`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeclRef {
    /// Clang's id of the declaration.
    pub id: u64,
    /// Its kind (`VarDecl`, `FunctionDecl`, ...).
    pub kind: Sym,
    /// Its name.
    pub name: Sym,
}

/// Attributes of a node the lowering uses (each present only on some kinds).
#[derive(Clone, Debug, Default)]
pub struct Attrs {
    /// `valueCategory`: `lvalue`, `xvalue` or `prvalue`.
    pub value_category: Option<Sym>,
    /// `opcode` of unary/binary operators.
    pub opcode: Option<Sym>,
    /// `castKind`.
    pub cast_kind: Option<Sym>,
    /// `value` of literals, `ConstantExpr`s, template arguments (as text).
    pub value: Option<Sym>,
    /// `referencedDecl`.
    pub referenced: Option<DeclRef>,
    /// `referencedMemberDecl`.
    pub member: Option<u64>,
    /// `isArrow` of member expressions.
    pub is_arrow: bool,
    /// `isPostfix` of `++`/`--`.
    pub is_postfix: bool,
    /// `isImplicit`.
    pub is_implicit: bool,
    /// `storageClass` (`static`, `extern`).
    pub storage_class: Option<Sym>,
    /// `init` style of a variable (`c`, `call`, `list`).
    pub init: Option<Sym>,
    /// `tagUsed` (`struct`, `class`, `union`).
    pub tag: Option<Sym>,
    /// `completeDefinition` of records.
    pub complete: bool,
    /// `isInline` of namespaces.
    pub inline_ns: bool,
    /// `ctorType` of construct expressions.
    pub ctor_type: Option<Sym>,
    /// `argType` of `sizeof`/`alignof`.
    pub arg_type: Option<TypeRef>,
    /// `hasInit`, `hasVar`, `hasElse` of `if`/`switch`/`while`.
    pub has_init: bool,
    /// See `has_init`.
    pub has_var: bool,
    /// See `has_init`.
    pub has_else: bool,
    /// Base classes of a record (`bases`), as type names.
    pub bases: Vec<TypeRef>,
    /// `baseInit` of a constructor initializer.
    pub base_init: Option<TypeRef>,
    /// `anyInit` of a constructor initializer (the field).
    pub any_init: Option<DeclRef>,
    /// `conversionFunc` of a user-defined conversion cast.
    pub conversion: Option<DeclRef>,
    /// `dtor` of `CXXBindTemporaryExpr`.
    pub dtor: Option<DeclRef>,
    /// `explicitlyDeleted`/`explicitlyDefaulted` of functions.
    pub defaulted: bool,
    /// `variadic` functions.
    pub variadic: bool,
    /// `previousDecl`: the earlier declaration this one redeclares.
    pub previous: Option<u64>,
    /// `fixedUnderlyingType` of enums.
    pub fixed_type: Option<TypeRef>,
}

/// A node of the user's code.
#[derive(Clone, Debug)]
pub struct Node {
    /// Its kind (`ForStmt`, `VarDecl`, ...).
    pub kind: Sym,
    /// Clang's id (0 for nodes without one, e.g. `TemplateArgument`).
    pub id: u64,
    /// `name` of declarations and member expressions.
    pub name: Option<Sym>,
    /// Type.
    pub ty: Option<TypeRef>,
    /// `loc` of declarations.
    pub loc: Option<Loc>,
    /// `range`.
    pub range: Option<Range>,
    /// Other attributes.
    pub attrs: Box<Attrs>,
    /// Children in dump order; `None` is a null child (Clang prints `{}`).
    pub inner: Vec<Option<NodeId>>,
    /// Parent node.
    pub parent: Option<NodeId>,
}

/// A declaration of any file: kept whole (`node`) or only indexed (system headers).
#[derive(Clone, Debug)]
pub struct DeclInfo {
    /// The arena node, for declarations of the user's files.
    pub node: Option<NodeId>,
    /// Kind.
    pub kind: Sym,
    /// Name (may be empty).
    pub name: Sym,
    /// Qualified name: enclosing namespaces and records, `::`-separated, without template
    /// arguments and inline namespaces.
    pub qual: String,
    /// Type.
    pub ty: Option<TypeRef>,
    /// The enclosing declaration (record, namespace, function).
    pub parent: Option<u64>,
    /// The file of its location (`None` for implicit declarations).
    pub file: Option<FileIdx>,
    /// Declarations inside it (fields, methods, nested records, enumerators), in order.
    pub members: Vec<u64>,
}

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

/// The AST of one translation unit.
#[derive(Debug, Default)]
pub struct Ast {
    /// Nodes of the user's files.
    pub nodes: Vec<Node>,
    /// Top-level nodes of the user's files (children of the translation unit, in order).
    pub roots: Vec<NodeId>,
    /// Every declaration by clang id.
    pub decls: HashMap<u64, DeclInfo>,
    /// Files named in locations.
    pub files: Vec<FileName>,
    /// Interned strings.
    pub strs: Vec<String>,
    intern: HashMap<String, Sym>,
}

impl Ast {
    /// Interns a string.
    pub fn sym(&mut self, s: &str) -> Sym {
        if let Some(&y) = self.intern.get(s) {
            return y;
        }
        let y = Sym(self.strs.len() as u32);
        self.strs.push(s.to_string());
        self.intern.insert(s.to_string(), y);
        y
    }

    /// The symbol of `s` if it was ever interned.
    pub fn find_sym(&self, s: &str) -> Option<Sym> {
        self.intern.get(s).copied()
    }

    /// The text of a symbol.
    pub fn str(&self, s: Sym) -> &str {
        &self.strs[s.0 as usize]
    }

    /// A node.
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n as usize]
    }

    /// The kind of a node.
    pub fn kind(&self, n: NodeId) -> &str {
        self.str(self.node(n).kind)
    }

    /// The name of a node (empty when it has none).
    pub fn name(&self, n: NodeId) -> &str {
        self.node(n).name.map(|s| self.str(s)).unwrap_or("")
    }

    /// Non-null children.
    pub fn children(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.node(n).inner.iter().flatten().copied()
    }

    /// The i-th child slot (Clang prints null children of some statements as `{}`).
    pub fn child(&self, n: NodeId, i: usize) -> Option<NodeId> {
        self.node(n).inner.get(i).copied().flatten()
    }

    /// Children of the given kind.
    pub fn children_of_kind<'a>(&'a self, n: NodeId, kind: &'a str) -> impl Iterator<Item = NodeId> + 'a {
        self.children(n).filter(move |&c| self.kind(c) == kind)
    }

    /// The type of a node without top-level sugar (`desugaredQualType`, else `qualType`).
    pub fn ty(&self, n: NodeId) -> Option<&str> {
        self.node(n).ty.map(|t| self.type_str(t))
    }

    /// The desugared text of a type reference.
    pub fn type_str(&self, t: TypeRef) -> &str {
        self.str(t.desugared.unwrap_or(t.qual))
    }

    /// The arena node of a declaration, if it is in the user's files.
    pub fn decl_node(&self, id: u64) -> Option<NodeId> {
        self.decls.get(&id).and_then(|d| d.node)
    }

    /// Whether a declaration lives in a system header (or has no location).
    pub fn decl_is_system(&self, id: u64) -> bool {
        match self.decls.get(&id).and_then(|d| d.file) {
            Some(f) => self.files[f.0 as usize].system,
            None => true,
        }
    }

    /// The qualified name of a declaration (`cooperative_groups::thread_block::sync`).
    pub fn qual_name(&self, id: u64) -> Option<&str> {
        self.decls.get(&id).map(|d| d.qual.as_str())
    }

    /// Whether a node has an attribute child of this kind (`CUDAGlobalAttr`, ...).
    pub fn has_attr(&self, n: NodeId, attr: &str) -> bool {
        self.children(n).any(|c| self.kind(c) == attr)
    }

    /// Text value of a literal / constant / template argument.
    pub fn value(&self, n: NodeId) -> Option<&str> {
        self.node(n).attrs.value.map(|s| self.str(s))
    }

    /// Indexes the declarations the dump refers to but does not show (those of a precompiled
    /// prelude) by what the references say: their name, kind, and for members the record the
    /// object's type names. They count as system declarations (no file).
    pub fn index_undumped_refs(&mut self) {
        // (id, kind, name, qualified name)
        let mut found: Vec<(u64, String, String, String)> = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let a = &n.attrs;
            for r in [a.referenced, a.conversion, a.dtor, a.any_init].into_iter().flatten() {
                if !self.decls.contains_key(&r.id) {
                    let name = self.str(r.name).to_string();
                    found.push((r.id, self.str(r.kind).to_string(), name.clone(), name));
                }
            }
            if let (Some(m), "MemberExpr") = (a.member, self.str(n.kind)) {
                if !self.decls.contains_key(&m) {
                    let name = n.name.map(|s| self.str(s).to_string()).unwrap_or_default();
                    let is_call = n.ty.is_some_and(|t| self.str(t.qual).contains('('));
                    let owner = self.child(i as NodeId, 0).and_then(|b| self.ty(b)).map(record_of_type);
                    let qual = match owner {
                        Some(o) if !o.is_empty() => format!("{o}::{name}"),
                        _ => name.clone(),
                    };
                    let kind = if is_call { "CXXMethodDecl" } else { "FieldDecl" };
                    found.push((m, kind.to_string(), name, qual));
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
            let (kind, name) = (self.sym(&kind), self.sym(&name));
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

    /// Walks a subtree in pre-order.
    pub fn walk(&self, n: NodeId, f: &mut impl FnMut(NodeId)) {
        f(n);
        for c in self.children(n) {
            self.walk(c, f);
        }
    }
}
