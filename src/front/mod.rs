//! The CUDA front end: preprocess, parse with tree-sitter-cuda, lower to the kernel IR.
//!
//! Entry point: [`load`] turns one `.cu` file into kernels in IR form, each with spans into the
//! original file and its launch configuration resolved.

pub mod ctype;
pub mod error;
pub mod launch;
pub mod lower;
pub mod preprocess;

use autosync_oracle::ir::{BarrierHelper, FileId, Kernel, LaunchConfig, Span};
pub use error::{FResult, FrontError, FrontErrorKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the user told us about how to read a file.
#[derive(Clone, Debug, Default)]
pub struct FrontOptions {
    /// Only this kernel (by function name).
    pub kernel: Option<String>,
    /// `-D NAME=VALUE` for the preprocessor and template parameters.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I` directories.
    pub include_dirs: Vec<PathBuf>,
    /// CLI launch configuration (wins over everything in the file).
    pub block_dim: Option<[u32; 3]>,
    /// CLI grid dimension.
    pub grid_dim: Option<[u32; 3]>,
    /// CLI `--warp-sync`.
    pub warp_sync: Option<u32>,
    /// `--param n=V`.
    pub params: BTreeMap<String, i64>,
    /// Launch settings from the config file (below the CLI, above the in-source header).
    pub file_launch: launch::FileLaunch,
}

/// One source file with its kernels in IR form.
#[derive(Clone, Debug)]
pub struct SourceUnit {
    /// The file as given.
    pub path: PathBuf,
    /// Original text of the main file (index 0) and of included files.
    pub texts: Vec<String>,
    /// The kernels found (in file order).
    pub kernels: Vec<Kernel>,
    /// Notes for the user (ignored annotations, skipped includes, assumptions).
    pub notes: Vec<(Span, String)>,
    /// For each kernel (same order as `kernels`), the barrier helpers the file defines, with
    /// `used` set for those it calls.
    pub helpers: Vec<Vec<BarrierHelper>>,
}

impl SourceUnit {
    /// `path:line:col` for a span.
    pub fn loc(&self, span: Span) -> String {
        match self.kernels.first() {
            Some(k) => k.loc(span),
            None => self.path.display().to_string(),
        }
    }
}

/// Reads and lowers a file. IO problems and invalid UTF-8 are input errors.
pub fn load(path: &Path, opts: &FrontOptions) -> FResult<SourceUnit> {
    let file0 = Span::new(FileId(0), 0, 0);
    let bytes = std::fs::read(path).map_err(|e| {
        FrontError::input(file0, format!("cannot read {}: {e}", path.display()))
            .with_help("check the path and permissions")
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to() as u32;
        FrontError::input(Span::new(FileId(0), at, at + 1), "file is not valid UTF-8")
            .with_help("autosync reads CUDA sources as UTF-8; convert the file's encoding")
    })?;
    if text.as_bytes().contains(&0) {
        let at = text.bytes().position(|b| b == 0).unwrap_or(0) as u32;
        return Err(FrontError::input(
            Span::new(FileId(0), at, at + 1),
            "file contains NUL bytes (binary file?)",
        )
        .with_help("pass CUDA source files only"));
    }
    lower_text(path, &text, opts)
}

/// Lowers already-read text (used by `load`, tests and the fuzzers).
pub fn lower_text(path: &Path, text: &str, opts: &FrontOptions) -> FResult<SourceUnit> {
    let pp_opts = preprocess::PpOptions {
        defines: opts.defines.clone(),
        include_dirs: opts.include_dirs.clone(),
    };
    let pp = preprocess::preprocess(path, text, &pp_opts).map_err(|e| FrontError::input(e.span, e.message))?;
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .map_err(|e| FrontError::input(Span::new(FileId(0), 0, 0), format!("parser setup failed: {e}")))?;
    let tree = parser
        .parse(&pp.text, None)
        .ok_or_else(|| FrontError::input(Span::new(FileId(0), 0, 0), "the parser gave up on this file"))?;
    let map = |lo: usize, hi: usize| pp.origin_span(lo, hi);
    let unit = lower::Unit::new(tree.root_node(), &pp.text, &map);
    let header = launch::parse_header(text);
    let mut notes: Vec<(Span, String)> = pp.notes.clone();
    for (off, flag) in &header.unknown {
        notes.push((
            Span::new(FileId(0), *off as u32, *off as u32 + 2),
            format!("header flag `{flag}` ignored"),
        ));
    }
    let defines: BTreeMap<String, i64> = opts
        .defines
        .iter()
        .filter_map(|(n, v)| Some((n.clone(), v.as_deref().map(lower::const_int_pub).unwrap_or(Some(1))?)))
        .collect();
    let lopts = lower::LowerOptions { defines };
    let all_helpers = lower::helpers::find(&unit, &pp.macros);
    let mut kernels = Vec::new();
    let mut helpers = Vec::new();
    let mut found_names = Vec::new();
    for (f, template) in kernel_defs(&unit, tree.root_node()) {
        let name = unit.func_name(f).unwrap_or_default();
        found_names.push(name.clone());
        if opts.kernel.as_ref().is_some_and(|k| *k != name) {
            continue;
        }
        let lw = lower::Lowerer::new(&unit, &lopts);
        let (mut k, knotes) = lw.kernel(f, template, pp.files.clone())?;
        notes.extend(knotes);
        k.launch = resolve_launch(&unit, f, &header, opts, &k)?;
        helpers.push(lower::helpers::for_kernel(&all_helpers, f.start_byte(), &k, &pp.texts));
        kernels.push(k);
    }
    if let Some(err) = first_syntax_error(tree.root_node()) {
        let span = pp.origin_span(err.start_byte(), err.end_byte().max(err.start_byte() + 1));
        let what = if err.is_missing() {
            format!("missing `{}`", err.kind())
        } else {
            "syntax error".to_string()
        };
        return Err(FrontError::input(span, what).with_help("fix the syntax; autosync needs a file that parses"));
    }
    if let Some(k) = &opts.kernel {
        if kernels.is_empty() {
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
        texts: pp.texts.clone(),
        kernels,
        notes,
        helpers,
    })
}

fn first_syntax_error(n: tree_sitter::Node) -> Option<tree_sitter::Node> {
    if !n.has_error() {
        return None;
    }
    if n.is_error() || n.is_missing() {
        return Some(n);
    }
    let mut c = n.walk();
    let children: Vec<_> = n.children(&mut c).collect();
    children.into_iter().find_map(first_syntax_error)
}

/// `__global__` function definitions with their template parameter lists.
fn kernel_defs<'t>(
    unit: &lower::Unit<'t>,
    root: tree_sitter::Node<'t>,
) -> Vec<(tree_sitter::Node<'t>, Option<tree_sitter::Node<'t>>)> {
    let mut out = Vec::new();
    fn walk<'t>(
        unit: &lower::Unit<'t>,
        n: tree_sitter::Node<'t>,
        tp: Option<tree_sitter::Node<'t>>,
        out: &mut Vec<(tree_sitter::Node<'t>, Option<tree_sitter::Node<'t>>)>,
    ) {
        let mut c = n.walk();
        for ch in n.named_children(&mut c).collect::<Vec<_>>() {
            match ch.kind() {
                "function_definition" if unit.is_kernel(ch) => out.push((ch, tp)),
                "template_declaration" => walk(unit, ch, ch.child_by_field_name("parameters"), out),
                "namespace_definition" | "linkage_specification" => {
                    if let Some(b) = ch.child_by_field_name("body") {
                        walk(unit, b, None, out)
                    }
                }
                _ => {}
            }
        }
    }
    walk(unit, root, None, &mut out);
    out
}

