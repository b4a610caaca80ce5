//! Lowering from Clang's AST to the kernel IR.
//!
//! One [`Lowerer`] lowers one kernel (one instantiation of a kernel template). Clang has
//! already instantiated templates, resolved overloads and made every conversion explicit;
//! the lowering interprets the C++ abstractly: scalars become IR variables, pointers become
//! (array, byte offset) pairs, objects become maps from fields to bindings, and calls of
//! functions with a body are inlined. Calls into system headers are modelled by name
//! (`library.rs`), or the kernel is inconclusive. Expressions are lowered to pure IR
//! expressions plus the memory operations they perform, collected into the current source
//! statement's `Basic` statement.

mod asm;
mod call;
mod expr;
pub mod helpers;
pub mod kernels;
pub(crate) mod library;
pub mod source;
mod stmt;
pub mod types;

use super::ast::{Ast, NodeId};
use super::ctype::CType;
use super::error::{FResult, FrontError};
use autosync_oracle::ir::*;
use source::SourceMap;
use std::collections::HashMap;
use types::Types;

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
    /// Null (or never set).
    Null,
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
    fn expr(&self) -> Expr {
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

/// What the user told the lowering beyond the source.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// Functions the user declares free of memory effects and synchronization
    /// (`--assume-pure NAME`, `assume_pure:` in autosync.yaml), by qualified or plain name.
    pub assume_pure: Vec<String>,
}

/// Lowers one kernel.
pub struct Lowerer<'a> {
    pub(crate) ast: &'a Ast,
    pub(crate) opts: &'a LowerOptions,
    pub(crate) types: &'a Types<'a>,
    pub(crate) src: &'a SourceMap<'a>,
    pub(crate) vars: Vec<Var>,
    pub(crate) arrays: Vec<Array>,
    pub(crate) next_label: u32,
    /// Statement lists under construction (innermost last).
    pub(crate) blocks: Vec<Vec<Stmt>>,
    /// Operations of the statement under construction.
    pub(crate) ops: Vec<Op>,
    /// Span of the source statement under construction.
    pub(crate) stmt_span: Span,
    pub(crate) env: HashMap<u64, Binding>,
    pub(crate) objs: Vec<Obj>,
    pub(crate) slots: Vec<PtrSlot>,
    pub(crate) frames: Vec<Frame>,
    pub(crate) jumps: Vec<JumpCtx>,
    pub(crate) notes: Vec<(Span, String)>,
    /// The array all `extern __shared__` declarations share.
    pub(crate) extern_shared: Option<ArrayId>,
    /// Lexical scope of the kernel (qualified name of its namespace).
    pub(crate) kernel_scope: String,
    /// The kernel's `FunctionDecl` id (the context of its local types).
    pub(crate) kernel_fn: u64,
    /// Call sites of the inlined functions being lowered (for spans of system code).
    pub(crate) call_spans: Vec<Span>,
    /// Whether a barrier may be written after the source statement being lowered.
    pub(crate) cur_writable: bool,
    /// Starting offsets of pointers first assigned inside the body (hoisted to its entry).
    pub(crate) late_inits: Vec<Op>,
    /// Variables whose address is taken (`&x`): they live in thread-private memory.
    pub(crate) addressed: std::collections::HashSet<u64>,
    /// Per pointer variable (in creation order), the arrays an earlier pass of the lowering
    /// saw it point into.
    pub(crate) seeds: Vec<Vec<ArrayId>>,
}

impl<'a> Lowerer<'a> {
    /// A lowerer for one kernel of `ast`.
    pub fn new(
        ast: &'a Ast,
        types: &'a Types<'a>,
        src: &'a SourceMap<'a>,
        opts: &'a LowerOptions,
        kernel_scope: String,
    ) -> Self {
        Lowerer {
            ast,
            opts,
            types,
            src,
            vars: Vec::new(),
            arrays: Vec::new(),
            next_label: 0,
            blocks: Vec::new(),
            ops: Vec::new(),
            stmt_span: Span::DUMMY,
            env: HashMap::new(),
            objs: Vec::new(),
            slots: Vec::new(),
            frames: Vec::new(),
            jumps: Vec::new(),
            notes: Vec::new(),
            extern_shared: None,
            kernel_scope,
            kernel_fn: 0,
            call_spans: Vec::new(),
            cur_writable: false,
            late_inits: Vec::new(),
            addressed: Default::default(),
            seeds: Vec::new(),
        }
    }

    /// Starts from the pointer targets an earlier pass found (see [`Lowerer::seeds`]).
    pub fn with_seeds(mut self, seeds: Vec<Vec<ArrayId>>) -> Self {
        self.seeds = seeds;
        self
    }

