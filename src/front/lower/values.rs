//! What the lowering's abstract interpretation computes with: memory places, pointers as
//! (region, byte offset), objects as field maps, bindings of declarations, glvalues and
//! prvalues, and the frames and jump targets of inlined calls.

use crate::front::ctype::CType;
use autosync_oracle::ir::*;
use std::collections::HashMap;

/// A memory location.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    pub array: ArrayId,
    pub off: Expr,
    pub ty: CType,
    pub span: Span,
    /// When the location is in one of several arrays (through a pointer swapped between
    /// buffers): the arrays and the selector whose value is the index of the one meant.
    /// `array` is the first of them.
    pub alt: Option<std::rc::Rc<(Vec<ArrayId>, Expr)>>,
}

impl Place {
    /// The region a pointer to this place points into.
    pub(crate) fn region(&self) -> Region {
        match &self.alt {
            Some(alt) => Region::Choice(alt.0.clone(), alt.1.clone()),
            None => Region::Array(self.array),
        }
    }
}

/// What a pointer points into.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Region {
    /// An array (shared, global or local memory).
    Array(ArrayId),
    /// A local object (`this`, `&obj`).
    Obj(usize),
    /// One of several arrays: the index of the one meant is the selector's value (ping-pong
    /// buffers: `tmp = cur; cur = next; next = tmp;`).
    Choice(Vec<ArrayId>, Expr),
    /// A pointer variable whose address is taken (`&p`, passed as `T **`): `*that` is the
    /// variable itself, tracked like any pointer variable.
    Slot(usize),
    /// Null (or never set).
    Null,
    /// The address of a device function: the offset is its number (`funcptr.rs`), never 0,
    /// so that null compares unequal.
    Code,
    /// Not known; the reason, for messages.
    Unknown(String),
}

/// A pointer value: region and byte offset.
#[derive(Clone, Debug)]
pub(crate) struct Pointer {
    pub region: Region,
    pub off: Expr,
    pub pointee: CType,
}

/// The byte offset of a pointer variable.
#[derive(Clone, Debug)]
pub(crate) enum SlotOff {
    /// Never assigned after its definition.
    Fixed(Expr),
    /// Held in a variable.
    Var(VarId),
}

impl SlotOff {
    pub(crate) fn expr(&self) -> Expr {
        match self {
            SlotOff::Fixed(e) => e.clone(),
            SlotOff::Var(v) => Expr::Var(*v),
        }
    }
}

/// A pointer variable (local, parameter or object field).
#[derive(Clone, Debug)]
pub(crate) struct PtrSlot {
    pub name: String,
    pub region: Region,
    pub off: SlotOff,
    pub pointee: CType,
}

/// A local object: its fields (bases' fields included) by `FieldDecl` id.
#[derive(Clone, Debug)]
pub(crate) struct Obj {
    pub record: u64,
    pub name: String,
    pub fields: HashMap<u64, Binding>,
}

/// Cooperative-groups handles: `sync()` on them is a barrier of that scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GroupKind {
    /// `thread_block`.
    Block,
    /// `thread_block_tile<N>` (N threads) or a coalesced group (N = 0: unknown size).
    Tile(u32),
    /// `grid_group`.
    Grid,
}

/// What a declaration means in the kernel being lowered.
#[derive(Clone, Debug)]
pub(crate) enum Binding {
    /// A scalar variable.
    Var(VarId, CType),
    /// A pointer variable.
    Ptr(usize),
    /// A variable that lives in memory (arrays, `__shared__` scalars), or a reference to memory.
    Mem(Place),
    /// A local object.
    Obj(usize),
    /// A compile-time constant.
    Const(i64, CType),
    /// A cooperative-groups handle.
    Group(GroupKind),
}

/// The result of lowering a glvalue.
#[derive(Clone, Debug)]
pub(crate) enum LV {
    Mem(Place),
    Var(VarId, CType),
    Ptr(usize),
    Obj(usize),
    Const(i64, CType),
    Group(GroupKind),
}

