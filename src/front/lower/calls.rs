//! Calls: barriers (`__syncthreads`, PTX asm, CUTLASS `NamedBarrier`, cooperative groups),
//! atomics, annotations, pure math functions, and inlining of `__device__` functions.

use super::expr::{convert, first_line};
use super::*;

/// Math and intrinsic functions that neither touch memory nor synchronize.
const PURE_FUNCTIONS: &[&str] = &[
    "sqrt",
    "sqrtf",
    "rsqrt",
    "rsqrtf",
    "exp",
    "expf",
    "__expf",
    "exp2f",
    "log",
    "logf",
    "__logf",
    "log2f",
    "sin",
    "sinf",
    "__sinf",
    "cos",
    "cosf",
    "__cosf",
    "tanh",
    "tanhf",
    "pow",
    "powf",
    "__powf",
    "fabs",
    "fabsf",
    "abs",
    "fmax",
    "fmaxf",
    "fmin",
    "fminf",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "fma",
    "fmaf",
    "__fmaf_rn",
    "__fdividef",
    "__float2int_rn",
    "__int2float_rn",
    "__float2half",
    "__half2float",
    "__saturatef",
    "make_float2",
    "make_float3",
    "make_float4",
    "make_int2",
    "make_int3",
    "make_int4",
    "make_uint2",
    "make_uint4",
    "__popc",
    "__clz",
    "__ffs",
    "__brev",
    "__mul24",
    "__umul24",
    "__umulhi",
    "__mulhi",
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
    "__ballot_sync",
    "__any_sync",
    "__all_sync",
    "__activemask",
    "clock",
    "clock64",
    "__ldg",
    "erf",
    "erff",
    "max",
    "min",
    "umin",
    "umax",
    "llmin",
    "llmax",
    "isnan",
    "isinf",
    "copysignf",
    "truncf",
];