    /// The arrays each pointer variable pointed into by the end of lowering.
    pub(crate) fn final_seeds(&self) -> Vec<Vec<ArrayId>> {
        self.slots
            .iter()
            .map(|s| match &s.region {
                Region::Array(a) => vec![*a],
                Region::Choice(arrays, _) => arrays.clone(),
                _ => vec![],
            })
            .collect()
    }

    // ---- IR building -------------------------------------------------------------------

    pub(crate) fn label(&mut self) -> Label {
        let l = Label(self.next_label);
        self.next_label += 1;
        l
    }

    pub(crate) fn new_var(&mut self, name: &str, ty: ScalarTy, kind: VarKind) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(Var {
            id,
            name: name.to_string(),
            ty,
            kind,
        });
        id
    }

    pub(crate) fn temp(&mut self, ty: ScalarTy) -> VarId {
        let n = format!("$t{}", self.vars.len());
        self.new_var(&n, ty, VarKind::Temp)
    }

    pub(crate) fn new_array(
        &mut self,
        name: &str,
        space: Space,
        elem: &CType,
        dims: Vec<Option<u64>>,
        span: Span,
    ) -> FResult<ArrayId> {
        let id = ArrayId(self.arrays.len() as u32);
        let elem_size = self.size_of(elem, span)? as u32;
        self.arrays.push(Array {
            id,
            name: name.to_string(),
            space,
            elem_size,
            dims,
            span,
        });
        Ok(id)
    }

    /// An array for a variable of type `t` (a scalar or record is an array of one element).
    pub(crate) fn array_for(&mut self, name: &str, space: Space, t: &CType, span: Span) -> FResult<Place> {
        let mut dims = Vec::new();
        let mut elem = t.clone();
        while let CType::Array(e, n) = elem {
            dims.push(n);
            elem = *e;
        }
        if dims.is_empty() {
            dims.push(Some(1));
        }
        let array = self.new_array(name, space, &elem, dims, span)?;
        Ok(Place {
            array,
            off: Expr::Const(0, ScalarTy::U64),
            ty: t.clone(),
            span,
            alt: None,
        })
    }

    pub(crate) fn size_of(&self, t: &CType, span: Span) -> FResult<u64> {
        self.types.size_of(t).map_err(|m| {
            FrontError::unsupported(span, m).with_help("autosync needs the layout of every type a kernel accesses")
        })
    }

    /// Whether code being lowered comes from an inlined function (no barrier positions there).
    pub(crate) fn in_inline(&self) -> bool {
        !self.frames.is_empty()
    }

    /// Ends the statement under construction: its ops become one `Basic` statement.
    pub(crate) fn flush(&mut self, emit_after: bool) {
        if self.ops.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut self.ops);
        let label = self.label();
        let stmt = Stmt {
            label,
            span: self.stmt_span,
            emit_after: emit_after && !self.in_inline(),
            kind: StmtKind::Basic(ops),
        };
        self.push(stmt);
    }

    pub(crate) fn push(&mut self, mut s: Stmt) {
        // A statement of an inlined function is, in the kernel's text, part of the call (a
        // lambda's body may even lie inside an earlier statement); its accesses keep their own
        // spans for reports.
        if let Some(call) = self.call_spans.first() {
            s.span = *call;
            if let StmtKind::If { then_blk, else_blk, .. } = &mut s.kind {
                then_blk.span = *call;
                else_blk.span = *call;
            }
            if let StmtKind::Loop(Loop { body, .. }) = &mut s.kind {
                body.span = *call;
            }
        }
        self.blocks.last_mut().expect("a block under construction").push(s);
    }

    /// Pushes a statement that is not a barrier position.
    pub(crate) fn push_synthetic(&mut self, kind: StmtKind) {
        let label = self.label();
        let span = self.stmt_span;
        self.push(Stmt {
            label,
            span,
            emit_after: false,
            kind,
        });
    }

    /// Lowers the statements `f` produces into a fresh block (not a barrier position).
    pub(crate) fn sub_block(&mut self, f: impl FnOnce(&mut Self) -> FResult<()>) -> FResult<Block> {
        self.blocks.push(Vec::new());
        let saved = std::mem::take(&mut self.ops);
        let r = f(self);
        self.flush(false);
        self.ops = saved;
        let stmts = self.blocks.pop().unwrap_or_default();
        r?;
        let label = self.label();
        Ok(Block {
            label,
            span: self.stmt_span,
            braced: false,
            emit_start: false,
            stmts,
        })
    }

    pub(crate) fn empty_block(&mut self) -> Block {
        let label = self.label();
        Block {
            label,
            span: self.stmt_span,
            braced: false,
            emit_start: false,
            stmts: vec![],
        }
    }

    /// `if (cond) { then }` as a synthetic statement.
    pub(crate) fn synthetic_if(&mut self, cond: Expr, then_blk: Block) {
        let else_blk = self.empty_block();
        self.push_synthetic(StmtKind::If {
            cond,
            then_blk,
            else_blk,
        });
    }

    /// Records the variables of a function body whose address is taken.
    pub(crate) fn scan_addressed(&mut self, body: NodeId) {
        let ast = self.ast;
        let mut found = Vec::new();
        ast.walk(body, &mut |c| {
            if ast.kind(c) != "UnaryOperator" || ast.node(c).attrs.opcode.is_none_or(|o| ast.str(o) != "&") {
                return;
            }
            let mut t = ast.children(c).next();
            while let Some(x) = t.filter(|&x| matches!(ast.kind(x), "ParenExpr" | "ImplicitCastExpr")) {
                t = ast.children(x).next();
            }
            if let Some(r) = t
                .filter(|&x| ast.kind(x) == "DeclRefExpr")
                .and_then(|x| ast.node(x).attrs.referenced)
            {
                if matches!(ast.str(r.kind), "VarDecl" | "ParmVarDecl") {
                    found.push(r.id);
                }
            }
        });
        self.addressed.extend(found);
    }

    // ---- spans -------------------------------------------------------------------------

    /// The span of a node for reports: its own source when that is a user file, else the
    /// call site of the inlined code it belongs to.
    pub(crate) fn span(&self, n: NodeId) -> Span {
        let s = self.src.node_span(n);
        if s.is_dummy() {
            return self.call_spans.last().copied().unwrap_or(self.stmt_span);
        }
        s
    }

    /// The lexical scope for type lookups at the current point.
    pub(crate) fn scope(&self) -> String {
        self.frames
            .last()
            .map(|f| f.scope.clone())
            .unwrap_or_else(|| self.kernel_scope.clone())
    }

    /// The type of a node, resolved where the code being lowered is written.
    pub(crate) fn type_of(&self, n: NodeId) -> CType {
        let f = self.frames.last().map(|f| f.func).unwrap_or(self.kernel_fn);
        self.types.set_context(self.types.context_of(f));
        self.types.of_node(n, &self.scope())
    }

    // ---- bindings ----------------------------------------------------------------------

    pub(crate) fn new_slot(&mut self, name: &str, region: Region, off: SlotOff, pointee: CType) -> usize {
        // A pointer an earlier pass saw pointed at several arrays is a choice from the start, so
        // that code before its reassignment in a loop body reads the right buffer.
        let region = match self.seeds.get(self.slots.len()).cloned() {
            Some(mut arrays) if arrays.len() > 1 => {
                let sel = self.new_var(&format!("{name}$array"), ScalarTy::U32, VarKind::Temp);
                if let Region::Array(a) = region {
                    // Its first array is where it starts.
                    arrays.retain(|x| *x != a);
                    arrays.insert(0, a);
                    self.ops.push(Op::Assign(sel, Expr::Const(0, ScalarTy::U32)));
                }
                Region::Choice(arrays, Expr::Var(sel))
            }
            _ => region,
        };
        self.slots.push(PtrSlot {
            name: name.to_string(),
            region,
            off,
            pointee,
        });
        self.slots.len() - 1
    }

    /// A fresh object of record `rec`, every field bound to a fresh variable (uninitialized).
    pub(crate) fn new_obj(&mut self, rec: u64, name: &str, span: Span) -> FResult<usize> {
        let layout = self.types.layout(rec).map_err(|m| FrontError::unsupported(span, m))?;
        let idx = self.objs.len();
        self.objs.push(Obj {
            record: self.types.definition(rec),
            name: name.to_string(),
            fields: HashMap::new(),
        });
        for f in &layout.fields {
            let fname = format!("{name}.{}", f.name);
            let b = self.fresh_binding(&fname, &f.ty, VarKind::Local, span)?;
            self.objs[idx].fields.insert(f.id, b);
        }
        Ok(idx)
    }

    /// A fresh binding for a variable of type `t`.
    pub(crate) fn fresh_binding(&mut self, name: &str, t: &CType, kind: VarKind, span: Span) -> FResult<Binding> {
        Ok(match t {
            CType::Ptr(p) => {
                let v = self.new_var(name, ScalarTy::U64, VarKind::Temp);
                Binding::Ptr(self.new_slot(name, Region::Null, SlotOff::Var(v), (**p).clone()))
            }
            CType::Record(r) => match self.group_kind_of(*r) {
                Some(g) => Binding::Group(g),
                None => Binding::Obj(self.new_obj(*r, name, span)?),
            },
            CType::Array(..) => Binding::Mem(self.array_for(name, Space::Local, t, span)?),
            // A reference member is bound when the constructor initializes it.
            CType::Ref(_) => Binding::Const(0, CType::Void),
            t => Binding::Var(self.new_var(name, t.scalar(), kind), t.clone()),
        })
    }

    /// A binding as a glvalue.
    pub(crate) fn binding_lv(&self, b: &Binding) -> LV {
        match b {
            Binding::Var(v, t) => LV::Var(*v, t.clone()),
            Binding::Ptr(s) => LV::Ptr(*s),
            Binding::Mem(p) => LV::Mem(p.clone()),
            Binding::Obj(o) => LV::Obj(*o),
            Binding::Const(v, t) => LV::Const(*v, t.clone()),
            Binding::Group(g) => LV::Group(*g),
        }
    }

    /// A glvalue as a binding (references alias what they refer to; memory offsets are
    /// snapshotted so that later changes of the index do not move the reference).
    pub(crate) fn lv_binding(&mut self, lv: LV) -> Binding {
        match lv {
            LV::Var(v, t) => Binding::Var(v, t),
            LV::Ptr(s) => Binding::Ptr(s),
            LV::Mem(mut p) => {
                if !matches!(p.off, Expr::Const(..)) {
                    let v = self.temp(ScalarTy::U64);
                    self.ops.push(Op::Assign(v, p.off.clone()));
                    p.off = Expr::Var(v);
                }
                Binding::Mem(p)
            }
            LV::Obj(o) => Binding::Obj(o),
            LV::Const(v, t) => Binding::Const(v, t),
            LV::Group(g) => Binding::Group(g),
        }
    }

    /// The cooperative-groups handle kind of a system record, if it is one.
    pub(crate) fn group_kind_of(&self, rec: u64) -> Option<GroupKind> {
        let q = self.ast.qual_name(rec)?;
        let name = q.strip_prefix("cooperative_groups::")?;
        let base = name.split("::").last().unwrap_or(name);
        match base {
            "thread_block" => Some(GroupKind::Block),
            "grid_group" | "multi_grid_group" => Some(GroupKind::Grid),
            "coalesced_group" | "thread_group" => Some(GroupKind::Tile(0)),
            "thread_block_tile" => Some(GroupKind::Tile(0)),
            _ => None,
        }
    }
}

