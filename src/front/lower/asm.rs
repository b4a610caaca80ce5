//! Inline PTX: Clang's AST keeps an asm statement's operands but not its text, so the text
//! is read from the source (where its tokens are spelled) and parsed here. Named barriers are
//! understood; anything that may touch memory and is not modelled stops the kernel.

use super::convert::*;
use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

/// An asm statement's template and the number of its output operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AsmText {
    /// The instruction template (string literals concatenated, escapes resolved).
    pub template: String,
    /// Output operand constraints (`=r`, `+l`, ...), in order.
    pub outputs: Vec<String>,
    /// Input operand constraints, in order.
    pub inputs: Vec<String>,
}

/// Parses the text of an asm statement: `asm volatile ("..." : outs : ins : clobbers)`.
pub(crate) fn parse_asm(text: &str) -> Result<AsmText, String> {
    let b = text.as_bytes();
    let open = text.find('(').ok_or("no `(` after asm")?;
    let close = super::source::matching_paren(b, open).ok_or("unbalanced parentheses in asm")?;
    let inner = &text[open + 1..close];
    // Split at top-level `:` (outside strings and parentheses).
    let mut sections: Vec<&str> = Vec::new();
    let (mut depth, mut start, mut i) = (0i32, 0usize, 0usize);
    let ib = inner.as_bytes();
    while i < ib.len() {
        match ib[i] {
            b'"' => {
                i += 1;
                while i < ib.len() && ib[i] != b'"' {
                    if ib[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth -= 1,
            b':' if depth == 0 => {
                // `::` never appears at the top level of an asm statement.
                sections.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    sections.push(&inner[start..]);
    let template = string_literals(sections[0])?;
    let constraints = |s: Option<&&str>| -> Result<Vec<String>, String> {
        let Some(s) = s else { return Ok(vec![]) };
        split_top(s)
            .into_iter()
            .filter(|op| !op.trim().is_empty())
            .map(|op| {
                let op = op.trim();
                // `[name] "constraint" (expr)`.
                let op = if op.starts_with('[') {
                    op[op.find(']').map(|x| x + 1).unwrap_or(0)..].trim()
                } else {
                    op
                };
                let end = op
                    .rfind('"')
                    .ok_or_else(|| format!("operand `{op}` has no constraint"))?;
                string_literals(&op[..=end])
            })
            .collect()
    };
    Ok(AsmText {
        template,
        outputs: constraints(sections.get(1))?,
        inputs: constraints(sections.get(2))?,
    })
}

/// Splits at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0usize, 0usize);
    let mut out = Vec::new();
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

/// The concatenation of the string literals that make up `s` (nothing else allowed but
/// whitespace and comments).
fn string_literals(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    let mut seen = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                seen = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') => out.push('\n'),
                            Some('t') => out.push('\t'),
                            Some(o) => out.push(o),
                            None => {}
                        },
                        c => out.push(c),
                    }
                }
            }
            c if c.is_whitespace() => {}
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            _ => {
                return Err(format!(
                    "the asm text is not made of string literals (near `{}`): a macro builds it",
                    first_line(&s[s.find(c).unwrap_or(0)..])
                ))
            }
        }
    }
    if !seen {
        return Err("asm without a string".into());
    }
    Ok(out)
}

/// The barrier form of a PTX opcode (`bar.sync` → `sync`, `barrier.cta.arrive.aligned` →
/// `arrive`, bare `bar` → `sync`), or `None` when it is not a barrier instruction.
pub(crate) fn barrier_kind(opcode: &str) -> Option<&str> {
    let mut segs = opcode.split('.');
    if !matches!(segs.next(), Some("bar" | "barrier")) {
        return None;
    }
    Some(segs.find(|s| !matches!(*s, "cta" | "aligned")).unwrap_or("sync"))
}

/// PTX opcodes that access memory.
fn touches_memory(opcode: &str) -> bool {
    let first = opcode.split('.').next().unwrap_or("");
    matches!(
        first,
        "ld" | "st"
            | "atom"
            | "red"
            | "cp"
            | "mbarrier"
            | "ldmatrix"
            | "stmatrix"
            | "wgmma"
            | "ldu"
            | "prefetch"
            | "prefetchu"
            | "tex"
            | "tld4"
            | "suld"
            | "sust"
            | "sured"
            | "cvta"
            | "multimem"
            | "tensormap"
    ) && !opcode.starts_with("cvta")
}

