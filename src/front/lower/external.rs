//! Calls of functions declared in the user's code with no body in this translation unit
//! (compiled separately, with `-rdc`). autosync cannot inline them, so it models what they can
//! do to the memory this kernel shares, and no less: every element of every array reachable
//! from the arguments and of every device variable of the file may be read and written (one
//! update at an unknown element per array stands for any set of accesses, so every access of
//! the kernel's own code to that array that no barrier orders with the call races with it),
//! pointer variables passed by address may be re-pointed, references may be assigned, and the
//! result is a fresh value per thread. Accesses of two calls are not compared with each other:
//! whether they race depends on the callee's body, which is its own file's to check.
//!
//! Assumed, as for pointer parameters (DESIGN: they do not alias unless the user says so):
//! separately compiled code reaches the kernel's buffers only through what it is given and the
//! file's device variables. What the model cannot bound stops the kernel (exit 4): a call where
//! not every thread of the block may call it (its body may hold a barrier, which would
//! diverge), a method call, a pointer into a local object, to code, or of unknown origin, a
//! thread group argument.

use super::expr::Value;
use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::{NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

impl Lowerer<'_> {
    /// Lowers a call of `name` (declaration `f`, no body here) by the model above.
    pub(crate) fn external_call(
        &mut self,
        this: Option<NodeId>,
        args: &[NodeId],
        f: NodeId,
        n: NodeId,
        span: Span,
        name: &str,
    ) -> FResult<Value> {
        let refuse = |why: &str| {
            Err(FrontError::unsupported(
                span,
                format!("`{name}` has no body in this translation unit, and {why}"),
            )
            .with_help(format!(
                "define `{name}` in the file or an included header, or declare it known-pure with --assume-pure {name}"
            )))
        };
        if self.blocks.len() > 1 || self.exited {
            return refuse(
                "it is called where not every thread of the block may call it (its body may hold a barrier)",
            );
        }
        if this.is_some() {
            return refuse("it is a method (what it does to its object is unknown)");
        }
        let params: Vec<CType> = self
            .ast
            .children_of_kind(f, NodeKind::ParmVarDecl)
            .map(|p| self.type_of(p))
            .collect();
        let mut reach = Vec::new();
        for (i, &a) in args.iter().enumerate() {
            if matches!(params.get(i), Some(CType::Ref(_))) {
                let lv = self.lvalue(a)?;
                self.clobber(lv, &mut reach, name, span)?;
                continue;
            }
            match self.rvalue(a)? {
                RV::Ptr(p) => reach.push(p.region),
                RV::Obj(o) => self.obj_regions(o, &mut reach),
                RV::Scalar(..) if self.holds_address(a) => {
                    return refuse("it is given an address as a number (it may write through it)")
                }
                RV::Scalar(..) | RV::Void => {}
                RV::Group(_) => return refuse("it is given a thread group (it may synchronize it)"),
            }
        }
        reach.extend(self.file_variables(span)?);
        for r in reach {
            if let Err(why) = self.havoc(r, name, span) {
                return refuse(&why);
            }
        }
        self.notes.push((
            span,
            format!(
                "{}`{name}` has no body in this file: it is modelled as reading and writing any element of the memory it is given and of the file's device variables, and as reaching no other buffer of this kernel (declare it with --assume-pure {name} if it touches no memory)",
                crate::front::ASSUMPTION
            ),
        ));
        self.opaque_result(n, span, name)
    }

    /// Whether any part of expression `n` is an address held as an integer.
    fn holds_address(&self, n: NodeId) -> bool {
        let mut found = false;
        self.ast.walk(n, &mut |x| found |= self.derived_address(x));
        found
    }

    /// A by-reference argument: the callee may assign it.
    fn clobber(&mut self, lv: LV, reach: &mut Vec<Region>, name: &str, span: Span) -> FResult<()> {
        match lv {
            LV::Var(v, t) => {
                self.ops.push(Op::Assign(v, Expr::Unknown(t.scalar())));
            }
            LV::Ptr(s) => reach.push(Region::Slot(s)),
            LV::Mem(p) => reach.push(p.region()),
            LV::Obj(o) => {
                return Err(FrontError::unsupported(
                    span,
                    format!(
                        "`{name}` has no body here and is given the object `{}` by reference",
                        self.objs[o].name
                    ),
                ))
            }
            LV::Const(..) | LV::Group(_) => {}
        }
        Ok(())
    }

    /// The regions of the pointer and reference fields of object `o` (and of its member
    /// objects).
    fn obj_regions(&self, o: usize, out: &mut Vec<Region>) {
        for b in self.objs[o].fields.values() {
            match b {
                Binding::Ptr(s) => out.push(self.slots[*s].region.clone()),
                Binding::Mem(p) => out.push(p.region()),
                Binding::Obj(inner) => self.obj_regions(*inner, out),
                _ => {}
            }
        }
    }

    /// The writable device variables the file declares (`__device__`, `__managed__`,
    /// `__shared__` at namespace scope), outside system headers.
    fn file_variables(&mut self, span: Span) -> FResult<Vec<Region>> {
        let ast = self.ast;
        let mut todo: Vec<NodeId> = ast.roots.clone();
        let mut out = Vec::new();
        while let Some(d) = todo.pop() {
            match ast.kind(d) {
                NodeKind::NamespaceDecl | NodeKind::LinkageSpecDecl => todo.extend(ast.children(d)),
                NodeKind::VarDecl if self.is_file_device_var(d) => {
                    let id = ast.node(d).id;
                    let name = ast.name(d).to_string();
                    if let Value::L(LV::Mem(p)) = self.global_var(id, &name, span)? {
                        out.push(p.region());
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn is_file_device_var(&self, d: NodeId) -> bool {
        let ast = self.ast;
        let space = ast.has_attr(d, NodeKind::CUDADeviceAttr)
            || ast.has_attr(d, NodeKind::CUDAManagedAttr)
            || ast.has_attr(d, NodeKind::CUDASharedAttr);
        space && !ast.has_attr(d, NodeKind::CUDAConstantAttr) && !ast.decl_is_system(ast.node(d).id)
    }

    /// What the callee may do through a pointer into `r`: read and write any element of the
    /// arrays, re-point a pointer variable. `Err` says why it cannot be bounded.
    fn havoc(&mut self, r: Region, name: &str, span: Span) -> Result<(), String> {
        let arrays = match r {
            Region::Array(a) => vec![a],
            Region::Choice(arrays, _) => arrays,
            Region::Null => vec![],
            Region::Slot(s) => {
                self.slots[s].region = Region::Unknown(format!("a pointer `{name}` may have set"));
                return Ok(());
            }
            Region::Obj(o) => {
                return Err(format!(
                    "it is given a pointer into the local object `{}`",
                    self.objs[o].name
                ))
            }
            Region::Code => return Err("it is given a function's address (it may call it)".into()),
            Region::Unknown(why) => return Err(format!("it is given {why}")),
        };
        for a in arrays {
            if let Some(slots) = self.pointer_arrays.get(&a).cloned() {
                // An array of pointers it may fill: each element may now point anywhere.
                for s in slots {
                    self.slots[s].region = Region::Unknown(format!("a pointer `{name}` may have set"));
                }
                continue;
            }
            if self.pointer_tables.contains_key(&a) {
                return Err(format!(
                    "it is given `{}`, an array of pointers",
                    self.arrays[a.0 as usize].name
                ));
            }
            let arr = &self.arrays[a.0 as usize];
            if arr.space == Space::Local {
                // Thread-private memory never races; its contents are opaque anyway.
                continue;
            }
            // Any element (a 32-bit unknown index: witnesses stay non-negative), read and
            // written: as an atomic update, which races with the kernel's own accesses but not
            // with another call's (whether two calls race is a question about the callee's
            // body, which its own file answers).
            let size = arr.elem_size.max(1);
            let index = Expr::Cast(ScalarTy::U64, Box::new(Expr::Unknown(ScalarTy::U32)));
            let access = Access {
                array: a,
                kind: AccessKind::Atomic,
                offset: Expr::Bin(
                    BinOp::Mul,
                    ScalarTy::U64,
                    Box::new(index),
                    Box::new(Expr::Const(size as i64, ScalarTy::U64)),
                ),
                size,
                span,
            };
            self.ops.push(Op::Atomic(None, access, AtomicOp::Other));
        }
        Ok(())
    }

    /// The value of a call whose result autosync cannot know: fresh per thread.
    pub(crate) fn opaque_result(&mut self, n: NodeId, span: Span, name: &str) -> FResult<Value> {
        let rt = self.type_of(n);
        Ok(Value::R(match rt {
            CType::Void => RV::Void,
            CType::Record(r) => RV::Obj(self.new_obj(r, &format!("{name}()"), span)?),
            CType::Ptr(p) => RV::Ptr(Pointer {
                region: Region::Unknown(format!("a pointer returned by `{name}`")),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: *p,
            }),
            t => RV::Scalar(Expr::Unknown(t.scalar()), t),
        }))
    }
}
