//! The launches the file's host code writes (`k<<<grid, block, shmem, stream>>>(args)`, also in
//! instantiations of host templates), and what each says about the block: a dimension Clang's
//! AST gives a constant for (literals, macros, `constexpr` and `const` variables, template
//! arguments, a local `dim3 b(32, 8, 1)` never changed afterwards), or a dimension equal to
//! one of the kernel's own arguments (`k<<<n, dim3(p)>>>(…, p)`: `blockDim.x == p`).
//! A launch helper (`template <class K> void launch(K kernel, const params &p, …) {
//! kernel<<<p.grid, p.block>>>(…); }`) is a launch at each of its calls: the kernel is the
//! argument passed for the launched parameter, and a block read from a field of a parameter is
//! followed through the caller's argument into the constructor's member initializer.
//! Anything else is unknown, never guessed.

use super::ast::{Ast, BinaryOp, CastKind, DeclRef, NodeId, NodeKind};
use super::lower::source::SourceMap;
use autosync_oracle::ir::Span;
use std::collections::HashMap;

/// What a launch says about one block dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// A constant.
    Const(u32),
    /// Equal to the kernel's argument at this index (converted to `unsigned int`).
    Arg(usize),
    /// Computed at run time.
    Unknown,
}

/// One launch of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchSite {
    /// Clang's id of the launched function (a kernel or one of its instantiations).
    pub kernel: u64,
    /// Where the launch is written.
    pub span: Span,
    /// blockDim x, y, z.
    pub block: [Extent; 3],
    /// gridDim x, y, z.
    pub grid: [Extent; 3],
}

impl LaunchSite {
    /// The block when every dimension is constant.
    pub fn constant_block(&self) -> Option<[u32; 3]> {
        match self.block {
            [Extent::Const(x), Extent::Const(y), Extent::Const(z)] => Some([x, y, z]),
            _ => None,
        }
    }
}

/// Every `<<<...>>>` launch in the AST's host code, and every call of a launch helper.
pub fn find(ast: &Ast, src: &SourceMap) -> Vec<LaunchSite> {
    let mut launches = Vec::new();
    let mut calls: HashMap<u64, Vec<NodeId>> = HashMap::new();
    for &r in &ast.roots {
        ast.walk(r, &mut |n| match ast.kind(n) {
            NodeKind::CUDAKernelCallExpr => launches.push(n),
            NodeKind::CallExpr => {
                if let Some(f) = ast.child(n, 0).and_then(|c| referenced(ast, c)) {
                    calls.entry(f.id).or_default().push(n);
                }
            }
            _ => {}
        });
    }
    let mut out = Vec::new();
    for call in launches {
        match ast.child(call, 0).and_then(|k| referenced(ast, k)) {
            Some(r) if r.kind == NodeKind::FunctionDecl => {
                out.extend(read_launch(ast, src, call, r.id, &top_level(ast, call, &calls, 0)))
            }
            Some(r) if r.kind == NodeKind::ParmVarDecl => out.extend(forwarded(ast, src, call, r.id, &calls)),
            _ => {}
        }
    }
    out
}

/// The declaration an expression names, through casts and parentheses.
fn referenced(ast: &Ast, n: NodeId) -> Option<DeclRef> {
    let n = strip(ast, n);
    (ast.kind(n) == NodeKind::DeclRefExpr)
        .then(|| ast.node(n).attrs.referenced)
        .flatten()
}

/// Evaluation in the function a node is in, with no parameter bound (a parameter's value is
/// then what every call of the function passes, `depth` calls up at most).
fn top_level<'a>(ast: &'a Ast, n: NodeId, calls: &'a Calls, depth: u32) -> Eval<'a, 'a> {
    Eval {
        ast,
        func: enclosing_function(ast, n),
        at: Some(n),
        call: None,
        calls,
        depth,
    }
}