impl<'u, 't> Lowerer<'u, 't> {
    fn args(&self, n: Node<'t>) -> Vec<Node<'t>> {
        n.child_by_field_name("arguments")
            .map(|a| {
                let mut c = a.walk();
                a.named_children(&mut c).filter(|x| x.kind() != "comment").collect()
            })
            .unwrap_or_default()
    }

    fn barrier(&mut self, b: Barrier, syn: BarrierSyntax, span: Span) {
        self.flush(false);
        let label = self.label();
        self.push(Stmt {
            label,
            span: self.stmt_span,
            emit_after: !self.in_inline(),
            kind: StmtKind::Barrier(b, syn),
        });
        let _ = span;
    }

    /// Lowers a call expression.
    pub(crate) fn call(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let f = n
            .child_by_field_name("function")
            .ok_or_else(|| FrontError::input(span, "call without function"))?;
        let args = self.args(n);
        match f.kind() {
            "identifier" => {
                let name = self.text(f);
                self.named_call(name, None, n, &args, span)
            }
            "qualified_identifier" => {
                let full = self.text(f).replace(char::is_whitespace, "");
                let name = f.child_by_field_name("name").map(|x| self.text(x)).unwrap_or("");
                let scope = f.child_by_field_name("scope").map(|x| self.text(x)).unwrap_or("");
                self.qualified_call(&full, scope, name, n, &args, span)
            }
            "template_function" => {
                let name = f.child_by_field_name("name").map(|x| self.text(x)).unwrap_or("");
                if matches!(name, "static_cast" | "reinterpret_cast" | "const_cast") {
                    let targ = f.child_by_field_name("arguments").and_then(|a| a.named_child(0));
                    let to = targ.map(|t| self.descriptor(t)).unwrap_or(CType::INT);
                    let a = *args
                        .first()
                        .ok_or_else(|| FrontError::input(span, "cast without argument"))?;
                    let v = self.expr(a)?;
                    return self.cast_val(v, &to);
                }
                self.named_call(name, Some(f), n, &args, span)
            }
            "field_expression" => self.method_call(f, n, &args, span),
            _ => Err(FrontError::unsupported(
                span,
                format!(
                    "call through `{}` (function pointers are not supported)",
                    first_line(self.text(f))
                ),
            )
            .with_help("call the __device__ function by name")),
        }
    }

    fn named_call(
        &mut self,
        name: &str,
        tf: Option<Node<'t>>,
        n: Node<'t>,
        args: &[Node<'t>],
        span: Span,
    ) -> FResult<Val> {
        // A local binding shadows everything.
        match name {
            "__syncthreads" => {
                self.barrier(Barrier::Block, BarrierSyntax::SyncThreads, span);
                return Ok(Val::Void);
            }
            "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
                let mut deps = Vec::new();
                for a in args {
                    deps.push(self.scalar(*a)?.0);
                }
                self.barrier(Barrier::Block, BarrierSyntax::SyncThreads, span);
                // The result is the same for every thread, but depends on all of them.
                let t = self.temp(ScalarTy::I32);
                self.ops.push(Op::Assign(t, Expr::Opaque(ScalarTy::I32, deps)));
                return Ok(Val::Scalar(Expr::Var(t), CType::INT));
            }
            "__syncwarp" => {
                for a in args {
                    self.scalar(*a)?;
                }
                self.barrier(Barrier::Warp, BarrierSyntax::SyncWarp, span);
                return Ok(Val::Void);
            }
            "__threadfence" | "__threadfence_block" | "__threadfence_system" => {
                self.notes.push((
                    span,
                    format!("`{name}` orders memory but is not a barrier; it does not remove races"),
                ));
                return Ok(Val::Void);
            }
            "__requires" | "__assume" | "assume" => {
                let a = *args
                    .first()
                    .ok_or_else(|| FrontError::input(span, format!("{name} needs a condition")))?;
                let c = self.cond(a)?;
                self.flush(false);
                let label = self.label();
                self.push(Stmt {
                    label,
                    span,
                    emit_after: false,
                    kind: StmtKind::Assume(c),
                });
                return Ok(Val::Void);
            }
            "assert" | "printf" => {
                for a in args {
                    let v = self.expr(*a)?;
                    if let Val::Mem(p) = v {
                        self.read(&p);
                    }
                }
                return Ok(Val::Void);
            }
            "this_thread_block" => return Ok(Val::Group(GroupKind::Block)),
            _ => {}
        }
        if name.starts_with("__") && is_gpuverify_annotation(name) {
            self.notes
                .push((span, format!("GPUVerify annotation `{name}` ignored")));
            return Ok(Val::Void);
        }
        // A bare call of a sibling method inside a method: `ptr()` means `this->ptr()`.
        if let Some(Binding::Obj(sname, fields)) = self.lookup("this").cloned() {
            if self.has_method(&sname, name) {
                return self.inline_method(&sname, name, Some(Val::Obj(sname.clone(), fields)), args, span);
            }
        }
        if name.starts_with("atomic") {
            return self.atomic(name, args, span);
        }
        if self.u.funcs.contains_key(name) {
            return self.inline_call(name, tf, args, span, None);
        }
        if self.u.layouts.structs.contains_key(name) || self.u.struct_methods.contains_key(name) {
            // A temporary object `S()` / `S<T>()`: construct it.
            let tmp = format!("$obj{}", self.vars.len());
            self.declaration_of_struct(&tmp, name, args, span)?;
            return self.object_value(&tmp);
        }
        if PURE_FUNCTIONS.contains(&name) {
            return self.pure_call(name, args);
        }
        if args.iter().any(|a| self.is_pointer_arg(*a)) {
            return Err(FrontError::unsupported(
                span,
                format!("call to unknown function `{name}` with a pointer argument"),
            )
            .with_help("define it as a __device__ function in the file so it can be inlined"));
        }
        self.notes.push((
            span,
            format!("unknown function `{name}` assumed pure (no memory access, no synchronization)"),
        ));
        let _ = n;
        self.pure_call(name, args)
    }

    fn is_pointer_arg(&self, a: Node) -> bool {
        match a.kind() {
            "pointer_expression" => self.text(a).trim_start().starts_with('&'),
            "identifier" => matches!(
                self.lookup(self.text(a)),
                Some(Binding::Ptr { .. }) | Some(Binding::Array(..))
            ),
            _ => false,
        }
    }

    fn pure_call(&mut self, name: &str, args: &[Node<'t>]) -> FResult<Val> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.scalar(*a)?);
        }
        // Integer min/max keep their meaning: they often bound indices.
        if matches!(name, "min" | "max" | "umin" | "umax")
            && vals.len() == 2
            && vals.iter().all(|(_, t)| t.is_integral())
        {
            let t = super::expr::common_int(&vals[0].1, &vals[1].1);
            let a = convert(vals[0].0.clone(), &vals[0].1, &t);
            let b = convert(vals[1].0.clone(), &vals[1].1, &t);
            let op = if name.ends_with("min") { BinOp::Lt } else { BinOp::Gt };
            let c = Expr::Bin(op, t.scalar(), Box::new(a.clone()), Box::new(b.clone()));
            return Ok(Val::Scalar(Expr::Select(Box::new(c), Box::new(a), Box::new(b)), t));
        }
        // 24-bit multiplies are exact functions of their operands (indices often use them).
        if matches!(name, "__mul24" | "__umul24") && vals.len() == 2 && vals.iter().all(|(_, t)| t.is_integral()) {
            let signed = name == "__mul24";
            let t = if signed { CType::INT } else { CType::UINT };
            let a = convert(vals[0].0.clone(), &vals[0].1, &t);
            let b = convert(vals[1].0.clone(), &vals[1].1, &t);
            return Ok(Val::Scalar(Expr::mul24(a, b, signed), t));
        }
        let int_result = matches!(
            name,
            "__popc"
                | "__clz"
                | "__ffs"
                | "__float2int_rn"
                | "__mul24"
                | "__umul24"
                | "__ballot_sync"
                | "__activemask"
                | "abs"
        );
        let t = if int_result { CType::INT } else { CType::Float(32) };
        Ok(Val::Scalar(
            Expr::Opaque(t.scalar(), vals.into_iter().map(|v| v.0).collect()),
            t,
        ))
    }

    fn atomic(&mut self, name: &str, args: &[Node<'t>], span: Span) -> FResult<Val> {
        let a0 = *args
            .first()
            .ok_or_else(|| FrontError::input(span, format!("{name} needs an address")))?;
        let pv = self.expr(a0)?;
        let (array, off, ty) = self.as_pointer(pv, span)?;
        for a in &args[1..] {
            self.scalar(*a)?;
        }
        let size = self.u.layouts.size_of(&ty) as u32;
        let t = self.temp(ty.scalar());
        let access_span = self.span(a0);
        self.ops.push(Op::Atomic(
            Some(t),
            Access {
                array,
                kind: AccessKind::Atomic,
                offset: off,
                size,
                span: access_span,
            },
        ));
        Ok(Val::Scalar(Expr::Var(t), ty))
    }

    fn qualified_call(
        &mut self,
        full: &str,
        scope: &str,
        name: &str,
        n: Node<'t>,
        args: &[Node<'t>],
        span: Span,
    ) -> FResult<Val> {
        let scope_base = scope.split("::").last().unwrap_or(scope);
        let is_cg = self
            .u
            .namespaces_cg
            .iter()
            .any(|ns| scope == ns || scope.starts_with(&format!("{ns}::")));
        if is_cg {
            return match name {
                "this_thread_block" => Ok(Val::Group(GroupKind::Block)),
                "tiled_partition" | "coalesced_threads" => Ok(Val::Group(GroupKind::Warp)),
                "sync" => {
                    let g = match args.first() {
                        Some(a) => self.expr(*a)?,
                        None => Val::Group(GroupKind::Block),
                    };
                    self.group_sync(g, span)
                }
                "this_grid" | "this_multi_grid" => Err(FrontError::unsupported(
                    span,
                    "grid-wide synchronization is not supported",
                )),
                _ => Ok(Val::Void),
            };
        }
        if scope_base == "NamedBarrier" || full.contains("NamedBarrier::") {
            return self.cutlass_barrier(name, args, span);
        }
        if self.u.funcs.contains_key(name) {
            return self.inline_call(name, None, args, span, None);
        }
        if let Some(methods) = self.u.struct_methods.get(scope_base) {
            if methods
                .iter()
                .any(|m| self.u.func_name(m.node).as_deref() == Some(name))
            {
                return self.inline_method(scope_base, name, None, args, span);
            }
        }
        if full.starts_with("std::") || full.starts_with("cuda::std::") {
            return self.pure_call(name, args);
        }
        let _ = n;
        Err(
            FrontError::unsupported(span, format!("call to unknown function `{full}`"))
                .with_help("define it in the file as a __device__ function"),
        )
    }

    fn group_sync(&mut self, g: Val, span: Span) -> FResult<Val> {
        match g {
            Val::Group(GroupKind::Block) => self.barrier(Barrier::Block, BarrierSyntax::CoopGroups, span),
            Val::Group(GroupKind::Warp) => self.barrier(Barrier::Warp, BarrierSyntax::CoopGroups, span),
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    "sync() on something that is not a thread group",
                ))
            }
        }
        Ok(Val::Void)
    }

