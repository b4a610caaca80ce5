//! Record layouts as the NVPTX target lays them out: fields and bases at their offsets,
//! sizes and alignments (explicit `alignas` included), unions.

use super::table::*;
use crate::front::ast::NodeKind;
use crate::front::ctype::CType;
use std::rc::Rc;

impl<'a> Types<'a> {
    /// Size of a type in bytes (`Err` names what is unknown).
    pub fn size_of(&self, t: &CType) -> Result<u64, String> {
        Ok(match t {
            CType::Int { bits, .. } => (*bits as u64 / 8).max(1),
            CType::Bool => 1,
            CType::Float(b) => (*b as u64 / 8).max(1),
            CType::Void => 1,
            CType::Ptr(_) => 8,
            CType::Ref(t) => return self.size_of(t),
            CType::Array(e, n) => self.size_of(e)?.saturating_mul(n.unwrap_or(1)),
            CType::Record(r) => self.layout(*r)?.size,
            CType::Func => 1,
            CType::Other(s) => return Err(format!("the size of `{s}` is unknown")),
        })
    }

    /// Alignment of a type in bytes.
    pub fn align_of(&self, t: &CType) -> Result<u64, String> {
        Ok(match t {
            CType::Array(e, _) => self.align_of(e)?,
            CType::Record(r) => self.layout(*r)?.align,
            CType::Ref(t) => self.align_of(t)?,
            t => self.size_of(t)?.clamp(1, 16),
        })
    }

    /// The layout of a record.
    pub fn layout(&self, id: u64) -> Result<Rc<Layout>, String> {
        if let Some((fields, size, align)) = crate::front::lower::vector_types::layout(id) {
            let fields = fields
                .into_iter()
                .enumerate()
                .map(|(i, (name, ty, offset))| Field {
                    id: id ^ ((i as u64 + 1) << 40),
                    name: name.to_string(),
                    ty,
                    offset,
                })
                .collect();
            return Ok(Rc::new(Layout {
                fields,
                bases: vec![],
                size,
                align,
                union: false,
            }));
        }
        let id = self.definition(id);
        if let Some(l) = self.layouts.borrow().get(&id) {
            return l.clone();
        }
        // Mark as in progress: a record containing itself is an error, not a stack overflow.
        self.layouts
            .borrow_mut()
            .insert(id, Err(format!("record `{}` contains itself", self.record_name(id))));
        // Member typedefs of this record (of this specialization, not of its template) name its
        // fields' types: it is the context they are resolved in.
        let saved = self.context.replace(self.context_of(id));
        let l = self.compute_layout(id).map(Rc::new);
        *self.context.borrow_mut() = saved;
        self.layouts.borrow_mut().insert(id, l.clone());
        l
    }

    /// Whether record `derived` is `base` or has it among its (transitive) bases.
    pub fn derives_from(&self, derived: u64, base: u64) -> bool {
        let base = self.definition(base);
        let mut stack = vec![self.definition(derived)];
        while let Some(r) = stack.pop() {
            if r == base {
                return true;
            }
            if let Ok(l) = self.layout(r) {
                stack.extend(l.bases.iter().map(|(b, _)| self.definition(*b)));
            }
        }
        false
    }

    /// The qualified name of a record (for messages).
    pub fn record_name(&self, id: u64) -> String {
        if let Some(n) = crate::front::lower::vector_types::name_of(id) {
            return n.to_string();
        }
        self.ast.qual_name(id).unwrap_or("<record>").to_string()
    }

    fn compute_layout(&self, id: u64) -> Result<Layout, String> {
        let d = self
            .ast
            .decls
            .get(&id)
            .ok_or_else(|| "a record autosync has not seen".to_string())?;
        // Known only from references to it (a precompiled prelude's record): its fields are
        // not in the dump, and an empty layout would give it a wrong size.
        if self.ast.decl_node(id).is_none() && d.members.is_empty() {
            return Err(format!(
                "the layout of `{}` is unknown (its definition is not in the dump)",
                d.qual
            ));
        }
        let scope = d.qual.clone();
        let union = self
            .ast
            .decl_node(id)
            .and_then(|n| self.ast.node(n).attrs.tag)
            .is_some_and(|t| self.ast.str(t) == "union");
        let mut off = 0u64;
        let mut align = 1u64;
        let mut size = 0u64;
        let mut fields = Vec::new();
        let mut bases = Vec::new();
        // Bases first, in order; an empty base takes no room (the empty-base optimization).
        if let Some(n) = self.ast.decl_node(id) {
            for b in self.ast.node(n).attrs.bases.clone() {
                let bt = self.resolve(self.ast.type_str(b), &self.scope_of(id));
                let CType::Record(bid) = bt else {
                    return Err(format!(
                        "base class `{}` of `{}` is unknown",
                        self.ast.type_str(b),
                        d.qual
                    ));
                };
                let bl = self.layout(bid)?;
                let empty = bl.fields.is_empty();
                let ba = bl.align;
                align = align.max(ba);
                let at = if empty { 0 } else { off.div_ceil(ba) * ba };
                bases.push((bid, at));
                for f in &bl.fields {
                    fields.push(Field {
                        offset: at + f.offset,
                        ..f.clone()
                    });
                }
                if !empty {
                    off = at + bl.size;
                    size = size.max(off);
                }
            }
        }
        let explicit_align = self.explicit_align(id);
        for m in &d.members {
            let md = &self.ast.decls[m];
            if md.kind != NodeKind::FieldDecl {
                continue;
            }
            let ty = match md.ty {
                Some(t) => self.resolve(self.ast.type_str(t), &scope),
                None => return Err(format!("field `{}` of `{}` has no type", self.ast.str(md.name), d.qual)),
            };
            let fsize = self.size_of(&ty)?;
            let falign = self.align_of(&ty)?;
            align = align.max(falign);
            let at = if union { 0 } else { off.div_ceil(falign) * falign };
            fields.push(Field {
                id: *m,
                name: self.ast.str(md.name).to_string(),
                ty,
                offset: at,
            });
            off = if union { off.max(fsize) } else { at + fsize };
            size = size.max(off);
        }
        if let Some(a) = explicit_align {
            align = align.max(a);
        }
        let size = size.max(1).div_ceil(align) * align;
        Ok(Layout {
            fields,
            bases,
            size,
            align,
            union,
        })
    }

    /// `__align__(N)` / `alignas(N)` on a record definition.
    fn explicit_align(&self, id: u64) -> Option<u64> {
        let n = self.ast.decl_node(id)?;
        self.declared_align(n)
    }

    /// `__align__(N)` / `alignas(N)` on declaration `n` (a variable or a record).
    pub fn declared_align(&self, n: crate::front::ast::NodeId) -> Option<u64> {
        let attr = self.ast.children_of_kind(n, NodeKind::AlignedAttr).next()?;
        let arg = self.ast.children(attr).next()?;
        self.attr_value(arg).and_then(|v| u64::try_from(v).ok())
    }
}
