//! GPUVerify's annotation vocabulary (declared in `clang/shim/autosync_annotations.h`), honoured
//! soundly. Preconditions, assumptions and axioms become `Assume` statements, conjunct by
//! conjunct, for the conjuncts that speak about one thread without touching memory; a conjunct
//! autosync cannot state (a fact relating two threads, an access predicate, a memory read) is
//! dropped with a note, which only widens the executions checked. Invariants, assertions,
//! postconditions and access predicates are accepted and noted, never assumed: autosync checks
//! races and barriers, not the verifier's proof obligations. The predicates that have a value
//! in autosync's model are exact (`__implies`, `__enabled`, `__ptr_offset_bytes`, `__ite`).

use super::convert::*;
use super::expr::Value;
use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::{BinaryOp, NodeId, NodeKind, UnaryOp};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::intrinsics::{self, Model};
use autosync_oracle::ir::*;

/// The prefix of the constants `__axiom(E)` declares (see the annotations header).
pub(crate) const AXIOM_PREFIX: &str = "__autosync_axiom_";

/// What an annotation function is to the lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Its condition is assumed (conjuncts autosync can state).
    Assume,
    /// A proof obligation or a hint to the verifier: accepted and noted.
    Note,
    /// `__requires_fresh_array(p)`: a fact autosync's model of parameters already holds.
    FreshArray,
    /// Switches GPUVerify's logging of loads; nothing to do.
    Silent,
    /// A predicate or value autosync computes exactly.
    Exact,
    /// A value only the verifier knows (the other thread's, the access log's, the return
    /// value in a postcondition): unknown to autosync.
    Unknown,
}

/// The role of an annotation function, by name; `None` for other functions.
fn role(name: &str) -> Option<Role> {
    Some(match name {
        "__requires" | "__global_requires" | "__assume" | "bugle_assume" | "__builtin_assume" | "assume" => {
            Role::Assume
        }
        "__ensures"
        | "__global_ensures"
        | "__assert"
        | "__global_assert"
        | "__candidate_assert"
        | "__candidate_global_assert"
        | "__invariant"
        | "__global_invariant"
        | "__candidate_invariant"
        | "__candidate_global_invariant"
        | "__function_wide_invariant"
        | "__function_wide_candidate_invariant"
        | "__barrier_invariant"
        | "__binary_barrier_invariant"
        | "__reads_from"
        | "__writes_to"
        | "__array_snapshot" => Role::Note,
        "__requires_fresh_array" => Role::FreshArray,
        "__non_temporal_loads_begin" | "__non_temporal_loads_end" => Role::Silent,
        "__implies" | "__enabled" | "__dominator_enabled" | "__ptr_offset_bytes" | "__ptr_base" | "__ite" | "__add" => {
            Role::Exact
        }
        n if n.starts_with("__add_noovfl_") => Role::Exact,
        "__other_int"
        | "__other_bool"
        | "__other_ptr_base"
        | "__read"
        | "__write"
        | "__read_offset"
        | "__write_offset"
        | "__read_offset_bytes"
        | "__write_offset_bytes"
        | "__ptr_offset"
        | "__return_val_int"
        | "__return_val_bool"
        | "__return_val_ptr"
        | "__return_val_funptr"
        | "__old_int"
        | "__old_bool"
        | "__atomic_has_taken_value" => Role::Unknown,
        _ => return None,
    })
}

/// Why a value is only the verifier's, for notes.
fn unknown_why(name: &str) -> &'static str {
    if name.starts_with("__other_") {
        "it relates two threads"
    } else if name.starts_with("__return_val") || name.starts_with("__old_") {
        "it names a value of a postcondition"
    } else {
        "it reads the verifier's access log"
    }
}