/// The result of lowering a prvalue.
#[derive(Clone, Debug)]
pub(crate) enum RV {
    Scalar(Expr, CType),
    Ptr(Pointer),
    Obj(usize),
    Group(GroupKind),
    Void,
}

/// Where an inlined function's `return` puts its value.
#[derive(Clone, Debug)]
pub(crate) enum RetSlot {
    None,
    Var(VarId, CType),
    Ptr(usize),
    Obj(usize),
    /// A function returning a reference: the first `return` fixes what it refers to.
    Ref(Option<Binding>, Option<VarId>),
    Group(Option<GroupKind>),
}

/// A function that may be called through a pointer (`funcptr.rs`): its number and its
/// definition.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CodeAddr {
    /// The pointer value that denotes it (never 0).
    pub code: i64,
    /// Its definition (the declaration with the body).
    pub def: crate::front::ast::NodeId,
}

/// An inlined call in progress.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    /// The function's declaration id.
    pub func: u64,
    /// Its name, for messages.
    pub name: String,
    pub ret: RetSlot,
    /// Set by a `return` that must leave loops of the callee.
    pub ret_flag: Option<VarId>,
    /// The object the method runs on.
    pub this: Option<LV>,
    /// Index of the frame's wrapper in `Lowerer::jumps`.
    pub jump_base: usize,
    /// Lexical scope of the function (qualified name of its parent), for type lookup.
    pub scope: String,
}

/// What `break`/`continue`/`return` can target in the IR being built.
#[derive(Clone, Debug)]
pub(crate) enum JumpCtx {
    /// A source loop.
    Loop,
    /// A `switch` lowered to a one-shot loop; `continue` inside it sets the flag and breaks.
    Switch { cont_flag: Option<VarId> },
    /// The one-shot loop around an inlined body.
    Inline,
}

/// An array of pointers in a kernel parameter (`struct { float *p[4]; }`): like pointer
/// parameters, each element points into an array of its own (no aliasing), made on first use.
#[derive(Clone, Debug)]
pub(crate) struct PointerTable {
    /// The member's name (`q.p`).
    pub name: String,
    /// What the elements point to.
    pub pointee: CType,
    /// The array of each element, once used.
    pub elems: Vec<Option<ArrayId>>,
}

/// The selector value that makes a choice among `arrays` point where `region` does (an array,
/// or another choice, whose index is translated); arrays it names are added. `None` for any
/// other region.
pub(crate) fn selector_value(arrays: &mut Vec<ArrayId>, region: &Region) -> Option<Expr> {
    let mut index = |a: ArrayId| -> i64 {
        match arrays.iter().position(|x| *x == a) {
            Some(i) => i as i64,
            None => {
                arrays.push(a);
                arrays.len() as i64 - 1
            }
        }
    };
    match region {
        Region::Array(b) => Some(Expr::Const(index(*b), ScalarTy::U32)),
        Region::Choice(others, other_sel) => {
            let mut e = Expr::Const(index(*others.first()?), ScalarTy::U32);
            for (i, a) in others.iter().enumerate().skip(1) {
                let cond = Expr::Bin(
                    BinOp::Eq,
                    ScalarTy::U32,
                    Box::new(other_sel.clone()),
                    Box::new(Expr::Const(i as i64, ScalarTy::U32)),
                );
                let idx = Expr::Const(index(*a), ScalarTy::U32);
                e = Expr::Select(Box::new(cond), Box::new(idx), Box::new(e));
            }
            Some(e)
        }
        _ => None,
    }
}

/// What an integer variable's values are (`Lowerer::number_vars`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Numbers computed from no array's address.
    Plain,
    /// Addresses in this array (or numbers computed from one).
    Address(ArrayId),
    /// Numbers of two origins: no known array's address.
    Mixed,
}
