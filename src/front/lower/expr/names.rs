//! Names: references to variables, parameters, functions and enumerators, global and
//! shared variables as arrays, members, subscripts, `this` and CUDA's builtin variables.

use super::value::*;
use crate::front::ast::{NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// `this` inside an inlined method: a pointer to the receiver.
    pub(super) fn this_expr(&self, span: Span) -> FResult<Value> {
        let this = self.frames.iter().rev().find_map(|f| f.this.clone());
        match this {
            Some(LV::Obj(o)) => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Obj(o),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Record(self.objs[o].record),
            }))),
            Some(LV::Mem(p)) => Ok(Value::R(RV::Ptr(Pointer {
                region: p.region(),
                off: p.off,
                pointee: p.ty,
            }))),
            Some(LV::Group(g)) => Ok(Value::R(RV::Group(g))),
            _ => Err(FrontError::unsupported(span, "`this` outside an inlined method")),
        }
    }

    /// A reference to a declaration: a bound variable, a global, an enumerator or a function.
    pub(super) fn decl_ref(&mut self, n: NodeId) -> FResult<Value> {
        // A variable in memory (`__shared__ float total;`) is accessed where it is named, not
        // where it was declared. A reference keeps the span of what it refers to (`result[t]`
        // for `int &mine = result[t]`), which names the array.
        let span = self.span(n);
        let named = |me: &Self, p: &Place| {
            let r = me.ast.node(n).attrs.referenced;
            r.is_some_and(|r| me.ast.str(r.name) == me.arrays[p.array.0 as usize].name)
        };
        Ok(match self.decl_ref_value(n)? {
            Value::L(LV::Mem(p)) if named(self, &p) => Value::L(LV::Mem(Place { span, ..p })),
            v => v,
        })
    }

    /// [`Self::decl_ref`] before the access is placed at the reference.
    fn decl_ref_value(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let r = ast
            .node(n)
            .attrs
            .referenced
            .ok_or_else(|| FrontError::input(span, "reference to nothing"))?;
        if let Some(b) = self.env.get(&r.id) {
            return Ok(Value::L(self.binding_lv(&b.clone())));
        }
        let name = ast.str(r.name).to_string();
        match r.kind {
            // A variable template's specialization (`is_any<T, float>`) is a variable like any
            // other: a constant when its initializer is one.
            NodeKind::VarTemplateSpecializationDecl => match self.is_same_v(n) {
                Some(v) => Ok(Value::R(RV::Scalar(Expr::Const(v as i64, ScalarTy::Bool), CType::Bool))),
                None => self.global_var(r.id, &name, span),
            },
            NodeKind::VarDecl => self.global_var(r.id, &name, span),
            NodeKind::EnumConstantDecl => {
                let t = self.type_of(n);
                let v = self.enumerator(r.id).ok_or_else(|| {
                    FrontError::unsupported(span, format!("the value of enumerator `{name}` is unknown"))
                })?;
                Ok(Value::R(RV::Scalar(Expr::Const(v, t.scalar()), t)))
            }
            NodeKind::ParmVarDecl => Err(FrontError::input(
                span,
                format!("parameter `{name}` used outside its function"),
            )),
            NodeKind::FunctionDecl => Ok(Value::R(RV::Ptr(self.function_address(r.id, span)?))),
            NodeKind::CXXMethodDecl => Err(FrontError::unsupported(
                span,
                format!("method `{name}` used as a value (pointers to members are not supported)"),
            )
            .with_help("call the method directly")),
            NodeKind::NonTypeTemplateParmDecl => Err(FrontError::missing(
                span,
                format!("template parameter `{name}` has no value"),
                format!("instantiate the template, or pass --define {name}=VALUE"),
            )),
            k => Err(FrontError::unsupported(
                span,
                format!("reference to `{name}` ({}) is not supported", ast.kind_name(k)),
            )),
        }
    }

    /// A variable declared outside the kernel: `__shared__`/`__device__`/`__constant__`
    /// arrays and scalars, constants, `warpSize`.
    pub(crate) fn global_var(&mut self, id: u64, name: &str, span: Span) -> FResult<Value> {
        let ast = self.ast;
        let Some(node) = ast.decl_node(self.types.definition(id)).or_else(|| ast.decl_node(id)) else {
            if name == "warpSize" {
                return Ok(Value::R(RV::Scalar(Expr::Builtin(Builtin::WarpSize), CType::INT)));
            }
            if builtin_var(name).is_some() {
                return Err(FrontError::unsupported(
                    span,
                    format!("`{name}` used as a whole; use its .x/.y/.z fields"),
                ));
            }
            return Err(FrontError::unsupported(
                span,
                format!("variable `{name}` from a system header is not modelled"),
            ));
        };
        let t = self.types.resolve(
            ast.node(node).ty.map(|t| ast.type_str(t)).unwrap_or("int"),
            &self.types.scope_of(id),
        );
        // A const integral variable with a constant initializer is a constant, whatever memory
        // Clang gives it (`static const int k = 4;`, `constexpr int N = 32;`).
        let is_const = ast.node(node).ty.is_some_and(|ty| {
            let q = ast.str(ty.qual);
            q.starts_with("const ") || q.contains(" const")
        });
        if is_const && t.is_integral() {
            if let Some(init) = ast.var_init(node) {
                if let Some(v) = self.const_eval(init, 0) {
                    let b = Binding::Const(fold_cast(v, &t), t);
                    self.env.insert(id, b.clone());
                    return Ok(Value::L(self.binding_lv(&b)));
                }
            }
        }
        let shared = ast.has_attr(node, NodeKind::CUDASharedAttr);
        let device = ast.has_attr(node, NodeKind::CUDADeviceAttr)
            || ast.has_attr(node, NodeKind::CUDAConstantAttr)
            || ast.has_attr(node, NodeKind::CUDAManagedAttr);
        if shared || device {
            let space = if shared { Space::Shared } else { Space::Global };
            let decl_span = self.src.node_span(node);
            let place = self.memory_var(name, space, &t, decl_span, node)?;
            let b = Binding::Mem(place);
            self.env.insert(id, b.clone());
            return Ok(Value::L(self.binding_lv(&b)));
        }
        // A constant (const/constexpr integral with an initializer).
        if let Some(init) = ast.var_init(node) {
            if let Some(v) = self.const_eval(init, 0) {
                let b = Binding::Const(fold_cast(v, &t), t);
                self.env.insert(id, b.clone());
                return Ok(Value::L(self.binding_lv(&b)));
            }
        }
        Err(FrontError::unsupported(
            span,
            format!("`{name}` is neither a __device__/__shared__ variable nor a constant"),
        )
        .with_help("device code can only read __device__, __constant__ and __shared__ variables and constants"))
    }

    /// The array for a variable in shared or global memory (`extern __shared__` arrays all
    /// share one array: they alias the dynamic shared memory).
    pub(crate) fn memory_var(
        &mut self,
        name: &str,
        space: Space,
        t: &CType,
        span: Span,
        decl: NodeId,
    ) -> FResult<Place> {
        let place = self.memory_var_place(name, space, t, span, decl)?;
        // `__shared__ __align__(1024) T tile[N]`: the address is a multiple of the declared
        // alignment, not only of the element type's.
        if let Some(n) = self.types.declared_align(decl) {
            let a = self.array_aligns.entry(place.array).or_insert(1);
            *a = (*a).max(n);
        }
        Ok(place)
    }

    fn memory_var_place(&mut self, name: &str, space: Space, t: &CType, span: Span, decl: NodeId) -> FResult<Place> {
        let is_extern = self
            .ast
            .node(decl)
            .attrs
            .storage_class
            .is_some_and(|s| self.ast.str(s) == "extern");
        if is_extern && space == Space::Shared {
            let elem = match t {
                CType::Array(e, _) => (**e).clone(),
                t => t.clone(),
            };
            let array = match self.extern_shared {
                Some(a) => a,
                None => {
                    let a = self.new_array(name, Space::Shared, &elem, vec![None], span)?;
                    self.extern_shared = Some(a);
                    a
                }
            };
            return Ok(Place {
                array,
                off: Expr::Const(0, ScalarTy::U64),
                ty: CType::Array(Box::new(elem), None),
                span,
                alt: None,
            });
        }
        self.array_for(name, space, t, span)
    }

    /// A builtin variable's component (`threadIdx.x`), which Clang shows as a property read.
    pub(super) fn pseudo_object(&mut self, n: NodeId) -> FResult<Value> {
        // `threadIdx.x`: Clang's builtin variables are properties read by `__fetch_builtin_x`.
        let ast = self.ast;
        let span = self.span(n);
        let mut var = None;
        let mut dim = None;
        ast.walk(n, &mut |c| match ast.kind(c) {
            NodeKind::DeclRefExpr => {
                if let Some(r) = ast.node(c).attrs.referenced {
                    var = var.or(builtin_var(ast.str(r.name)));
                }
            }
            NodeKind::MemberExpr => dim = dim.or(dim_of(ast.name(c))),
            _ => {}
        });
        match (var, dim) {
            (Some(b), Some(d)) => Ok(Value::R(RV::Scalar(Expr::Builtin(b(d)), CType::UINT))),
            _ => Err(FrontError::unsupported(
                span,
                "property access (__declspec(property)) is not supported",
            )),
        }
    }

    /// A member access: a field of an object, a static member or a member enumerator.
    pub(super) fn member(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let node = ast.node(n);
        let member = node
            .attrs
            .member
            .ok_or_else(|| FrontError::input(span, "member access without a member"))?;
        let base = *self
            .expr_children(n)
            .first()
            .ok_or_else(|| FrontError::input(span, "member access without an object"))?;
        let mkind = ast.decls.get(&member).map(|d| d.kind);
        if mkind == Some(NodeKind::VarDecl) {
            // A static data member.
            self.discard(base)?;
            let name = ast.name(n).to_string();
            if let Some(b) = self.env.get(&member) {
                return Ok(Value::L(self.binding_lv(&b.clone())));
            }
            return self.global_var(member, &name, span);
        }
        if mkind == Some(NodeKind::EnumConstantDecl) {
            // A member enumerator named through an object (`f.num_storage_elements`).
            self.discard(base)?;
            let t = self.type_of(n);
            let v = self.enumerator(member).ok_or_else(|| {
                FrontError::unsupported(span, format!("the value of enumerator `{}` is unknown", ast.name(n)))
            })?;
            return Ok(Value::R(RV::Scalar(Expr::Const(v, t.scalar()), t)));
        }
        let obj = if node.attrs.is_arrow {
            let p = self.pointer(base)?;
            let t = p.pointee.clone();
            self.deref(p, t, span)?
        } else {
            self.lvalue(base)?
        };
        self.field(obj, member, ast.name(n), span).map(Value::L)
    }

    /// The id under which a record's layout knows a field: `field` itself, or for a record
    /// the precompiled prelude declares (its fields are not in the dump), the field of that name.
    pub(super) fn field_id(&self, record: u64, field: u64, name: &str) -> u64 {
        if self.ast.decls.get(&field).is_some_and(|d| d.node.is_some()) || name.is_empty() {
            return field;
        }
        match self.types.layout(record) {
            Ok(l) if !l.fields.iter().any(|f| f.id == field) => {
                l.fields.iter().find(|f| f.name == name).map_or(field, |f| f.id)
            }
            _ => field,
        }
    }

    /// A field (`field`, named `written` at the access) of an object or of a record in memory.
    pub(crate) fn field(&mut self, obj: LV, field: u64, written: &str, span: Span) -> FResult<LV> {
        let fname = self
            .ast
            .decls
            .get(&field)
            .map(|d| self.ast.str(d.name).to_string())
            .unwrap_or_else(|| written.to_string());
        match obj {
            LV::Obj(o) => match self.objs[o]
                .fields
                .get(&self.field_id(self.objs[o].record, field, &fname))
            {
                Some(b) => Ok(self.binding_lv(&b.clone())),
                None => Err(FrontError::unsupported(
                    span,
                    format!("object `{}` has no field `{fname}` autosync knows", self.objs[o].name),
                )),
            },
            LV::Mem(p) => {
                let CType::Record(r) = p.ty else {
                    return Err(FrontError::unsupported(
                        span,
                        format!("field `{fname}` of a non-record"),
                    ));
                };
                let layout = self.types.layout(r).map_err(|m| FrontError::unsupported(span, m))?;
                // A record the precompiled prelude declares has fields autosync knows by name
                // only (the dump does not show their declarations).
                let field = self.field_id(r, field, &fname);
                let f = layout.fields.iter().find(|f| f.id == field).ok_or_else(|| {
                    FrontError::unsupported(
                        span,
                        format!("`{}` has no field `{fname}` autosync knows", self.types.record_name(r)),
                    )
                })?;
                if matches!(f.ty, CType::Ref(_)) {
                    return Err(FrontError::unsupported(
                        span,
                        "a reference member of an object in memory",
                    ));
                }
                Ok(LV::Mem(Place {
                    array: p.array,
                    off: add_offset(p.off, Expr::Const(f.offset as i64, ScalarTy::U64), 1),
                    ty: f.ty.clone(),
                    span,
                    alt: p.alt.clone(),
                }))
            }
            LV::Group(g) => Ok(LV::Group(g)),
            other => Err(FrontError::unsupported(
                span,
                format!("field `{fname}` of {}", lv_what(&other)),
            )),
        }
    }

    /// `a[i]`: the element of an array or of what a pointer points into.
    pub(super) fn subscript(&mut self, n: NodeId) -> FResult<Value> {
        let span = self.span(n);
        let kids = self.expr_children(n);
        let [a, b] = kids[..] else {
            return Err(FrontError::input(span, "bad subscript"));
        };
        // `i[p]` is legal C: the pointer operand is the base.
        let (base, idx) = if matches!(self.type_of(b), CType::Ptr(_) | CType::Array(..)) {
            (b, a)
        } else {
            (a, b)
        };
        let p = self.pointer(base)?;
        let (ie, it) = self.scalar(idx)?;
        if !it.is_integral() {
            return Err(FrontError::input(span, "array index is not an integer"));
        }
        let elem = self.type_of(n);
        let size = self.size_of(&elem, span)? as i64;
        no_slot_arith(&p.region, &ie, span)?;
        let off = add_offset(p.off, convert(ie, &it, &CType::U64), size);
        self.deref(
            Pointer {
                region: p.region,
                off,
                pointee: elem.clone(),
            },
            elem,
            span,
        )
        .map(Value::L)
    }
}
