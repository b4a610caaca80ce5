//! The launches the file's host code writes (`k<<<grid, block, shmem, stream>>>(args)`, also in
//! instantiations of host templates), and what each says about the block: a dimension Clang's
//! AST gives a constant for (literals, macros, `constexpr` and `const` variables, template
//! arguments, a local `dim3 b(32, 8, 1)` never changed afterwards), or a dimension equal to
//! one of the kernel's own arguments (`k<<<n, dim3(p)>>>(…, p)`: `blockDim.x == p`).
//! Anything else is unknown, never guessed.

use super::ast::{Ast, BinaryOp, CastKind, NodeId, NodeKind};
use super::lower::source::SourceMap;
use autosync_oracle::ir::Span;

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

/// Every `<<<...>>>` launch in the AST's host code.
pub fn find(ast: &Ast, src: &SourceMap) -> Vec<LaunchSite> {
    let mut out = Vec::new();
    for &r in &ast.roots {
        ast.walk(r, &mut |n| {
            if ast.kind(n) == NodeKind::CUDAKernelCallExpr {
                if let Some(site) = read_launch(ast, src, n) {
                    out.push(site);
                }
            }
        });
    }
    out
}

fn read_launch(ast: &Ast, src: &SourceMap, call: NodeId) -> Option<LaunchSite> {
    let mut kids = ast.children(call);
    let kernel = callee(ast, kids.next()?)?;
    let config = kids.next()?;
    let args: Vec<NodeId> = kids.collect();
    // The configuration call's operands: the callee, grid, block, shared memory, stream.
    let block_expr = ast.child(config, 2)?;
    let ev = Eval {
        ast,
        func: enclosing_function(ast, call),
    };
    let mut block = ev.dim3(block_expr).map(|d| d.map_or(Extent::Unknown, Extent::Const));
    if block[0] == Extent::Unknown {
        block[0] = ev.same_as_arg(ev.dim3_operand(block_expr, 0), &args);
    }
    Some(LaunchSite {
        kernel,
        span: src.node_span(call),
        block,
    })
}

/// The function a launch names (through the decay to a pointer).
fn callee(ast: &Ast, n: NodeId) -> Option<u64> {
    let n = strip(ast, n);
    match ast.kind(n) {
        NodeKind::DeclRefExpr => {
            let r = ast.node(n).attrs.referenced?;
            (r.kind == NodeKind::FunctionDecl).then_some(r.id)
        }
        _ => None,
    }
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

/// Constant evaluation of host expressions, inside the function `func`.
struct Eval<'a> {
    ast: &'a Ast,
    func: Option<NodeId>,
}

impl Eval<'_> {
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
        // A single integer converted to `dim3` (`<<<g, 256>>>` is `dim3(256, 1, 1)`).
        if ast.ty(inner).is_some_and(|t| !t.contains("dim3")) {
            return [size(inner), Some(1), Some(1)];
        }
        match self.dim3_ctor(n) {
            Some(c) if ast.children(c).count() == 3 => [0, 1, 2].map(|i| ast.child(c, i).and_then(size)),
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
                let init = self.constant_init(n).or_else(|| self.unchanged_local_init(n))?;
                self.int(init)
            }
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
        let mut changed = false;
        ast.walk(func, &mut |n| {
            if ast.kind(n) == NodeKind::DeclRefExpr && ast.node(n).attrs.referenced.is_some_and(|x| x.id == d.id) {
                changed |= !only_read(ast, n);
            }
        });
        (!changed).then(|| initializer(ast, decl)).flatten()
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

/// A variable's initializer: its last child that is not an attribute (CUDA gives `constexpr`
/// variables an implicit `__constant__`).
fn initializer(ast: &Ast, decl: NodeId) -> Option<NodeId> {
    ast.children(decl)
        .filter(|&c| !ast.kind_str(c).ends_with("Attr"))
        .last()
}

/// Whether a reference only reads its variable: loaded (`LValueToRValue`), or copied into a
/// `dim3` by its copy constructor.
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