/// The calls of each function, by Clang's id of the function called.
type Calls = HashMap<u64, Vec<NodeId>>;

/// How many calls up a parameter's value is looked for.
const MAX_CALLER_DEPTH: u32 = 4;

fn read_launch(ast: &Ast, src: &SourceMap, call: NodeId, kernel: u64, ev: &Eval) -> Option<LaunchSite> {
    let mut kids = ast.children(call);
    kids.next()?;
    let config = kids.next()?;
    let args: Vec<NodeId> = kids.collect();
    // The configuration call's operands: the callee, grid, block, shared memory, stream.
    let extents = |e: NodeId| {
        let mut dims = ev.dim3(e).map(|d| d.map_or(Extent::Unknown, Extent::Const));
        for (i, extent) in dims.iter_mut().enumerate() {
            if *extent == Extent::Unknown && ev.call.is_none() {
                *extent = ev.same_as_arg(ev.dim3_operand(e, i), &args);
            }
        }
        dims
    };
    let block = extents(ast.child(config, 2)?);
    let grid = extents(ast.child(config, 1)?);
    Some(LaunchSite {
        kernel,
        span: src.node_span(call),
        block,
        grid,
    })
}

/// A launch of a kernel parameter (`kernel<<<…>>>` inside a launch helper): one launch per
/// call of the helper that passes a kernel, located at that call, with the helper's
/// parameters bound to the call's arguments.
fn forwarded(
    ast: &Ast,
    src: &SourceMap,
    launch: NodeId,
    param: u64,
    calls: &HashMap<u64, Vec<NodeId>>,
) -> Vec<LaunchSite> {
    let Some(helper) = enclosing_function(ast, launch) else {
        return Vec::new();
    };
    let params: Vec<u64> = ast
        .children_of_kind(helper, NodeKind::ParmVarDecl)
        .map(|p| ast.node(p).id)
        .collect();
    let Some(index) = params.iter().position(|&p| p == param) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &call in calls.get(&ast.node(helper).id).into_iter().flatten() {
        let args: Vec<NodeId> = ast.children(call).skip(1).collect();
        let Some(kernel) = args
            .get(index)
            .and_then(|&a| referenced(ast, a))
            .filter(|r| r.kind == NodeKind::FunctionDecl)
        else {
            continue;
        };
        let caller = top_level(ast, call, calls, 0);
        let ev = Eval {
            ast,
            func: Some(helper),
            at: Some(launch),
            call: Some((params.iter().copied().zip(args.iter().copied()).collect(), &caller)),
            calls,
            depth: 0,
        };
        if let Some(mut site) = read_launch(ast, src, launch, kernel.id, &ev) {
            site.span = src.node_span(call);
            out.push(site);
        }
    }
    out
}

/// The function declaration a node is in.
fn enclosing_function(ast: &Ast, mut n: NodeId) -> Option<NodeId> {
    while let Some(p) = ast.node(n).parent {
        if matches!(ast.kind(p), NodeKind::FunctionDecl | NodeKind::CXXMethodDecl) {
            return Some(p);
        }
        n = p;
    }
    None
}

/// Implicit casts, parentheses and substituted template arguments, which do not change a value
/// the launch's dimensions are read from.
fn strip(ast: &Ast, mut n: NodeId) -> NodeId {
    loop {
        let next = match ast.kind(n) {
            NodeKind::ImplicitCastExpr
            | NodeKind::ParenExpr
            | NodeKind::SubstNonTypeTemplateParmExpr
            | NodeKind::MaterializeTemporaryExpr
            | NodeKind::CXXBindTemporaryExpr
            | NodeKind::ExprWithCleanups
            | NodeKind::CXXDefaultArgExpr => ast.children(n).last(),
            _ => None,
        };
        match next {
            Some(c) => n = c,
            None => return n,
        }
    }
}

