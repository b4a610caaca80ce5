//! Lowering a parsed file: the kernels it defines (those `--kernel` selects), each with its
//! launch configuration and the barrier helpers the file defines, into a [`SourceUnit`].

use super::error::{FResult, FrontError};
use super::launch_sites::{self, LaunchSite};
use super::lower::kernels::KernelDef;
use super::lower::source::SourceMap;
use super::lower::types::Types;
use super::options::FrontOptions;
use super::source_unit::{base_name, SourceUnit, Unlowered};
use super::{ast, clang, clang_errors, error, launch, launch_config, lower};
use autosync_oracle::ir::{FileId, Span};
use autosync_oracle::report::Hazard;
use std::path::Path;

/// Lowers the kernels of an AST Clang produced for `text` (the content of `path`). Public for
/// the fuzzers, which feed it ASTs that no Clang produced: it must fail cleanly, never panic.
pub fn lower_parsed(
    path: &Path,
    text: &str,
    ast: &ast::Ast,
    errors: &[clang::Diagnostic],
    header: &launch::Header,
    notes: Vec<(Span, String)>,
    opts: &FrontOptions,
) -> FResult<SourceUnit> {
    lower_parsed_with(path, text, ast, errors, header, notes, opts, None)
}

/// [`lower_parsed`] with a way to have the file preprocessed by Clang (for asm text that a
/// macro builds, which the dump does not carry).
#[allow(clippy::too_many_arguments)]
pub fn lower_parsed_with(
    path: &Path,
    text: &str,
    ast: &ast::Ast,
    errors: &[clang::Diagnostic],
    header: &launch::Header,
    mut notes: Vec<(Span, String)>,
    opts: &FrontOptions,
    preprocess: Option<&dyn Fn() -> Option<clang::preprocess::Preprocessed>>,
) -> FResult<SourceUnit> {
    let types = Types::new(ast).with_main_text(text);
    let src = SourceMap::new(ast, path, text).with_preprocessor(preprocess);
    let lopts = lower::LowerOptions {
        assume_pure: opts.assume_pure.clone(),
        arch: opts.clang.arch().to_string(),
    };
    clang_errors::check_errors(ast, &src, errors, path, &mut notes)?;
    let (defs, _) = lower::kernels::find(ast, &src, &types);
    for (off, flag) in &header.unknown {
        notes.push((
            Span::new(FileId(0), *off as u32, *off as u32 + 2),
            format!("header flag `{flag}` ignored"),
        ));
    }
    let all_helpers = lower::barrier_helpers::find(ast, &src);
    let sites = launch_sites::find(ast, &src);
    let mut kernels = Vec::new();
    let mut helper_lists = Vec::new();
    let mut hazard_lists = Vec::new();
    let found_names: Vec<String> = defs.iter().map(KernelDef::display_name).collect();
    let chosen: Vec<&KernelDef> = defs
        .iter()
        .filter(|d| {
            opts.kernel
                .as_deref()
                .is_none_or(|k| k == d.display_name() || base_name(k) == d.name && !k.contains('<'))
        })
        .collect();
    let mut unlowered = Vec::new();
    for d in &chosen {
        let mut knotes = Vec::new();
        match lower_kernel(ast, &types, &src, &lopts, d, header, opts, &sites, &mut knotes) {
            Ok((k, hz)) => {
                notes.extend(knotes);
                kernels.push((k, d.node, hz));
            }
            // Input errors are the file's (Clang accepted something malformed); an
            // unsupported construct or a missing value is this kernel's alone.
            Err(e) if e.kind == error::FrontErrorKind::Input => return Err(e),
            Err(error) => unlowered.push(Unlowered {
                kernel: d.display_name(),
                span: src.node_span(d.node),
                error,
            }),
        }
    }
    // With no kernel left there is no verdict to give: the file stops on the first error.
    if kernels.is_empty() && !unlowered.is_empty() {
        let mut e = unlowered.swap_remove(0).error;
        if e.span.file.0 != 0 {
            e.header = src.files().0.get(e.span.file.0 as usize).map(|f| f.path.clone().into());
        }
        return Err(e);
    }
    let (files, texts) = src.files();
    let mut out = Vec::new();
    for (mut k, node, hz) in kernels {
        hazard_lists.push(hz);
        k.files.clone_from(&files);
        let start = ast.node(node).range.map(|r| r.begin.expansion.offset).unwrap_or(0);
        helper_lists.push(lower::barrier_helpers::for_kernel(&all_helpers, start, &k, &texts));
        out.push(k);
    }
    if let Some(k) = &opts.kernel {
        if out.is_empty() {
            let known = if found_names.is_empty() {
                "none".to_string()
            } else {
                found_names.join(", ")
            };
            return Err(FrontError::input(
                Span::new(FileId(0), 0, 0),
                format!("no __global__ kernel named `{k}` (kernels in file: {known})"),
            ));
        }
    }
    Ok(SourceUnit {
        path: path.to_path_buf(),
        texts,
        kernels: out,
        notes,
        helpers: helper_lists,
        hazards: hazard_lists,
        env: None,
        unlowered,
        files,
        inputs: Vec::new(),
    })
}

/// Lowers one kernel with its launch configuration; its notes go to `notes`.
#[allow(clippy::too_many_arguments)]
fn lower_kernel(
    ast: &ast::Ast,
    types: &Types,
    src: &SourceMap,
    lopts: &lower::LowerOptions,
    d: &KernelDef,
    header: &launch::Header,
    opts: &FrontOptions,
    sites: &[LaunchSite],
    notes: &mut Vec<(Span, String)>,
) -> FResult<(autosync_oracle::ir::Kernel, Vec<Hazard>)> {
    let path = src.main_path().to_path_buf();
    let lw = lower::Lowerer::new(ast, types, src, lopts, d.scope.clone());
    let lowered = lw.kernel(d).map_err(|e| e.naming_main_file(&path))?;
    let mut k = lowered.kernel;
    notes.extend(
        lowered
            .notes
            .into_iter()
            .map(|(s, n)| (s, error::name_main_file(&n, &path))),
    );
    let id = ast.node(d.node).id;
    let mine: Vec<LaunchSite> = sites.iter().filter(|s| s.kernel == id).cloned().collect();
    k.launch = launch_config::resolve_launch(src, d, header, opts, &k, &mine, notes)?;
    k.launch.facts = launch_config::launch_facts(&k, &param_names(ast, d.node), &mine);
    if let Some(note) = launch_config::grid_note(&k, &mine) {
        notes.push(note);
    }
    Ok((k, lowered.hazards))
}

/// The names of a function's parameters, in order.
fn param_names(ast: &ast::Ast, f: ast::NodeId) -> Vec<String> {
    ast.children(f)
        .filter(|&c| ast.kind(c) == ast::NodeKind::ParmVarDecl)
        .map(|c| ast.name(c).to_string())
        .collect()
}
