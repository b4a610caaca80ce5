//! The CUDA device library, modelled by qualified name: barriers, atomics, warp functions,
//! cooperative groups, and the functions known to be pure (GPUVerify's annotations are
//! `annotations.rs`). A call into a system header that is none of these makes the kernel
//! inconclusive: nothing is assumed harmless.

use super::call::Callee;
use super::convert::*;
use super::expr::Value;
use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::{NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::intrinsics::{self, Model};
use autosync_oracle::ir::*;

/// Whether `name` is one of the functions that neither touch memory (but their output
/// pointers) nor synchronize.
fn is_pure(name: &str) -> bool {
    intrinsics::lookup(name).is_some_and(|x| x.model == Model::Pure)
}

impl<'a> Lowerer<'a> {
    /// Emits a barrier statement.
    pub(crate) fn barrier(&mut self, b: Barrier, syntax: BarrierSyntax) {
        self.flush(false);
        let label = self.label();
        // A barrier inside a helper is reported where the kernel calls the helper.
        let span = self.call_spans.first().copied().unwrap_or(self.stmt_span);
        let emit = !self.in_inline() && self.cur_writable;
        // CUTLASS-style `NamedBarrier::sync/arrive` wrappers: emission writes new barriers the
        // same way.
        let syntax = if self.frames.iter().any(|f| is_cutlass_barrier(&f.name)) {
            BarrierSyntax::Cutlass
        } else if self.frames.iter().any(|f| is_coop_groups_sync(&f.name)) {
            // `block.sync()`, `cg::sync(block)` read from the toolkit's header.
            BarrierSyntax::CoopGroups
        } else {
            syntax
        };
        self.push(Stmt {
            label,
            span,
            emit_after: emit,
            kind: StmtKind::Barrier(b, syntax),
        });
    }

    /// A call into a system header.
    pub(crate) fn library_call(&mut self, c: &Callee, n: NodeId, span: Span) -> FResult<Value> {
        if let Some(v) = self.modelled_call(c, n, span, false)? {
            return Ok(v);
        }
        let ast = self.ast;
        let qual = ast.qual_name(c.decl).unwrap_or("").to_string();
        let file = ast
            .decls
            .get(&c.decl)
            .and_then(|d| d.file)
            .map(|f| ast.files[f.0 as usize].name.clone())
            .unwrap_or_else(|| "a system header".into());
        Err(FrontError::unsupported(
            span,
            format!("call to `{qual}` (declared in {file}), which autosync does not model"),
        )
        .with_help(format!(
            "if `{qual}` neither accesses memory nor synchronizes, declare it known-pure with --assume-pure {qual}"
        )))
    }

    /// A call of a system function whose body is visible, when the library models it by name:
    /// the CUDA prelude (Clang's wrapper headers, the runtime's device headers) defines
    /// `atomicAdd`, `__shfl_sync`, `min` or `threadIdx`'s conversions in terms of NVVM builtins.
    /// A precompiled prelude hides those bodies and a plain read shows them; both must read
    /// alike. `None`: not modelled by name, so the body is inlined.
    pub(crate) fn prelude_call(&mut self, c: &Callee, n: NodeId, span: Span) -> FResult<Option<Value>> {
        self.modelled_call(c, n, span, true)
    }

    /// The models by name, tried in order; `None` when no model takes the call. With
    /// `body_visible`, only the names the prelude defines are taken (cooperative groups and
    /// cuRAND bodies are inlined, and a user's `--assume-pure` covers bodiless functions).
    fn modelled_call(&mut self, c: &Callee, n: NodeId, span: Span, body_visible: bool) -> FResult<Option<Value>> {
        let ast = self.ast;
        let qual = ast.qual_name(c.decl).unwrap_or("").to_string();
        // Default arguments of library functions are the shim's (`__syncwarp(mask = ~0)`): the
        // models do not need them.
        let args: Vec<NodeId> = c
            .args
            .iter()
            .copied()
            .filter(|&a| ast.kind(a) != NodeKind::CXXDefaultArgExpr)
            .collect();
        let rt = self.type_of(n);
        // Members of the C++ library's std namespace behave like their global forms.
        let base = qual.strip_prefix("std::").unwrap_or(&qual);
        if let Some(v) = self.vector_make(c, n, span) {
            return v.map(Some);
        }
        // The standard library's casts to a reference (Clang treats them as builtins): the
        // call designates its argument. Reached only for a system function without a body; a
        // declaration the precompiled prelude holds is named without its namespace.
        let glvalue = ast
            .node(n)
            .attrs
            .value_category
            .is_some_and(|v| ast.str(v) != "prvalue");
        if is_reference_cast(base) && args.len() == 1 && glvalue && !body_visible {
            return self.eval(args[0]).map(Some);
        }
        if let Some(v) = self.annotation_call(base, &args, &rt, span) {
            return v.map(Some);
        }
        if let Some(g) = qual.strip_prefix("cooperative_groups::").filter(|_| !body_visible) {
            return self.coop_groups(g, c, n, span).map(Some);
        }
        if let Some(v) = self.builtin_var_conversion(&qual, c, &rt, span)? {
            return Ok(Some(v));
        }
        if let Some(v) = self.sync_builtin(base, &args, span)? {
            return Ok(Some(v));
        }
        if let Some(v) = self.device_builtin(base, &args, &rt, span)? {
            return Ok(Some(v));
        }
        if base.starts_with("__hmma_") || base.starts_with("__imma_") || base.starts_with("__bmma_") {
            return self.wmma(base, &args, span).map(Some);
        }
        if base.starts_with("__nvvm_mbarrier_") || base.starts_with("__nvvm_cp_async_") {
            return self.nvvm_async(base, &args, &rt, span).map(Some);
        }
        if base.starts_with("__nv_atomic_") && !body_visible {
            return self.nv_atomic(base, &args, &rt, span).map(Some);
        }
        if base.starts_with("atomic") && !base.contains("::") {
            return self.atomic(base, &args, span).map(Some);
        }
        if is_texture_fetch(base) {
            return self.texture_fetch(base, &args, &rt, span).map(Some);
        }
        if (base.starts_with("curand") || base.starts_with("skipahead")) && !body_visible {
            if let Some(v) = self.curand(base, &args, &rt, span)? {
                return Ok(Some(v));
            }
        }
        if intrinsics::lookup(base).is_some_and(|x| x.model == Model::Exact) {
            return self.exact_intrinsic(base, &args, &rt, span).map(Some);
        }
        if let Some(v) = self.warp_uniform_collective(base, &args, &rt)? {
            return Ok(Some(v));
        }
        if is_pure(base) || base.starts_with("__builtin_") && is_pure_builtin(base) {
            return self.pure_math_call(base, &args, rt, span).map(Some);
        }
        if !body_visible && self.assumed_pure(c.decl) {
            return self.pure_call(c, n, span, &qual).map(Some);
        }
        Ok(None)
    }

    /// The block and warp barriers and their vote forms (`__syncthreads_count`); `None` for any other name.
    fn sync_builtin(&mut self, base: &str, args: &[NodeId], span: Span) -> FResult<Option<Value>> {
        match base {
            "__syncthreads" => {
                self.barrier(Barrier::Block, BarrierSyntax::SyncThreads);
                return Ok(Some(Value::R(RV::Void)));
            }
            "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
                let [a] = args[..] else {
                    return Err(FrontError::input(span, format!("{base} takes one predicate")));
                };
                let (p, pt) = self.scalar(a)?;
                let pred = convert(p, &pt, &CType::Bool);
                // Inside an expression: the statement's end, after the vote, is the position.
                let writable = std::mem::replace(&mut self.cur_writable, false);
                self.barrier(Barrier::Block, BarrierSyntax::SyncThreads);
                self.cur_writable = writable;
                // The same for every thread that reached the barrier: a block-wide vote.
                let kind = match base {
                    "__syncthreads_or" => VoteKind::Or,
                    "__syncthreads_and" => VoteKind::And,
                    _ => VoteKind::Count,
                };
                let t = self.temp(ScalarTy::I32);
                self.ops.push(Op::Assign(t, Expr::Vote(kind, Box::new(pred))));
                return Ok(Some(Value::R(RV::Scalar(Expr::Var(t), CType::INT))));
            }
            // Clang's barrier builtins (what `__syncthreads()`, cooperative groups and
            // `bar.sync` compile to): `bar.sync id[, count]`, ID 0 without a count is the block
            // barrier.
            "__barrier_sync"
            | "__nvvm_barrier_sync"
            | "__nvvm_bar_sync"
            | "__barrier_sync_count"
            | "__nvvm_barrier_sync_cnt" => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.scalar(*a)?.0);
                }
                let id = vals
                    .first()
                    .cloned()
                    .ok_or_else(|| FrontError::input(span, format!("{base} needs a barrier ID")))?;
                let b = match (vals.get(1).cloned(), id.as_const()) {
                    (None, Some(0)) => Barrier::Block,
                    (count, _) => Barrier::NamedSync { id, count },
                };
                self.barrier(b, BarrierSyntax::Asm);
                return Ok(Some(Value::R(RV::Void)));
            }
            "__syncwarp" => {
                for a in args {
                    self.scalar(*a)?;
                }
                self.barrier(Barrier::Warp, BarrierSyntax::SyncWarp);
                return Ok(Some(Value::R(RV::Void)));
            }
            _ => {}
        }
        Ok(None)
    }

    /// Fences, hints, output, address-space conversions and memory blocks; `None` for any other name.
    fn device_builtin(&mut self, base: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Option<Value>> {
        match base {
            "__threadfence" | "__threadfence_block" | "__threadfence_system" => {
                self.notes.push((
                    span,
                    format!("`{base}` orders memory but is not a barrier; it does not remove races"),
                ));
                return Ok(Some(Value::R(RV::Void)));
            }
            "__builtin_expect" | "__builtin_expect_with_probability" => {
                let a = *args
                    .first()
                    .ok_or_else(|| FrontError::input(span, "__builtin_expect needs a value"))?;
                for b in &args[1..] {
                    self.scalar(*b)?;
                }
                return self.eval(a).map(Some);
            }
            "__trap" | "__brkpt" | "__builtin_trap" if args.is_empty() => {
                // As PTX `trap`/`brkpt`: the thread's path ends (the launch fails).
                self.flush(false);
                self.push_synthetic(self.trap(&format!("{base}()")));
                return Ok(Some(Value::R(RV::Void)));
            }
            "printf"
            | "__builtin_printf"
            | "__assertfail"
            | "__assert_fail"
            | "__assert_rtn"
            | "__builtin_unreachable" => {
                for a in args {
                    self.rvalue(*a)?;
                }
                return Ok(Some(Value::R(if *rt == CType::Void {
                    RV::Void
                } else {
                    RV::Scalar(Expr::Unknown(rt.scalar()), rt.clone())
                })));
            }
            // Programmatic dependent launch orders this grid against the previous and next
            // grids, never threads of one block.
            "cudaGridDependencySynchronize" if args.is_empty() => {
                self.grid_wait.get_or_insert(span);
                return Ok(Some(Value::R(RV::Void)));
            }
            "cudaTriggerProgrammaticLaunchCompletion" if args.is_empty() => {
                return Ok(Some(Value::R(RV::Void)));
            }
            "__ldg" => {
                self.nc_load("__ldg", span);
                let a = *args
                    .first()
                    .ok_or_else(|| FrontError::input(span, "__ldg needs a pointer"))?;
                let p = self.pointer(a)?;
                let t = rt.clone();
                let lv = self.deref(p, t, span)?;
                return self.load(lv, span).map(|v| Some(Value::R(v)));
            }
            "__cvta_generic_to_shared"
            | "__cvta_generic_to_global"
            | "__cvta_generic_to_local"
            | "__cvta_shared_to_generic"
            | "__cvta_global_to_generic" => {
                // An address in another form: the same place (inline asm takes it).
                let a = *args
                    .first()
                    .ok_or_else(|| FrontError::input(span, format!("{base} needs an address")))?;
                return match self.rvalue(a)? {
                    RV::Ptr(p) => Ok(Some(Value::R(RV::Ptr(p)))),
                    _ => Ok(Some(Value::R(RV::Ptr(Pointer {
                        region: Region::Unknown(format!("an address made by `{base}` from an integer")),
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: CType::Int { bits: 8, signed: false },
                    })))),
                };
            }
            "__isShared" | "__isGlobal" | "__isLocal" | "__isClusterShared" => {
                let a = *args
                    .first()
                    .ok_or_else(|| FrontError::input(span, format!("{base} needs an address")))?;
                // The block's shared memory lies inside the cluster's shared window.
                let want = match base {
                    "__isShared" | "__isClusterShared" => Space::Shared,
                    "__isLocal" => Space::Local,
                    _ => Space::Global,
                };
                let v = match self.rvalue(a)? {
                    RV::Ptr(Pointer {
                        region: Region::Array(arr),
                        ..
                    }) => Expr::Const((self.arrays[arr.0 as usize].space == want) as i64, rt.scalar()),
                    _ => Expr::Unknown(rt.scalar()),
                };
                return Ok(Some(Value::R(RV::Scalar(v, rt.clone()))));
            }
            "memcpy" | "__builtin_memcpy" | "memmove" | "__builtin_memmove" | "memset" | "__builtin_memset" => {
                return self.mem_block(base, args, span).map(Some);
            }
            _ => {}
        }
        Ok(None)
    }

    /// A full-mask warp collective whose result every lane gets alike (`__reduce_add_sync`,
    /// `__ballot_sync`, `__all_sync`, ...): the warp's one value ([`Expr::GroupValue`]), which
    /// the checker relies on only where the whole warp runs the call. `None` for other calls
    /// and other masks (those stay an opaque function of the arguments).
    fn warp_uniform_collective(&mut self, base: &str, args: &[NodeId], rt: &CType) -> FResult<Option<Value>> {
        let uniform = matches!(
            base,
            "__reduce_add_sync"
                | "__reduce_min_sync"
                | "__reduce_max_sync"
                | "__reduce_and_sync"
                | "__reduce_or_sync"
                | "__reduce_xor_sync"
                | "__ballot_sync"
                | "__all_sync"
                | "__any_sync"
                | "__uni_sync"
        );
        let full = args
            .first()
            .is_some_and(|&m| matches!(self.const_eval(m, 0), Some(-1 | 0xffff_ffff)));
        if !uniform || !full || !matches!(rt, CType::Int { .. } | CType::Bool) {
            return Ok(None);
        }
        for a in args {
            self.rvalue(*a)?;
        }
        let t = self.temp(rt.scalar());
        self.ops.push(Op::Assign(t, Expr::GroupValue(rt.scalar(), 32)));
        Ok(Some(Value::R(RV::Scalar(Expr::Var(t), rt.clone()))))
    }

    /// A pure math function: an opaque function of its arguments, writing through its output pointers.
    fn pure_math_call(&mut self, base: &str, args: &[NodeId], rt: CType, span: Span) -> FResult<Value> {
        let mut vals = Vec::new();
        for a in args {
            match self.rvalue(*a)? {
                RV::Scalar(e, _) => vals.push(e),
                RV::Ptr(p) => {
                    // Math functions with output pointers (sincosf, frexpf, modff) write there.
                    let lv = self.deref(p.clone(), p.pointee.clone(), span)?;
                    self.store(
                        lv,
                        // A function of the arguments before it.
                        RV::Scalar(Expr::Opaque(p.pointee.scalar(), vals.clone()), p.pointee.clone()),
                        span,
                    )?;
                }
                _ => {}
            }
        }
        Ok(Value::R(match rt {
            CType::Void => RV::Void,
            CType::Record(r) => RV::Obj(self.new_obj(r, &format!("{base}()"), span)?),
            t => RV::Scalar(Expr::Opaque(t.scalar(), vals), t),
        }))
    }

    /// Whether the user declared this function pure (`--assume-pure`), by qualified or plain
    /// name.
    pub(crate) fn assumed_pure(&self, decl: u64) -> bool {
        let Some(d) = self.ast.decls.get(&decl) else {
            return false;
        };
        let name = self.ast.str(d.name);
        self.opts.assume_pure.iter().any(|p| p == &d.qual || p == name)
    }

    /// A call the user declared pure: its arguments are evaluated, its result is opaque.
    pub(crate) fn pure_call(&mut self, c: &Callee, n: NodeId, span: Span, name: &str) -> FResult<Value> {
        if let Some(t) = c.this {
            self.rvalue(t)?;
        }
        for a in &c.args {
            self.rvalue(*a)?;
        }
        self.notes.push((
            span,
            format!("`{name}` assumed pure (--assume-pure): no memory access, no synchronization"),
        ));
        self.opaque_result(n, span, name)
    }

    /// A texture fetch: texture memory is read-only while a kernel runs, so a fetch never races;
    /// its value is opaque. Only the coordinates are evaluated (the texture is a handle).
    fn texture_fetch(&mut self, name: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Value> {
        let mut out_ptr = None;
        for (i, &a) in args.iter().enumerate() {
            match self.type_of(a) {
                CType::Record(_) => {}
                // The `void tex2D(T *ret, obj, x, y)` form writes its result.
                CType::Ptr(_) if i == 0 => out_ptr = Some(self.pointer(a)?),
                _ => {
                    self.rvalue(a)?;
                }
            }
        }
        if let Some(p) = out_ptr {
            let t = p.pointee.clone();
            let lv = self.deref(p, t.clone(), span)?;
            self.store(lv, RV::Scalar(Expr::Unknown(t.scalar()), t), span)?;
            return Ok(Value::R(RV::Void));
        }
        Ok(Value::R(match rt {
            CType::Void => RV::Void,
            CType::Record(r) => RV::Obj(self.new_obj(*r, &format!("{name}()"), span)?),
            t => RV::Scalar(Expr::Unknown(t.scalar()), t.clone()),
        }))
    }

    /// The curand device API: every call reads and writes the whole generator state through
    /// its pointer (the last argument of `curand_init`/`skipahead*`, the first of the
    /// generators). `None` for names that are not generator calls.
    fn curand(&mut self, name: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Option<Value>> {
        let (state_arg, write_only) = match name {
            "curand_init" => (args.len().checked_sub(1), true),
            "skipahead" | "skipahead_sequence" => (args.len().checked_sub(1), false),
            "curand"
            | "curand_uniform"
            | "curand_uniform_double"
            | "curand_normal"
            | "curand_normal_double"
            | "curand_normal2"
            | "curand_normal2_double"
            | "curand_log_normal"
            | "curand_log_normal_double"
            | "curand_poisson"
            | "curand4"
            | "curand_uniform4"
            | "curand_normal4"
            | "curand_mtgp32_single"
            | "curand_mtgp32_specific"
            | "curand_discrete"
            | "curand_discrete4" => (Some(0), false),
            _ => return Ok(None),
        };
        let Some(si) = state_arg else {
            return Err(FrontError::input(span, format!("{name} without a generator state")));
        };
        for (i, &a) in args.iter().enumerate() {
            if i != si {
                self.rvalue(a)?;
            }
        }
        let p = self.pointer(args[si])?;
        let state_ty = p.pointee.clone();
        let mtgp32 =
            |t: &CType| matches!(t, CType::Record(r) if self.types.record_name(*r).contains("curandStateMtgp32"));
        if name.starts_with("curand_mtgp32") || mtgp32(&state_ty) {
            // One state per block, and the block synchronizes inside each call: a per-thread
            // update of the state would be a false race. Only the shim's model has the body.
            return Err(FrontError::unsupported(
                span,
                format!("`{name}` on cuRAND's MTGP32 generator (a block-shared state that synchronizes the block inside the call) is not modelled with the real toolkit"),
            )
            .with_help("check the kernel with --cuda-shim, whose MTGP32 model has the call's barriers"));
        }
        let access_span = self.span(args[si]);
        if let LV::Mem(place) = self.deref(p, state_ty.clone(), access_span)? {
            if !write_only {
                self.read(&place)?;
            }
            self.write(&place, Expr::Unknown(ScalarTy::Opaque))?;
        }
        Ok(Some(Value::R(match rt {
            CType::Void => RV::Void,
            CType::Record(r) => RV::Obj(self.new_obj(*r, &format!("{name}()"), span)?),
            t => RV::Scalar(Expr::Unknown(t.scalar()), t.clone()),
        })))
    }

    /// `atomicAdd(&x, v)` and family: an atomic read-modify-write of `*address`.
    fn atomic(&mut self, name: &str, args: &[NodeId], span: Span) -> FResult<Value> {
        let a0 = *args
            .first()
            .ok_or_else(|| FrontError::input(span, format!("{name} needs an address")))?;
        let p = self.pointer(a0)?;
        let mut operands = Vec::new();
        for a in &args[1..] {
            operands.push(self.scalar(*a)?);
        }
        let access_span = self.span(a0);
        let (e, ty) = self.atomic_rmw(name, p, &operands, access_span, span)?;
        Ok(Value::R(RV::Scalar(e, ty)))
    }

    /// An atomic read-modify-write of `*p` named like CUDA's `atomicAdd` family (the name
    /// picks a counter increment), with its operands lowered: the old value and its type.
    pub(crate) fn atomic_rmw(
        &mut self,
        name: &str,
        p: Pointer,
        operands: &[(Expr, CType)],
        access_span: Span,
        span: Span,
    ) -> FResult<(Expr, CType)> {
        let ty = p.pointee.clone();
        // A constant positive step on an integer counter: the returned values are all distinct
        // (the checker uses that for `slot = atomicAdd(&n, 1); buf[slot] = ...`).
        let step = match operands {
            [(e, _)] if ty.is_integral() => constant(e),
            _ => None,
        };
        let op = match (name.split('_').next().unwrap_or(name), step) {
            ("atomicAdd", Some(c)) if c > 0 => AtomicOp::Increment(c as u64),
            ("atomicSub", Some(c)) if c < 0 => AtomicOp::Increment(c.unsigned_abs()),
            _ => AtomicOp::Other,
        };
        let lv = self.deref(p, ty.clone(), access_span)?;
        let LV::Mem(place) = lv else {
            return Err(FrontError::unsupported(span, format!("{name} on a local variable")));
        };
        if place.alt.is_some() {
            return Err(FrontError::unsupported(
                span,
                format!("{name} through a pointer swapped between arrays"),
            ));
        }
        let size = self.size_of(&ty, span)? as u32;
        let t = self.temp(ty.scalar());
        self.ops.push(Op::Atomic(
            Some(t),
            Access {
                array: place.array,
                kind: AccessKind::Atomic,
                offset: place.off,
                size,
                span: access_span,
            },
            op,
        ));
        Ok((Expr::Var(t), ty))
    }

    /// Integer min/max/abs and 24-bit multiplies: exact, since they often compute indices.
    fn exact_intrinsic(&mut self, name: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Value> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.scalar(*a)?);
        }
        if !rt.is_integral() || vals.iter().any(|(_, t)| !t.is_integral()) {
            return Ok(Value::R(RV::Scalar(
                Expr::Opaque(rt.scalar(), vals.into_iter().map(|v| v.0).collect()),
                rt.clone(),
            )));
        }
        let s = rt.scalar();
        let conv = |(e, t): &(Expr, CType)| convert(e.clone(), t, rt);
        let e = match (name, vals.as_slice()) {
            ("abs" | "labs" | "llabs", [x]) => {
                let x = conv(x);
                let neg = Expr::Bin(BinOp::Lt, s, Box::new(x.clone()), Box::new(Expr::Const(0, s)));
                Expr::Select(
                    Box::new(neg),
                    Box::new(Expr::Un(UnOp::Neg, s, Box::new(x.clone()))),
                    Box::new(x),
                )
            }
            // Exact for every operand, in the wrapping form the checker's facts expect.
            ("__mul24", [a, b]) => Expr::mul24(conv(a), conv(b), true),
            ("__umul24", [a, b]) => Expr::mul24(conv(a), conv(b), false),
            (n, [a, b]) => {
                let (a, b) = (conv(a), conv(b));
                let op = if n.ends_with("min") { BinOp::Lt } else { BinOp::Gt };
                let c = Expr::Bin(op, s, Box::new(a.clone()), Box::new(b.clone()));
                Expr::Select(Box::new(c), Box::new(a), Box::new(b))
            }
            _ => return Err(FrontError::input(span, format!("{name} with {} arguments", vals.len()))),
        };
        Ok(Value::R(RV::Scalar(e, rt.clone())))
    }

    /// `memcpy(dst, src, n)` / `memset(dst, v, n)`: accesses of the whole byte range.
    fn mem_block(&mut self, name: &str, args: &[NodeId], span: Span) -> FResult<Value> {
        let [dst, second, len] = args[..] else {
            return Err(FrontError::input(span, format!("{name} takes three arguments")));
        };
        let d = self.pointer(dst)?;
        let is_set = name.contains("memset");
        let s = if is_set {
            self.scalar(second)?;
            None
        } else {
            Some(self.pointer(second)?)
        };
        // A constant length, or a local initialized with one and never modified.
        let n = self
            .const_eval(len, 0)
            .or_else(|| self.unmodified_local(len))
            .ok_or_else(|| {
                FrontError::unsupported(span, format!("{name} with a length that is not a constant"))
                    .with_help("autosync models a block copy or fill whose length is a constant")
            })?;
        if n <= 0 {
            return Ok(Value::R(RV::Void));
        }
        let bytes = CType::Array(Box::new(CType::Int { bits: 8, signed: false }), Some(n as u64));
        if let Some(s) = s {
            let sp = self.span(second);
            if let LV::Mem(p) = self.deref(s, bytes.clone(), sp)? {
                self.read(&p)?;
            }
        }
        let dp = self.span(dst);
        if let LV::Mem(p) = self.deref(d, bytes, dp)? {
            self.write(&p, Expr::Unknown(ScalarTy::Opaque))?;
        }
        Ok(Value::R(RV::Void))
    }

    /// Cooperative groups (`name` is the part after `cooperative_groups::`).
    fn coop_groups(&mut self, name: &str, c: &Callee, n: NodeId, span: Span) -> FResult<Value> {
        let method = name.rsplit("::").next().unwrap_or(name);
        let class = name.rsplit_once("::").map(|x| x.0);
        let rt = self.type_of(n);
        match (class, method) {
            (None, "this_thread_block") => Ok(Value::R(RV::Group(GroupKind::Block))),
            (None, "this_grid") | (None, "this_multi_grid") => Ok(Value::R(RV::Group(GroupKind::Grid))),
            (None, "coalesced_threads") => Ok(Value::R(RV::Group(GroupKind::Tile(0)))),
            (None, "tiled_partition") => {
                let mut size = self.tile_size(&rt);
                for a in &c.args {
                    if let Some(v) = self.const_eval(*a, 0) {
                        size = v as u32;
                    } else {
                        self.rvalue(*a)?;
                    }
                }
                Ok(Value::R(RV::Group(GroupKind::Tile(size))))
            }
            (_, "sync") | (None, "synchronize") | (_, "barrier_wait") => {
                let g = self.coop_group(c, span)?;
                match g {
                    GroupKind::Block => self.barrier(Barrier::Block, BarrierSyntax::CoopGroups),
                    GroupKind::Tile(_) => self.barrier(Barrier::Warp, BarrierSyntax::CoopGroups),
                    GroupKind::Grid => self.barrier(Barrier::Block, BarrierSyntax::GridSync),
                }
                Ok(Value::R(RV::Void))
            }
            (Some(_), "thread_rank" | "meta_group_rank" | "size" | "num_threads") => {
                let g = self.coop_group(c, span)?;
                Ok(Value::R(RV::Scalar(group_query(method, g, &rt), rt)))
            }
            (Some(_), "group_index")
            | (Some(_), "thread_index")
            | (Some(_), "group_dim")
            | (Some(_), "dim_threads") => {
                self.coop_group(c, span)?;
                let CType::Record(r) = rt else {
                    return Err(FrontError::unsupported(span, format!("`{method}` of an unknown type")));
                };
                let o = self.new_obj(r, method, span)?;
                let b: fn(Dim) -> Builtin = match method {
                    "group_index" => Builtin::BlockIdx,
                    "thread_index" => Builtin::ThreadIdx,
                    _ => Builtin::BlockDim,
                };
                self.set_dim_fields(o, b, span)?;
                Ok(Value::R(RV::Obj(o)))
            }
            (Some(_), "shfl" | "shfl_down" | "shfl_up" | "shfl_xor" | "any" | "all" | "ballot" | "is_valid") => {
                self.coop_group(c, span)?;
                let mut vals = Vec::new();
                for a in &c.args {
                    vals.push(self.scalar(*a)?.0);
                }
                Ok(Value::R(RV::Scalar(Expr::Opaque(rt.scalar(), vals), rt)))
            }
            _ => Err(FrontError::unsupported(
                span,
                format!("cooperative_groups::{name} is not modelled"),
            )),
        }
    }

    /// The group a method runs on, or `sync(g)`'s argument.
    fn coop_group(&mut self, c: &Callee, span: Span) -> FResult<GroupKind> {
        let target = match c.this {
            Some(t) => t,
            None => *c
                .args
                .first()
                .ok_or_else(|| FrontError::input(span, "a group operation without a group"))?,
        };
        match self.rvalue(target)? {
            RV::Group(g) => Ok(g),
            _ => Err(FrontError::unsupported(span, "a thread group autosync cannot identify")),
        }
    }

    /// The size a `thread_block_tile<N>` result type names (0 when it names none).
    fn tile_size(&self, rt: &CType) -> u32 {
        match rt {
            CType::Record(r) => self
                .ast
                .decl_node(*r)
                .map(|node| {
                    let mut args = Vec::new();
                    self.types.template_args(node, &mut args);
                    match args.first() {
                        Some(super::types::TemplateArg::Value(v)) => *v as u32,
                        _ => 0,
                    }
                })
                .unwrap_or(0),
            _ => 0,
        }
    }

    /// Sets the `x`, `y`, `z` fields of a dim3/uint3 object to a built-in's dimensions.
    /// `dim3 d = blockDim;`: Clang's builtin variables convert to `dim3`/`uint3` (a conversion
    /// operator of `__cuda_builtin_blockDim_t` the precompiled prelude declares).
    fn builtin_var_conversion(&mut self, qual: &str, c: &Callee, rt: &CType, span: Span) -> FResult<Option<Value>> {
        let Some((owner, _)) = qual.split_once("::operator ") else {
            return Ok(None);
        };
        let Some(b) = owner
            .strip_prefix("__cuda_builtin_")
            .and_then(|v| v.strip_suffix("_t"))
            .and_then(super::expr::builtin_var)
        else {
            return Ok(None);
        };
        let CType::Record(r) = rt.unref() else {
            return Ok(None);
        };
        // The receiver is the builtin variable itself: nothing to evaluate.
        let _ = c;
        let o = self.new_obj(*r, owner, span)?;
        self.set_dim_fields(o, b, span)?;
        Ok(Some(Value::R(RV::Obj(o))))
    }

    fn set_dim_fields(&mut self, o: usize, b: fn(Dim) -> Builtin, span: Span) -> FResult<()> {
        let layout = self
            .types
            .layout(self.objs[o].record)
            .map_err(|m| FrontError::unsupported(span, m))?;
        for f in &layout.fields {
            let d = match f.name.as_str() {
                "x" => Dim::X,
                "y" => Dim::Y,
                "z" => Dim::Z,
                _ => continue,
            };
            if let Some(Binding::Var(v, t)) = self.objs[o].fields.get(&f.id).cloned() {
                self.ops
                    .push(Op::Assign(v, convert(Expr::Builtin(b(d)), &CType::UINT, &t)));
            }
        }
        Ok(())
    }

    /// Constructors of the library's value types (`dim3(x, y)`, vector types): fields in order;
    /// `dim3`'s missing dimensions are 1.
    pub(crate) fn library_construct(&mut self, o: usize, rec: u64, args: &[NodeId], span: Span) -> FResult<()> {
        let qual = self.types.record_name(rec);
        let layout = self.types.layout(rec).map_err(|m| FrontError::unsupported(span, m))?;
        let scalar_fields = layout
            .fields
            .iter()
            .all(|f| f.ty.is_integral() || matches!(f.ty, CType::Float(_)));
        if !scalar_fields || args.len() > layout.fields.len() {
            return Err(FrontError::unsupported(
                span,
                format!("constructor of `{qual}` is not modelled"),
            ));
        }
        for (i, f) in layout.fields.iter().enumerate() {
            let dst = self.objs[o].fields.get(&f.id).cloned();
            let Some(dst) = dst else { continue };
            let rv = match args.get(i) {
                Some(&a) if self.ast.kind(a) != NodeKind::CXXDefaultArgExpr => self.rvalue(a)?,
                _ if qual == "dim3" => RV::Scalar(Expr::Const(1, ScalarTy::U32), CType::UINT),
                _ => RV::Scalar(Expr::Const(0, f.ty.scalar()), f.ty.clone()),
            };
            let lv = self.binding_lv(&dst);
            self.store(lv, rv, span)?;
        }
        Ok(())
    }
}