/// Conversions to `dim3` (a constructor call written as a cast, or implicit).
fn strip_dim3(ast: &Ast, mut n: NodeId) -> NodeId {
    loop {
        n = strip(ast, n);
        let next = match ast.kind(n) {
            NodeKind::CXXFunctionalCastExpr => ast.children(n).last(),
            // `dim3 v(...)` passed by copy: the copy constructor's one operand.
            NodeKind::CXXConstructExpr if ast.children(n).count() == 1 => ast
                .child(n, 0)
                .filter(|&c| ast.ty(n) == ast.ty(c).map(|t| t.trim_start_matches("const "))),
            _ => None,
        };
        match next {
            Some(c) => n = c,
            None => return n,
        }
    }
}

/// Constant evaluation of host expressions, inside the function `func`; inside a call of a
/// helper or a constructor, its parameters stand for the call's arguments, evaluated by the
/// caller's `Eval`.
struct Eval<'a, 'c> {
    ast: &'a Ast,
    func: Option<NodeId>,
    /// The launch (or call) in `func` whose values are asked: a `switch` around it says what
    /// the variable it switches on holds there.
    at: Option<NodeId>,
    call: Option<(Vec<(u64, NodeId)>, &'c Eval<'a, 'c>)>,
    calls: &'a Calls,
    depth: u32,
}

impl<'a> Eval<'a, '_> {
    /// For a parameter of the (unbound) function being evaluated, which that function does not
    /// change: `f` of the argument at every call of the function, each evaluated in its caller.
    /// None when there is no such call, or it is too many calls up.
    fn at_callers<R>(&self, r: NodeId, f: &dyn Fn(&Eval<'a, '_>, NodeId) -> R) -> Option<Vec<R>> {
        let ast = self.ast;
        if self.call.is_some() || self.depth >= MAX_CALLER_DEPTH {
            return None;
        }
        let d = referenced(ast, r).filter(|d| d.kind == NodeKind::ParmVarDecl)?;
        let func = self.func?;
        let index = ast
            .children_of_kind(func, NodeKind::ParmVarDecl)
            .position(|p| ast.node(p).id == d.id)?;
        if !const_view(ast, d.id) && !only_read_in(ast, func, d.id) {
            return None;
        }
        // The calls in this file are all its calls only when no other file can call it.
        if !internal_linkage(ast, func) {
            return None;
        }
        let sites = self.calls.get(&ast.node(func).id).filter(|c| !c.is_empty())?;
        let mut out = Vec::new();
        for &call in sites {
            let arg = ast.children(call).nth(index + 1)?;
            let caller = top_level(ast, call, self.calls, self.depth + 1);
            out.push(f(&caller, arg));
        }
        Some(out)
    }

    /// The argument a reference to a bound parameter stands for, and where to evaluate it:
    /// only for a parameter the function cannot change (a `const` view) or does not change.
    fn bound(&self, r: NodeId) -> Option<(NodeId, &Eval<'a, '_>)> {
        let (params, caller) = self.call.as_ref()?;
        let ast = self.ast;
        let d = referenced(ast, r)?;
        let arg = params.iter().find(|(p, _)| *p == d.id)?.1;
        (const_view(ast, d.id) || self.func.is_some_and(|f| only_read_in(ast, f, d.id))).then_some((arg, *caller))
    }

    /// The variable a reference names is `const` or never changed: its initializer.
    fn fixed_init(&self, r: NodeId) -> Option<NodeId> {
        self.constant_init(r).or_else(|| self.unchanged_local_init(r))
    }

    /// Applies `f` to the constructor call that builds the object `obj` evaluates to (through
    /// bound parameters, copies and unchanged locals), in the context where that call is.
    fn constructed<R>(&self, obj: NodeId, f: &dyn Fn(&Eval<'a, '_>, NodeId) -> Option<R>) -> Option<R> {
        let ast = self.ast;
        let o = strip_dim3(ast, obj);
        if let Some((arg, caller)) = self.bound(o) {
            return caller.constructed(arg, f);
        }
        match ast.kind(o) {
            NodeKind::CXXConstructExpr | NodeKind::CXXTemporaryObjectExpr => f(self, o),
            NodeKind::DeclRefExpr => self.constructed(self.fixed_init(o)?, f),
            _ => None,
        }
    }

