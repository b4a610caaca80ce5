//! Initializers: initializer lists, value-initialization, lambdas as objects, fields and
//! arrays initialized in place, and the trivial-destructor check of temporaries.

use super::value::*;
use crate::front::ast::{NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// A brace initializer used as a value: a new object, or its scalar element.
    pub(super) fn init_list(&mut self, n: NodeId, span: Span) -> FResult<Value> {
        let ast = self.ast;
        let t = self.type_of(n);
        match t {
            CType::Record(r) => {
                let o = self.new_obj(r, "$init", span)?;
                self.init_obj_list(o, n, span)?;
                Ok(Value::R(RV::Obj(o)))
            }
            t if t.is_integral() || matches!(t, CType::Float(_) | CType::Ptr(_)) => match ast.children(n).next() {
                Some(c) => self.eval(c),
                None => Ok(Value::R(RV::Scalar(Expr::Const(0, t.scalar()), t))),
            },
            _ => Err(FrontError::unsupported(
                span,
                "a brace initializer of this type is not supported",
            )),
        }
    }

    /// A value-initialized (zero, null, or fresh-object) value of the node's type.
    pub(super) fn value_init(&mut self, n: NodeId, span: Span) -> FResult<Value> {
        let t = self.type_of(n);
        match t {
            CType::Ptr(p) => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: *p,
            }))),
            CType::Record(r) => Ok(Value::R(RV::Obj(self.new_obj(r, "$init", span)?))),
            t => Ok(Value::R(RV::Scalar(Expr::Const(0, t.scalar()), t))),
        }
    }

    /// Refuses objects whose destructor does something (autosync would have to run it).
    pub(crate) fn check_trivial_dtor(&self, dtor: u64, span: Span) -> FResult<()> {
        let def = self.types.definition(dtor);
        let Some(d) = self.ast.decl_node(def) else {
            // System destructors: none of the modelled library types has one with effects.
            return Ok(());
        };
        let body = self.ast.children_of_kind(d, NodeKind::CompoundStmt).next();
        if body.is_some_and(|b| self.ast.children(b).next().is_some()) {
            return Err(FrontError::unsupported(
                span,
                format!("destructor `{}` has effects autosync does not run", self.ast.name(d)),
            ));
        }
        Ok(())
    }

    /// A lambda: an object of its closure type holding the captures.
    pub(super) fn lambda(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let rec = ast
            .children_of_kind(n, NodeKind::CXXRecordDecl)
            .next()
            .ok_or_else(|| FrontError::unsupported(span, "lambda without a closure class"))?;
        let rec_id = ast.node(rec).id;
        if let Some(t) = ast.node(n).ty {
            self.types.add_lambda(ast.type_str(t), rec_id);
        }
        let o = self.new_obj(rec_id, "$lambda", span)?;
        let layout = self
            .types
            .layout(rec_id)
            .map_err(|m| FrontError::unsupported(span, m))?;
        // Capture initializers follow the class, one per field, before the body.
        let inits: Vec<NodeId> = ast
            .children(n)
            .filter(|&c| {
                !matches!(
                    ast.kind(c),
                    NodeKind::CXXRecordDecl | NodeKind::CompoundStmt | NodeKind::ParmVarDecl
                )
            })
            .collect();
        for (f, init) in layout.fields.iter().zip(inits) {
            self.init_field(o, f.id, &f.ty, init, span)?;
        }
        Ok(Value::R(RV::Obj(o)))
    }

    /// The field of object `o` that a field declaration only the precompiled prelude shows
    /// stands for: a record autosync lays out itself (`__half`, the vector types) numbers its
    /// fields apart, so the prelude's field is found by its name.
    fn prelude_field(&self, o: usize, fid: u64) -> Option<u64> {
        let d = self.ast.decls.get(&fid).filter(|d| d.node.is_none())?;
        let name = self.ast.str(d.name);
        let layout = self.types.layout(self.objs[o].record).ok()?;
        layout.fields.iter().find(|f| f.name == name).map(|f| f.id)
    }

    /// Initializes field `fid` of object `o` from expression `init`.
    pub(crate) fn init_field(&mut self, o: usize, fid: u64, ty: &CType, init: NodeId, span: Span) -> FResult<()> {
        if let CType::Ref(_) = ty {
            let lv = self.lvalue(init)?;
            let b = self.lv_binding(lv);
            self.objs[o].fields.insert(fid, b);
            return Ok(());
        }
        let dst = self.objs[o]
            .fields
            .get(&fid)
            .or_else(|| self.prelude_field(o, fid).and_then(|f| self.objs[o].fields.get(&f)))
            .cloned()
            .ok_or_else(|| FrontError::unsupported(span, "initializer for an unknown field"))?;
        let dst = self.binding_lv(&dst);
        match (&dst, self.ast.kind(init)) {
            (LV::Obj(d), NodeKind::InitListExpr) => self.init_obj_list(*d, init, span),
            (LV::Mem(p), NodeKind::InitListExpr) if self.arrays[p.array.0 as usize].space == Space::Local => {
                // Local arrays never race; evaluate the elements for their effects.
                for c in self.expr_children(init) {
                    self.discard(c)?;
                }
                Ok(())
            }
            (LV::Obj(d), NodeKind::CXXConstructExpr) => self.construct_into(*d, init),
            (_, NodeKind::ArrayInitLoopExpr) => self.copy_array(dst, init, span),
            _ => {
                let rv = self.rvalue(init)?;
                self.store(dst, rv, span)
            }
        }
    }

    /// An array member copied element by element (`ArrayInitLoopExpr`, what Clang writes for
    /// an array member in an implicit copy constructor or a lambda's capture): a read of the
    /// whole source array and a write of the whole destination, except where either is a
    /// local array (local arrays never race; their contents are opaque).
    pub(super) fn copy_array(&mut self, dst: LV, init: NodeId, span: Span) -> FResult<()> {
        let src = self
            .expr_children(init)
            .first()
            .and_then(|&o| self.expr_children(o).first().copied())
            .ok_or_else(|| FrontError::input(span, "an array copy without a source"))?;
        let local = |l: &Self, p: &Place| l.arrays[p.array.0 as usize].space == Space::Local;
        match self.lvalue(src)? {
            LV::Mem(p) if !local(self, &p) => {
                self.read(&p)?;
            }
            LV::Mem(_) => {}
            other => {
                return Err(FrontError::unsupported(
                    span,
                    format!("an array copy from {}", lv_what(&other)),
                ))
            }
        }
        match dst {
            LV::Mem(p) if !local(self, &p) => self.write(&p, Expr::Unknown(ScalarTy::Opaque)),
            LV::Mem(_) => Ok(()),
            other => Err(FrontError::unsupported(
                span,
                format!("an array copy into {}", lv_what(&other)),
            )),
        }
    }

    /// Aggregate initialization `T x = {a, b, ...}`: fields in order.
    pub(crate) fn init_obj_list(&mut self, o: usize, list: NodeId, span: Span) -> FResult<()> {
        let rec = self.objs[o].record;
        let layout = self.types.layout(rec).map_err(|m| FrontError::unsupported(span, m))?;
        let elems = self.expr_children(list);
        // Direct fields only (aggregate bases come first as whole objects; rare in kernels).
        let direct: Vec<&crate::front::lower::types::Field> = layout
            .fields
            .iter()
            .filter(|f| self.ast.decls.get(&f.id).and_then(|d| d.parent) == Some(rec) || layout.bases.is_empty())
            .collect();
        for (f, e) in direct.into_iter().zip(elems) {
            if self.ast.kind(e) == NodeKind::ImplicitValueInitExpr {
                continue;
            }
            self.init_field(o, f.id, &f.ty.clone(), e, span)?;
        }
        Ok(())
    }
}
