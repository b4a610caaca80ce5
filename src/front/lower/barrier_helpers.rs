//! Barrier helpers: `__device__` functions and function-like macros that wrap exactly one named
//! barrier (`bar.sync %0, %1` / `bar.arrive %0, %1` asm) with the ID and the thread count
//! passed through unchanged from two parameters. Emission writes inserted barriers through them
//! so that a fix reads like the kernel's own code.

use super::asm::{barrier_kind, parse_asm};
use super::source::SourceMap;
use crate::front::ast::{Ast, NodeId, NodeKind};
use autosync_oracle::ir::{BarrierHelper, HelperKind, Kernel};

/// A helper and where its definition is (a kernel before it cannot call it).
#[derive(Clone, Debug)]
pub struct Found {
    /// Byte offset of the definition in the main file (0 for definitions in headers, which
    /// are included before any kernel that uses them).
    pub at: u32,
    /// The helper, with `used` false.
    pub helper: BarrierHelper,
}

/// The barrier helpers of a translation unit: functions first (in file order), then macros.
pub fn find(ast: &Ast, src: &SourceMap) -> Vec<Found> {
    let mut out = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for &r in &ast.roots {
        collect_functions(ast, src, r, &mut out, &mut names);
    }
    // Overloads would make `name(ID, N)` ambiguous.
    out.retain(|f| names.iter().filter(|n| **n == f.helper.name).count() == 1);
    out.sort_by_key(|f| f.at);
    out.extend(find_macros(ast, src));
    out
}

fn collect_functions(ast: &Ast, src: &SourceMap, n: NodeId, out: &mut Vec<Found>, names: &mut Vec<String>) {
    // The file's own helpers: system headers (now kept whole) are the libraries' business.
    if ast
        .node(n)
        .loc
        .is_some_and(|l| ast.files[l.expansion.file.0 as usize].system)
    {
        return;
    }
    match ast.kind(n) {
        NodeKind::NamespaceDecl | NodeKind::LinkageSpecDecl => {
            for c in ast.children(n).collect::<Vec<_>>() {
                collect_functions(ast, src, c, out, names);
            }
        }
        NodeKind::FunctionDecl => {
            names.push(ast.name(n).to_string());
            if ast.has_attr(n, NodeKind::CUDAGlobalAttr) {
                return;
            }
            if let Some(h) = from_function(ast, src, n) {
                let at = ast
                    .node(n)
                    .loc
                    .filter(|l| src.is_main(l.expansion.file))
                    .map(|l| l.expansion.offset)
                    .unwrap_or(0);
                out.push(Found { at, helper: h });
            }
        }
        NodeKind::FunctionTemplateDecl => names.push(ast.name(n).to_string()),
        _ => {}
    }
}

/// Recognizes a helper function: two integer parameters, a body that is one barrier asm whose
/// operands are those parameters.
fn from_function(ast: &Ast, src: &SourceMap, f: NodeId) -> Option<BarrierHelper> {
    let params: Vec<NodeId> = ast.children_of_kind(f, NodeKind::ParmVarDecl).collect();
    if params.len() != 2 {
        return None;
    }
    for &p in &params {
        let t = ast.ty(p)?;
        if !is_int_type(t) {
            return None;
        }
    }
    let body = ast.children_of_kind(f, NodeKind::CompoundStmt).last()?;
    let asm = single_asm(ast, body)?;
    let text = src.spelled_text(asm)?;
    let a = parse_asm(&text).ok()?;
    if !a.outputs.is_empty() {
        return None;
    }
    let (kind, ops) = one_barrier(&a.template)?;
    let operands: Vec<NodeId> = ast.children(asm).collect();
    let param_ids: Vec<u64> = params.iter().map(|&p| ast.node(p).id).collect();
    let which = |i: usize| -> Option<usize> {
        let mut e = *operands.get(i)?;
        while ast.kind(e) == NodeKind::ImplicitCastExpr || ast.kind(e) == NodeKind::ParenExpr {
            e = ast.children(e).next()?;
        }
        let r = ast.node(e).attrs.referenced?;
        param_ids.iter().position(|&p| p == r.id)
    };
    let (id_arg, count_arg) = (which(ops.0)?, which(ops.1)?);
    (id_arg != count_arg).then(|| BarrierHelper {
        name: ast.name(f).to_string(),
        kind,
        arity: 2,
        id_arg,
        count_arg,
        is_macro: false,
        used: false,
    })
}

