//! An asm statement's text as the source spells it: string literals joined, instructions split
//! at top-level `;`, and the barrier form of an opcode.

use crate::front::lower::convert::*;

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
    // Line splices (a backslash ending a line) are gone before tokens are formed.
    let spliced = text.replace("\\\r\n", "").replace("\\\n", "");
    let text = spliced.as_str();
    let b = text.as_bytes();
    let open = text.find('(').ok_or("no `(` after asm")?;
    let close = crate::front::lower::source::matching_paren(b, open).ok_or("unbalanced parentheses in asm")?;
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
