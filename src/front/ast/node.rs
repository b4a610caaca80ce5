//! The parts of the AST arena: nodes with the attributes the lowering reads, source
//! positions, type and declaration references, and the index entry of a declaration.

use super::ids::{FileIdx, NodeId, Sym};
use super::kinds::NodeKind;
use super::ops::{CastKind, Opcode};

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
    pub kind: NodeKind,
    /// Its name.
    pub name: Sym,
}

/// Attributes of a node the lowering uses (each present only on some kinds).
#[derive(Clone, Debug, Default)]
pub struct Attrs {
    /// `valueCategory`: `lvalue`, `xvalue` or `prvalue`.
    pub value_category: Option<Sym>,
    /// `opcode` of unary/binary operators.
    pub opcode: Option<Opcode>,
    /// `castKind`.
    pub cast_kind: Option<CastKind>,
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
    pub kind: NodeKind,
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
    pub kind: NodeKind,
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