fn is_int_type(t: &str) -> bool {
    let t = t.trim_start_matches("const ").trim();
    matches!(
        t,
        "int" | "unsigned int" | "unsigned" | "uint32_t" | "int32_t" | "long" | "unsigned long" | "size_t" | "uint"
    )
}

/// The one asm statement a body consists of (also inside `do { ... } while (0)` and nested
/// braces).
fn single_asm(ast: &Ast, body: NodeId) -> Option<NodeId> {
    let stmts: Vec<NodeId> = ast
        .children(body)
        .filter(|&c| ast.kind(c) != NodeKind::NullStmt)
        .collect();
    let [s] = stmts[..] else { return None };
    match ast.kind(s) {
        NodeKind::GCCAsmStmt => Some(s),
        NodeKind::CompoundStmt => single_asm(ast, s),
        NodeKind::DoStmt => {
            let kids: Vec<NodeId> = ast.children(s).collect();
            let [b, c] = kids[..] else { return None };
            let mut cv = None;
            ast.walk(c, &mut |x| {
                if cv.is_none() && matches!(ast.kind(x), NodeKind::IntegerLiteral | NodeKind::CXXBoolLiteralExpr) {
                    cv = ast.value(x).map(str::to_string);
                }
            });
            if cv.as_deref() != Some("0") {
                return None;
            }
            single_asm(ast, b)
        }
        _ => None,
    }
}

/// The barrier of a one-instruction template whose two operands are `%i, %j`.
fn one_barrier(template: &str) -> Option<(HelperKind, (usize, usize))> {
    let mut instrs = template.split([';', '\n']).map(str::trim).filter(|s| !s.is_empty());
    let instr = instrs.next()?;
    if instrs.next().is_some() {
        return None;
    }
    let (opcode, rest) = instr.split_once(char::is_whitespace)?;
    let kind = match barrier_kind(opcode)? {
        "sync" => HelperKind::Sync,
        "arrive" => HelperKind::Arrive,
        _ => return None,
    };
    let ops: Vec<usize> = rest
        .split(',')
        .map(|o| o.trim().strip_prefix('%')?.parse().ok())
        .collect::<Option<Vec<_>>>()?;
    let [a, b] = ops[..] else { return None };
    Some((kind, (a, b)))
}

/// Function-like macros of the user's files whose body is a barrier helper.
fn find_macros(ast: &Ast, src: &SourceMap) -> Vec<Found> {
    let mut out = Vec::new();
    for (i, f) in ast.files.iter().enumerate() {
        if f.system {
            continue;
        }
        let fi = crate::front::ast::FileIdx(i as u32);
        let Some(text) = src.raw_text(fi) else { continue };
        let main = src.is_main(fi);
        for (at, name, params, body) in macro_defs(&text) {
            if let Some(h) = from_macro(&name, &params, &body) {
                out.push(Found {
                    at: if main { at as u32 } else { 0 },
                    helper: h,
                });
            }
        }
    }
    out
}

/// `#define NAME(a, b) body` definitions: offset, name, parameters, body (continuations joined).
fn macro_defs(text: &str) -> Vec<(usize, String, Vec<String>, String)> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let start = offset;
        offset += line.len();
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else { continue };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        let mut full = rest.trim_end_matches(['\n', '\r']).to_string();
        while full.ends_with('\\') {
            full.pop();
            match lines.next() {
                Some(l) => {
                    offset += l.len();
                    full.push(' ');
                    full.push_str(l.trim_end_matches(['\n', '\r']));
                }
                None => break,
            }
        }
        let full = full.trim_start();
        let name_end = full
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(full.len());
        let name = &full[..name_end];
        let Some(after) = full[name_end..].strip_prefix('(') else {
            continue;
        };
        let Some(close) = after.find(')') else { continue };
        let params: Vec<String> = after[..close]
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        out.push((start, name.to_string(), params, after[close + 1..].trim().to_string()));
    }
    out
}

