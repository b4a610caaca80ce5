//! Human-readable text form of the IR (`autosync ir`, snapshot tests).

use crate::ir::*;
use std::fmt::Write;

fn ty_name(t: ScalarTy) -> String {
    match t {
        ScalarTy::Int { bits, signed } => format!("{}{}", if signed { "i" } else { "u" }, bits),
        ScalarTy::Bool => "bool".into(),
        ScalarTy::Opaque => "opaque".into(),
    }
}

fn dim(d: Dim) -> &'static str {
    ["x", "y", "z"][d.index()]
}

/// The C spelling of a binary operator.
pub fn bin_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::And => "&&",
        BinOp::Or => "||",
    }
}

/// Renders an expression with variable names (fully parenthesized).
pub fn expr(k: &Kernel, e: &Expr) -> String {
    match e {
        Expr::Const(v, ScalarTy::Bool) => (if *v != 0 { "true" } else { "false" }).into(),
        Expr::Const(v, _) => v.to_string(),
        Expr::Builtin(b) => match b {
            Builtin::ThreadIdx(d) => format!("threadIdx.{}", dim(*d)),
            Builtin::BlockIdx(d) => format!("blockIdx.{}", dim(*d)),
            Builtin::BlockDim(d) => format!("blockDim.{}", dim(*d)),
            Builtin::GridDim(d) => format!("gridDim.{}", dim(*d)),
            Builtin::WarpSize => "warpSize".into(),
        },
        Expr::Var(v) => k.var(*v).name.clone(),
        Expr::Un(op, _, a) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "!",
            };
            format!("{o}{}", expr(k, a))
        }
        Expr::Bin(op, _, a, b) => {
            let o = bin_symbol(*op);
            format!("({} {o} {})", expr(k, a), expr(k, b))
        }
        Expr::Cast(t, a) => format!("({}){}", ty_name(*t), expr(k, a)),
        Expr::Select(c, a, b) => format!("({} ? {} : {})", expr(k, c), expr(k, a), expr(k, b)),
        Expr::Opaque(t, args) => {
            let a: Vec<String> = args.iter().map(|a| expr(k, a)).collect();
            format!("opaque<{}>({})", ty_name(*t), a.join(", "))
        }
        Expr::Unknown(t) => format!("unknown<{}>", ty_name(*t)),
        Expr::GroupValue(t, w) => format!("group_value<{}>({w} lanes)", ty_name(*t)),
        Expr::Vote(kind, p) => {
            let name = match kind {
                VoteKind::Or => "vote_or",
                VoteKind::And => "vote_and",
                VoteKind::Count => "vote_count",
            };
            format!("{name}({})", expr(k, p))
        }
    }
}