/// Texture fetch functions (legacy references and texture objects).
/// `std::move(x)`, `std::forward<T>(x)`, `std::move_if_noexcept(x)`, `std::as_const(x)`
/// (`base`: without `std::`): each is `static_cast` of its argument to a reference type.
fn is_reference_cast(base: &str) -> bool {
    matches!(base, "move" | "forward" | "move_if_noexcept" | "as_const")
}

fn is_texture_fetch(name: &str) -> bool {
    name.starts_with("tex")
        && matches!(
            name,
            "tex1Dfetch"
                | "tex1D"
                | "tex2D"
                | "tex3D"
                | "tex1DLayered"
                | "tex2DLayered"
                | "tex1DLod"
                | "tex2DLod"
                | "tex3DLod"
                | "tex2DGrad"
                | "tex2Dgather"
                | "texCubemap"
                | "texCubemapLayered"
        )
}

/// Whether a function is a CUTLASS-style named-barrier wrapper (`NamedBarrier::sync`).
fn is_coop_groups_sync(qual: &str) -> bool {
    qual.starts_with("cooperative_groups::") && (qual.ends_with("::sync") || qual.ends_with("::barrier_wait"))
}

fn is_cutlass_barrier(qual: &str) -> bool {
    let mut parts = qual.rsplit("::");
    let method = parts.next().unwrap_or("");
    parts.next() == Some("NamedBarrier") && matches!(method, "sync" | "arrive" | "arrive_and_wait")
}

