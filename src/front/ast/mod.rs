//! Clang's AST as the lowering reads it: a compact arena of every node the dump holds (the
//! user's files and the headers they include, system headers alike: a function with a body is
//! inlined wherever it is defined), and an index of every declaration by clang id and
//! qualified name, including those the dump only refers to (the precompiled CUDA prelude).
//!
//! [`read`] builds it from `clang -Xclang -ast-dump=json`, streaming.

mod compact;
mod ids;
mod keys;
mod kinds;
mod node;
mod ops;
pub mod read;
mod split;
mod undumped;

pub use ids::{FileIdx, NodeId, Sym};
pub use kinds::NodeKind;
pub use node::{Attrs, DeclInfo, DeclRef, Loc, Node, Pos, Range, TypeRef};
pub use ops::{BinaryOp, CastKind, Opcode, UnaryOp};
use std::collections::HashMap;

/// A file named by Clang's locations.
#[derive(Clone, Debug)]
pub struct FileName {
    /// The name as Clang printed it (`<stdin>` for the main file).
    pub name: String,
    /// A system header (the shim, the C++ library, a CUDA toolkit, `-isystem` directories).
    pub system: bool,
    /// Where Clang read the file's text when not from `name`: a rewritten copy (its
    /// locations' offsets are the copy's).
    pub content: Option<std::path::PathBuf>,
}

impl FileName {
    /// The file whose text Clang's locations in this file point into.
    pub fn text_path(&self) -> &std::path::Path {
        self.content.as_deref().unwrap_or(std::path::Path::new(&self.name))
    }
}

/// Qualified type alias name (`int32_t`, `std::size_t`) → the type it stands for, as Clang
/// prints it.
pub type PreludeTypes = std::sync::Arc<HashMap<String, String>>;

/// The AST of one translation unit.
#[derive(Debug, Default)]
pub struct Ast {
    /// Nodes of the user's files.
    pub nodes: Vec<Node>,
    /// Top-level nodes of the user's files (children of the translation unit, in order).
    pub roots: Vec<NodeId>,
    /// Every declaration by clang id.
    pub decls: rustc_hash::FxHashMap<u64, DeclInfo>,
    /// Files named in locations.
    pub files: Vec<FileName>,
    /// Interned strings.
    pub strs: Vec<String>,
    /// The type aliases a precompiled prelude declares (the dump does not show them), by
    /// qualified name: empty without one.
    pub prelude_types: PreludeTypes,
    intern: rustc_hash::FxHashMap<String, Sym>,
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
    pub fn kind(&self, n: NodeId) -> NodeKind {
        self.node(n).kind
    }

    /// Clang's name of a kind (for messages).
    pub fn kind_name(&self, k: NodeKind) -> &str {
        match k {
            NodeKind::Other(s) => self.str(s),
            k => k.known_name().unwrap_or(""),
        }
    }

    /// Clang's name of a node's kind (for messages).
    pub fn kind_str(&self, n: NodeId) -> &str {
        self.kind_name(self.kind(n))
    }

    /// Whether a node is a declaration (`...Decl`).
    pub fn is_decl(&self, n: NodeId) -> bool {
        self.kind_str(n).ends_with("Decl")
    }

    /// Whether a node is an attribute (`...Attr`).
    pub fn is_attr(&self, n: NodeId) -> bool {
        self.kind_str(n).ends_with("Attr")
    }

    /// A variable's (or parameter's) initializer: its first child that is neither an
    /// attribute nor, for a variable template's specialization, a template argument.
    pub fn var_init(&self, d: NodeId) -> Option<NodeId> {
        self.children(d)
            .find(|&c| !self.is_attr(c) && self.kind(c) != NodeKind::TemplateArgument)
    }

    /// Whether a node is a type (`...Type`).
    pub fn is_type(&self, n: NodeId) -> bool {
        self.kind_str(n).ends_with("Type")
    }

    /// Whether a node is a statement that is not an expression (`...Stmt`).
    pub fn is_stmt(&self, n: NodeId) -> bool {
        self.kind_str(n).ends_with("Stmt")
    }

    /// The operator of a `BinaryOperator` (or the one a `CompoundAssignOperator` applies).
    pub fn binary_op(&self, n: NodeId) -> Option<BinaryOp> {
        match self.node(n).attrs.opcode? {
            Opcode::Binary(op) => Some(op),
            Opcode::Unary(_) => None,
        }
    }

    /// The operator of a `UnaryOperator`.
    pub fn unary_op(&self, n: NodeId) -> Option<UnaryOp> {
        match self.node(n).attrs.opcode? {
            Opcode::Unary(op) => Some(op),
            Opcode::Binary(_) => None,
        }
    }

    /// The `castKind` of a cast.
    pub fn cast_kind(&self, n: NodeId) -> Option<CastKind> {
        self.node(n).attrs.cast_kind
    }

    /// How an operator is written (for messages).
    pub fn op_spelling(&self, op: Opcode) -> &str {
        let (known, other) = match op {
            Opcode::Binary(BinaryOp::Other(s)) | Opcode::Unary(UnaryOp::Other(s)) => (None, Some(s)),
            Opcode::Binary(b) => (b.known_spelling(), None),
            Opcode::Unary(u) => (u.known_spelling(), None),
        };
        known.or_else(|| other.map(|s| self.str(s))).unwrap_or("")
    }

    /// Clang's name of a cast kind (for messages).
    pub fn cast_name(&self, k: CastKind) -> &str {
        match k {
            CastKind::Other(s) => self.str(s),
            k => k.known_name().unwrap_or(""),
        }
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
    pub fn children_of_kind(&self, n: NodeId, kind: NodeKind) -> impl Iterator<Item = NodeId> + '_ {
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
    pub fn has_attr(&self, n: NodeId, attr: NodeKind) -> bool {
        self.children(n).any(|c| self.kind(c) == attr)
    }

    /// Text value of a literal / constant / template argument.
    pub fn value(&self, n: NodeId) -> Option<&str> {
        self.node(n).attrs.value.map(|s| self.str(s))
    }

    /// Walks a subtree in pre-order.
    pub fn walk(&self, n: NodeId, f: &mut impl FnMut(NodeId)) {
        f(n);
        for c in self.children(n) {
            self.walk(c, f);
        }
    }
}
