//! Local declarations: automatic variables, pointers and objects with their initializers,
//! and the check that an object's destructor does nothing.

use crate::front::ast::{NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// Lowers a local variable declaration (or a nested type/static_assert: nothing).
    pub(super) fn local_decl(&mut self, d: NodeId) -> FResult<()> {
        let ast = self.ast;
        match ast.kind(d) {
            NodeKind::VarDecl => {}
            NodeKind::TypedefDecl
            | NodeKind::TypeAliasDecl
            | NodeKind::CXXRecordDecl
            | NodeKind::RecordDecl
            | NodeKind::EnumDecl
            | NodeKind::StaticAssertDecl
            | NodeKind::UsingDecl
            | NodeKind::UsingDirectiveDecl
            | NodeKind::NamespaceAliasDecl
            | NodeKind::UsingShadowDecl => return Ok(()),
            _ => {
                return Err(FrontError::unsupported(
                    self.span(d),
                    format!("declaration {} is not supported", ast.kind_str(d)),
                ));
            }
        }
        let node = ast.node(d);
        let id = node.id;
        let name = ast.name(d).to_string();
        // Reports name a variable by its declarator (the name), as written.
        let span = node
            .loc
            .map(|l| self.src.pos_span(l.expansion))
            .filter(|s| !s.is_dummy())
            .unwrap_or_else(|| self.span(d));
        let t = self.type_of(d);
        let init = ast.var_init(d);
        let shared = ast.has_attr(d, NodeKind::CUDASharedAttr);
        let is_static = node.attrs.storage_class.is_some_and(|s| ast.str(s) == "static");
        let device = ast.has_attr(d, NodeKind::CUDADeviceAttr) || ast.has_attr(d, NodeKind::CUDAConstantAttr);
        if shared || (is_static && device) || node.attrs.storage_class.is_some_and(|s| ast.str(s) == "extern") {
            // Static storage: one variable however often the function is inlined.
            if self.env.contains_key(&id) {
                return Ok(());
            }
            let space = if shared { Space::Shared } else { Space::Global };
            let place = self.memory_var(&name, space, &t, span, d)?;
            self.env.insert(id, Binding::Mem(place));
            return Ok(());
        }
        if is_static || node.attrs.storage_class.is_some_and(|s| ast.str(s) == "extern") {
            // `static const int N = 4;`: a constant.
            if let Some(v) = init.and_then(|i| self.const_eval(i, 0)) {
                self.env.insert(id, Binding::Const(fold_cast(v, &t), t));
                return Ok(());
            }
            // `static constexpr int r = w * 8;` where autosync's folding stops: device code
            // allows only constant initialization (a constant expression: no effects), so the
            // value is the same wherever it is computed, and a const one never changes.
            let constant = node
                .ty
                .is_some_and(|q| ast.str(q.qual).trim_start().starts_with("const "));
            let number = t.is_integral() || matches!(t, CType::Float(_));
            if let Some(i) = init.filter(|_| constant && number) {
                return self.automatic_var(id, &name, &t, Some(i), span);
            }
            return Err(FrontError::unsupported(span, format!("static local variable `{name}`"))
                .with_help("make it __shared__ or a constant"));
        }
        // A pointer whose address is taken stays a pointer variable: `&p` points at its slot.
        if self.addressed.contains(&id) && (t.is_integral() || matches!(t, CType::Float(_))) {
            // `&x` is taken: the variable lives in thread-private memory (never races).
            let place = self.array_for(&name, Space::Local, &t, span)?;
            if let Some(i) = init {
                let rv = self.rvalue(i)?;
                self.store(LV::Mem(place.clone()), rv, span)?;
            }
            self.env.insert(id, Binding::Mem(place));
            return Ok(());
        }
        self.automatic_var(id, &name, &t, init, span)
    }

    /// A local variable with automatic storage: a binding by its type (reference, array, object, pointer, scalar).
    fn automatic_var(&mut self, id: u64, name: &str, t: &CType, init: Option<NodeId>, span: Span) -> FResult<()> {
        match t {
            CType::Ref(_) => {
                let init =
                    init.ok_or_else(|| FrontError::input(span, format!("reference `{name}` without initializer")))?;
                let lv = self.lvalue(init)?;
                let b = self.lv_binding(lv);
                self.env.insert(id, b);
            }
            CType::Array(..) => {
                let place = self.array_for(name, Space::Local, t, span)?;
                let pointers = self.local_pointer_array(name, t, &place);
                self.env.insert(id, Binding::Mem(place));
                if pointers && init.is_some() {
                    return Err(FrontError::unsupported(
                        span,
                        format!("an initializer of the array of pointers `{name}`"),
                    )
                    .with_help("assign its elements one by one"));
                }
                if let Some(i) = init {
                    self.run_element_inits(i)?;
                }
            }
            CType::Record(r) => {
                if let Some(g) = self.group_kind_of(*r) {
                    let g = match init {
                        Some(i) => match self.rvalue(i)? {
                            RV::Group(g) => g,
                            _ => g,
                        },
                        None => g,
                    };
                    self.env.insert(id, Binding::Group(g));
                    return Ok(());
                }
                self.check_record_dtor(*r, span)?;
                let o = self.new_obj(*r, name, span)?;
                self.env.insert(id, Binding::Obj(o));
                if let Some(i) = init {
                    self.init_object(o, i, span)?;
                }
            }
            CType::Ptr(p) => {
                // A pointer's offset is not a user scalar (uniformity, witnesses): a temp.
                let v = self.new_var(name, ScalarTy::U64, VarKind::Temp);
                let s = self.new_slot(name, Region::Null, SlotOff::Var(v), (**p).clone());
                self.env.insert(id, Binding::Ptr(s));
                if let Some(i) = init {
                    let rv = self.rvalue(i)?;
                    self.store(LV::Ptr(s), rv, span)?;
                }
            }
            CType::Other(s) if s.starts_with("(lambda") => {
                // The closure's class is known once the lambda expression is lowered.
                let init =
                    init.ok_or_else(|| FrontError::input(span, format!("lambda `{name}` without initializer")))?;
                match self.rvalue(init)? {
                    RV::Obj(o) => {
                        self.env.insert(id, Binding::Obj(o));
                    }
                    _ => {
                        return Err(FrontError::unsupported(
                            span,
                            format!("lambda `{name}` autosync cannot follow"),
                        ))
                    }
                }
            }
            CType::Other(s) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("variable `{name}` of type `{s}` is not supported"),
                ));
            }
            _ => {
                // The initializer is evaluated before the variable exists.
                let rv = match init {
                    Some(i) => Some(self.rvalue(i)?),
                    None => None,
                };
                if let (Some(RV::Ptr(p)), true) = (&rv, t.is_integral()) {
                    // An address kept as an integer (`uint32_t a = __cvta_generic_to_shared(p)`),
                    // for inline asm: it stays a pointer to the same place.
                    let v = self.new_var(name, ScalarTy::U64, VarKind::Temp);
                    let s = self.new_slot(
                        name,
                        Region::Null,
                        SlotOff::Var(v),
                        CType::Int { bits: 8, signed: false },
                    );
                    self.assign_ptr(s, p.clone(), span)?;
                    self.env.insert(id, Binding::Ptr(s));
                    return Ok(());
                }
                let v = self.new_var(name, t.scalar(), VarKind::Local);
                self.env.insert(id, Binding::Var(v, t.clone()));
                if let Some(rv) = rv {
                    self.store(LV::Var(v, t.clone()), rv, span)?;
                }
            }
        }
        Ok(())
    }

    /// Refuses local objects whose class has a destructor with effects.
    fn check_record_dtor(&self, r: u64, span: Span) -> FResult<()> {
        let members = self
            .ast
            .decls
            .get(&self.types.definition(r))
            .map(|d| d.members.clone())
            .unwrap_or_default();
        for m in members {
            if self
                .ast
                .decls
                .get(&m)
                .is_some_and(|d| d.kind == NodeKind::CXXDestructorDecl)
            {
                self.check_trivial_dtor(m, span)?;
            }
        }
        Ok(())
    }

    /// Runs the element initializers of a local array for their effects (local arrays never
    /// race; their contents are opaque): through the `ExprWithCleanups` around a list whose
    /// elements make temporaries (`half2 a[n] = {{0.0f, 0.0f}}`) and into nested lists.
    fn run_element_inits(&mut self, init: NodeId) -> FResult<()> {
        for c in self.expr_children(init) {
            let nested = matches!(self.ast.kind(c), NodeKind::ExprWithCleanups | NodeKind::ParenExpr)
                || (self.ast.kind(c) == NodeKind::InitListExpr && matches!(self.type_of(c), CType::Array(..)));
            if nested {
                self.run_element_inits(c)?;
            } else {
                self.discard(c)?;
            }
        }
        Ok(())
    }

    /// Initializes a fresh local object from its initializer expression.
    pub(crate) fn init_object(&mut self, o: usize, init: NodeId, span: Span) -> FResult<()> {
        let ast = self.ast;
        match ast.kind(init) {
            NodeKind::CXXConstructExpr | NodeKind::CXXTemporaryObjectExpr => self.construct_into(o, init),
            NodeKind::InitListExpr => self.init_obj_list(o, init, span),
            NodeKind::ExprWithCleanups | NodeKind::ParenExpr => {
                let c = self.expr_children(init);
                match c.first() {
                    Some(&c) => self.init_object(o, c, span),
                    None => Ok(()),
                }
            }
            _ => {
                let rv = self.rvalue(init)?;
                self.store(LV::Obj(o), rv, span)
            }
        }
    }
}