    /// Applies `f` to the member initializer that sets the field a member expression reads,
    /// evaluated inside the constructor with its parameters bound to the call's arguments.
    fn field<R>(&self, member: NodeId, f: &dyn Fn(&Eval<'a, '_>, NodeId) -> Option<R>) -> Option<R> {
        let ast = self.ast;
        let field = ast.node(member).attrs.member?;
        let obj = ast.child(member, 0)?;
        self.constructed(obj, &|at: &Eval<'a, '_>, build: NodeId| {
            let ctor = constructor(ast, build)?;
            // The member initializer is the field's value only if the body leaves it alone.
            if ast
                .children_of_kind(ctor, NodeKind::CompoundStmt)
                .any(|b| mentions_member(ast, b, field))
            {
                return None;
            }
            let init = ast
                .children_of_kind(ctor, NodeKind::CXXCtorInitializer)
                .find(|&i| ast.node(i).attrs.any_init.is_some_and(|d| d.id == field))?;
            let value = ast.children(init).next()?;
            let params = ast
                .children_of_kind(ctor, NodeKind::ParmVarDecl)
                .map(|p| ast.node(p).id)
                .zip(ast.children(build))
                .collect();
            let inside = Eval {
                ast,
                func: Some(ctor),
                at: None,
                call: Some((params, at)),
                calls: at.calls,
                depth: at.depth,
            };
            f(&inside, value)
        })
    }

    /// The constructor call that builds a `dim3` expression's value: in place (`dim3(p)`,
    /// `dim3(p, 1, 1)`, a plain `p` converted to `dim3`) or in a local the launching function
    /// never changes.
    fn dim3_ctor(&self, n: NodeId) -> Option<NodeId> {
        let ast = self.ast;
        let n = strip_dim3(ast, n);
        match ast.kind(n) {
            NodeKind::CXXConstructExpr | NodeKind::CXXTemporaryObjectExpr => Some(n),
            NodeKind::DeclRefExpr => self.dim3_ctor(self.unchanged_local_init(n)?),
            _ => None,
        }
    }

    /// The `i`-th operand of a `dim3` expression's constructor.
    fn dim3_operand(&self, n: NodeId, i: usize) -> Option<NodeId> {
        self.ast.child(self.dim3_ctor(n)?, i)
    }

