//! Memory places: loads and stores of scalars, pointers and objects, pointer variables'
//! regions (a choice of arrays where paths disagree), dereferences and the parts of local objects.

use super::value::*;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// Reads a glvalue.
    pub(crate) fn load(&mut self, lv: LV, span: Span) -> FResult<RV> {
        Ok(match lv {
            LV::Var(v, t) => RV::Scalar(Expr::Var(v), t),
            LV::Const(v, t) => RV::Scalar(Expr::Const(v, t.scalar()), t),
            LV::Ptr(s) => {
                let sl = &self.slots[s];
                RV::Ptr(Pointer {
                    region: sl.region.clone(),
                    off: sl.off.expr(),
                    pointee: sl.pointee.clone(),
                })
            }
            LV::Obj(o) => RV::Obj(o),
            LV::Group(g) => RV::Group(g),
            LV::Mem(p) => match p.ty.clone() {
                CType::Ptr(_) if p.alt.is_none() && self.pointer_arrays.contains_key(&p.array) => {
                    RV::Ptr(self.pointer_array_load(p.array, &p.off, span)?)
                }
                CType::Ptr(pointee) if p.alt.is_none() && self.pointer_tables.contains_key(&p.array) => {
                    RV::Ptr(Pointer {
                        region: self.table_entry(p.array, &p.off, span)?,
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: *pointee,
                    })
                }
                CType::Ptr(pointee) => {
                    self.read(&p)?;
                    RV::Ptr(Pointer {
                        region: Region::Unknown(format!(
                            "a pointer read from memory (`{}`)",
                            self.arrays[p.array.0 as usize].name
                        )),
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: *pointee,
                    })
                }
                CType::Record(r) => {
                    // A whole object read from memory: one access; its fields are unknown.
                    self.read(&p)?;
                    let name = format!("{}[]", self.arrays[p.array.0 as usize].name);
                    RV::Obj(self.new_obj(r, &name, span)?)
                }
                CType::Array(e, _) => RV::Ptr(Pointer {
                    region: p.region(),
                    off: p.off,
                    pointee: *e,
                }),
                t => {
                    let e = self.read(&p)?;
                    RV::Scalar(e, t)
                }
            },
        })
    }

    /// Emits a read of a memory location into a fresh temp; returns the temp.
    pub(crate) fn read(&mut self, p: &Place) -> FResult<Expr> {
        if let Some(alt) = p.alt.clone() {
            let t = self.temp(p.ty.scalar());
            self.in_each_array(p, &alt, &mut |lw, place| {
                let v = lw.read(place)?;
                lw.ops.push(Op::Assign(t, v));
                Ok(())
            })?;
            return Ok(Expr::Var(t));
        }
        let size = self.size_of(&p.ty, p.span)? as u32;
        let t = self.temp(p.ty.scalar());
        self.ops.push(Op::Read(
            Some(t),
            Access {
                array: p.array,
                kind: AccessKind::Read,
                offset: p.off.clone(),
                size,
                span: p.span,
            },
        ));
        Ok(Expr::Var(t))
    }

    /// Emits a write of `value` to a memory location.
    pub(crate) fn write(&mut self, p: &Place, value: Expr) -> FResult<()> {
        if self.pointer_arrays.contains_key(&p.array) || self.pointer_tables.contains_key(&p.array) {
            // Their elements are followed as pointers: only a pointer stored into one element
            // (`store`) keeps them right; a block copy or a number would not.
            return Err(FrontError::unsupported(
                p.span,
                format!(
                    "a write into `{}`, an array of pointers, that is not a pointer stored into one element",
                    self.arrays[p.array.0 as usize].name
                ),
            ));
        }
        if let Some(alt) = p.alt.clone() {
            return self.in_each_array(p, &alt, &mut |lw, place| lw.write(place, value.clone()));
        }
        let size = self.size_of(&p.ty, p.span)? as u32;
        self.ops.push(Op::Write(
            Access {
                array: p.array,
                kind: AccessKind::Write,
                offset: p.off.clone(),
                size,
                span: p.span,
            },
            value,
        ));
        Ok(())
    }

    /// Runs `f` on the place in each array of a choice, under `if (selector == i)`.
    pub(super) fn in_each_array(
        &mut self,
        p: &Place,
        alt: &(Vec<ArrayId>, Expr),
        f: &mut dyn FnMut(&mut Self, &Place) -> FResult<()>,
    ) -> FResult<()> {
        let (arrays, sel) = alt;
        // The statement's operations so far run first.
        self.flush(false);
        let mut tail: Option<Block> = None;
        for (i, a) in arrays.iter().enumerate().rev() {
            let place = Place {
                array: *a,
                alt: None,
                ..p.clone()
            };
            let then_blk = self.sub_block(|lw| f(lw, &place))?;
            if i == arrays.len() - 1 && arrays.len() > 1 {
                tail = Some(then_blk);
                continue;
            }
            let else_blk = match tail.take() {
                Some(b) => b,
                None => self.empty_block(),
            };
            let cond = Expr::Bin(
                BinOp::Eq,
                ScalarTy::U32,
                Box::new(sel.clone()),
                Box::new(Expr::Const(i as i64, ScalarTy::U32)),
            );
            let label = self.label();
            let span = self.stmt_span;
            let stmt = Stmt {
                label,
                span,
                emit_after: false,
                kind: StmtKind::If {
                    cond,
                    then_blk,
                    else_blk,
                },
            };
            if i == 0 {
                self.push(stmt);
            } else {
                let lbl = self.label();
                tail = Some(Block {
                    label: lbl,
                    span,
                    braced: false,
                    emit_start: false,
                    stmts: vec![stmt],
                });
            }
        }
        Ok(())
    }

    /// `lv = rv`.
    pub(crate) fn store(&mut self, lv: LV, rv: RV, span: Span) -> FResult<()> {
        match (lv, rv) {
            (LV::Var(v, t), RV::Scalar(e, et)) => {
                let e = convert(e, &et, &t);
                self.note_number(v, &e);
                self.ops.push(Op::Assign(v, e));
            }
            (LV::Var(v, t), RV::Ptr(p)) => {
                let number = self.address_number(&p).map(|e| convert(e, &CType::U64, &t));
                self.ops
                    .push(Op::Assign(v, number.unwrap_or(Expr::Unknown(t.scalar()))));
                if t.is_integral() && matches!(p.region, Region::Array(_)) {
                    self.hold_address(v, p, span)?;
                }
            }
            // An integer variable holding an address given another one computed from it.
            (LV::Ptr(s), RV::Scalar(e, et)) if self.provenance(&e).is_some() => {
                let pointee = self.slots[s].pointee.clone();
                let p = self
                    .pointer_from_number(&e, &et, pointee, span)
                    .expect("checked by the guard");
                self.assign_ptr(s, p, span)?;
            }
            (LV::Mem(p), RV::Ptr(ptr)) if p.alt.is_none() && self.pointer_arrays.contains_key(&p.array) => {
                self.pointer_array_store(p.array, &p.off, ptr, span)?;
            }
            (LV::Mem(p), _) if self.pointer_tables.contains_key(&p.array) => {
                return Err(FrontError::unsupported(
                    span,
                    format!(
                        "assignment into `{}`, an array of pointers in a kernel parameter",
                        self.arrays[p.array.0 as usize].name
                    ),
                )
                .with_help("keep the pointer in a local variable"));
            }
            (LV::Mem(p), rv) => {
                let value = self.stored_value(rv, &p.ty);
                self.write(&p, value)?;
            }
            (LV::Ptr(s), RV::Ptr(p)) => self.assign_ptr(s, p, span)?,
            (LV::Ptr(s), RV::Scalar(Expr::Const(0, _), _)) => {
                self.slots[s].region = Region::Null;
            }
            (LV::Obj(dst), RV::Obj(src)) => self.copy_obj(dst, src, span)?,
            (LV::Group(_), RV::Group(_)) => {}
            (LV::Const(..), _) => {
                return Err(FrontError::input(span, "assignment to a constant"));
            }
            (lv, rv) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("cannot assign {} to {}", rv_what(&rv), lv_what(&lv)),
                ))
            }
        }
        Ok(())
    }

    /// An integer variable that now holds an address (PTX-style code keeps shared addresses in
    /// `unsigned`): from here on it is a pointer to that place.
    fn hold_address(&mut self, v: VarId, p: Pointer, span: Span) -> FResult<()> {
        let ids: Vec<u64> = self
            .env
            .iter()
            .filter(|(_, b)| matches!(b, Binding::Var(x, _) if *x == v))
            .map(|(id, _)| *id)
            .collect();
        if ids.is_empty() {
            return Ok(());
        }
        let name = self.vars[v.0 as usize].name.clone();
        let ov = self.new_var(&name, ScalarTy::U64, VarKind::Temp);
        let s = self.new_slot(
            &name,
            Region::Null,
            SlotOff::Var(ov),
            CType::Int { bits: 8, signed: false },
        );
        self.assign_ptr(s, p, span)?;
        for id in ids {
            self.env.insert(id, Binding::Ptr(s));
        }
        Ok(())
    }

    /// The value a store of `rv` into memory of type `ty` writes: a scalar converted; a pointer
    /// into an array, or an object whose fields are all scalars, as an opaque function of what
    /// it holds (so that equal contents are provably equal and per-thread contents differ);
    /// anything else an [`Expr::Unknown`].
    pub(super) fn stored_value(&self, rv: RV, ty: &CType) -> Expr {
        let opaque = |parts: Vec<Expr>| Expr::Opaque(ty.scalar(), parts);
        match rv {
            RV::Scalar(e, et) if !matches!(ty, CType::Record(_)) => convert(e, &et, ty),
            RV::Scalar(e, _) => opaque(vec![e]),
            RV::Ptr(Pointer {
                region: Region::Array(a),
                off,
                ..
            }) => opaque(vec![Expr::Const(a.0 as i64, ScalarTy::U32), off]),
            RV::Ptr(Pointer {
                region: Region::Null, ..
            }) => opaque(vec![Expr::Const(0, ScalarTy::U64)]),
            RV::Obj(o) => {
                let mut parts = Vec::new();
                if self.obj_parts(o, &mut parts) {
                    opaque(parts)
                } else {
                    Expr::Unknown(ty.scalar())
                }
            }
            _ => Expr::Unknown(ty.scalar()),
        }
    }

    /// Appends the values of object `o`'s fields (in field order, nested objects flattened);
    /// false when a field holds something else (a pointer, memory).
    pub(super) fn obj_parts(&self, o: usize, parts: &mut Vec<Expr>) -> bool {
        let mut fields: Vec<(&u64, &Binding)> = self.objs[o].fields.iter().collect();
        fields.sort_by_key(|(id, _)| **id);
        fields.into_iter().all(|(_, b)| match b {
            Binding::Var(v, _) => {
                parts.push(Expr::Var(*v));
                true
            }
            Binding::Const(c, t) => {
                parts.push(Expr::Const(*c, t.scalar()));
                true
            }
            Binding::Obj(inner) => self.obj_parts(*inner, parts),
            _ => false,
        })
    }

    /// Points a pointer variable at `p`.
    pub(crate) fn assign_ptr(&mut self, s: usize, p: Pointer, span: Span) -> FResult<()> {
        let old = self.slots[s].region.clone();
        let region = match (&old, &p.region) {
            (_, Region::Null) => old.clone(),
            (
                Region::Null | Region::Unknown(_),
                Region::Array(_) | Region::Obj(_) | Region::Slot(_) | Region::Unknown(_),
            ) => p.region.clone(),
            (Region::Null | Region::Code, Region::Code) => Region::Code,
            (a, b) if a == b && !matches!(a, Region::Choice(..)) => a.clone(),
            (Region::Obj(_) | Region::Slot(_), _) | (_, Region::Obj(_) | Region::Slot(_)) | (_, Region::Unknown(_)) => {
                return Err(FrontError::unsupported(
                    span,
                    format!(
                        "pointer `{}` is re-pointed from {} to {}",
                        self.slots[s].name,
                        self.region_name(&old),
                        self.region_name(&p.region)
                    ),
                )
                .with_help("autosync follows pointers into arrays; keep pointers to objects in one variable each"))
            }
            _ => self.choose(s, &old, &p.region, span)?,
        };
        let v = match self.slots[s].off.clone() {
            SlotOff::Var(v) => v,
            SlotOff::Fixed(start) => {
                // The first assignment may be conditional: the old offset holds elsewhere.
                let v = self.new_var(&self.slots[s].name.clone(), ScalarTy::U64, VarKind::Temp);
                self.late_inits.push(Op::Assign(v, start));
                self.slots[s].off = SlotOff::Var(v);
                v
            }
        };
        self.ops.push(Op::Assign(v, p.off));
        self.slots[s].region = region;
        Ok(())
    }

    /// A pointer variable that is given several arrays over the kernel (swapped buffers)
    /// points into a choice of them: its selector variable holds the index of the array meant.
    pub(super) fn choose(&mut self, s: usize, old: &Region, new: &Region, span: Span) -> FResult<Region> {
        let name = self.slots[s].name.clone();
        let (mut arrays, sel) = match old {
            Region::Choice(arrs, Expr::Var(v)) => (arrs.clone(), *v),
            Region::Array(a) => {
                // It pointed into `a` up to here, on every path.
                let v = self.new_var(&format!("{name}$array"), ScalarTy::U32, VarKind::Temp);
                self.late_inits.push(Op::Assign(v, Expr::Const(0, ScalarTy::U32)));
                (vec![*a], v)
            }
            Region::Null | Region::Unknown(_) => {
                let v = self.new_var(&format!("{name}$array"), ScalarTy::U32, VarKind::Temp);
                (vec![], v)
            }
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    format!("pointer `{name}` autosync cannot follow"),
                ))
            }
        };
        let Some(value) = selector_value(&mut arrays, new) else {
            return Err(FrontError::unsupported(
                span,
                format!("pointer `{name}` autosync cannot follow"),
            ));
        };
        self.ops.push(Op::Assign(sel, value));
        Ok(Region::Choice(arrays, Expr::Var(sel)))
    }

    /// How a region is named in messages.
    pub(crate) fn region_name(&self, r: &Region) -> String {
        match r {
            Region::Array(a) => format!("`{}`", self.arrays[a.0 as usize].name),
            Region::Choice(arrs, _) => {
                let names: Vec<String> = arrs
                    .iter()
                    .map(|a| format!("`{}`", self.arrays[a.0 as usize].name))
                    .collect();
                format!("one of {}", names.join(", "))
            }
            Region::Obj(o) => format!("object `{}`", self.objs[*o].name),
            Region::Slot(s) => format!("pointer variable `{}`", self.slots[*s].name),
            Region::Null => "null".into(),
            Region::Code => "a function".into(),
            Region::Unknown(why) => why.clone(),
        }
    }

    /// Copies every field of `src` into `dst` (objects of the same record, or a derived object
    /// into its base: only the fields `dst` has).
    pub(crate) fn copy_obj(&mut self, dst: usize, src: usize, span: Span) -> FResult<()> {
        if dst == src {
            return Ok(());
        }
        let fields: Vec<(u64, Binding)> = self.objs[dst].fields.iter().map(|(k, v)| (*k, v.clone())).collect();
        for (fid, d) in fields {
            let Some(s) = self.objs[src].fields.get(&fid).cloned() else {
                continue;
            };
            let rv = self.load(self.binding_lv(&s), span)?;
            let lv = self.binding_lv(&d);
            match lv {
                // A reference member of a copy refers to the same thing.
                LV::Const(_, CType::Void) => {
                    self.objs[dst].fields.insert(fid, s);
                }
                // Local arrays never race and their contents are opaque: nothing to copy.
                LV::Mem(p) if self.arrays[p.array.0 as usize].space == Space::Local => {}
                lv => self.store(lv, rv, span)?,
            }
        }
        Ok(())
    }

    /// The glvalue a pointer points at.
    pub(crate) fn deref(&mut self, p: Pointer, ty: CType, span: Span) -> FResult<LV> {
        match p.region {
            Region::Array(a) => Ok(LV::Mem(Place {
                array: a,
                off: p.off,
                ty,
                span,
                alt: None,
            })),
            Region::Obj(o) => self.obj_part(o, &p.off, &ty, span),
            // The offset is 0: arithmetic on a slot's address is refused (`no_slot_arith`).
            Region::Slot(s) if matches!(ty, CType::Ptr(_)) => Ok(LV::Ptr(s)),
            Region::Slot(s) => Err(FrontError::unsupported(
                span,
                format!(
                    "pointer variable `{}` read through a pointer as another type",
                    self.slots[s].name
                ),
            )),
            Region::Choice(arrays, sel) => Ok(LV::Mem(Place {
                array: arrays[0],
                off: p.off,
                ty,
                span,
                alt: Some(std::rc::Rc::new((arrays, sel))),
            })),
            Region::Null => Err(FrontError::unsupported(
                span,
                "dereference of a pointer that points into no known array",
            )
            .with_help("initialize the pointer from a __shared__ array, a pointer parameter or a local array")),
            Region::Code => Err(FrontError::unsupported(
                span,
                "a function's code read or written as data",
            )),
            Region::Unknown(why) => Err(FrontError::unsupported(
                span,
                format!("dereference of {why}: autosync cannot tell which array it points into"),
            )
            .with_help("keep pointers in local variables or parameters")),
        }
    }

    /// What a pointer into object `o` at byte offset `off` designates as a `ty`: the object
    /// itself, or (a `reinterpret_cast` to a member's type, as cuda_fp16 writes a `__half`'s
    /// bits through an `unsigned short *`) the member at that offset whose type is exactly `ty`,
    /// looked for in nested objects too. Other bytes read as a scalar are an unknown value (see
    /// `views.rs`).
    pub(super) fn obj_part(&mut self, o: usize, off: &Expr, ty: &CType, span: Span) -> FResult<LV> {
        let rec = self.objs[o].record;
        let same_record = matches!(ty, CType::Record(r) if self.types.definition(*r) == rec);
        let at = match off {
            Expr::Const(k, _) => *k as u64,
            _ if same_record || !ty.is_scalar_like() => return Ok(LV::Obj(o)),
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    "a member of an object reached through a pointer with a variable offset",
                ))
            }
        };
        if at == 0 && (same_record || !ty.is_scalar_like()) {
            return Ok(LV::Obj(o));
        }
        let layout = self.types.layout(rec).map_err(|m| FrontError::unsupported(span, m))?;
        // An unsized view (none reaches here) keeps the old test: starts inside the member.
        let view_size = self.size_of(ty, span).unwrap_or(1);
        for f in layout.fields.iter().filter(|f| f.offset <= at) {
            let Some(b) = self.objs[o].fields.get(&f.id).cloned() else {
                continue;
            };
            match (self.binding_lv(&b), &f.ty) {
                (lv, t) if f.offset == at && t == ty => return Ok(lv),
                (LV::Obj(inner), CType::Record(_)) => {
                    // A view that ends inside the member is the member's; one that runs past
                    // it spans members of this object.
                    let size = self.size_of(&f.ty, span)?;
                    if at + view_size <= f.offset + size {
                        let inner_off = Expr::Const((at - f.offset) as i64, ScalarTy::U64);
                        return self.obj_part(inner, &inner_off, ty, span);
                    }
                }
                _ => {}
            }
        }
        self.byte_view(o, at, ty, span)
    }
}