/// A macro is a helper when its body is one barrier asm with exactly its two parameters as the
/// ID and count operands.
fn from_macro(name: &str, params: &[String], body: &str) -> Option<BarrierHelper> {
    if params.len() != 2 {
        return None;
    }
    let mut b = body.trim().trim_end_matches(';').trim();
    // `do { ... } while (0)` and braces.
    if let Some(inner) = b.strip_prefix("do") {
        let inner = inner.trim_start();
        let close = inner.rfind('}')?;
        let tail = inner[close + 1..].replace(char::is_whitespace, "");
        if tail != "while(0)" && tail != "while(false)" {
            return None;
        }
        b = inner[..close]
            .trim_start_matches('{')
            .trim()
            .trim_end_matches(';')
            .trim();
    }
    let b = b
        .trim_start_matches('{')
        .trim_end_matches('}')
        .trim()
        .trim_end_matches(';')
        .trim();
    if !(b.starts_with("asm") || b.starts_with("__asm")) {
        return None;
    }
    // Nothing may follow the asm statement.
    let open = b.find('(')?;
    let close = super::source::matching_paren(b.as_bytes(), open)?;
    if !b[close + 1..].trim().trim_matches(';').trim().is_empty() {
        return None;
    }
    let a = parse_asm(b).ok()?;
    if !a.outputs.is_empty() {
        return None;
    }
    let (kind, ops) = one_barrier(&a.template)?;
    // The operand expressions: `"r"(id)` — the text inside the parentheses must be a parameter.
    let open = b.find('(')?;
    let inner = &b[open + 1..super::source::matching_paren(b.as_bytes(), open)?];
    let sections: Vec<&str> = inner.splitn(4, ':').collect();
    let inputs = sections.get(2)?;
    let exprs: Vec<String> = inputs
        .split(',')
        .map(|op| {
            let o = op.find('(').map(|i| &op[i + 1..]).unwrap_or("");
            o.trim_end()
                .trim_end_matches(')')
                .trim()
                .trim_matches(['(', ')'])
                .trim()
                .to_string()
        })
        .collect();
    let which = |i: usize| params.iter().position(|p| exprs.get(i).is_some_and(|e| e == p));
    let (id_arg, count_arg) = (which(ops.0)?, which(ops.1)?);
    (id_arg != count_arg).then(|| BarrierHelper {
        name: name.to_string(),
        kind,
        arity: 2,
        id_arg,
        count_arg,
        is_macro: true,
        used: false,
    })
}

/// The helpers of `all` defined before the kernel (which starts at `start` in the main file),
/// with `used` set when the kernel's own text calls them.
pub fn for_kernel(all: &[Found], start: u32, k: &Kernel, texts: &[String]) -> Vec<BarrierHelper> {
    let text = texts
        .get(k.span.file.0 as usize)
        .and_then(|t| t.get(k.span.lo as usize..k.span.hi as usize))
        .unwrap_or("");
    all.iter()
        .filter(|f| f.at < start)
        .map(|f| BarrierHelper {
            used: calls_name(text, &f.helper.name),
            ..f.helper.clone()
        })
        .collect()
}

/// Whether `text` contains `name` as a whole identifier followed by `(`.
fn calls_name(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].trim_start();
        !before.is_some_and(ident) && after.starts_with('(')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macro_helpers() {
        let defs = macro_defs(
            "#define BAR_SYNC(id, n) asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\")\n\
             #define ARRIVE(n, id) do { \\\n  asm volatile(\"bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(n)); \\\n} while (0)\n\
             #define OTHER(x) (x + 1)\n",
        );
        assert_eq!(defs.len(), 3);
        let h = from_macro(&defs[0].1, &defs[0].2, &defs[0].3).unwrap();
        assert_eq!((h.kind, h.id_arg, h.count_arg), (HelperKind::Sync, 0, 1));
        let h = from_macro(&defs[1].1, &defs[1].2, &defs[1].3).unwrap();
        assert_eq!((h.kind, h.id_arg, h.count_arg), (HelperKind::Arrive, 1, 0));
        assert!(from_macro(&defs[2].1, &defs[2].2, &defs[2].3).is_none());
    }
}
