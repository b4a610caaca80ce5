//! A small builder for hand-written IR kernels in tests.

use crate::ir::*;

/// Builds a kernel statement by statement; labels and spans are allocated in creation order.
pub(crate) struct Kb {
    k: Kernel,
}

/// `threadIdx.x` (u32).
pub(crate) fn tid() -> Expr {
    Expr::Builtin(Builtin::ThreadIdx(Dim::X))
}

/// A built-in.
pub(crate) fn bi(b: Builtin) -> Expr {
    Expr::Builtin(b)
}

/// An unsigned 32-bit constant.
pub(crate) fn u(v: i64) -> Expr {
    Expr::Const(v, ScalarTy::U32)
}

/// A variable.
pub(crate) fn var(v: VarId) -> Expr {
    Expr::Var(v)
}

/// A binary operation on `ty`.
pub(crate) fn bin(op: BinOp, ty: ScalarTy, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, ty, Box::new(a), Box::new(b))
}

/// Unsigned 32-bit `op`.
pub(crate) fn ub(op: BinOp, a: Expr, b: Expr) -> Expr {
    bin(op, ScalarTy::U32, a, b)
}

/// Signed 32-bit `op`.
pub(crate) fn ib(op: BinOp, a: Expr, b: Expr) -> Expr {
    bin(op, ScalarTy::I32, a, b)
}

/// `(int)e`.
pub(crate) fn to_int(e: Expr) -> Expr {
    Expr::Cast(ScalarTy::I32, Box::new(e))
}

/// A signed 32-bit constant.
pub(crate) fn i(v: i64) -> Expr {
    Expr::int(v)
}

impl Kb {
    /// An empty kernel with the given block size (`None`: symbolic).
    pub fn new(block_dim: Option<[u32; 3]>) -> Kb {
        let body = Block {
            label: Label(0),
            span: Span::new(FileId(0), 0, 1),
            braced: true,
            emit_start: true,
            stmts: vec![],
        };
        let k = Kernel {
            name: "k".into(),
            files: vec![SourceFile::new("test.cu", "")],
            span: Span::new(FileId(0), 0, 1),
            vars: vec![],
            arrays: vec![],
            body,
            launch: LaunchConfig {
                block_dim,
                ..Default::default()
            },
            next_label: 1,
        };
        Kb { k }
    }

    /// Mutable access to the launch configuration.
    pub fn launch(&mut self) -> &mut LaunchConfig {
        &mut self.k.launch
    }

    fn span(&mut self) -> (Label, Span) {
        let l = self.k.fresh_label();
        (l, Span::new(FileId(0), l.0 * 10, l.0 * 10 + 5))
    }

    /// A variable of the given kind.
    pub fn var(&mut self, name: &str, ty: ScalarTy, kind: VarKind) -> VarId {
        let id = VarId(self.k.vars.len() as u32);
        self.k.vars.push(Var {
            id,
            name: name.into(),
            ty,
            kind,
        });
        id
    }

    /// A local `unsigned`.
    pub fn local(&mut self, name: &str) -> VarId {
        self.var(name, ScalarTy::U32, VarKind::Local)
    }

    /// An `unsigned` parameter.
    pub fn param(&mut self, name: &str) -> VarId {
        self.var(name, ScalarTy::U32, VarKind::Param)
    }

    /// An array of 4-byte elements.
    pub fn array(&mut self, name: &str, space: Space) -> ArrayId {
        let id = ArrayId(self.k.arrays.len() as u32);
        self.k.arrays.push(Array {
            id,
            name: name.into(),
            space,
            elem_size: 4,
            dims: vec![None],
            span: Span::DUMMY,
        });
        id
    }

    /// An access to element `idx` (u32) of `a`.
    pub fn acc(&mut self, a: ArrayId, kind: AccessKind, idx: Expr) -> Access {
        let offset = bin(
            BinOp::Mul,
            ScalarTy::I64,
            Expr::Cast(ScalarTy::I64, Box::new(idx)),
            Expr::Const(4, ScalarTy::I64),
        );
        let (_, span) = self.span();
        Access {
            array: a,
            kind,
            offset,
            size: 4,
            span,
        }
    }

    fn stmt(&mut self, kind: StmtKind) -> Stmt {
        let (label, span) = self.span();
        Stmt {
            label,
            span,
            emit_after: true,
            kind,
        }
    }