/// An async-pipeline op (mbarrier, async copy, commit group, proxy fence).
fn async_op(k: &Kernel, op: &Op) -> String {
    let bar = |b: &MbarRef| format!("{}+{}", k.array(b.array).name, expr(k, &b.offset));
    let phase = |p: &MbarPhase| match p {
        MbarPhase::Parity(e) => format!("parity {}", expr(k, e)),
        MbarPhase::Token(e) => format!("token {}", expr(k, e)),
    };
    let var = |v: &Option<VarId>| v.map(|v| format!("{} = ", k.var(v).name)).unwrap_or_default();
    match op {
        Op::Mbarrier(b, m) => match m {
            MbarOp::Init { count } => format!("mbar.init {} count {}", bar(b), expr(k, count)),
            MbarOp::Arrive { count, tx, drop, token } => format!(
                "{}mbar.arrive{} {} count {}{}",
                var(token),
                if *drop { ".drop" } else { "" },
                bar(b),
                expr(k, count),
                tx.as_ref().map(|t| format!(" tx {}", expr(k, t))).unwrap_or_default()
            ),
            MbarOp::ExpectTx { bytes } => format!("mbar.expect_tx {} {}", bar(b), expr(k, bytes)),
            MbarOp::CompleteTx { bytes } => format!("mbar.complete_tx {} {}", bar(b), expr(k, bytes)),
            MbarOp::Test { dst, phase: p } => format!("{}mbar.test {} {}", var(dst), bar(b), phase(p)),
            MbarOp::Wait { phase: p } => format!("mbar.wait {} {}", bar(b), phase(p)),
            MbarOp::ArriveOnCopies { noinc } => {
                format!("mbar.arrive_on_copies{} {}", if *noinc { ".noinc" } else { "" }, bar(b))
            }
            MbarOp::Inval => format!("mbar.inval {}", bar(b)),
        },
        Op::AsyncCopy(c) => format!(
            "async copy {} <- {} bytes {} {}",
            access(k, &c.dst),
            c.src.as_ref().map(|s| access(k, s)).unwrap_or_else(|| "?".into()),
            c.bytes
                .as_ref()
                .map(|b| expr(k, b))
                .unwrap_or_else(|| "announced".into()),
            match &c.completion {
                AsyncCompletion::Mbarrier(b) => format!("completes on {}", bar(b)),
                AsyncCompletion::Group => "in group".into(),
                AsyncCompletion::BulkGroup => "in bulk group".into(),
            }
        ),
        Op::Wgmma(ops) => {
            let o: Vec<String> = ops
                .iter()
                .map(|o| {
                    format!(
                        "{}[desc {} - {}] rows {} x{}{}",
                        k.array(o.array).name,
                        expr(k, &o.desc),
                        expr(k, &o.base),
                        o.rows,
                        o.elem_bytes,
                        if o.mn_major { " mn-major" } else { "" }
                    )
                })
                .collect();
            format!("wgmma reads {}", o.join(", "))
        }
        Op::AsyncGroup(AsyncGroupOp::WgmmaCommit) => "wgmma commit_group".into(),
        Op::AsyncGroup(AsyncGroupOp::WgmmaWait(n)) => format!("wgmma wait_group {n}"),
        Op::AsyncGroup(AsyncGroupOp::Commit) => "async commit_group".into(),
        Op::AsyncGroup(AsyncGroupOp::Wait(n)) => format!("async wait_group {n}"),
        Op::AsyncGroup(AsyncGroupOp::BulkCommit) => "async bulk commit_group".into(),
        Op::AsyncGroup(AsyncGroupOp::BulkWait(n, read)) => {
            format!("async bulk wait_group{} {n}", if *read { ".read" } else { "" })
        }
        Op::ProxyFence(ProxyFence::MbarrierInit) => "fence.mbarrier_init".into(),
        Op::ProxyFence(ProxyFence::Async) => "fence.proxy.async".into(),
        _ => String::new(),
    }
}

fn access(k: &Kernel, a: &Access) -> String {
    format!("{}[byte {} : {}]", k.array(a.array).name, expr(k, &a.offset), a.size)
}

/// Renders one barrier.
pub fn barrier(k: &Kernel, b: &Barrier) -> String {
    match b {
        Barrier::Block => "barrier.block".into(),
        Barrier::Warp => "barrier.warp".into(),
        Barrier::NamedSync { id, count: None } => format!("bar.sync {}", expr(k, id)),
        Barrier::NamedSync { id, count: Some(c) } => {
            format!("bar.sync {}, {}", expr(k, id), expr(k, c))
        }
        Barrier::NamedArrive { id, count } => {
            format!("bar.arrive {}, {}", expr(k, id), expr(k, count))
        }
    }
}

struct Printer<'a> {
    k: &'a Kernel,
    out: String,
}