    fn cutlass_barrier(&mut self, name: &str, args: &[Node<'t>], span: Span) -> FResult<Val> {
        let mut vals = Vec::new();
        for a in args {
            let (e, t) = self.scalar(*a)?;
            vals.push(convert(e, &t, &CType::UINT));
        }
        // CUTLASS order: (num_threads, id).
        let (count, id) = match vals.as_slice() {
            [c, i] => (c.clone(), i.clone()),
            _ => {
                return Err(FrontError::input(
                    span,
                    format!("NamedBarrier::{name} takes (num_threads, barrier_id)"),
                ))
            }
        };
        let b = match name {
            "sync" | "arrive_and_wait" => Barrier::NamedSync { id, count: Some(count) },
            "arrive" => Barrier::NamedArrive { id, count },
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    format!("NamedBarrier::{name} is not supported"),
                ))
            }
        };
        self.barrier(b, BarrierSyntax::Cutlass, span);
        Ok(Val::Void)
    }

    fn method_call(&mut self, f: Node<'t>, n: Node<'t>, args: &[Node<'t>], span: Span) -> FResult<Val> {
        let obj = f
            .child_by_field_name("argument")
            .ok_or_else(|| FrontError::input(span, "bad method call"))?;
        let mname = f.child_by_field_name("field").map(|x| self.text(x)).unwrap_or("");
        let ov = self.expr(obj)?;
        match ov {
            Val::Group(g) => match mname {
                "sync" => self.group_sync(Val::Group(g), span),
                "thread_rank" => Ok(Val::Scalar(
                    Expr::Opaque(ScalarTy::U32, vec![Expr::Builtin(Builtin::ThreadIdx(Dim::X))]),
                    CType::UINT,
                )),
                "size" | "num_threads" => Ok(Val::Scalar(Expr::Opaque(ScalarTy::U32, vec![]), CType::UINT)),
                _ => Ok(Val::Scalar(Expr::Opaque(ScalarTy::Opaque, vec![]), CType::Float(32))),
            },
            Val::Obj(sname, fields) => {
                if sname == "NamedBarrier"
                    || !self.u.struct_methods.contains_key(&sname)
                        && matches!(mname, "sync" | "arrive" | "arrive_and_wait")
                        && sname.contains("Barrier")
                {
                    // An instance of a CUTLASS-style barrier object: (num_threads, id) were fields.
                    let _ = fields;
                    return Err(FrontError::unsupported(
                        span,
                        "NamedBarrier objects are not supported; use NamedBarrier::sync(n, id)",
                    ));
                }
                self.inline_method_on(&sname, mname, Val::Obj(sname.clone(), fields), args, span)
            }
            _ => {
                let _ = n;
                Err(FrontError::unsupported(
                    span,
                    format!("method call `.{mname}()` on a value that is not a known object"),
                ))
            }
        }
    }

    fn object_value(&mut self, name: &str) -> FResult<Val> {
        match self.lookup(name).cloned() {
            Some(Binding::Obj(s, f)) => Ok(Val::Obj(s, f)),
            _ => Ok(Val::Void),
        }
    }

    /// Declares a local object `name` of struct type `sname` and runs its constructor.
    pub(crate) fn declaration_of_struct(
        &mut self,
        name: &str,
        sname: &str,
        args: &[Node<'t>],
        span: Span,
    ) -> FResult<()> {
        let fields = self
            .u
            .layouts
            .structs
            .get(sname)
            .map(|s| s.0.clone())
            .unwrap_or_default();
        let mut map = HashMap::new();
        for f in fields {
            let b = match &f.ty {
                CType::Ptr(p) => Binding::NullPtr((**p).clone()),
                t => Binding::Var(
                    self.new_var(&format!("{name}.{}", f.name), t.scalar(), VarKind::Local),
                    t.clone(),
                ),
            };
            map.insert(f.name.clone(), b);
        }
        self.bind(name, Binding::Obj(sname.to_string(), map));
        self.construct(name, sname, args, span)
    }

    /// Runs the constructor of `sname` (if one matches the arity) on the object bound to `name`.
    pub(crate) fn construct(&mut self, name: &str, sname: &str, args: &[Node<'t>], span: Span) -> FResult<()> {
        let ctor = self
            .u
            .struct_methods
            .get(sname)
            .and_then(|ms| {
                ms.iter().find(|m| {
                    self.u.func_name(m.node).as_deref() == Some(sname) && param_count(self.u, m.node) == args.len()
                })
            })
            .copied();
        let Some(ctor) = ctor else { return Ok(()) };
        let obj = self.object_value(name)?;
        self.inline_def(ctor, sname, Some(obj), args, span, None)?;
        // Field initializer lists `: a(x), b(y)` are handled in inline_def.
        Ok(())
    }

    fn inline_method(
        &mut self,
        sname: &str,
        mname: &str,
        obj: Option<Val>,
        args: &[Node<'t>],
        span: Span,
    ) -> FResult<Val> {
        let def = self
            .u
            .struct_methods
            .get(sname)
            .and_then(|ms| {
                ms.iter().find(|m| {
                    self.u.func_name(m.node).as_deref() == Some(mname) && param_count(self.u, m.node) == args.len()
                })
            })
            .copied()
            .ok_or_else(|| {
                FrontError::unsupported(
                    span,
                    format!("no method `{sname}::{mname}` with {} arguments", args.len()),
                )
            })?;
        self.inline_def(def, mname, obj, args, span, None)
    }

    /// Whether struct `sname` has a method called `m` (`operator` for conversion operators).
    pub(crate) fn has_method(&self, sname: &str, m: &str) -> bool {
        self.u
            .struct_methods
            .get(sname)
            .is_some_and(|ms| ms.iter().any(|d| self.u.func_name(d.node).as_deref() == Some(m)))
    }

    /// Applies an object's conversion operator (`operator T*()`).
    pub(crate) fn inline_conversion(&mut self, sname: &str, obj: Val, span: Span) -> FResult<Val> {
        self.inline_method(sname, "operator", Some(obj), &[], span)
    }

    fn inline_method_on(&mut self, sname: &str, mname: &str, obj: Val, args: &[Node<'t>], span: Span) -> FResult<Val> {
        self.inline_method(sname, mname, Some(obj), args, span)
    }

    /// Inlines a call of a free `__device__` function.
    pub(crate) fn inline_call(
        &mut self,
        name: &str,
        tf: Option<Node<'t>>,
        args: &[Node<'t>],
        span: Span,
        obj: Option<Val>,
    ) -> FResult<Val> {
        let defs = self.u.funcs.get(name).cloned().unwrap_or_default();
        let def = defs
            .iter()
            .find(|d| param_count(self.u, d.node) == args.len() && d.node.child_by_field_name("body").is_some())
            .copied()
            .ok_or_else(|| {
                FrontError::unsupported(span, format!("no definition of `{name}` with {} arguments", args.len()))
            })?;
        if self.u.is_kernel(def.node) {
            return Err(FrontError::unsupported(
                span,
                format!("call of kernel `{name}` from device code (dynamic parallelism)"),
            ));
        }
        let _ = tf;
        self.inline_def(def, name, obj, args, span, tf)
    }

    fn inline_def(
        &mut self,
        def: FuncDef<'t>,
        name: &str,
        obj: Option<Val>,
        args: &[Node<'t>],
        span: Span,
        tf: Option<Node<'t>>,
    ) -> FResult<Val> {
        if self.inline.iter().any(|f| f.name == name) {
            return Err(FrontError::unsupported(span, format!("recursive call of `{name}`"))
                .with_help("recursion cannot be inlined; rewrite it as a loop"));
        }
        if self.inline.len() > 32 {
            return Err(FrontError::unsupported(
                span,
                "device functions nested more than 32 calls deep",
            ));
        }
        let f = def.node;
        let fdecl = find_kind(
            f.child_by_field_name("declarator")
                .ok_or_else(|| FrontError::input(span, "bad function"))?,
            "function_declarator",
        );
        let body = f
            .child_by_field_name("body")
            .ok_or_else(|| FrontError::unsupported(span, format!("`{name}` has no body")))?;
        // Evaluate arguments in the caller's scope.
        let mut argv = Vec::new();
        for a in args {
            argv.push(self.expr(*a)?);
        }
        let saved_tparams = self.type_params.clone();
        let mut new_scope = HashMap::new();
        if let Some(tp) = def.template {
            // Template arguments: explicit `f<float>(...)`, or deduced as symbolic.
            let explicit: Vec<Node<'t>> = tf
                .and_then(|t| t.child_by_field_name("arguments"))
                .map(|a| {
                    let mut c = a.walk();
                    a.named_children(&mut c).collect()
                })
                .unwrap_or_default();
            let mut c = tp.walk();
            for (i, p) in tp.named_children(&mut c).collect::<Vec<_>>().into_iter().enumerate() {
                let pname = p.named_child(0).map(|x| self.text(x).to_string()).unwrap_or_default();
                match p.kind() {
                    "type_parameter_declaration" => {
                        let ty = explicit
                            .get(i)
                            .map(|a| self.descriptor(*a))
                            .unwrap_or(CType::Param(pname.clone()));
                        self.type_params.insert(pname, ty);
                    }
                    "parameter_declaration" => {
                        let dn = p
                            .child_by_field_name("declarator")
                            .map(|d| self.text(d).to_string())
                            .unwrap_or_default();
                        if let Some(v) = explicit.get(i).and_then(|a| self.const_eval(*a)) {
                            new_scope.insert(dn, Binding::Const(v, CType::INT));
                        }
                    }
                    _ => {}
                }
            }
        }
        // Object fields are in scope inside methods.
        if let Some(Val::Obj(s, fields)) = &obj {
            for (k, v) in fields {
                new_scope.insert(k.clone(), v.clone());
            }
            new_scope.insert("this".into(), Binding::Obj(s.clone(), fields.clone()));
        }
        let ret_ty = f
            .child_by_field_name("type")
            .map(|t| self.resolve_type(t))
            .unwrap_or(CType::Void);
        let ret_ty = match f.child_by_field_name("declarator") {
            Some(d) if d.kind() == "pointer_declarator" => CType::Ptr(Box::new(ret_ty)),
            Some(d) if d.kind() == "operator_cast" => {
                let base = d
                    .child_by_field_name("type")
                    .map(|t| self.resolve_type(t))
                    .unwrap_or(CType::Void);
                match d.child_by_field_name("declarator") {
                    Some(ad) if ad.kind() == "abstract_pointer_declarator" => CType::Ptr(Box::new(base)),
                    _ => base,
                }
            }
            _ => ret_ty,
        };
        // Bind parameters.
        let params: Vec<Node<'t>> = fdecl
            .and_then(|fd| fd.child_by_field_name("parameters"))
            .map(|p| {
                let mut c = p.walk();
                p.named_children(&mut c)
                    .filter(|x| x.kind().contains("parameter_declaration"))
                    .collect()
            })
            .unwrap_or_default();
        let mut pending = Vec::new();
        for (p, v) in params.iter().zip(argv) {
            let Some(tn) = p.child_by_field_name("type") else {
                continue;
            };
            let base = self.resolve_type(tn);
            let Some(d) = p.child_by_field_name("declarator") else {
                continue;
            };
            let Some((pname, pt, is_ref)) = self.declarator(d, base) else {
                continue;
            };
            pending.push((pname, pt, is_ref, v));
        }
        self.scopes.push(new_scope);
        let result_ptr = matches!(ret_ty, CType::Ptr(_));
        let frame_name = name.to_string();
        let mut result = None;
        let mut ptr_result = None;
        if result_ptr {
            let pn = format!("$ret{}", self.vars.len());
            self.scopes[0].insert(
                pn.clone(),
                Binding::NullPtr(ret_ty.pointee().cloned().unwrap_or(CType::Void)),
            );
            ptr_result = Some(pn);
        } else if !matches!(ret_ty, CType::Void) {
            let rv = self.new_var(&format!("{name}.ret"), ret_ty.scalar(), VarKind::Temp);
            result = Some((rv, ret_ty.clone()));
        }
        for (pname, pt, is_ref, v) in pending {
            match (is_ref, v) {
                (true, Val::Mem(p)) => self.bind(&pname, Binding::Ref(p)),
                (true, Val::VarRef(var, t)) => self.bind(&pname, Binding::Var(var, t)),
                (_, v) => self.bind_value(&pname, &pt, v, span)?,
            }
        }
        // Member initializer list of a constructor: `: field(expr), ...`.
        let mut c = f.walk();
        for ch in f.named_children(&mut c).collect::<Vec<_>>() {
            if ch.kind() == "field_initializer_list" {
                let mut c2 = ch.walk();
                for fi in ch.named_children(&mut c2).collect::<Vec<_>>() {
                    let Some(fname) = fi.named_child(0) else {
                        continue;
                    };
                    let fname = self.text(fname).to_string();
                    let Some(arg) = fi.named_child(1).and_then(|a| a.named_child(0)) else {
                        continue;
                    };
                    let v = self.expr(arg)?;
                    match self.lookup(&fname).cloned() {
                        Some(Binding::Var(var, t)) => {
                            let e = self.rvalue(v, &t)?;
                            self.ops.push(Op::Assign(var, e));
                        }
                        Some(Binding::NullPtr(_)) | Some(Binding::Ptr { .. }) => {
                            let (a, off, t) = self.as_pointer(v, span)?;
                            self.bind_value_outer(&fname, a, off, t);
                        }
                        _ => {}
                    }
                }
            }
        }
        self.inline.push(InlineFrame {
            result: result.clone(),
            ptr_result: ptr_result.clone(),
            name: frame_name,
            call_span: span,
            loop_depth: self.loop_depth,
        });
        // Argument evaluation and parameter binding happen before the body.
        self.flush(false);
        // The body runs inside `do { ... } while (false)` so that `return` can leave it.
        let saved_span = self.stmt_span;
        let r = self.sub_block_braced(span, |lw| lw.stmt(body));
        self.inline.pop();
        self.scopes.pop();
        self.type_params = saved_tparams;
        let mut body_blk = r?;
        self.stmt_span = saved_span;
        // A `return` at the very end needs no jump.
        if matches!(
            body_blk.stmts.last(),
            Some(Stmt {
                kind: StmtKind::Break,
                ..
            })
        ) {
            body_blk.stmts.pop();
        }
        let has_jump = contains_break(&body_blk);
        if has_jump {
            let label = self.label();
            self.push(Stmt {
                label,
                span,
                emit_after: false,
                kind: StmtKind::Loop {
                    kind: LoopKind::DoWhile,
                    header: vec![],
                    cond: Expr::bool(false),
                    body: body_blk,
                    step: vec![],
                    var: None,
                },
            });
        } else {
            for s in body_blk.stmts {
                self.push(s);
            }
        }
        if let Some(pn) = ptr_result {
            let b = self.scopes[0].remove(&pn);
            return match b {
                Some(Binding::Ptr { array, off, pointee }) => Ok(Val::Ptr(array, off.expr(), pointee)),
                _ => Ok(Val::NullPtr(ret_ty.pointee().cloned().unwrap_or(CType::Void))),
            };
        }
        Ok(match result {
            Some((rv, rt)) => Val::Scalar(Expr::Var(rv), rt),
            None => Val::Void,
        })
    }

    /// Points the pointer `name` (found in any enclosing scope) at `array + off`.
    pub(crate) fn bind_value_outer(&mut self, name: &str, array: ArrayId, off: Expr, pointee: CType) {
        let var = self.new_var(name, ScalarTy::U64, VarKind::Temp);
        self.ops.push(Op::Assign(var, off));
        let b = Binding::Ptr {
            array,
            off: PtrOff::Var(var),
            pointee,
        };
        for s in self.scopes.iter_mut().rev() {
            if s.contains_key(name) {
                s.insert(name.to_string(), b);
                return;
            }
        }
        self.scopes[0].insert(name.to_string(), b);
    }

    /// Inline PTX: named barriers are understood; anything touching memory is rejected.
    pub(crate) fn asm(&mut self, n: Node<'t>) -> FResult<Val> {
        let span = self.span(n);
        let code_node = n
            .child_by_field_name("assembly_code")
            .ok_or_else(|| FrontError::input(span, "asm without code"))?;
        let code = string_text(self.text(code_node));
        // Operands are numbered outputs first, then inputs.
        let mut operands: Vec<Node<'t>> = Vec::new();
        for field in ["output_operands", "input_operands"] {
            if let Some(list) = n.child_by_field_name(field) {
                let mut c = list.walk();
                for op in list.named_children(&mut c) {
                    if let Some(v) = op.child_by_field_name("value") {
                        operands.push(v);
                    }
                }
            }
        }
        let mut found_barrier = false;
        for instr in code.split([';', '\n']).map(str::trim).filter(|s| !s.is_empty()) {
            let mut parts = instr.splitn(2, char::is_whitespace);
            let opcode = parts.next().unwrap_or("");
            let rest = parts.next().unwrap_or("");
            let segs: Vec<&str> = opcode.split('.').collect();
            if let Some(kind) = barrier_kind(opcode) {
                let ops: Vec<&str> = rest.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
                let mut vals = Vec::new();
                for o in &ops {
                    vals.push(self.asm_operand(o, &operands, span)?);
                }
                let id = vals
                    .first()
                    .cloned()
                    .ok_or_else(|| FrontError::input(span, format!("`{instr}` needs a barrier id")))?;
                let count = vals.get(1).cloned();
                let b = match kind {
                    "sync" | "" => match (&id, &count) {
                        (Expr::Const(0, _), None) => Barrier::Block,
                        _ => Barrier::NamedSync { id, count },
                    },
                    "arrive" => Barrier::NamedArrive {
                        id,
                        count: count.ok_or_else(|| {
                            FrontError::input(span, "bar.arrive needs a thread count")
                                .with_help("write bar.arrive id, count")
                        })?,
                    },
                    "red" => {
                        return Err(FrontError::unsupported(span, "bar.red is not supported")
                            .with_help("use __syncthreads_count/and/or"));
                    }
                    other => {
                        return Err(FrontError::unsupported(
                            span,
                            format!("unknown barrier form `bar.{other}`"),
                        ))
                    }
                };
                self.barrier(b, BarrierSyntax::Asm, span);
                found_barrier = true;
                continue;
            }
            let touches = segs
                .first()
                .map(|s| {
                    matches!(
                        *s,
                        "ld" | "st"
                            | "atom"
                            | "red"
                            | "cp"
                            | "mbarrier"
                            | "ldmatrix"
                            | "stmatrix"
                            | "wgmma"
                            | "cp.async"
                    )
                })
                .unwrap_or(false);
            if touches {
                return Err(FrontError::unsupported(
                    span,
                    format!("inline asm `{opcode}` accesses memory and cannot be modeled"),
                )
                .with_help("express the access in CUDA C++ or move it out of the checked kernel"));
            }
            if opcode == "membar" || opcode == "fence" {
                continue;
            }
        }
        if !found_barrier {
            // Outputs receive unknown values; nothing else is modeled.
            if let Some(list) = n.child_by_field_name("output_operands") {
                let mut c = list.walk();
                for op in list.named_children(&mut c).collect::<Vec<_>>() {
                    if let Some(v) = op.child_by_field_name("value") {
                        let target = self.expr(v)?;
                        self.store(
                            target,
                            Val::Scalar(Expr::Opaque(ScalarTy::Opaque, vec![]), CType::Float(32)),
                            span,
                        )?;
                    }
                }
            }
        }
        Ok(Val::Void)
    }

    fn asm_operand(&mut self, o: &str, operands: &[Node<'t>], span: Span) -> FResult<Expr> {
        if let Some(idx) = o.strip_prefix('%') {
            let i: usize = idx
                .parse()
                .map_err(|_| FrontError::unsupported(span, format!("asm operand `{o}` is not %N")))?;
            let node = *operands
                .get(i)
                .ok_or_else(|| FrontError::input(span, format!("asm operand `{o}` does not exist")))?;
            if let Some(v) = self.const_eval(node) {
                return Ok(Expr::Const(v, ScalarTy::U32));
            }
            let (e, t) = self.scalar(node)?;
            return Ok(convert(e, &t, &CType::UINT));
        }
        const_int(o)
            .map(|v| Expr::Const(v, ScalarTy::U32))
            .ok_or_else(|| FrontError::unsupported(span, format!("asm operand `{o}` is neither a literal nor %N")))
    }
}

fn contains_break(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If { then_blk, else_blk, .. } => contains_break(then_blk) || contains_break(else_blk),
        _ => false,
    })
}

fn param_count(u: &Unit, f: Node) -> usize {
    let Some(d) = f.child_by_field_name("declarator") else {
        return 0;
    };
    let Some(fd) = find_kind(d, "function_declarator").or_else(|| find_kind(d, "abstract_function_declarator")) else {
        return 0;
    };
    let Some(p) = fd.child_by_field_name("parameters") else {
        return 0;
    };
    let mut c = p.walk();
    let n = p
        .named_children(&mut c)
        .filter(|x| x.kind().contains("parameter_declaration"))
        .count();
    // `f(void)` has no parameters.
    if n == 1 && u.text(p).replace(char::is_whitespace, "") == "(void)" {
        0
    } else {
        n
    }
}

fn is_gpuverify_annotation(name: &str) -> bool {
    matches!(
        name,
        "__invariant"
            | "__global_invariant"
            | "__ensures"
            | "__global_ensures"
            | "__global_requires"
            | "__assert"
            | "__global_assert"
            | "__read"
            | "__write"
            | "__no_read"
            | "__no_write"
            | "__read_offset"
            | "__write_offset"
            | "__implies"
            | "__enabled"
            | "__other_int"
            | "__same_group"
            | "__candidate_invariant"
            | "__function_wide_invariant"
            | "__non_temporal_loads_begin"
            | "__non_temporal_loads_end"
    )
}

/// The barrier form of a PTX opcode (`bar.sync` → `sync`, `barrier.cta.arrive.aligned` →
/// `arrive`, bare `bar` → `sync`), or `None` when it is not a barrier instruction.
pub(super) fn barrier_kind(opcode: &str) -> Option<&str> {
    let mut segs = opcode.split('.');
    if !matches!(segs.next(), Some("bar" | "barrier")) {
        return None;
    }
    Some(segs.find(|s| !matches!(*s, "cta" | "aligned")).unwrap_or("sync"))
}

/// The contents of a C string literal (escapes kept; enough for PTX opcodes and operands).
pub(super) fn string_text(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    let mut prev = '\0';
    for ch in s.chars() {
        if ch == '"' && prev != '\\' {
            inside = !inside;
        } else if inside {
            out.push(ch);
        }
        prev = ch;
    }
    out.replace("\\n", "\n").replace("\\t", " ")
}