/// A group's `thread_rank`, `meta_group_rank` or `size`/`num_threads`, of type `rt`.
fn group_query(method: &str, g: GroupKind, rt: &CType) -> Expr {
    match method {
        "thread_rank" => {
            let linear = linear_tid();
            match g {
                GroupKind::Block => convert(linear, &CType::UINT, rt),
                GroupKind::Tile(sz) if sz > 0 && sz.is_power_of_two() => convert(
                    Expr::Bin(
                        BinOp::Rem,
                        ScalarTy::U32,
                        Box::new(linear),
                        Box::new(Expr::Const(sz as i64, ScalarTy::U32)),
                    ),
                    &CType::UINT,
                    rt,
                ),
                _ => Expr::Opaque(rt.scalar(), vec![linear]),
            }
        }
        "meta_group_rank" => {
            let linear = linear_tid();
            match g {
                GroupKind::Tile(sz) if sz > 0 => convert(
                    Expr::Bin(
                        BinOp::Div,
                        ScalarTy::U32,
                        Box::new(linear),
                        Box::new(Expr::Const(sz as i64, ScalarTy::U32)),
                    ),
                    &CType::UINT,
                    rt,
                ),
                _ => Expr::Opaque(rt.scalar(), vec![linear]),
            }
        }
        _ => {
            let dims = || {
                let bd = |d| Expr::Builtin(Builtin::BlockDim(d));
                let xy = Expr::Bin(BinOp::Mul, ScalarTy::U32, Box::new(bd(Dim::X)), Box::new(bd(Dim::Y)));
                Expr::Bin(BinOp::Mul, ScalarTy::U32, Box::new(xy), Box::new(bd(Dim::Z)))
            };
            match g {
                GroupKind::Block => convert(dims(), &CType::UINT, rt),
                GroupKind::Tile(sz) if sz > 0 => Expr::Const(sz as i64, rt.scalar()),
                _ => Expr::Unknown(rt.scalar()),
            }
        }
    }
}