/// Converts a pure expression between types.
pub(crate) fn convert(e: Expr, from: &CType, to: &CType) -> Expr {
    let (from, to) = (from.unref(), to.unref());
    if from == to {
        return e;
    }
    match (from.is_integral(), to.is_integral()) {
        (true, true) => {
            if matches!(to, CType::Bool) {
                return to_bool(e, from);
            }
            if let Expr::Const(v, _) = e {
                return Expr::Const(fold_cast(v, to), to.scalar());
            }
            Expr::Cast(to.scalar(), Box::new(e))
        }
        _ if from.scalar() == to.scalar() => e,
        _ => Expr::Opaque(to.scalar(), vec![e]),
    }
}

/// A constant converted to an integer type.
pub(crate) fn fold_cast(v: i64, to: &CType) -> i64 {
    match to {
        CType::Bool => (v != 0) as i64,
        CType::Int { bits: 64, .. } => v,
        CType::Int { bits, signed: true } => {
            let sh = 64 - *bits as u32;
            (v << sh) >> sh
        }
        CType::Int { bits, signed: false } => v & ((1i64 << *bits) - 1),
        _ => v,
    }
}

/// `e != 0` for integers; booleans as they are; anything else an opaque predicate.
pub(crate) fn to_bool(e: Expr, t: &CType) -> Expr {
    match t.unref() {
        CType::Bool => e,
        CType::Int { .. } => {
            if let Expr::Const(v, _) = e {
                return Expr::bool(v != 0);
            }
            let s = t.scalar();
            Expr::Bin(BinOp::Ne, s, Box::new(e), Box::new(Expr::Const(0, s)))
        }
        _ => Expr::Opaque(ScalarTy::Bool, vec![e]),
    }
}

/// `base + idx * size` on 64-bit byte offsets, folding constants.
pub(crate) fn add_offset(base: Expr, idx: Expr, size: i64) -> Expr {
    let scaled = match (&idx, size) {
        (_, 1) => idx,
        (Expr::Const(v, _), s) => Expr::Const(v.wrapping_mul(s), ScalarTy::U64),
        (_, s) => Expr::Bin(
            BinOp::Mul,
            ScalarTy::U64,
            Box::new(idx),
            Box::new(Expr::Const(s, ScalarTy::U64)),
        ),
    };
    match (&base, &scaled) {
        (Expr::Const(0, _), _) => scaled,
        (_, Expr::Const(0, _)) => base,
        (Expr::Const(a, _), Expr::Const(b, _)) => Expr::Const(a.wrapping_add(*b), ScalarTy::U64),
        _ => Expr::Bin(BinOp::Add, ScalarTy::U64, Box::new(base), Box::new(scaled)),
    }
}

/// The first line of a snippet, for messages.
pub(crate) fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    if l.chars().count() > 60 {
        format!("{}…", l.chars().take(60).collect::<String>())
    } else {
        l.to_string()
    }
}
