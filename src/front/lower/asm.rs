//! Inline PTX: Clang's AST keeps an asm statement's operands but not its text, so the text
//! is read from the source (where its tokens are spelled) and parsed here. Named barriers are
//! understood; anything that may touch memory and is not modelled stops the kernel.

use super::*;

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
    let close = source::matching_paren(b, open).ok_or("unbalanced parentheses in asm")?;
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
                return Err(FrontError::unsupported(
                    span,
                    format!("inline asm `{opcode}` accesses memory and is not modelled"),
                )
                .with_help("express the access in CUDA C++ or move it out of the checked kernel"));
            }
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
                    t => RV::Scalar(Expr::Opaque(t.scalar(), vec![]), t.clone()),
                };
                self.store(lv, v, span)?;
            } else if !found_barrier {
                self.rvalue(op)?;
            }
        }
        Ok(())
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
        types::parse_int(o)
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