impl Printer<'_> {
    fn line(&mut self, depth: usize, label: Label, text: &str, span: Span, emit: bool) {
        let lead = format!(
            "{:indent$}L{}{} {}",
            "",
            label.0,
            if emit { ":" } else { "'" },
            text,
            indent = depth * 2
        );
        let _ = writeln!(self.out, "{lead:<60} @ {}", self.k.loc(span));
    }

    fn block(&mut self, depth: usize, head: &str, b: &Block) {
        let text = format!("{head}{{{}", if b.braced { "" } else { " (no braces)" });
        self.line(depth, b.label, &text, b.span, b.emit_start);
        for s in &b.stmts {
            self.stmt(depth + 1, s);
        }
        let _ = writeln!(self.out, "{:indent$}}}", "", indent = depth * 2 + 2);
    }

    fn stmt(&mut self, d: usize, s: &Stmt) {
        let k = self.k;
        match &s.kind {
            StmtKind::Basic(ops) => {
                let parts: Vec<String> = ops
                    .iter()
                    .map(|op| match op {
                        Op::Assign(v, e) => format!("{} = {}", k.var(*v).name, expr(k, e)),
                        Op::Read(Some(v), a) => {
                            format!("{} = read {}", k.var(*v).name, access(k, a))
                        }
                        Op::Read(None, a) => format!("read {}", access(k, a)),
                        Op::Write(a, e) => format!("write {} = {}", access(k, a), expr(k, e)),
                        Op::Atomic(Some(v), a, _) => {
                            format!("{} = atomic {}", k.var(*v).name, access(k, a))
                        }
                        Op::Atomic(None, a, _) => format!("atomic {}", access(k, a)),
                        op => async_op(k, op),
                    })
                    .collect();
                self.line(d, s.label, &parts.join("; "), s.span, s.emit_after);
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                self.line(d, s.label, &format!("if {}", expr(k, cond)), s.span, s.emit_after);
                self.block(d + 1, "then ", then_blk);
                if !else_blk.stmts.is_empty() {
                    self.block(d + 1, "else ", else_blk);
                }
            }
            StmtKind::Loop(l) => self.loop_(d, s, l),
            StmtKind::Break => self.line(d, s.label, "break", s.span, s.emit_after),
            StmtKind::Continue => self.line(d, s.label, "continue", s.span, s.emit_after),
            StmtKind::Return { trap: None } => self.line(d, s.label, "return", s.span, s.emit_after),
            StmtKind::Return { trap: Some(t) } => {
                self.line(d, s.label, &format!("trap `{}`", t.instr), s.span, s.emit_after)
            }
            StmtKind::Barrier(b, syn) => self.line(
                d,
                s.label,
                &format!("{} ({syn:?})", barrier(k, b)),
                s.span,
                s.emit_after,
            ),
            StmtKind::Assume(e) => self.line(d, s.label, &format!("assume {}", expr(k, e)), s.span, s.emit_after),
        }
    }

    fn loop_(&mut self, d: usize, s: &Stmt, l: &Loop) {
        let k = self.k;
        let v = l.var.map(|v| format!(" var {}", k.var(v).name)).unwrap_or_default();
        self.line(
            d,
            s.label,
            &format!("loop {:?} while {}{v}", l.kind, expr(k, &l.cond)),
            s.span,
            s.emit_after,
        );
        for h in &l.header {
            let _ = writeln!(self.out, "{:indent$}header:", "", indent = d * 2 + 2);
            self.stmt(d + 2, h);
        }
        self.block(d + 1, "body ", &l.body);
        for h in &l.step {
            let _ = writeln!(self.out, "{:indent$}step:", "", indent = d * 2 + 2);
            self.stmt(d + 2, h);
        }
    }
}

/// Renders a kernel: header, launch config, arrays, variables and the labeled body.
/// A label followed by `:` is a position where a barrier can be written; `'` marks one that cannot.
pub fn kernel(k: &Kernel) -> String {
    let mut p = Printer { k, out: String::new() };
    let l = &k.launch;
    let dims = |d: Option<[u32; 3]>| d.map(|d| format!("[{},{},{}]", d[0], d[1], d[2])).unwrap_or("?".into());
    let _ = writeln!(p.out, "kernel {} @ {}", k.name, k.loc(k.span));
    let _ = writeln!(
        p.out,
        "launch blockDim={} gridDim={}{}{}",
        dims(l.block_dim),
        dims(l.grid_dim),
        l.warp_sync.map(|w| format!(" warp-sync={w}")).unwrap_or_default(),
        l.params.iter().map(|(n, v)| format!(" {n}={v}")).collect::<String>()
    );
    for f in &l.facts {
        let _ = writeln!(p.out, "launch fact {}", expr(k, f));
    }
    for a in &k.arrays {
        let ext: String = a
            .dims
            .iter()
            .map(|d| format!("[{}]", d.map(|x| x.to_string()).unwrap_or_default()))
            .collect();
        let _ = writeln!(
            p.out,
            "array {} {:?} {}{} elem {}B @ {}",
            a.id.0,
            a.space,
            a.name,
            ext,
            a.elem_size,
            k.loc(a.span)
        );
    }
    for v in &k.vars {
        let _ = writeln!(p.out, "var {} {:?} {}: {}", v.id.0, v.kind, v.name, ty_name(v.ty));
    }
    p.block(0, "body ", &k.body);
    p.out
}
