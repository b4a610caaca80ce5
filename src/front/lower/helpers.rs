//! Barrier helpers: `__device__` functions and function-like macros that wrap exactly one named
//! barrier (`bar.sync %0, %1` / `bar.arrive %0, %1` asm) with the ID and the thread count passed
//! through unchanged from two parameters. Emission writes inserted barriers through them so that
//! a fix reads like the kernel's own code.

use super::calls::{barrier_kind, string_text};
use super::Unit;
use crate::front::preprocess::FnMacro;
use autosync_oracle::ir::{BarrierHelper, HelperKind, Kernel};
use tree_sitter::Node;

/// Name of the function a macro body is wrapped in so that it can be parsed like a helper.
const MACRO_WRAPPER: &str = "__autosync_macro_helper";

/// A helper and where its definition takes effect in the preprocessed text.
#[derive(Clone, Debug)]
pub struct Found {
    /// Offset in the preprocessed text (a kernel before it cannot call it).
    pub at: usize,
    /// The helper, with `used` false.
    pub helper: BarrierHelper,
}

/// The barrier helpers the translation unit defines (functions first, in file order, then
/// macros).
pub fn find(unit: &Unit, macros: &[FnMacro]) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for (name, defs) in &unit.funcs {
        // Overloads and templates would make `name(ID, N)` ambiguous; methods need an object.
        let [def] = defs.as_slice() else { continue };
        if def.template.is_some() || def.owner.is_some() || unit.is_kernel(def.node) {
            continue;
        }
        if let Some(helper) = from_function(unit.src, def.node, name, false) {
            out.push(Found {
                at: def.node.start_byte(),
                helper,
            });
        }
    }
    out.sort_by_key(|f| f.at);
    out.extend(macros.iter().filter_map(|m| {
        Some(Found {
            at: m.at,
            helper: from_macro(m)?,
        })
    }));
    out
}

/// The helpers of `all` defined before the kernel (which starts at `start` in the preprocessed
/// text), with `used` set when the kernel's own text calls them.
pub fn for_kernel(all: &[Found], start: usize, k: &Kernel, texts: &[String]) -> Vec<BarrierHelper> {
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

/// A macro is a helper when its body, as the body of a function with its parameters, is one.
fn from_macro(m: &FnMacro) -> Option<BarrierHelper> {
    let body = m.body.trim().trim_end_matches(';');
    let params: Vec<String> = m.params.iter().map(|p| format!("int {p}")).collect();
    let src = format!("void {MACRO_WRAPPER}({}) {{ {body}; }}\n", params.join(", "));
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).ok()?;
    let tree = parser.parse(&src, None)?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let f = root.named_child(0).filter(|f| f.kind() == "function_definition")?;
    from_function(&src, f, &m.name, true)
}

/// Recognizes a helper function definition.
fn from_function(src: &str, f: Node, name: &str, is_macro: bool) -> Option<BarrierHelper> {
    let text = |n: Node| &src[n.byte_range()];
    let params = int_params(src, f)?;
    let asm = single_asm(src, f.child_by_field_name("body")?)?;
    if asm
        .child_by_field_name("output_operands")
        .is_some_and(|o| o.named_child_count() > 0)
    {
        return None;
    }
    let code = string_text(text(asm.child_by_field_name("assembly_code")?));
    let mut instrs = code.split([';', '\n']).map(str::trim).filter(|s| !s.is_empty());
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
    let inputs: Vec<Node> = match asm.child_by_field_name("input_operands") {
        Some(list) => {
            let mut c = list.walk();
            let ops: Vec<Node> = list.named_children(&mut c).collect();
            ops.into_iter().filter_map(|o| o.child_by_field_name("value")).collect()
        }
        None => vec![],
    };
    // Each PTX operand must be `%i` naming an input that is a parameter, used unchanged.
    let mut args = rest.split(',').map(str::trim).map(|o| -> Option<usize> {
        let i: usize = o.strip_prefix('%')?.parse().ok()?;
        let v = unparen(*inputs.get(i)?);
        (v.kind() == "identifier").then(|| params.iter().position(|p| p == text(v)))?
    });
    let (id_arg, count_arg) = (args.next()??, args.next()??);
    // Every parameter must be the ID or the count: emission has no value for anything else.
    if args.next().is_some() || id_arg == count_arg || params.len() != 2 {
        return None;
    }
    Some(BarrierHelper {
        name: name.to_string(),
        kind,
        arity: params.len(),
        id_arg,
        count_arg,
        is_macro,
        used: false,
    })
}

/// Parameter names of a function whose parameters are all plain integer values.
fn int_params(src: &str, f: Node) -> Option<Vec<String>> {
    let fd = super::find_kind(f.child_by_field_name("declarator")?, "function_declarator")?;
    let list = fd.child_by_field_name("parameters")?;
    let mut c = list.walk();
    let mut names = Vec::new();
    for p in list.named_children(&mut c) {
        match p.kind() {
            "comment" => continue,
            "parameter_declaration" => {}
            _ => return None,
        }
        let d = p.child_by_field_name("declarator")?;
        let ty = &src[p.child_by_field_name("type")?.byte_range()];
        if d.kind() != "identifier" || ["float", "double", "half", "bool"].iter().any(|t| ty.contains(t)) {
            return None;
        }
        names.push(src[d.byte_range()].to_string());
    }
    Some(names)
}

/// The asm expression of a body that consists of exactly that one statement (also inside
/// `do { ... } while (0)`, the usual macro wrapper).
fn single_asm<'t>(src: &str, body: Node<'t>) -> Option<Node<'t>> {
    let mut c = body.walk();
    let stmts: Vec<Node> = body.named_children(&mut c).filter(|n| n.kind() != "comment").collect();
    let [s] = stmts.as_slice() else { return None };
    match s.kind() {
        "expression_statement" => {
            let e = unparen(s.named_child(0)?);
            (e.kind() == "gnu_asm_expression").then_some(e)
        }
        "compound_statement" => single_asm(src, *s),
        "do_statement" => {
            let cond = unparen(s.child_by_field_name("condition")?);
            if !matches!(&src[cond.byte_range()], "0" | "false") {
                return None;
            }
            single_asm(src, s.child_by_field_name("body")?)
        }
        _ => None,
    }
}

fn unparen(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(x) => n = x,
            None => break,
        }
    }
    n
}