/// The thread's linear index in its block.
pub(crate) fn linear_tid() -> Expr {
    let b = |x: Builtin| Box::new(Expr::Builtin(x));
    let zy = Expr::Bin(
        BinOp::Add,
        ScalarTy::U32,
        Box::new(Expr::Bin(
            BinOp::Mul,
            ScalarTy::U32,
            b(Builtin::ThreadIdx(Dim::Z)),
            b(Builtin::BlockDim(Dim::Y)),
        )),
        b(Builtin::ThreadIdx(Dim::Y)),
    );
    Expr::Bin(
        BinOp::Add,
        ScalarTy::U32,
        Box::new(Expr::Bin(
            BinOp::Mul,
            ScalarTy::U32,
            Box::new(zy),
            b(Builtin::BlockDim(Dim::X)),
        )),
        b(Builtin::ThreadIdx(Dim::X)),
    )
}

/// Clang builtins that compute without memory: math and bit operations.
fn is_pure_builtin(name: &str) -> bool {
    let n = name.trim_start_matches("__builtin_");
    is_pure(n)
        || matches!(
            n,
            "popcount"
                | "popcountll"
                | "clz"
                | "clzll"
                | "ctz"
                | "ctzll"
                | "ffs"
                | "ffsll"
                | "bswap32"
                | "bswap64"
                | "huge_val"
                | "huge_valf"
                | "inf"
                | "inff"
                | "nan"
                | "nanf"
                | "isnan"
                | "isinf"
                | "isfinite"
                | "constant_p"
                | "fabsf"
                | "fabs"
                | "sqrtf"
                | "sqrt"
                | "copysign"
                | "copysignf"
        )
}

/// The value of a constant expression (through conversions that keep it).
fn constant(e: &Expr) -> Option<i64> {
    match e {
        Expr::Const(v, _) => Some(*v),
        Expr::Cast(to, x) if to.is_int() => constant(x).filter(|v| *v >= 0 && *v <= i32::MAX as i64),
        _ => None,
    }
}