    /// The three extents of a `dim3` expression; a size of 0 (a launch CUDA refuses) is not
    /// taken as a block to check.
    fn dim3(&self, n: NodeId) -> [Option<u32>; 3] {
        let ast = self.ast;
        let size = |c: NodeId| self.int(c).and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0);
        let inner = strip_dim3(ast, n);
        if let Some((arg, caller)) = self.bound(inner) {
            return caller.dim3(arg);
        }
        if ast.kind(inner) == NodeKind::MemberExpr {
            return self.field(inner, &|e, v| Some(e.dim3(v))).unwrap_or([None; 3]);
        }
        // A single integer converted to `dim3` (`<<<g, 256>>>` is `dim3(256, 1, 1)`).
        if ast.ty(inner).is_some_and(|t| !t.contains("dim3")) {
            return [size(inner), Some(1), Some(1)];
        }
        match ast.kind(inner) {
            NodeKind::CXXConstructExpr | NodeKind::CXXTemporaryObjectExpr if ast.children(inner).count() == 3 => {
                [0, 1, 2].map(|i| ast.child(inner, i).and_then(size))
            }
            NodeKind::DeclRefExpr => match self.fixed_init(inner) {
                Some(i) => self.dim3(i),
                // A parameter: the extents every caller passes alike.
                None => self.at_callers(inner, &|e, a| e.dim3(a)).map_or([None; 3], |all| {
                    [0, 1, 2].map(|i| {
                        all.iter()
                            .map(|d| d[i])
                            .reduce(|a, b| a.filter(|x| Some(*x) == b))
                            .flatten()
                    })
                }),
            },
            _ => [None; 3],
        }
    }

    /// The value of an integer expression, when the AST determines it.
    fn int(&self, n: NodeId) -> Option<i64> {
        let ast = self.ast;
        let n = strip(ast, n);
        if let Some(v) = ast
            .value(n)
            .filter(|_| matches!(ast.kind(n), NodeKind::IntegerLiteral | NodeKind::ConstantExpr))
        {
            return v.parse().ok();
        }
        match ast.kind(n) {
            NodeKind::CharacterLiteral => ast.value(n)?.parse().ok(),
            NodeKind::DeclRefExpr => {
                if let Some((arg, caller)) = self.bound(n) {
                    return caller.int(arg);
                }
                if let Some(v) = self.case_value(n) {
                    return Some(v);
                }
                match self.fixed_init(n) {
                    Some(i) => self.int(i),
                    None => {
                        let all = self.at_callers(n, &|e, a| e.int(a))?;
                        all.iter().copied().reduce(|a, b| a.filter(|x| Some(*x) == b)).flatten()
                    }
                }
            }
            NodeKind::MemberExpr => self.field(n, &|e, v| e.int(v)),
            // `constexpr int WARP_THREADS{32};`
            NodeKind::InitListExpr if ast.children(n).count() == 1 => self.int(ast.child(n, 0)?),
            NodeKind::BinaryOperator => {
                let a = self.int(ast.child(n, 0)?)?;
                let b = self.int(ast.child(n, 1)?)?;
                match ast.binary_op(n)? {
                    BinaryOp::Add => a.checked_add(b),
                    BinaryOp::Sub => a.checked_sub(b),
                    BinaryOp::Mul => a.checked_mul(b),
                    BinaryOp::Div => a.checked_div(b),
                    BinaryOp::Rem => a.checked_rem(b),
                    BinaryOp::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                    BinaryOp::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The value the variable `r` names holds at the launch, from the `switch` on it the launch
    /// sits in: `switch (k) { case 8: kernel<<<g, dim3(32, k)>>>(…); break; … }` launches with
    /// `k == 8`. Only for a variable the function never changes, and a launch one `case` label
    /// alone leads to (no second label on it, no case above falling through into it).
    fn case_value(&self, r: NodeId) -> Option<i64> {
        let ast = self.ast;
        let (at, func) = (self.at?, self.func?);
        let d = referenced(ast, r).filter(|d| matches!(d.kind, NodeKind::ParmVarDecl | NodeKind::VarDecl))?;
        // A parameter or local of this function (a global could change in a call between).
        let local = ast
            .decl_node(d.id)
            .is_some_and(|decl| enclosing_function(ast, decl) == Some(func));
        if !local || !only_read_in(ast, func, d.id) {
            return None;
        }
        // Up from the launch to the statement of the innermost switch body that holds it.
        let (mut n, mut labels) = (at, 0);
        let (body, top) = loop {
            let p = ast.node(n).parent?;
            match ast.kind(p) {
                NodeKind::CaseStmt | NodeKind::DefaultStmt => labels += 1,
                NodeKind::CompoundStmt if ast.node(p).parent.is_some_and(|s| ast.kind(s) == NodeKind::SwitchStmt) => {
                    break (p, n);
                }
                NodeKind::FunctionDecl | NodeKind::CXXMethodDecl | NodeKind::LambdaExpr | NodeKind::SwitchStmt => {
                    return None
                }
                _ => {}
            }
            n = p;
        };
        let switch = ast.node(body).parent?;
        let parts: Vec<NodeId> = ast.children(switch).collect();
        let cond = *parts.get(parts.len().checked_sub(2)?)?;
        if referenced(ast, cond).map(|c| c.id) != Some(d.id) {
            return None;
        }
        let stmts: Vec<NodeId> = ast.children(body).collect();
        let pos = stmts.iter().position(|&x| x == top)?;
        // The label: the statement itself (the launch in its body), else the nearest one above.
        let label_at = if labels > 0 {
            pos
        } else {
            (0..pos)
                .rev()
                .find(|&i| matches!(ast.kind(stmts[i]), NodeKind::CaseStmt | NodeKind::DefaultStmt))?
        };
        let label = stmts[label_at];
        let one_label = labels <= 1 && ast.children(label).count() == 2;
        let inner = ast.child(label, 1)?;
        let stacked = matches!(ast.kind(inner), NodeKind::CaseStmt | NodeKind::DefaultStmt);
        let between = stmts.get(label_at + 1..pos).unwrap_or_default();
        let other_label = between.iter().any(|&x| {
            matches!(
                ast.kind(x),
                NodeKind::CaseStmt | NodeKind::DefaultStmt | NodeKind::LabelStmt
            )
        });
        let entered_only_here = label_at == 0
            || matches!(
                ast.kind(stmts[label_at - 1]),
                NodeKind::BreakStmt | NodeKind::ReturnStmt
            );
        if ast.kind(label) != NodeKind::CaseStmt || !one_label || stacked || other_label || !entered_only_here {
            return None;
        }
        self.int(ast.child(label, 0)?)
    }

    /// The initializer of a `constexpr` or `const` integer variable a reference names.
    fn constant_init(&self, r: NodeId) -> Option<NodeId> {
        let ast = self.ast;
        let d = ast.node(r).attrs.referenced?;
        if d.kind != NodeKind::VarDecl {
            return None;
        }
        let decl = ast.decl_node(d.id)?;
        // `constexpr` variables are `const` too.
        if !ast.ty(decl)?.starts_with("const ") || ast.node(decl).attrs.init.is_none() {
            return None;
        }
        initializer(ast, decl)
    }

    /// The initializer of a local variable of the launching function that nothing changes after
    /// its declaration (every other reference to it only reads it).
    fn unchanged_local_init(&self, r: NodeId) -> Option<NodeId> {
        let ast = self.ast;
        let d = ast.node(r).attrs.referenced?;
        if d.kind != NodeKind::VarDecl {
            return None;
        }
        let decl = ast.decl_node(d.id)?;
        let func = self.func?;
        if enclosing_function(ast, decl) != Some(func) || ast.node(decl).attrs.init.is_none() {
            return None;
        }
        only_read_in(ast, func, d.id).then(|| initializer(ast, decl)).flatten()
    }

    /// An extent equal to one of the kernel's arguments: the same variable (unchanged in the
    /// launch statement: C++ evaluates both from one value) passed as both.
    fn same_as_arg(&self, operand: Option<NodeId>, args: &[NodeId]) -> Extent {
        let ast = self.ast;
        let Some(op) = operand.map(|o| strip(ast, o)) else {
            return Extent::Unknown;
        };
        let var = |n: NodeId| {
            let n = strip(ast, n);
            (ast.kind(n) == NodeKind::DeclRefExpr)
                .then(|| ast.node(n).attrs.referenced.map(|r| r.id))
                .flatten()
        };
        let Some(v) = var(op) else { return Extent::Unknown };
        match args.iter().position(|&a| var(a) == Some(v)) {
            Some(i) => Extent::Arg(i),
            None => Extent::Unknown,
        }
    }
}

/// Whether a function has internal linkage (`static`, or in an anonymous namespace): no other
/// translation unit can call it.
fn internal_linkage(ast: &Ast, func: NodeId) -> bool {
    if ast
        .node(func)
        .attrs
        .storage_class
        .is_some_and(|c| ast.str(c) == "static")
    {
        return true;
    }
    let mut n = func;
    while let Some(p) = ast.node(n).parent {
        if ast.kind(p) == NodeKind::NamespaceDecl && ast.node(p).name.is_none_or(|x| ast.str(x).is_empty()) {
            return true;
        }
        n = p;
    }
    false
}

/// Whether a parameter is a `const` view (a `const` value or reference): the function cannot
/// change what it names.
fn const_view(ast: &Ast, param: u64) -> bool {
    let ty = ast.decl_node(param).and_then(|p| ast.ty(p)).unwrap_or("");
    (ty.starts_with("const ") && (ty.ends_with('&') || !ty.contains('*'))) || ty.ends_with(" const")
}

/// A variable's initializer: its last child that is not an attribute (CUDA gives `constexpr`
/// variables an implicit `__constant__`).
fn initializer(ast: &Ast, decl: NodeId) -> Option<NodeId> {
    ast.children(decl)
        .filter(|&c| !ast.kind_str(c).ends_with("Attr"))
        .last()
}

/// Whether every reference to declaration `d` inside `func` only reads it.
fn only_read_in(ast: &Ast, func: NodeId, d: u64) -> bool {
    let mut changed = false;
    ast.walk(func, &mut |n| {
        if ast.kind(n) == NodeKind::DeclRefExpr && ast.node(n).attrs.referenced.is_some_and(|x| x.id == d) {
            changed |= !only_read(ast, n);
        }
    });
    !changed
}

/// Whether anything under `root` names the field `field` (read or written).
fn mentions_member(ast: &Ast, root: NodeId, field: u64) -> bool {
    let mut found = false;
    ast.walk(root, &mut |n| found |= ast.node(n).attrs.member == Some(field));
    found
}

/// Whether a reference only reads its variable: loaded (`LValueToRValue`), or copied by a
/// copy constructor (a `dim3`).
fn only_read(ast: &Ast, r: NodeId) -> bool {
    let mut n = r;
    loop {
        let Some(p) = ast.node(n).parent else { return false };
        match ast.kind(p) {
            NodeKind::ImplicitCastExpr => {
                return match ast.cast_kind(p) {
                    Some(CastKind::LValueToRValue) => true,
                    Some(CastKind::NoOp) => copied(ast, p),
                    _ => false,
                };
            }
            NodeKind::ParenExpr => n = p,
            // A `const` object copied as it is (no cast to a `const` view needed).
            NodeKind::CXXConstructExpr => {
                return ast.children(p).count() == 1 && ast.ty(n).is_some_and(|t| t.starts_with("const "))
            }
            _ => return false,
        }
    }
}

/// Whether a `const` view of an object feeds a copy constructor.
fn copied(ast: &Ast, n: NodeId) -> bool {
    ast.node(n)
        .parent
        .is_some_and(|p| ast.kind(p) == NodeKind::CXXConstructExpr && ast.children(p).count() == 1)
}

/// The constructor a construct expression calls: the one of its record (the expression's type)
/// with the expression's constructor type; `None` unless exactly one such constructor has a
/// definition in the user's files.
fn constructor(ast: &Ast, build: NodeId) -> Option<NodeId> {
    let ctor_type = ast.str(ast.node(build).attrs.ctor_type?);
    let record = ast
        .ty(build)?
        .trim_start_matches("const ")
        .trim_start_matches("struct ");
    let record = record.split('<').next()?.trim();
    let last = record.rsplit("::").next()?;
    let qual = format!("{record}::{last}");
    let mut found = ast.decls.values().filter(|d| {
        d.kind == NodeKind::CXXConstructorDecl
            && d.qual == qual
            && d.ty.is_some_and(|t| ast.str(t.qual) == ctor_type)
            && d.node.is_some()
    });
    let one = found.next()?;
    found.next().is_none().then_some(one.node).flatten()
}