/// Launch configuration: CLI > config file > header > `__launch_bounds__`.
fn resolve_launch(
    unit: &lower::Unit,
    f: tree_sitter::Node,
    header: &launch::Header,
    opts: &FrontOptions,
    k: &Kernel,
) -> FResult<LaunchConfig> {
    let bounds = lower::find_kind(f, "launch_bounds").and_then(|lb| {
        let first = lb.named_child(0)?;
        lower::const_int_pub(unit.text(first)).map(|v| (v, unit.span(lb)))
    });
    let file = opts.file_launch.for_kernel(&k.name);
    let block_dim = opts
        .block_dim
        .or(file.block_dim)
        .or(header.block_dim)
        .or(bounds.map(|(v, _)| [v as u32, 1, 1]));
    let threads = block_dim.map(|d| d.iter().map(|&x| x as u64).product::<u64>());
    if let Some(t) = threads {
        if t > 1024 {
            return Err(FrontError::input(
                k.span,
                format!("blockDim has {t} threads; CUDA allows at most 1024 per block"),
            )
            .with_help("fix --block-dim / autosync.yaml / the //--blockDim header"));
        }
        if let Some((b, span)) = bounds {
            if t > b as u64 {
                return Err(FrontError::input(
                    span,
                    format!("blockDim has {t} threads but __launch_bounds__ allows at most {b}"),
                )
                .with_help("make the launch configuration agree with __launch_bounds__"));
            }
        }
    }
    let mut params = file.params.clone();
    for (n, v) in &opts.params {
        params.insert(n.clone(), *v);
    }
    let grid_dim = opts.grid_dim.or(file.grid_dim).or(header.grid_dim);
    Ok(LaunchConfig {
        block_dim,
        grid_dim,
        warp_sync: opts.warp_sync.or(file.warp_sync).or(header.warp_sync),
        params,
    })
}
