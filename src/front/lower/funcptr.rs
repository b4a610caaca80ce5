//! Function pointers. A device function's address is a number (`Region::Code` with the number
//! as its offset; null is 0), so pointers to functions are assigned, compared and passed like
//! other pointers. A call through one dispatches over the functions it may hold: those of this
//! translation unit whose address is taken somewhere and whose parameters match the call, each
//! inlined under the test `pointer == its number`. That closed world is what whole-program
//! compilation (nvcc's and Clang's default) allows; a note says so at each such call. A value
//! that is none of them (null) faults: what the thread did before the call is checked, and the
//! path goes no further (an assumption that it is one of them, not a thread that exits early
//! and leaves the others at a barrier).

use super::expr::Value;
use super::lowerer::Lowerer;
use super::values::{CodeAddr, Pointer, Region, RV};
use crate::front::ast::{NodeId, NodeKind, UnaryOp};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::{BinOp, Expr, Op, ScalarTy, Span, StmtKind};

impl<'a> Lowerer<'a> {
    /// The functions whose address is taken anywhere in the translation unit (a reference to
    /// a function that is not the callee of a call), numbered from 1 in declaration order.
    pub(crate) fn address_taken(&mut self) -> &[CodeAddr] {
        if self.code_addrs.is_none() {
            let table = self.collect_address_taken();
            self.code_addrs = Some(table);
        }
        self.code_addrs.as_deref().unwrap_or(&[])
    }

    fn collect_address_taken(&self) -> Vec<CodeAddr> {
        let ast = self.ast;
        let mut direct = std::collections::HashSet::new();
        let mut referenced = Vec::new();
        for i in 0..ast.nodes.len() {
            let n = i as NodeId;
            match ast.kind(n) {
                NodeKind::CallExpr | NodeKind::CUDAKernelCallExpr => {
                    if let Some(c) = ast.children(n).next() {
                        direct.insert(self.strip(c));
                    }
                }
                NodeKind::DeclRefExpr => {
                    if let Some(r) = ast.node(n).attrs.referenced {
                        if r.kind == NodeKind::FunctionDecl {
                            referenced.push((n, r.id));
                        }
                    }
                }
                _ => {}
            }
        }
        let mut defs: Vec<(u64, NodeId)> = referenced
            .into_iter()
            .filter(|(n, _)| !direct.contains(n))
            .filter_map(|(_, id)| {
                let def = self.types.definition(id);
                let node = ast.decl_node(def)?;
                let has_body = ast.children(node).any(|c| ast.kind(c) == NodeKind::CompoundStmt);
                has_body.then_some((def, node))
            })
            .collect();
        defs.sort_unstable();
        defs.dedup();
        defs.iter()
            .enumerate()
            .map(|(i, &(_, def))| CodeAddr {
                code: i as i64 + 1,
                def,
            })
            .collect()
    }

    /// The pointer value of function `decl` (a reference to it used as a value).
    pub(crate) fn function_address(&mut self, decl: u64, span: Span) -> FResult<Pointer> {
        let def = self.types.definition(decl);
        let node = self.ast.decl_node(def);
        let code = self
            .address_taken()
            .iter()
            .find(|c| Some(c.def) == node)
            .map(|c| c.code)
            .ok_or_else(|| {
                let name = self.ast.qual_name(decl).unwrap_or("?").to_string();
                FrontError::unsupported(span, format!("the address of `{name}`, which has no body here"))
                    .with_help(format!("define `{name}` in this file"))
            })?;
        Ok(Pointer {
            region: Region::Code,
            off: Expr::Const(code, ScalarTy::U64),
            pointee: CType::Func,
        })
    }

    /// A function-typed expression as the pointer it decays to: `f`, `&f`, `*p`, `(*p)`.
    pub(crate) fn code_pointer(&mut self, e: NodeId) -> FResult<Pointer> {
        let ast = self.ast;
        let e = self.strip(e);
        let span = self.span(e);
        match ast.kind(e) {
            NodeKind::DeclRefExpr => {
                if let Some(r) = ast
                    .node(e)
                    .attrs
                    .referenced
                    .filter(|r| r.kind == NodeKind::FunctionDecl)
                {
                    return self.function_address(r.id, span);
                }
            }
            NodeKind::UnaryOperator => {
                let op = ast.unary_op(e);
                if let (Some(c), Some(UnaryOp::Deref | UnaryOp::AddrOf)) = (self.expr_children(e).first().copied(), op)
                {
                    return self.code_pointer(c);
                }
            }
            // A function pointer given as a template argument (`template <deq_t f>`): the
            // instantiation substitutes the function (`&f`).
            NodeKind::SubstNonTypeTemplateParmExpr => {
                if let Some(c) = ast.children(e).filter(|&c| !ast.is_decl(c)).last() {
                    return self.code_pointer(c);
                }
            }
            _ => {}
        }
        self.pointer(e)
    }