impl<'a> Lowerer<'a> {
    /// Lowers an asm statement.
    pub(crate) fn asm(&mut self, n: NodeId) -> FResult<()> {
        let span = self.span(n);
        let text = self
            .src
            .spelled_text(n)
            .ok_or_else(|| FrontError::unsupported(span, "the text of this asm statement cannot be read"))?;
        let asm = parse_asm(&text).map_err(|m| FrontError::unsupported(span, format!("inline asm: {m}")))?;
        // Operand expressions: outputs first, then inputs (as `%0`, `%1`, ...).
        let operands = self.expr_children(n);
        if operands.len() != asm.outputs.len() + asm.inputs.len() {
            return Err(FrontError::unsupported(
                span,
                "inline asm whose operands autosync cannot match to its text",
            ));
        }
        let mut found_barrier = false;
        for raw in asm.template.split([';', '\n']) {
            let instr = raw.trim();
            if instr.is_empty() || instr.starts_with("//") || instr.starts_with('.') || instr == "{" || instr == "}" {
                continue;
            }
            // Labels (`L1:`) carry no effect.
            let instr = match instr.split_once(':') {
                Some((l, rest)) if !l.contains(char::is_whitespace) && !l.contains('%') => rest.trim(),
                _ => instr,
            };
            if instr.is_empty() {
                continue;
            }
            let predicated = instr.starts_with('@');
            let instr = if predicated {
                instr.split_once(char::is_whitespace).map(|x| x.1.trim()).unwrap_or("")
            } else {
                instr
            };
            let (opcode, rest) = instr.split_once(char::is_whitespace).unwrap_or((instr, ""));
            if let Some(kind) = barrier_kind(opcode) {
                if predicated {
                    return Err(FrontError::unsupported(
                        span,
                        format!("a predicated barrier `@p {instr}`"),
                    ));
                }
                let mut vals = Vec::new();
                for o in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    vals.push(self.asm_operand(o, &operands, span)?);
                }
                let id = vals
                    .first()
                    .cloned()
                    .ok_or_else(|| FrontError::input(span, format!("`{instr}` needs a barrier id")))?;
                let count = vals.get(1).cloned();
                let b = match kind {
                    "sync" => match (&id, &count) {
                        (Expr::Const(0, _), None) => Barrier::Block,
                        _ => Barrier::NamedSync { id, count },
                    },
                    "arrive" => Barrier::NamedArrive {
                        id,
                        count: count.ok_or_else(|| {
                            FrontError::input(span, "bar.arrive needs a thread count")
                                .with_help("write bar.arrive id, count")
                        })?,
                    },
                    "red" => {
                        return Err(FrontError::unsupported(span, "bar.red is not supported")
                            .with_help("use __syncthreads_count/and/or"));
                    }
                    other => {
                        return Err(FrontError::unsupported(
                            span,
                            format!("unknown barrier form `bar.{other}`"),
                        ))
                    }
                };
                self.barrier(b, BarrierSyntax::Asm);
                found_barrier = true;
                continue;
            }
            if touches_memory(opcode) {
                if predicated {
                    return Err(FrontError::unsupported(
                        span,
                        format!("a predicated memory instruction `@p {instr}`"),
                    ));
                }
                self.asm_memory(opcode, rest, &operands, span)?;
            }
        }
        // Address conversions (`cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t;`): the output is
        // the pointer the one input holds.
        let only_conversions = asm.template.split([';', '\n']).map(str::trim).all(|i| {
            let op = i.trim_start_matches('{').trim_end_matches('}').trim();
            op.is_empty() || op.starts_with(".reg") || ["cvta", "cvt", "mov"].iter().any(|p| op.starts_with(p))
        });
        if only_conversions && asm.outputs.len() == 1 && operands.len() == 2 && self.derived_from_pointer(operands[1]) {
            let p = self.asm_address(operands[1], span)?;
            let lv = self.lvalue(operands[0])?;
            return self.store(lv, RV::Ptr(p), span);
        }
        // Outputs receive unknown values (inputs are evaluated for their reads).
        for (i, &op) in operands.iter().enumerate() {
            if i < asm.outputs.len() {
                let lv = self.lvalue(op)?;
                if asm.outputs[i].contains('+') {
                    self.load(lv.clone(), span)?;
                }
                let t = self.type_of(op);
                let v = match &t {
                    CType::Ptr(p) => RV::Ptr(Pointer {
                        region: Region::Unknown("a pointer written by inline asm".into()),
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: (**p).clone(),
                    }),
                    t => RV::Scalar(Expr::Unknown(t.scalar()), t.clone()),
                };
                self.store(lv, v, span)?;
            } else if !found_barrier {
                self.rvalue(op)?;
            }
        }
        Ok(())
    }

    /// A PTX memory instruction: `ld`/`ldu` reads, `st` writes, `atom`/`red` atomics, of the
    /// width its type and vector suffixes give, at the address its `[%N+imm]` operand names.
    /// Anything else that touches memory (async copies, matrix loads, mbarriers) stops the kernel.
    fn asm_memory(&mut self, opcode: &str, rest: &str, operands: &[NodeId], span: Span) -> FResult<()> {
        let segs: Vec<&str> = opcode.split('.').collect();
        let kind = match segs[0] {
            "ld" | "ldu" => AccessKind::Read,
            "st" => AccessKind::Write,
            "atom" | "red" => AccessKind::Atomic,
            // A prefetch only moves data between caches.
            "prefetch" | "prefetchu" => return Ok(()),
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    format!("inline asm `{opcode}` accesses memory in a way autosync does not model"),
                )
                .with_help("express the access in CUDA C++ or move it out of the checked kernel"))
            }
        };
        let space = segs.iter().find_map(|s| match *s {
            "global" => Some(Space::Global),
            "shared" | "shared::cta" => Some(Space::Shared),
            "local" => Some(Space::Local),
            _ => None,
        });
        if segs.iter().any(|s| matches!(*s, "param" | "const" | "shared::cluster")) {
            return Err(FrontError::unsupported(
                span,
                format!("inline asm `{opcode}`: this state space is not modelled"),
            ));
        }
        let vec: u32 = segs
            .iter()
            .find_map(|s| s.strip_prefix('v').and_then(|n| n.parse().ok()))
            .unwrap_or(1);
        let bits: u32 = segs
            .iter()
            .rev()
            .find_map(|s| {
                let t = s.strip_prefix(['b', 'u', 's', 'f'])?;
                t.parse().ok()
            })
            .ok_or_else(|| FrontError::unsupported(span, format!("inline asm `{opcode}` without an operand type")))?;
        let size = vec * bits.div_ceil(8);
        // The address operand: `[%N]`, `[%N+8]`, `[%N + -4]`.
        let open = rest
            .find('[')
            .ok_or_else(|| FrontError::unsupported(span, format!("`{opcode}` without an address")))?;
        let close = rest[open..]
            .find(']')
            .map(|c| open + c)
            .ok_or_else(|| FrontError::input(span, "unclosed `[` in asm"))?;
        let addr = rest[open + 1..close].replace(' ', "");
        let (reg, imm) = match addr.find(['+', '-']) {
            Some(i) if i > 0 => {
                let imm = super::types::parse_int(addr[i..].trim_start_matches('+'))
                    .ok_or_else(|| FrontError::unsupported(span, format!("asm address `[{addr}]`")))?;
                (&addr[..i], imm)
            }
            _ => (addr.as_str(), 0),
        };
        let idx: usize = reg
            .strip_prefix('%')
            .and_then(|r| r.parse().ok())
            .ok_or_else(|| FrontError::unsupported(span, format!("asm address `[{addr}]` is not an operand")))?;
        let node = *operands
            .get(idx)
            .ok_or_else(|| FrontError::input(span, format!("asm operand %{idx} does not exist")))?;
        let p = self.asm_address(node, span)?;
        let Region::Array(array) = p.region else {
            return Err(FrontError::unsupported(
                span,
                format!("inline asm `{opcode}` through {}", self.region_name(&p.region)),
            ));
        };
        let actual = self.arrays[array.0 as usize].space;
        if let Some(sp) = space {
            if sp != actual {
                return Err(FrontError::unsupported(
                    span,
                    format!(
                        "inline asm `{opcode}` addresses `{}`, which is not in {sp:?} memory",
                        self.arrays[array.0 as usize].name
                    ),
                ));
            }
        }
        let access = Access {
            array,
            kind,
            offset: add_offset(p.off, Expr::Const(imm, ScalarTy::U64), 1),
            size,
            span: self.span(node),
        };
        self.ops.push(match kind {
            AccessKind::Read => Op::Read(None, access),
            AccessKind::Write => Op::Write(access, Expr::Unknown(ScalarTy::Opaque)),
            AccessKind::Atomic => Op::Atomic(None, access, AtomicOp::Other),
        });
        Ok(())
    }

    /// The pointer an asm address operand holds: a pointer, or an integer made from one
    /// (`(unsigned)__cvta_generic_to_shared(p) + 4 * i`).
    fn asm_address(&mut self, n: NodeId, span: Span) -> FResult<Pointer> {
        let ast = self.ast;
        match ast.kind(n) {
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXReinterpretCastExpr"
            | "ParenExpr"
            | "CXXFunctionalCastExpr"
                if !self.type_of(n).is_pointer() || !self.type_of(self.expr_children(n)[0]).is_pointer() =>
            {
                let c = *self
                    .expr_children(n)
                    .first()
                    .ok_or_else(|| FrontError::input(span, "empty cast"))?;
                if self.type_of(c).is_pointer() || !self.type_of(c).is_integral() || self.derived_from_pointer(c) {
                    return self.asm_address(c, span);
                }
                self.pointer(n)
            }
            "CallExpr" => {
                let name = self
                    .expr_children(n)
                    .first()
                    .and_then(|&c| {
                        let mut c = c;
                        while ast.kind(c) == "ImplicitCastExpr" {
                            c = ast.children(c).next()?;
                        }
                        ast.node(c).attrs.referenced.map(|r| ast.str(r.name).to_string())
                    })
                    .unwrap_or_default();
                if name.starts_with("__cvta_generic_to_") {
                    let arg = *self
                        .expr_children(n)
                        .get(1)
                        .ok_or_else(|| FrontError::input(span, "cvta without argument"))?;
                    return self.asm_address(arg, span);
                }
                self.pointer(n)
            }
            "BinaryOperator" if !self.type_of(n).is_pointer() => {
                let op = ast.node(n).attrs.opcode.map(|o| ast.str(o)).unwrap_or("");
                let kids = self.expr_children(n);
                let [l, r] = kids[..] else { return self.pointer(n) };
                if matches!(op, "+" | "-") && self.derived_from_pointer(l) {
                    let p = self.asm_address(l, span)?;
                    let (e, t) = self.scalar(r)?;
                    let mut d = convert(e, &t, &CType::U64);
                    if op == "-" {
                        d = Expr::Un(UnOp::Neg, ScalarTy::U64, Box::new(d));
                    }
                    return Ok(Pointer {
                        off: add_offset(p.off, d, 1),
                        ..p
                    });
                }
                self.pointer(n)
            }
            _ => self.pointer(n),
        }
    }

    /// Whether an integer expression is a pointer converted to an integer (possibly offset).
    fn derived_from_pointer(&self, n: NodeId) -> bool {
        let ast = self.ast;
        if self.type_of(n).is_pointer() {
            return true;
        }
        match ast.kind(n) {
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXReinterpretCastExpr"
            | "ParenExpr"
            | "CXXFunctionalCastExpr" => self
                .expr_children(n)
                .first()
                .is_some_and(|&c| self.derived_from_pointer(c)),
            "BinaryOperator" => self
                .expr_children(n)
                .first()
                .is_some_and(|&c| self.derived_from_pointer(c)),
            "DeclRefExpr" => ast
                .node(n)
                .attrs
                .referenced
                .is_some_and(|r| matches!(self.env.get(&r.id), Some(Binding::Ptr(_)))),
            "CallExpr" => {
                let mut found = false;
                ast.walk(n, &mut |c| {
                    if let Some(r) = ast.node(c).attrs.referenced {
                        found |= ast.str(r.name).starts_with("__cvta_generic_to_");
                    }
                });
                found
            }
            _ => false,
        }
    }

    /// A barrier operand: `%N` (an operand expression) or a literal.
    fn asm_operand(&mut self, o: &str, operands: &[NodeId], span: Span) -> FResult<Expr> {
        if let Some(idx) = o.strip_prefix('%') {
            let i: usize = idx
                .parse()
                .map_err(|_| FrontError::unsupported(span, format!("asm operand `{o}` is not %N")))?;
            let node = *operands
                .get(i)
                .ok_or_else(|| FrontError::input(span, format!("asm operand `{o}` does not exist")))?;
            if let Some(v) = self.const_eval(node, 0) {
                return Ok(Expr::Const(v, ScalarTy::U32));
            }
            let (e, t) = self.scalar(node)?;
            return Ok(convert(e, &t, &CType::UINT));
        }
        super::types::parse_int(o)
            .map(|v| Expr::Const(v, ScalarTy::U32))
            .ok_or_else(|| FrontError::unsupported(span, format!("asm operand `{o}` is neither a literal nor %N")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_asm_text() {
        let a = parse_asm(r#"asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory")"#).unwrap();
        assert_eq!(a.template, "bar.sync %0, %1;");
        assert!(a.outputs.is_empty());
        assert_eq!(a.inputs, vec!["r", "r"]);
        let a = parse_asm("asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane))").unwrap();
        assert_eq!(a.template, "mov.u32 %0, %%laneid;");
        assert_eq!(a.outputs, vec!["=r"]);
        let a = parse_asm("asm volatile(\"ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];\" : \"=f\"(a), \"=f\"(b), \"=f\"(c), \"=f\"(d) : \"l\"(p + (i * 4)))").unwrap();
        assert_eq!(a.outputs.len(), 4);
        assert_eq!(a.inputs, vec!["l"]);
        assert!(parse_asm("asm(BAR_TEXT :: \"r\"(x))").is_err());
        assert_eq!(barrier_kind("barrier.cta.arrive.aligned"), Some("arrive"));
        assert_eq!(barrier_kind("bar"), Some("sync"));
        assert_eq!(barrier_kind("mov.u32"), None);
    }
}
