//! The lowering's state for one kernel ([`Lowerer`]) and its basic operations: fresh
//! variables, arrays, labels, statement buffers, objects and pointer slots. The lowering of
//! statements, expressions, calls, the device library and inline PTX are `impl Lowerer` blocks
//! in their own modules.

use super::source::SourceMap;
use super::types::Types;
use super::values::*;
use crate::front::ast::{Ast, CastKind, NodeId, NodeKind, UnaryOp};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;
use std::collections::HashMap;
use std::path::Path;

/// What the user told the lowering beyond the source.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// Functions the user declares free of memory effects and synchronization
    /// (`--assume-pure NAME`, `assume_pure:` in autosync.yaml), by qualified or plain name.
    pub assume_pure: Vec<String>,
    /// The architecture the device code is read for (`sm_80`), named by traps.
    pub arch: String,
}

/// How deep an expression's type is derived from its operands' (`Lowerer::type_from_operand`).
const MAX_OPERAND_TYPE_DEPTH: u32 = 32;

/// Whether a type is one autosync could not read, or an array of or pointer to one.
fn unresolved(mut t: &CType) -> bool {
    loop {
        match t {
            CType::Other(_) => return true,
            CType::Ptr(e) | CType::Ref(e) | CType::Array(e, _) => t = e,
            _ => return false,
        }
    }
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
    /// The functions whose address is taken, numbered (built on first use, `funcptr.rs`).
    pub(crate) code_addrs: Option<Vec<super::values::CodeAddr>>,
    /// Whether a path that leaves the kernel (`return`, PTX `exit`) was lowered: later code
    /// may run in fewer threads.
    pub(crate) exited: bool,
    /// Arrays of pointers in kernel parameters (`struct { float *p[4]; }`), by the local array
    /// holding the copy: each element points into an array of its own.
    pub(crate) pointer_tables: HashMap<ArrayId, PointerTable>,
    /// Local arrays of pointers, by array: the pointer variable of each element
    /// (`ptr_arrays.rs`).
    pub(crate) pointer_arrays: HashMap<ArrayId, Vec<usize>>,
    /// The first grid-dependency wait lowered (programmatic dependent launch), if any.
    pub(crate) grid_wait: Option<Span>,
    /// Hazards found while lowering (`Report::hazards`).
    pub(crate) hazards: Vec<autosync_oracle::report::Hazard>,
    /// The variable holding each shared or global array's address, once it is used as a
    /// number (`expr/addresses.rs`).
    pub(crate) address_vars: HashMap<ArrayId, VarId>,
    /// What each integer variable given a value holds: plain numbers, addresses in one array,
    /// or both (`expr/addresses.rs`).
    pub(crate) number_vars: HashMap<VarId, Origin>,
    /// Each array's alignment in bytes, as its element type requires (the least its address
    /// is a multiple of).
    pub(crate) array_aligns: HashMap<ArrayId, u64>,
    /// Facts about the address variables (their alignment), assumed at the kernel's entry.
    pub(crate) address_facts: Vec<Expr>,
    /// Each variable a pointer made from a number relied on, with its origin then.
    pub(crate) number_uses: Vec<(VarId, Origin, Span)>,
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
            code_addrs: None,
            pointer_tables: HashMap::new(),
            pointer_arrays: HashMap::new(),
            exited: false,
            grid_wait: None,
            hazards: Vec::new(),
            address_vars: HashMap::new(),
            number_vars: HashMap::new(),
            number_uses: Vec::new(),
            array_aligns: HashMap::new(),
            address_facts: Vec::new(),
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
        self.array_aligns.insert(id, self.types.align_of(elem).unwrap_or(1));
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

    /// The end of the thread's path at a trap instruction `instr`, in the function being
    /// lowered.
    pub(crate) fn trap(&self, instr: &str) -> StmtKind {
        let function = self.frames.last().map(|f| f.name.clone()).unwrap_or_default();
        StmtKind::Return {
            trap: Some(autosync_oracle::ir::Trap {
                instr: instr.to_string(),
                function,
                arch: self.opts.arch.clone(),
            }),
        }
    }

    /// A read-only-path load `what` at `span`: a hazard when a grid-dependency wait comes
    /// before it (the compiler may hoist the load above the wait).
    pub(crate) fn nc_load(&mut self, what: &str, span: Span) {
        if let Some(wait) = self.grid_wait {
            self.hazards.push(autosync_oracle::report::Hazard::NcLoadAfterGridWait {
                load: span,
                what: what.to_string(),
                wait,
            });
        }
    }

    /// Pushes a statement that is not a barrier position.
    pub(crate) fn push_synthetic(&mut self, kind: StmtKind) {
        self.exited |= matches!(kind, StmtKind::Return { .. });
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
            if ast.kind(c) != NodeKind::UnaryOperator || ast.unary_op(c) != Some(UnaryOp::AddrOf) {
                return;
            }
            let mut t = ast.children(c).next();
            while let Some(x) = t.filter(|&x| matches!(ast.kind(x), NodeKind::ParenExpr | NodeKind::ImplicitCastExpr)) {
                t = ast.children(x).next();
            }
            if let Some(r) = t
                .filter(|&x| ast.kind(x) == NodeKind::DeclRefExpr)
                .and_then(|x| ast.node(x).attrs.referenced)
            {
                if matches!(r.kind, NodeKind::VarDecl | NodeKind::ParmVarDecl) {
                    found.push(r.id);
                }
            }
        });
        self.addressed.extend(found);
    }

    // ---- spans -------------------------------------------------------------------------

    /// The span of a node for reports: its own source when that is a user file, else the
    /// call site of the inlined code it belongs to. Code of a member the compiler generated (an
    /// implicit copy constructor or `operator=`) is located at its use too: Clang places it at
    /// the class, which is not where the user wrote the copy.
    pub(crate) fn span(&self, n: NodeId) -> Span {
        let s = self.src.node_span(n);
        if s.is_dummy() || self.in_implicit_member() {
            return self.call_spans.last().copied().unwrap_or(self.stmt_span);
        }
        s
    }

    /// Whether the innermost inlined function is one the compiler generated.
    fn in_implicit_member(&self) -> bool {
        self.frames.last().is_some_and(|f| {
            let def = self.types.definition(f.func);
            self.ast
                .decl_node(def)
                .is_some_and(|d| self.ast.node(d).attrs.is_implicit)
        })
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
        self.type_at(n, 0)
    }

    fn type_at(&self, n: NodeId, depth: u32) -> CType {
        let f = self.frames.last().map(|f| f.func).unwrap_or(self.kernel_fn);
        self.types.set_context(self.types.context_of(f));
        let t = self.types.of_node(n, &self.scope());
        if depth < MAX_OPERAND_TYPE_DEPTH && unresolved(&t) {
            return self.type_from_operand(n, depth).unwrap_or(t);
        }
        t
    }

    /// An expression's type by the language's rules from its operand's, where Clang printed it
    /// with names that mean something only inside a class template (`rt_base<T, layout>[2]`
    /// for a member array of `rt<bf16, 32, 32>`, whose `T` is a member alias): a field's type
    /// from its record's layout, an element's from its array's or pointer's.
    fn type_from_operand(&self, n: NodeId, depth: u32) -> Option<CType> {
        let ast = self.ast;
        let kids = self.expr_children(n);
        let operand = |i: usize| kids.get(i).map(|&c| self.type_at(c, depth + 1));
        let element = |t: CType| match t {
            CType::Ptr(e) | CType::Array(e, _) => Some(*e),
            _ => None,
        };
        match ast.kind(n) {
            NodeKind::MemberExpr => {
                let member = ast.node(n).attrs.member?;
                let record = match operand(0)? {
                    CType::Ptr(r) if ast.node(n).attrs.is_arrow => *r,
                    t => t,
                };
                let CType::Record(r) = record.unref() else {
                    return None;
                };
                let layout = self.types.layout(*r).ok()?;
                layout.fields.iter().find(|f| f.id == member).map(|f| f.ty.clone())
            }
            NodeKind::ArraySubscriptExpr => kids.iter().find_map(|&c| element(self.type_at(c, depth + 1))),
            NodeKind::ImplicitCastExpr if ast.cast_kind(n) == Some(CastKind::ArrayToPointerDecay) => {
                Some(CType::Ptr(Box::new(element(operand(0)?)?)))
            }
            NodeKind::ImplicitCastExpr | NodeKind::ParenExpr
                if matches!(ast.cast_kind(n), None | Some(CastKind::NoOp | CastKind::LValueToRValue)) =>
            {
                operand(0)
            }
            NodeKind::UnaryOperator => match ast.unary_op(n)? {
                UnaryOp::Deref => element(operand(0)?),
                UnaryOp::AddrOf => Some(CType::Ptr(Box::new(operand(0)?))),
                _ => None,
            },
            _ => None,
        }
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
                }
                // It starts where its first value points (a parameter bound to a choice: the
                // caller's selector, translated).
                if let Some(value) = selector_value(&mut arrays, &region) {
                    self.ops.push(Op::Assign(sel, value));
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
        // The toolkit's groups are code like any other and are inlined; only the shim's
        // bodiless declarations are modelled as groups.
        if !self.declared_in_shim(rec) {
            return None;
        }
        let base = name.split("::").last().unwrap_or(name);
        match base {
            "thread_block" => Some(GroupKind::Block),
            "grid_group" | "multi_grid_group" => Some(GroupKind::Grid),
            "coalesced_group" | "thread_group" => Some(GroupKind::Tile(0)),
            "thread_block_tile" => Some(GroupKind::Tile(0)),
            _ => None,
        }
    }

    /// Whether a declaration is autosync's own shim's (the stand-in for the toolkit).
    fn declared_in_shim(&self, id: u64) -> bool {
        let Some(f) = self.ast.decls.get(&id).and_then(|d| d.file) else {
            return false;
        };
        let name = Path::new(&self.ast.files[f.0 as usize].name);
        crate::front::clang::shim::dir().is_ok_and(|d| name.starts_with(d))
    }
}