    /// A call whose callee is an expression (a function pointer), not a named function.
    pub(crate) fn indirect_call(&mut self, n: NodeId, callee: NodeId, args: &[NodeId]) -> FResult<Value> {
        let span = self.span(n);
        let p = self.code_pointer(callee)?;
        if !matches!(p.region, Region::Code | Region::Null) {
            return Err(
                FrontError::unsupported(span, "a call through a pointer that holds no function")
                    .with_help("call the __device__ function by name"),
            );
        }
        let cands = self.call_candidates(args);
        if cands.is_empty() {
            return Err(FrontError::unsupported(
                span,
                "a call through a function pointer that may hold no function of this file",
            )
            .with_help("take the address of the functions it may call in this file, or call by name"));
        }
        let names: Vec<String> = cands.iter().map(|c| format!("`{}`", self.ast.name(c.def))).collect();
        self.notes.push((
            span,
            format!(
                "call through a function pointer: it may call {} (the functions of this file whose address is taken and whose parameters match; whole-program compilation)",
                names.join(", ")
            ),
        ));
        let target = self.temp(ScalarTy::U64);
        self.ops.push(Op::Assign(target, p.off));
        self.flush(false);
        let rt = self.type_of(n);
        let result = match &rt {
            CType::Void => None,
            t if t.is_integral() || matches!(t, CType::Float(_) | CType::Bool) => Some(self.temp(t.scalar())),
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    "a call through a function pointer whose result is not a number",
                ))
            }
        };
        self.dispatch(&cands, target, result.map(|v| (v, rt.clone())), args, n, span)?;
        Ok(Value::R(match result {
            Some(v) => RV::Scalar(Expr::Var(v), rt),
            None => RV::Void,
        }))
    }

    /// `if (target == c1) c1(args) else if (target == c2) ... else assume(false)`.
    fn dispatch(
        &mut self,
        cands: &[CodeAddr],
        target: autosync_oracle::ir::VarId,
        result: Option<(autosync_oracle::ir::VarId, CType)>,
        args: &[NodeId],
        call: NodeId,
        span: Span,
    ) -> FResult<()> {
        let Some((first, rest)) = cands.split_first() else {
            // None of them (null): the call faults, and nothing after it runs.
            self.push_synthetic(StmtKind::Assume(Expr::bool(false)));
            return Ok(());
        };
        let cond = Expr::Bin(
            BinOp::Eq,
            ScalarTy::U64,
            Box::new(Expr::Var(target)),
            Box::new(Expr::Const(first.code, ScalarTy::U64)),
        );
        let then_blk = self.sub_block(|lw| {
            let v = match lw.inline(first.def, None, args, call, span)? {
                Value::R(rv) => rv,
                Value::L(lv) => lw.load(lv, span)?,
            };
            match (&result, v) {
                (Some((r, t)), RV::Scalar(e, et)) => lw.ops.push(Op::Assign(*r, super::convert::convert(e, &et, t))),
                (Some((r, t)), _) => lw.ops.push(Op::Assign(*r, Expr::Unknown(t.scalar()))),
                (None, _) => {}
            }
            Ok(())
        })?;
        let else_blk = self.sub_block(|lw| lw.dispatch(rest, target, result.clone(), args, call, span))?;
        self.push_synthetic(StmtKind::If {
            cond,
            then_blk,
            else_blk,
        });
        Ok(())
    }

    /// The address-taken functions a call with these arguments may reach: same number of
    /// parameters, each of the argument's type (Clang converted the arguments to the
    /// pointer's parameter types).
    fn call_candidates(&mut self, args: &[NodeId]) -> Vec<CodeAddr> {
        let arg_types: Vec<CType> = args.iter().map(|&a| self.type_of(a)).collect();
        let all = self.address_taken().to_vec();
        all.into_iter()
            .filter(|c| {
                let params: Vec<NodeId> = self.ast.children_of_kind(c.def, NodeKind::ParmVarDecl).collect();
                params.len() == arg_types.len()
                    && params
                        .iter()
                        .zip(&arg_types)
                        .all(|(&p, t)| self.type_of(p).unref() == t.unref())
            })
            .collect()
    }
}
