//! Declarations: template parameters, kernel parameters, file-scope and local variables,
//! arrays and pointers.

use super::*;
use crate::front::ctype::named_type;

impl<'u, 't> Lowerer<'u, 't> {
    /// Binds template parameters from an explicit instantiation, `--define`, or leaves type
    /// parameters symbolic.
    pub(crate) fn bind_template_params(&mut self, params: Node<'t>, fname: &str, span: Span) -> FResult<()> {
        let inst_args: Vec<Node<'t>> = self
            .u
            .instantiations
            .get(fname)
            .and_then(|tf| tf.child_by_field_name("arguments"))
            .map(|a| {
                let mut c = a.walk();
                a.named_children(&mut c).collect()
            })
            .unwrap_or_default();
        let mut c = params.walk();
        for (i, p) in params
            .named_children(&mut c)
            .collect::<Vec<_>>()
            .into_iter()
            .enumerate()
        {
            let arg = inst_args.get(i).copied();
            match p.kind() {
                "type_parameter_declaration" | "optional_type_parameter_declaration" => {
                    let name = p.named_child(0).map(|n| self.text(n).to_string()).unwrap_or_default();
                    let ty = match arg {
                        Some(a) => self.type_of_descriptor(a),
                        None => match p.child_by_field_name("default_type") {
                            Some(d) => self.resolve_type(d),
                            None => CType::Param(name.clone()),
                        },
                    };
                    self.type_params.insert(name, ty);
                }
                "parameter_declaration" | "optional_parameter_declaration" => {
                    let Some(d) = p.child_by_field_name("declarator") else {
                        continue;
                    };
                    let name = self.text(d).to_string();
                    let ty = p
                        .child_by_field_name("type")
                        .map(|t| self.resolve_type(t))
                        .unwrap_or(CType::INT);
                    let value = if let Some(v) = self.opts.defines.get(&name) {
                        Some(*v)
                    } else if let Some(a) = arg {
                        const_int(self.text(a))
                    } else if let Some(dv) = p.child_by_field_name("default_value") {
                        const_int(self.text(dv))
                    } else {
                        None
                    };
                    let Some(v) = value else {
                        return Err(FrontError::missing(
                            span,
                            format!("template parameter `{name}` of `{fname}` has no value"),
                            format!("add an explicit instantiation to the file or pass --define {name}=V"),
                        ));
                    };
                    self.bind(&name, Binding::Const(v, ty));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn type_of_descriptor(&self, a: Node) -> CType {
        match a.kind() {
            "type_descriptor" => {
                let base = a
                    .child_by_field_name("type")
                    .map(|t| self.resolve_type(t))
                    .unwrap_or(CType::INT);
                if let Some(d) = a.child_by_field_name("declarator") {
                    self.abstract_declarator(d, base)
                } else {
                    base
                }
            }
            _ => self.resolve_type(a),
        }
    }

    /// Applies an abstract declarator (`*`, `[4]`) to a base type.
    pub(crate) fn abstract_declarator(&self, d: Node, base: CType) -> CType {
        match d.kind() {
            "abstract_pointer_declarator" => {
                let t = CType::Ptr(Box::new(base));
                match d.child_by_field_name("declarator") {
                    Some(inner) => self.abstract_declarator(inner, t),
                    None => t,
                }
            }
            "abstract_array_declarator" => {
                let size = d.child_by_field_name("size").and_then(|s| const_int(self.text(s)));
                CType::Array(Box::new(base), size.map(|v| v as u64))
            }
            "abstract_reference_declarator" => base,
            _ => base,
        }
    }

    /// Resolves a type node, with template parameters and typedefs.
    pub(crate) fn resolve_type(&self, ty: Node) -> CType {
        let text = self.text(ty).trim();
        if let Some(t) = self.type_params.get(text) {
            return t.clone();
        }
        match ty.kind() {
            "type_identifier" => {
                if let Some(t) = self.type_params.get(text) {
                    return t.clone();
                }
                self.u.base_type_static(ty)
            }
            "template_type" => {
                let name = ty.child_by_field_name("name").map(|n| self.text(n)).unwrap_or("");
                CType::Struct(name.to_string())
            }
            "qualified_identifier" => {
                let name = ty.child_by_field_name("name").map(|n| self.text(n)).unwrap_or(text);
                named_type(name).unwrap_or(CType::Struct(name.to_string()))
            }
            "placeholder_type_specifier" | "auto" => CType::Void,
            _ => self.u.base_type_static(ty),
        }
    }

    /// Unwraps a declarator with template context.
    pub(crate) fn declarator(&self, d: Node, base: CType) -> Option<(String, CType, bool)> {
        // bool: is a reference
        match d.kind() {
            "reference_declarator" => {
                let inner = d.named_child((d.named_child_count() as u32).saturating_sub(1))?;
                let (n, t, _) = self.declarator(inner, base)?;
                Some((n, t, true))
            }
            "pointer_declarator" => {
                let inner = d.child_by_field_name("declarator")?;
                self.declarator(inner, CType::Ptr(Box::new(base)))
            }
            "array_declarator" => {
                let inner = d.child_by_field_name("declarator")?;
                let size = d.child_by_field_name("size").and_then(|s| self.const_eval(s));
                let (name, t, r) = self.declarator(inner, CType::Void)?;
                Some((
                    name,
                    rebuild_array(t, CType::Array(Box::new(base), size.map(|v| v as u64))),
                    r,
                ))
            }
            "init_declarator" => self.declarator(d.child_by_field_name("declarator")?, base),
            "parenthesized_declarator" => self.declarator(d.named_child(0)?, base),
            "identifier" | "field_identifier" => Some((self.text(d).to_string(), base, false)),
            _ => None,
        }
    }

    /// Constant-folds an expression node (array sizes, template arguments).
    pub(crate) fn const_eval(&self, n: Node) -> Option<i64> {
        match n.kind() {
            "number_literal" => const_int(self.text(n)),
            "identifier" => match self.lookup(self.text(n)) {
                Some(Binding::Const(v, _)) => Some(*v),
                _ => None,
            },
            "parenthesized_expression" => self.const_eval(n.named_child(0)?),
            "sizeof_expression" => {
                let t = n.child_by_field_name("type")?;
                Some(self.u.layouts.size_of(&self.type_of_descriptor(t)) as i64)
            }
            "binary_expression" => {
                let a = self.const_eval(n.child_by_field_name("left")?)?;
                let b = self.const_eval(n.child_by_field_name("right")?)?;
                let op = n.child_by_field_name("operator")?;
                Some(match self.text(op) {
                    "+" => a.wrapping_add(b),
                    "-" => a.wrapping_sub(b),
                    "*" => a.wrapping_mul(b),
                    "/" if b != 0 => a / b,
                    "%" if b != 0 => a % b,
                    "<<" => a.wrapping_shl(b as u32),
                    ">>" => a.wrapping_shr(b as u32),
                    "&" => a & b,
                    "|" => a | b,
                    "^" => a ^ b,
                    _ => return None,
                })
            }
            "cast_expression" => self.const_eval(n.child_by_field_name("value")?),
            _ => None,
        }
    }

    /// File-scope `__shared__`/`__device__` arrays and constants.
    pub(crate) fn declare_file_scope(&mut self) -> FResult<()> {
        for d in self.u.file_scope.clone() {
            if d.kind() == "type_definition" {
                continue;
            }
            let text = self.text(d);
            let shared = has_word(text, "__shared__");
            let device = has_word(text, "__device__") || has_word(text, "__constant__");
            let is_const = has_word(text, "const") || has_word(text, "constexpr");
            let Some(ty) = d.child_by_field_name("type") else {
                continue;
            };
            let base = self.resolve_type(ty);
            let mut c = d.walk();
            for dd in d.children_by_field_name("declarator", &mut c).collect::<Vec<_>>() {
                let Some((name, t, _)) = self.declarator(dd, base.clone()) else {
                    continue;
                };
                let span = self.span(dd);
                if shared || device {
                    let space = if shared { Space::Shared } else { Space::Global };
                    let b = self.array_binding(&name, space, &t, span);
                    self.file_arrays.insert(name, b);
                } else if is_const {
                    if let Some(v) = dd.child_by_field_name("value").and_then(|v| self.const_eval(v)) {
                        self.file_arrays.insert(name, Binding::Const(v, t));
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates an array (or a scalar treated as a one-element array) binding.
    pub(crate) fn array_binding(&mut self, name: &str, space: Space, t: &CType, span: Span) -> Binding {
        let mut dims = Vec::new();
        let mut elem = t.clone();
        while let CType::Array(e, n) = elem {
            dims.push(n);
            elem = *e;
        }
        if dims.is_empty() {
            // A scalar in shared/global memory: an array of one element, accessed at offset 0.
            let id = self.new_array(name, space, &elem, vec![Some(1)], span);
            return Binding::Array(id, CType::Array(Box::new(t.clone()), Some(1)));
        }
        let id = self.new_array(name, space, &elem, dims, span);
        Binding::Array(id, t.clone())
    }

    /// Kernel parameters: scalars become symbolic params, pointers become global arrays.
    pub(crate) fn kernel_params(&mut self, params: Node<'t>, body: Node<'t>) -> FResult<()> {
        let mut c = params.walk();
        for p in params.named_children(&mut c).collect::<Vec<_>>() {
            if p.kind() != "parameter_declaration" {
                continue;
            }
            let Some(tn) = p.child_by_field_name("type") else {
                continue;
            };
            let base = self.resolve_type(tn);
            let Some(d) = p.child_by_field_name("declarator") else {
                continue;
            };
            let Some((name, t, _)) = self.declarator(d, base) else {
                continue;
            };
            let span = self.span(p);
            match &t {
                CType::Ptr(pointee) | CType::Array(pointee, _) => {
                    let id = self.new_array(&name, Space::Global, pointee, vec![None], span);
                    let off = if assigned_in(self.u.src, body, &name) {
                        let v = self.new_var(&name, ScalarTy::U64, VarKind::Temp);
                        self.stmt_span = span;
                        self.ops.push(Op::Assign(v, Expr::Const(0, ScalarTy::U64)));
                        PtrOff::Var(v)
                    } else {
                        PtrOff::Fixed(Expr::Const(0, ScalarTy::U64))
                    };
                    self.bind(
                        &name,
                        Binding::Ptr {
                            array: id,
                            off,
                            pointee: (**pointee).clone(),
                        },
                    );
                }
                CType::Struct(s) if self.u.layouts.structs.contains_key(s) => {
                    let fields = self.u.layouts.structs[s].0.clone();
                    let mut map = HashMap::new();
                    for f in fields {
                        let v = self.new_var(&format!("{name}.{}", f.name), f.ty.scalar(), VarKind::Param);
                        map.insert(f.name.clone(), Binding::Var(v, f.ty.clone()));
                    }
                    self.bind(&name, Binding::Obj(s.clone(), map));
                }
                _ => {
                    let v = self.new_var(&name, t.scalar(), VarKind::Param);
                    self.bind(&name, Binding::Var(v, t));
                }
            }
        }
        Ok(())
    }

    /// A local declaration statement.
    pub(crate) fn declaration(&mut self, d: Node<'t>) -> FResult<()> {
        let text = self.text(d);
        let shared = has_word(text, "__shared__");
        let is_static_const = has_word(text, "constexpr") || (has_word(text, "const") && !text.contains('*'));
        let Some(tn) = d.child_by_field_name("type") else {
            return Ok(());
        };
        let base = self.resolve_type(tn);
        let mut c = d.walk();
        for dd in d.children_by_field_name("declarator", &mut c).collect::<Vec<_>>() {
            let Some((name, t, is_ref)) = self.declarator(dd, base.clone()) else {
                return Err(FrontError::unsupported(
                    self.span(dd),
                    format!("cannot understand the declarator `{}`", self.text(dd)),
                ));
            };
            let span = self.span(dd);
            let init = if dd.kind() == "init_declarator" {
                dd.child_by_field_name("value")
            } else {
                None
            };
            if shared {
                // Every `extern __shared__` array is the same dynamic shared memory.
                if has_word(text, "extern") {
                    if let Some(id) = self.extern_shared {
                        self.bind(&name, Binding::Array(id, t.clone()));
                        continue;
                    }
                }
                let b = self.array_binding(&name, Space::Shared, &t, span);
                if let (true, Binding::Array(id, _)) = (has_word(text, "extern"), &b) {
                    self.extern_shared = Some(*id);
                }
                self.bind(&name, b);
                continue;
            }
            if let CType::Array(..) = t {
                // A thread-local array: never races, but accesses are still modeled.
                let b = self.array_binding(&name, Space::Local, &t, span);
                self.bind(&name, b);
                if let Some(i) = init {
                    if i.kind() == "initializer_list" {
                        continue;
                    }
                }
                continue;
            }
            if is_static_const && t.is_integral() {
                if let Some(v) = init.and_then(|i| self.const_eval(i)) {
                    self.bind(&name, Binding::Const(v, t));
                    continue;
                }
            }
            let Some(init) = init else {
                self.declare_uninit(&name, &t);
                continue;
            };
            let init = if init.kind() == "initializer_list" || init.kind() == "argument_list" {
                // `T x{a}` / `T x(a)`: constructor-style; one argument means a copy.
                let mut c2 = init.walk();
                let args: Vec<Node<'t>> = init.named_children(&mut c2).collect();
                if args.len() == 1 && !matches!(t, CType::Struct(_)) {
                    args[0]
                } else {
                    self.declare_uninit(&name, &t);
                    if let CType::Struct(s) = &t {
                        self.construct(&name, s, &args, span)?;
                    }
                    continue;
                }
            } else {
                init
            };
            let v = self.expr(init)?;
            if is_ref {
                if let Val::Mem(p) = v {
                    self.bind(&name, Binding::Ref(p));
                    continue;
                }
            }
            self.bind_value(&name, &t, v, span)?;
        }
        Ok(())
    }

    fn declare_uninit(&mut self, name: &str, t: &CType) {
        match t {
            CType::Ptr(p) => self.bind(name, Binding::NullPtr((**p).clone())),
            CType::Struct(s) if self.u.layouts.structs.contains_key(s) => {
                let fields = self.u.layouts.structs[s].0.clone();
                let mut map = HashMap::new();
                for f in fields {
                    let v = self.new_var(&format!("{name}.{}", f.name), f.ty.scalar(), VarKind::Local);
                    map.insert(f.name.clone(), Binding::Var(v, f.ty.clone()));
                }
                self.bind(name, Binding::Obj(s.clone(), map));
            }
            _ => {
                let v = self.new_var(name, t.scalar(), VarKind::Local);
                self.bind(name, Binding::Var(v, t.clone()));
            }
        }
    }

    /// Binds a new name to a lowered initial value.
    pub(crate) fn bind_value(&mut self, name: &str, t: &CType, v: Val, span: Span) -> FResult<()> {
        match v {
            Val::Ptr(array, off, pointee) => {
                let var = self.new_var(name, ScalarTy::U64, VarKind::Temp);
                self.ops.push(Op::Assign(var, off));
                let pointee = match t {
                    CType::Ptr(p) if !matches!(**p, CType::Void) => (**p).clone(),
                    _ => pointee,
                };
                self.bind(
                    name,
                    Binding::Ptr {
                        array,
                        off: PtrOff::Var(var),
                        pointee,
                    },
                );
            }
            Val::PtrVar(other) => {
                let b = self.lookup(&other).cloned();
                match b {
                    Some(Binding::Ptr { array, off, pointee }) => {
                        self.bind_value(name, t, Val::Ptr(array, off.expr(), pointee), span)?
                    }
                    _ => self.bind(name, Binding::NullPtr(t.pointee().cloned().unwrap_or(CType::Void))),
                }
            }
            Val::NullPtr(p) => self.bind(name, Binding::NullPtr(p)),
            Val::Obj(..) if matches!(t, CType::Ptr(_)) => {
                // Conversion operator of a helper object (`T* p = SharedMemory<T>();`).
                let (a, off, pointee) = self.as_pointer(v, span)?;
                self.bind_value(name, t, Val::Ptr(a, off, pointee), span)?
            }
            Val::Group(g) => self.bind(name, Binding::Group(g)),
            Val::Obj(s, fields) => {
                // A copy of a local object: copy field variables.
                let mut map = HashMap::new();
                for (f, b) in fields {
                    if let Binding::Var(src, ft) = b {
                        let v = self.new_var(&format!("{name}.{f}"), ft.scalar(), VarKind::Local);
                        self.ops.push(Op::Assign(v, Expr::Var(src)));
                        map.insert(f, Binding::Var(v, ft));
                    } else {
                        map.insert(f, b);
                    }
                }
                self.bind(name, Binding::Obj(s, map));
            }
            Val::Mem(p) if matches!(p.ty, CType::Struct(_)) => {
                // Copy a struct out of memory: one read of the whole struct; fields unknown.
                let CType::Struct(s) = p.ty.clone() else { unreachable!() };
                let tmp = self.read(&p);
                self.declare_uninit(name, &CType::Struct(s.clone()));
                if let Some(Binding::Obj(_, fields)) = self.lookup(name).cloned() {
                    for (_, b) in fields {
                        if let Binding::Var(v, ft) = b {
                            self.ops
                                .push(Op::Assign(v, Expr::Opaque(ft.scalar(), vec![tmp.clone()])));
                        }
                    }
                }
            }
            Val::Mem(p) if matches!(p.ty, CType::Array(..)) => {
                // An array place used as a value decays to a pointer.
                let pointee = p.ty.pointee().cloned().unwrap_or(CType::Void);
                self.bind_value(name, t, Val::Ptr(p.array, p.off, pointee), span)?
            }
            other => {
                let t = if matches!(t, CType::Void) {
                    self.val_type(&other)
                } else {
                    t.clone()
                };
                if matches!(t, CType::Ptr(_)) {
                    return Err(FrontError::unsupported(
                        span,
                        format!("cannot tell which array the pointer `{name}` points into"),
                    )
                    .with_help("point it at a __shared__ array or a pointer parameter"));
                }
                let e = self.rvalue(other, &t)?;
                let var = self.new_var(name, t.scalar(), VarKind::Local);
                self.ops.push(Op::Assign(var, e));
                self.bind(name, Binding::Var(var, t));
            }
        }
        Ok(())
    }
}

/// Whether `word` occurs in `text` as a whole identifier.
pub(crate) fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w == word)
}

/// Whether `name` is assigned (`name =`, `name +=`, `name++`) anywhere in `n`.
fn assigned_in(src: &str, n: Node, name: &str) -> bool {
    match n.kind() {
        "assignment_expression" => {
            if let Some(l) = n.child_by_field_name("left") {
                if &src[l.byte_range()] == name {
                    return true;
                }
            }
        }
        "update_expression" => {
            if let Some(a) = n.child_by_field_name("argument") {
                if &src[a.byte_range()] == name {
                    return true;
                }
            }
        }
        _ => {}
    }
    let mut c = n.walk();
    let children: Vec<Node> = n.named_children(&mut c).collect();
    children.into_iter().any(|ch| assigned_in(src, ch, name))
}
