//! Kernel templates the file never instantiates, instantiated with the user's values
//! (`--define`, `template_args:` in autosync.yaml) by host functions appended to the text.

use super::ast;
use super::error::{FrontError, FrontErrorKind};
use super::lower::kernels::Uninstantiated;
use super::lower::source::SourceMap;
use super::options::FrontOptions;
use super::source_unit::Unlowered;

/// Host functions that instantiate kernel templates with the user's `--define` values, and
/// for each template some of whose values are not given, the kernel (as shown) and why it is
/// not checked.
pub(super) fn instantiations(
    ast: &ast::Ast,
    src: &SourceMap,
    templates: &[&Uninstantiated],
    opts: &FrontOptions,
) -> (String, Vec<Unlowered>) {
    let mut out = String::new();
    let mut open = Vec::new();
    for (i, t) in templates.iter().enumerate() {
        let mut args = Vec::new();
        let mut missing = Vec::new();
        let own = opts.kernel_template_values.get(&t.name);
        for (name, _) in &t.params {
            match opts.template_values.get(name).or_else(|| own.and_then(|o| o.get(name))) {
                Some(v) => args.push(v.clone()),
                None => missing.push(name.clone()),
            }
        }
        if !missing.is_empty() {
            let span = src.node_span(t.node);
            let params: Vec<String> = t
                .params
                .iter()
                .map(|(n, is_type)| if *is_type { format!("typename {n}") } else { n.clone() })
                .collect();
            let example: Vec<String> = missing.iter().map(|m| format!("--define {m}=VALUE")).collect();
            let _ = ast;
            let mut error = FrontError::missing(
                span,
                format!(
                    "kernel template `{}<{}>` has no instantiation in this file, so autosync does not know its template arguments",
                    t.name,
                    params.join(", ")
                ),
                format!(
                    "give them with {} (or `template_args:` for this kernel in autosync.yaml), or add an explicit instantiation",
                    example.join(" ")
                ),
            );
            error.kind = FrontErrorKind::Uninstantiated;
            open.push(Unlowered {
                kernel: format!("{}<{}>", t.name, params.join(", ")),
                span,
                error,
            });
            continue;
        }
        out.push_str(&format!(
            "static void __autosync_instantiate_{i}() {{ (void)&::{}<{}>; }}\n",
            t.qual,
            args.join(", ")
        ));
    }
    (out, open)
}
