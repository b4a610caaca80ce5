//! The arena's indices: nodes, interned strings and files.

/// Index of a node in [`super::Ast::nodes`].
pub type NodeId = u32;

/// Index of an interned string in [`super::Ast::strs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// Index of a file in [`super::Ast::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileIdx(pub u32);