impl<'a> Lowerer<'a> {
    /// Lowers a call of an annotation function named `name` (a system declaration); `None`
    /// when `name` is not one.
    pub(crate) fn annotation_call(
        &mut self,
        name: &str,
        args: &[NodeId],
        rt: &CType,
        span: Span,
    ) -> Option<FResult<Value>> {
        let role = role(name)?;
        Some(match role {
            Role::Assume => self.assume_annotation(name, args, span),
            Role::Note => self.note_annotation(name, args, span),
            Role::FreshArray => self.fresh_array(args, span),
            Role::Silent => Ok(Value::R(RV::Void)),
            Role::Exact => self.exact_annotation(name, args, rt, span),
            Role::Unknown => self.unknown_annotation(name, args, rt, span),
        })
    }

    /// `__requires(c)`, `__assume(c)`: assumes the conjuncts of `c` autosync can state.
    fn assume_annotation(&mut self, name: &str, args: &[NodeId], span: Span) -> FResult<Value> {
        let [c] = args[..] else {
            return Err(FrontError::input(span, format!("{name} takes one condition")));
        };
        self.assume_conjuncts(c, name, span)?;
        Ok(Value::R(RV::Void))
    }

    /// Assumes each conjunct of `cond` that is a fact about one thread without effects; notes
    /// the others (dropping a conjunct of an assumption only widens what is checked).
    pub(crate) fn assume_conjuncts(&mut self, cond: NodeId, what: &str, span: Span) -> FResult<()> {
        let mut parts = Vec::new();
        self.conjuncts(cond, &mut parts);
        for part in parts {
            match self.not_assumable(part) {
                None => {
                    let c = self.cond(part)?;
                    self.flush(false);
                    self.push_synthetic(StmtKind::Assume(c));
                }
                Some(why) => {
                    let at = self.span(part);
                    let at = if at.is_dummy() { span } else { at };
                    self.notes.push((
                        at,
                        format!("part of `{what}` not assumed: {why} (autosync assumes less)"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The top-level conjuncts of a condition (`a && b`, and `a & b` on truth values).
    fn conjuncts(&self, n: NodeId, out: &mut Vec<NodeId>) {
        match self.conjunction(n) {
            Some((l, r)) => {
                self.conjuncts(l, out);
                self.conjuncts(r, out);
            }
            None => out.push(n),
        }
    }

    /// The operands of `l && r`, or of `l & r` when both are truth values (GPUVerify's
    /// annotations write `a == b & c == d`, which C++ computes on `int`).
    fn conjunction(&self, n: NodeId) -> Option<(NodeId, NodeId)> {
        let ast = self.ast;
        let s = self.strip(n);
        if ast.kind(s) != NodeKind::BinaryOperator {
            return None;
        }
        let op = ast.binary_op(s)?;
        let [l, r] = self.expr_children(s)[..] else {
            return None;
        };
        let truth = |x: NodeId| matches!(self.type_of(self.strip(x)), CType::Bool) || self.conjunction(x).is_some();
        (op == BinaryOp::LAnd || op == BinaryOp::BitAnd && truth(l) && truth(r)).then_some((l, r))
    }

    /// Why a condition cannot be assumed (`None`: it can): it must be a fact about the thread
    /// evaluating it, computed without memory, effects or values only the verifier has.
    fn not_assumable(&self, n: NodeId) -> Option<String> {
        let ast = self.ast;
        let kind = ast.kind(n);
        let kids = || self.expr_children(n);
        let all = |ks: Vec<NodeId>| ks.into_iter().find_map(|c| self.not_assumable(c));
        match kind {
            NodeKind::IntegerLiteral
            | NodeKind::CXXBoolLiteralExpr
            | NodeKind::CharacterLiteral
            | NodeKind::FloatingLiteral
            | NodeKind::CXXNullPtrLiteralExpr
            | NodeKind::GNUNullExpr
            | NodeKind::UnaryExprOrTypeTraitExpr
            | NodeKind::PseudoObjectExpr => None,
            NodeKind::ParenExpr
            | NodeKind::ImplicitCastExpr
            | NodeKind::CStyleCastExpr
            | NodeKind::CXXStaticCastExpr
            | NodeKind::CXXFunctionalCastExpr
            | NodeKind::ConstantExpr
            | NodeKind::ConditionalOperator
            | NodeKind::SubstNonTypeTemplateParmExpr => all(kids()),
            NodeKind::UnaryOperator
                if matches!(ast.unary_op(n), Some(UnaryOp::Deref | UnaryOp::Inc | UnaryOp::Dec)) =>
            {
                Some("it reads memory or has effects".into())
            }
            NodeKind::UnaryOperator => all(kids()),
            NodeKind::BinaryOperator if matches!(ast.binary_op(n), Some(BinaryOp::Assign | BinaryOp::Comma)) => {
                Some("it has effects".into())
            }
            NodeKind::BinaryOperator => all(kids()),
            NodeKind::MemberExpr if ast.node(n).attrs.is_arrow => Some("it reads memory through a pointer".into()),
            NodeKind::MemberExpr => all(kids()),
            NodeKind::ArraySubscriptExpr => Some("it reads memory".into()),
            NodeKind::DeclRefExpr => self.ref_not_assumable(n),
            NodeKind::CallExpr => {
                let ks = kids();
                let callee = ks.first().map(|&c| self.strip(c));
                let decl = callee.and_then(|c| ast.node(c).attrs.referenced).map(|r| r.id);
                let name = decl.and_then(|d| ast.qual_name(d)).unwrap_or("");
                let system = decl.is_some_and(|d| ast.decl_is_system(self.types.definition(d)));
                match role(name) {
                    Some(Role::Exact) if system => all(ks[1..].to_vec()),
                    Some(Role::Unknown) if system => {
                        Some(format!("`{name}` has no value to autosync: {}", unknown_why(name)))
                    }
                    _ if system && intrinsics::lookup(name).is_some_and(|x| x.model == Model::Exact) => {
                        all(ks[1..].to_vec())
                    }
                    _ => Some(format!(
                        "it calls `{}`",
                        if name.is_empty() { "a function" } else { name }
                    )),
                }
            }
            _ => Some(format!("autosync does not assume a {}", ast.kind_str(n))),
        }
    }

    /// Why a name in a condition cannot be assumed: it must be a value autosync holds (a
    /// scalar, a pointer, a thread-private variable, a constant), not a shared or global variable.
    fn ref_not_assumable(&self, n: NodeId) -> Option<String> {
        let ast = self.ast;
        let r = ast.node(n).attrs.referenced?;
        let name = ast.str(r.name);
        match self.env.get(&r.id) {
            Some(Binding::Mem(p)) if self.arrays[p.array.0 as usize].space != Space::Local => {
                Some(format!("it reads `{name}` from memory"))
            }
            Some(_) => None,
            None if matches!(r.kind, NodeKind::EnumConstantDecl) || self.const_eval(n, 0).is_some() => None,
            None => Some(format!("autosync does not assume a fact about `{name}`")),
        }
    }

    /// Whether evaluating a condition can have an effect (then a noted annotation is still
    /// evaluated, as executed code).
    fn annotation_has_effects(&self, n: NodeId) -> bool {
        let ast = self.ast;
        let mut found = false;
        ast.walk(n, &mut |c| {
            found |= match ast.kind(c) {
                NodeKind::CompoundAssignOperator
                | NodeKind::LambdaExpr
                | NodeKind::StmtExpr
                | NodeKind::CXXConstructExpr
                | NodeKind::CXXNewExpr => true,
                NodeKind::UnaryOperator => matches!(ast.unary_op(c), Some(UnaryOp::Inc | UnaryOp::Dec)),
                NodeKind::BinaryOperator => ast.binary_op(c) == Some(BinaryOp::Assign),
                NodeKind::CallExpr | NodeKind::CXXMemberCallExpr | NodeKind::CXXOperatorCallExpr => {
                    !self.is_query_call(c)
                }
                _ => false,
            };
        });
        found
    }

    /// A call of an annotation function, a modelled pure function or a builtin variable's
    /// accessor (`threadIdx.x`): evaluating it has no effect.
    fn is_query_call(&self, c: NodeId) -> bool {
        let ast = self.ast;
        let Some(&callee) = self.expr_children(c).first() else {
            return false;
        };
        let callee = self.strip(callee);
        if ast.kind(callee) == NodeKind::MemberExpr && ast.name(callee).starts_with("__fetch_builtin_") {
            return true;
        }
        let Some(r) = ast.node(callee).attrs.referenced else {
            return false;
        };
        let def = self.types.definition(r.id);
        let name = ast.qual_name(r.id).unwrap_or("");
        ast.decl_is_system(def)
            && (role(name).is_some_and(|r| r != Role::Assume)
                || intrinsics::lookup(name).is_some_and(|x| matches!(x.model, Model::Exact | Model::Pure)))
    }

    /// An invariant, assertion, postcondition or access hint: noted; its argument is not
    /// evaluated (annotations never run on the GPU) unless evaluating it has an effect.
    fn note_annotation(&mut self, name: &str, args: &[NodeId], span: Span) -> FResult<Value> {
        if args.iter().any(|&a| self.annotation_has_effects(a)) {
            for &a in args {
                self.rvalue(a)?;
            }
            self.notes.push((
                span,
                format!("GPUVerify annotation `{name}` is not checked; its argument has effects, which autosync keeps"),
            ));
        } else {
            self.notes.push((
                span,
                format!("GPUVerify annotation `{name}` accepted, not checked (autosync never assumes it)"),
            ));
        }
        Ok(Value::R(RV::Void))
    }

    /// `__requires_fresh_array(p)`: every pointer parameter, and pointer field of a parameter,
    /// already has an array of its own in autosync's model; another pointer gains nothing.
    fn fresh_array(&mut self, args: &[NodeId], span: Span) -> FResult<Value> {
        let [p] = args[..] else {
            return Err(FrontError::input(span, "__requires_fresh_array takes one pointer"));
        };
        if self.annotation_has_effects(p) {
            self.rvalue(p)?;
        }
        let own = self.names_kernel_parameter(p)
            && match self.pointer_if_clean(p)? {
                Some(Pointer {
                    region: Region::Array(a),
                    ..
                }) => self.arrays[a.0 as usize].space == Space::Global,
                _ => false,
            };
        self.notes.push((
            span,
            if own {
                "`__requires_fresh_array`: the pointer already has an array of its own (as every pointer parameter does)".into()
            } else {
                "`__requires_fresh_array` not used: the pointer is not a parameter's own array".to_string()
            },
        ));
        Ok(Value::R(RV::Void))
    }

    /// Whether an expression names a parameter of the kernel or a field of one (`p`, `q.v.p`),
    /// outside any inlined function.
    fn names_kernel_parameter(&self, n: NodeId) -> bool {
        let ast = self.ast;
        let mut e = self.strip(n);
        while ast.kind(e) == NodeKind::MemberExpr && !ast.node(e).attrs.is_arrow {
            match self.expr_children(e).first() {
                Some(&b) => e = self.strip(b),
                None => return false,
            }
        }
        self.frames.is_empty()
            && ast.kind(e) == NodeKind::DeclRefExpr
            && ast
                .node(e)
                .attrs
                .referenced
                .is_some_and(|r| r.kind == NodeKind::ParmVarDecl)
    }

    /// The pointer an effect-free expression denotes, when it can be lowered without emitting
    /// memory operations; `None` otherwise.
    fn pointer_if_clean(&mut self, p: NodeId) -> FResult<Option<Pointer>> {
        if self.not_assumable(p).is_some() {
            return Ok(None);
        }
        let before = self.ops.len();
        let v = self.rvalue(p)?;
        if self.ops[before..]
            .iter()
            .any(|o| matches!(o, Op::Read(..) | Op::Write(..) | Op::Atomic(..)))
        {
            // Reads made only to find the pointer: an annotation performs none.
            self.ops.truncate(before);
            return Ok(None);
        }
        Ok(match v {
            RV::Ptr(p) => Some(p),
            _ => None,
        })
    }

    /// Predicates and values autosync computes exactly.
    fn exact_annotation(&mut self, name: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Value> {
        let scalar = |e: Expr| Ok(Value::R(RV::Scalar(e, rt.clone())));
        match (name, args) {
            ("__implies", [a, b]) => {
                let a = self.cond(*a)?;
                let b = self.cond(*b)?;
                let not_a = Expr::Un(UnOp::Not, ScalarTy::Bool, Box::new(a));
                scalar(Expr::Bin(BinOp::Or, ScalarTy::Bool, Box::new(not_a), Box::new(b)))
            }
            // The thread evaluating an annotation is the one executing it.
            ("__enabled" | "__dominator_enabled", []) => scalar(Expr::bool(true)),
            ("__ptr_offset_bytes", [p]) => match self.pointer_if_clean(*p)? {
                Some(Pointer {
                    region: Region::Array(_) | Region::Choice(..),
                    off,
                    ..
                }) => scalar(convert(off, &CType::U64, rt)),
                _ => scalar(Expr::Opaque(rt.scalar(), vec![])),
            },
            ("__ptr_base", [p]) => match self.pointer_if_clean(*p)? {
                Some(Pointer {
                    region: Region::Array(a),
                    ..
                }) => scalar(Expr::Const(a.0 as i64 + 1, rt.scalar())),
                _ => scalar(Expr::Opaque(rt.scalar(), vec![])),
            },
            ("__ite", [c, x, y]) => {
                let c = self.cond(*c)?;
                let (x, xt) = self.scalar(*x)?;
                let (y, yt) = self.scalar(*y)?;
                scalar(Expr::Select(
                    Box::new(c),
                    Box::new(convert(x, &xt, rt)),
                    Box::new(convert(y, &yt, rt)),
                ))
            }
            (_, [x, y]) if name == "__add" || name.starts_with("__add_noovfl_") => {
                // The no-overflow promise is not assumed: the sum wraps as C's does.
                let (x, xt) = self.scalar(*x)?;
                let (y, yt) = self.scalar(*y)?;
                let s = rt.scalar();
                scalar(Expr::Bin(
                    BinOp::Add,
                    s,
                    Box::new(convert(x, &xt, rt)),
                    Box::new(convert(y, &yt, rt)),
                ))
            }
            _ => Err(FrontError::input(span, format!("{name} with {} arguments", args.len()))),
        }
    }

    /// A value only the verifier knows, used outside an annotation autosync notes: unknown.
    fn unknown_annotation(&mut self, name: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Value> {
        if args.iter().any(|&a| self.annotation_has_effects(a)) {
            for &a in args {
                self.rvalue(a)?;
            }
        }
        self.notes.push((
            span,
            format!(
                "`{name}` has no value to autosync ({}): it is unknown here",
                unknown_why(name)
            ),
        ));
        Ok(Value::R(match rt {
            CType::Void => RV::Void,
            CType::Ptr(p) => RV::Ptr(Pointer {
                region: Region::Unknown(format!("the pointer `{name}` gives")),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: (**p).clone(),
            }),
            t => RV::Scalar(Expr::Opaque(t.scalar(), vec![]), t.clone()),
        }))
    }

    /// File-scope `__axiom(E)`s of the user's files, assumed at the kernel's entry.
    pub(crate) fn file_axioms(&mut self) -> FResult<()> {
        let ast = self.ast;
        let mut found = Vec::new();
        let mut todo: Vec<NodeId> = ast.roots.clone();
        while let Some(n) = todo.pop() {
            match ast.kind(n) {
                NodeKind::NamespaceDecl | NodeKind::LinkageSpecDecl => todo.extend(ast.children(n)),
                NodeKind::VarDecl if ast.name(n).starts_with(AXIOM_PREFIX) => found.push(n),
                _ => {}
            }
        }
        found.sort_by_key(|&n| ast.node(n).loc.map(|l| (l.expansion.file, l.expansion.offset)));
        for d in found {
            self.axiom_decl(d)?;
        }
        Ok(())
    }

    /// One `__axiom(E)` (its constant's declaration): `E` is assumed.
    pub(crate) fn axiom_decl(&mut self, d: NodeId) -> FResult<()> {
        let ast = self.ast;
        let span = self.span(d);
        let Some(init) = ast.var_init(d) else {
            return Err(FrontError::input(span, "__axiom without a condition"));
        };
        self.assume_conjuncts(init, "__axiom", span)
    }
}