    fn block(&mut self, stmts: Vec<Stmt>) -> Block {
        let (label, span) = self.span();
        Block {
            label,
            span,
            braced: true,
            emit_start: true,
            stmts,
        }
    }

    /// `v = e`.
    pub fn assign(&mut self, v: VarId, e: Expr) -> Stmt {
        self.stmt(StmtKind::Basic(vec![Op::Assign(v, e)]))
    }

    /// `a[idx] = threadIdx.x` (a value that differs between threads: races stay harmful).
    pub fn write(&mut self, a: ArrayId, idx: Expr) -> Stmt {
        self.store(a, idx, tid())
    }

    /// `a[idx] = value`.
    pub fn store(&mut self, a: ArrayId, idx: Expr, value: Expr) -> Stmt {
        let acc = self.acc(a, AccessKind::Write, idx);
        self.stmt(StmtKind::Basic(vec![Op::Write(acc, value)]))
    }

    /// `dst = a[idx]`.
    pub fn read(&mut self, dst: Option<VarId>, a: ArrayId, idx: Expr) -> Stmt {
        let acc = self.acc(a, AccessKind::Read, idx);
        self.stmt(StmtKind::Basic(vec![Op::Read(dst, acc)]))
    }

    /// `atomicAdd(&a[idx], 1)`.
    pub fn atomic(&mut self, a: ArrayId, idx: Expr) -> Stmt {
        let acc = self.acc(a, AccessKind::Atomic, idx);
        self.stmt(StmtKind::Basic(vec![Op::Atomic(None, acc, AtomicOp::Other)]))
    }

    /// A statement with several operations.
    pub fn basic(&mut self, ops: Vec<Op>) -> Stmt {
        self.stmt(StmtKind::Basic(ops))
    }

    /// `__syncthreads()`.
    pub fn sync(&mut self) -> Stmt {
        self.stmt(StmtKind::Barrier(Barrier::Block, BarrierSyntax::SyncThreads))
    }

    /// `__syncwarp()`.
    pub fn syncwarp(&mut self) -> Stmt {
        self.stmt(StmtKind::Barrier(Barrier::Warp, BarrierSyntax::SyncWarp))
    }

    /// A barrier statement of any kind.
    pub fn barrier(&mut self, b: Barrier) -> Stmt {
        self.stmt(StmtKind::Barrier(b, BarrierSyntax::Asm))
    }

    /// `if (c) { t } else { e }`.
    pub fn if_(&mut self, c: Expr, t: Vec<Stmt>, e: Vec<Stmt>) -> Stmt {
        let then_blk = self.block(t);
        let else_blk = self.block(e);
        self.stmt(StmtKind::If {
            cond: c,
            then_blk,
            else_blk,
        })
    }

    /// `for (v = init; cond; v = step) { body }` as two statements (init, loop).
    pub fn for_(&mut self, v: VarId, init: Expr, cond: Expr, step: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        let init = self.assign(v, init);
        let body = self.block(body);
        let step = vec![self.assign(v, step)];
        let lp = self.stmt(StmtKind::Loop(Loop {
            kind: LoopKind::For,
            header: vec![],
            cond,
            body,
            step,
            var: Some(v),
        }));
        vec![init, lp]
    }

    /// `break` / `continue` / `return` / `assume`.
    pub fn simple(&mut self, kind: StmtKind) -> Stmt {
        self.stmt(kind)
    }

    /// The finished kernel.
    pub fn finish(mut self, body: Vec<Stmt>) -> Kernel {
        self.k.body.stmts = body;
        self.k
    }
}

/// `for (i = 0; i < n; i++) { sh[tid] = 0; x = sh[tid + 1]; }` with 64 threads: the store
/// races with the load within an iteration and across the back edge, both ways.
pub(crate) fn store_then_neighbour_load_in_loop() -> Kernel {
    let mut b = Kb::new(Some([64, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let (i, n, x) = (b.local("i"), b.param("n"), b.local("x"));
    let w = b.write(sh, tid());
    let rd = b.read(Some(x), sh, ub(BinOp::Add, tid(), u(1)));
    let body = b.for_(
        i,
        u(0),
        ub(BinOp::Lt, var(i), var(n)),
        ub(BinOp::Add, var(i), u(1)),
        vec![w, rd],
    );
    b.finish(body)
}
