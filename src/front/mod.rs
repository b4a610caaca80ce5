//! The CUDA front end: Clang reads the file (device pass, JSON AST), the lowering turns its
//! kernels into the IR.
//!
//! Entry point: [`load`] turns one `.cu` file into kernels in IR form, each with spans into the
//! original files and its launch configuration resolved.

pub mod ast;
pub mod clang;
pub mod ctype;
pub mod error;
pub mod intrinsics;
pub mod launch;
pub mod lower;

use autosync_oracle::ir::{BarrierHelper, FileId, Kernel, LaunchConfig, Span};
pub use error::{FResult, FrontError, FrontErrorKind};
use lower::kernels::{KernelDef, Uninstantiated};
use lower::source::SourceMap;
use lower::types::Types;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the user told us about how to read a file.
#[derive(Clone, Debug, Default)]
pub struct FrontOptions {
    /// Only this kernel (by function name).
    pub kernel: Option<String>,
    /// `-D NAME[=VALUE]` macros.
    pub defines: Vec<(String, Option<String>)>,
    /// `--define NAME=VALUE`: values of kernel template parameters, by parameter name.
    pub template_values: BTreeMap<String, String>,
    /// `template_args:` of autosync.yaml: parameter values by kernel name (a `--define` of the
    /// same parameter wins).
    pub kernel_template_values: BTreeMap<String, BTreeMap<String, String>>,
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
    /// How to run Clang (executable, CUDA toolkit, architecture, standard).
    pub clang: clang::ClangOptions,
    /// Do not read flags from a `compile_commands.json` above the file.
    pub no_compile_db: bool,
    /// Functions declared free of memory effects and synchronization (`--assume-pure`).
    pub assume_pure: Vec<String>,
}

/// How a note that a verdict rests on begins (a call modelled without its body): such notes
/// are shown without `--verbose`.
pub const ASSUMPTION: &str = "assumed: ";

/// One source file with its kernels in IR form.
#[derive(Clone, Debug)]
pub struct SourceUnit {
    /// The file as given.
    pub path: PathBuf,
    /// Original text of the main file (index 0) and of the included user files.
    pub texts: Vec<String>,
    /// The kernels found (in file order; a kernel template once per instantiation).
    pub kernels: Vec<Kernel>,
    /// Notes for the user (tolerated errors in host code, annotations, assumptions).
    pub notes: Vec<(Span, String)>,
    /// For each kernel (same order as `kernels`), the barrier helpers the file defines, with
    /// `used` set for those it calls.
    pub helpers: Vec<Vec<BarrierHelper>>,
    /// Where it was read: Clang, CUDA toolkit or shim, architecture (None for an AST no Clang
    /// run produced).
    pub env: Option<clang::Environment>,
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
        let what = if e.kind() == std::io::ErrorKind::NotFound {
            "file not found".to_string()
        } else {
            format!("cannot read {}: {e}", path.display())
        };
        FrontError::input(Span::DUMMY, what).with_help("check the path and permissions")
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to() as u32;
        FrontError::input(Span::new(FileId(0), at, at + 1), "file is not valid UTF-8")
            .with_help("autosync reads CUDA sources as UTF-8; convert the file's encoding")
    })?;
    let _ = file0;
    lower_text(path, &text, opts)
}

/// The name of a kernel without template arguments (`reduce<256>` → `reduce`).
pub fn base_name(kernel: &str) -> &str {
    kernel.split('<').next().unwrap_or(kernel)
}

/// Lowers text that is the content of `path` (used by `load`, tests, re-verification of
/// patched text, and the fuzzers).
pub fn lower_text(path: &Path, text: &str, opts: &FrontOptions) -> FResult<SourceUnit> {
    if let Some(at) = text.bytes().position(|b| b == 0) {
        return Err(FrontError::input(
            Span::new(FileId(0), at as u32, at as u32 + 1),
            "file contains NUL bytes (binary file?)",
        )
        .with_help("pass CUDA source files only"));
    }
    let header = launch::parse_header(text);
    let mut copts = opts.clang.clone();
    copts.include_dirs.extend(opts.include_dirs.iter().cloned());
    for (n, v) in opts.defines.iter().chain(&header.defines) {
        if !copts.defines.iter().any(|(m, _)| m == n) {
            copts.defines.push((n.clone(), v.clone()));
        }
    }
    let mut notes: Vec<(Span, String)> = Vec::new();
    if !opts.no_compile_db {
        match clang::compile_db::apply(path, &mut copts) {
            Ok(Some(db)) => notes.push((Span::DUMMY, format!("flags from {}", db.display()))),
            Ok(None) => {}
            Err(m) => notes.push((Span::DUMMY, format!("ignored: {m}"))),
        }
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    let parsed = parse(text, dir, &copts)?;
    let env = parsed.env;
    notes.push((Span::DUMMY, env.describe()));
    notes.extend(env.notes.iter().map(|n| (Span::DUMMY, n.clone())));
    let mut ast = parsed.ast;
    let mut errors = parsed.errors;
    let mut appended = String::new();
    // Kernel templates the file never instantiates: instantiate them with the user's values.
    {
        let types = Types::new(&ast).with_main_text(text);
        let src = SourceMap::new(&ast, path, text);
        let (_, templates) = lower::kernels::find(&ast, &src, &types);
        let wanted: Vec<&Uninstantiated> = templates
            .iter()
            .filter(|t| opts.kernel.as_deref().is_none_or(|k| base_name(k) == t.name))
            .collect();
        if !wanted.is_empty() {
            appended = instantiations(&ast, &src, &wanted, opts)?;
        }
    }
    if !appended.is_empty() {
        let full = format!("{text}\n{appended}");
        let again = parse(&full, dir, &copts)?;
        ast = again.ast;
        errors = again.errors;
    }
    let mut unit = lower_parsed(path, text, &ast, &errors, &header, notes, opts)?;
    release(ast);
    unit.env = Some(env);
    Ok(unit)
}

/// Frees a large AST on a thread of its own: a CUB file's holds millions of nodes, and freeing
/// them took 50 ms of the front end's critical path.
fn release(ast: ast::Ast) {
    if ast.nodes.len() >= 100_000 {
        // Should no thread be had, the AST is freed here as before.
        let _ = std::thread::Builder::new().spawn(move || drop(ast));
    }
}

/// Lowers the kernels of an AST Clang produced for `text` (the content of `path`). Public for
/// the fuzzers, which feed it ASTs that no Clang produced: it must fail cleanly, never panic.
pub fn lower_parsed(
    path: &Path,
    text: &str,
    ast: &ast::Ast,
    errors: &[clang::Diagnostic],
    header: &launch::Header,
    mut notes: Vec<(Span, String)>,
    opts: &FrontOptions,
) -> FResult<SourceUnit> {
    let types = Types::new(ast).with_main_text(text);
    let src = SourceMap::new(ast, path, text);
    let lopts = lower::LowerOptions {
        assume_pure: opts.assume_pure.clone(),
    };
    check_errors(ast, &src, errors, path, &mut notes)?;
    let (defs, _) = lower::kernels::find(ast, &src, &types);
    for (off, flag) in &header.unknown {
        notes.push((
            Span::new(FileId(0), *off as u32, *off as u32 + 2),
            format!("header flag `{flag}` ignored"),
        ));
    }
    let all_helpers = lower::barrier_helpers::find(ast, &src);
    let mut kernels = Vec::new();
    let mut helper_lists = Vec::new();
    let found_names: Vec<String> = defs.iter().map(KernelDef::display_name).collect();
    let chosen: Vec<&KernelDef> = defs
        .iter()
        .filter(|d| {
            opts.kernel
                .as_deref()
                .is_none_or(|k| k == d.display_name() || base_name(k) == d.name && !k.contains('<'))
        })
        .collect();
    for d in &chosen {
        let lw = lower::Lowerer::new(ast, &types, &src, &lopts, d.scope.clone());
        let (mut k, knotes) = lw.kernel(d).map_err(|e| e.naming_main_file(path))?;
        notes.extend(knotes.into_iter().map(|(s, n)| (s, error::name_main_file(&n, path))));
        k.launch = resolve_launch(&src, ast, d, header, opts, &k, &mut notes)?;
        kernels.push((k, d.node));
    }
    let (files, texts) = src.files();
    let mut out = Vec::new();
    for (mut k, node) in kernels {
        k.files = files.clone();
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
        env: None,
    })
}

/// Runs Clang; failing to run it at all is an input error (exit 2) with the install hint.
fn parse(text: &str, dir: &Path, copts: &clang::ClangOptions) -> FResult<clang::Parsed> {
    clang::parse(text, dir, copts).map_err(|e| FrontError::input(Span::DUMMY, e.message).with_help(e.help))
}

/// Host functions that instantiate kernel templates with the user's `--define` values.
fn instantiations(
    ast: &ast::Ast,
    src: &SourceMap,
    templates: &[&Uninstantiated],
    opts: &FrontOptions,
) -> FResult<String> {
    let mut out = String::new();
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
            return Err(FrontError::missing(
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
            ));
        }
        out.push_str(&format!(
            "static void __autosync_instantiate_{i}() {{ (void)&::{}<{}>; }}\n",
            t.qual,
            args.join(", ")
        ));
    }
    Ok(out)
}

/// Clang's errors: errors only inside host functions of the main file are tolerated (autosync
/// reads device code; host code may need headers or libraries it does not have); any other is
/// an input error located at its source.
fn check_errors(
    ast: &ast::Ast,
    src: &SourceMap,
    errors: &[clang::Diagnostic],
    path: &Path,
    notes: &mut Vec<(Span, String)>,
) -> FResult<()> {
    let text = src.text(FileId(0)).unwrap_or_default();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |line: u32, col: u32| -> u32 {
        let ls = line_starts
            .get(line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(text.len());
        (ls + col.saturating_sub(1) as usize).min(text.len()) as u32
    };
    let host_ranges = host_function_ranges(ast, src);
    let mut fatal = None;
    for e in errors {
        if e.file == clang::STDIN_NAME {
            let at = offset(e.line, e.col);
            let span = Span::new(FileId(0), at, at + 1);
            if e.severity == "error" && host_ranges.iter().any(|(lo, hi)| *lo <= at && at < *hi) {
                notes.push((
                    span,
                    format!(
                        "host code does not compile ({}); autosync reads only device code",
                        e.message
                    ),
                ));
                continue;
            }
            fatal.get_or_insert((span, e.message.clone()));
        } else {
            // In an included file: point at the include line of the main file.
            let span = e
                .included_from
                .map(|(l, c)| {
                    let at = offset(l, c);
                    Span::new(FileId(0), at, at + 1)
                })
                .unwrap_or(Span::new(FileId(0), 0, 0));
            let where_ = if e.file.is_empty() {
                String::new()
            } else {
                format!("{}:{}:{}: ", e.file.trim_start_matches("./"), e.line, e.col)
            };
            fatal.get_or_insert((span, format!("{where_}{}", e.message)));
        }
    }
    if let Some((span, msg)) = fatal {
        let help = if msg.contains("file not found") && is_toolkit_header(&msg) {
            "a CUDA library header: read with the real toolkit (--cuda-path DIR, CUDA_PATH, or NVIDIA's \
             pip wheels in the active Python environment); autosync's built-in CUDA declarations, \
             used when none is found, do not include the libraries (CUTLASS also needs -I DIR)"
                .to_string()
        } else if msg.contains("initialization is not supported for __shared__ variables") {
            SHARED_INIT_HELP.to_string()
        } else if msg.contains("file not found") {
            "add the header's directory with -I DIR (or include_dirs: in autosync.yaml)".to_string()
        } else {
            format!(
                "autosync reads {} through Clang's CUDA device pass; the file must compile there",
                path.display()
            )
        };
        return Err(FrontError::input(span, format!("Clang: {msg}")).with_help(help));
    }
    Ok(())
}

/// What to write instead of a `__shared__` object with a constructor or destructor that does
/// something (`__shared__ cuda::barrier<cuda::thread_scope_block> bar;`). Clang refuses it with
/// an error no flag turns off (Sema accepts only empty constructors and destructors, and
/// `cuda::barrier`'s destructor invalidates the mbarrier); nvcc accepts it only with its
/// `static_var_with_dynamic_init` diagnostic suppressed. Raw storage and a reference compile
/// under both, and `init` then starts the barrier as the constructor would have.
const SHARED_INIT_HELP: &str = "Clang (which autosync reads the file with) accepts no __shared__ variable whose \
     constructor or destructor does anything, such as `__shared__ cuda::barrier<cuda::thread_scope_block> bar;` \
     or a `cuda::pipeline_shared_state` (nvcc needs `#pragma nv_diag_suppress static_var_with_dynamic_init` for \
     them). Declare raw storage of the type's size and alignment and a reference to it instead, which both \
     compilers accept: `using barrier_t = cuda::barrier<cuda::thread_scope_block>; \
     alignas(barrier_t) __shared__ unsigned char bar_storage[sizeof(barrier_t)]; \
     barrier_t &bar = *reinterpret_cast<barrier_t *>(bar_storage);` then start it as its constructor would: \
     `if (threadIdx.x == 0) init(&bar, blockDim.x); __syncthreads();` (docs/named.md, \
     \"libcu++ barriers and pipelines\")";

/// Whether Clang's "'X' file not found" names a header of the CUDA toolkit's libraries.
fn is_toolkit_header(msg: &str) -> bool {
    let name = msg.split('\'').nth(1).unwrap_or("");
    ["cub/", "thrust/", "cuda/", "cutlass/", "cute/", "nv/"]
        .iter()
        .any(|p| name.starts_with(p))
        || [
            "cooperative_groups",
            "mma.h",
            "curand",
            "cuda_fp16",
            "cuda_bf16",
            "cuda_pipeline",
            "cuda_awbarrier",
        ]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Byte ranges of the main file's top-level functions that only run on the host.
fn host_function_ranges(ast: &ast::Ast, src: &SourceMap) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for &r in &ast.roots {
        if ast.kind(r) != ast::NodeKind::FunctionDecl {
            continue;
        }
        let device = ast.has_attr(r, ast::NodeKind::CUDADeviceAttr) || ast.has_attr(r, ast::NodeKind::CUDAGlobalAttr);
        let has_body = ast.children(r).any(|c| ast.kind(c) == ast::NodeKind::CompoundStmt);
        if device || !has_body {
            continue;
        }
        let s = src.node_span(r);
        if s.file == FileId(0) {
            out.push((s.lo, s.hi));
        }
    }
    out
}

/// Launch configuration: CLI > config file > header > `__launch_bounds__`. A block of more
/// than 1024 threads is an error when the command line, the config file or `__launch_bounds__`
/// gives it (a launch CUDA refuses); a GPUVerify header line is a verifier's setting, so a
/// larger block there is checked as given, with a note.
fn resolve_launch(
    src: &SourceMap,
    ast: &ast::Ast,
    d: &KernelDef,
    header: &launch::Header,
    opts: &FrontOptions,
    k: &Kernel,
    notes: &mut Vec<(Span, String)>,
) -> FResult<LaunchConfig> {
    let bounds = d.launch_bounds.map(|(v, attr)| {
        let s = src.node_span(attr);
        let span = if s.is_dummy() { k.span } else { s };
        let _ = ast;
        (v, span)
    });
    let file = opts.file_launch.for_kernel(base_name(&k.name));
    let file_exact = opts.file_launch.by_kernel.get(&k.name).cloned();
    let file_block = file_exact.as_ref().and_then(|f| f.block_dim).or(file.block_dim);
    let block_dim = opts
        .block_dim
        .or(file_block)
        .or(header.block_dim)
        .or(bounds.map(|(v, _)| [v as u32, 1, 1]));
    let from_header = opts.block_dim.is_none() && file_block.is_none() && header.block_dim.is_some();
    let threads = block_dim.map(|d| d.iter().map(|&x| x as u64).product::<u64>());
    if let Some(t) = threads {
        if t > 1024 && from_header && bounds.is_none() {
            let at = header
                .offset
                .map_or(Span::DUMMY, |o| Span::new(FileId(0), o as u32, o as u32));
            notes.push((
                at,
                format!(
                    "blockDim from the header line has {t} threads, more than the 1024 CUDA launches per block: \
                     kernel `{}` is checked for the block as given",
                    k.name
                ),
            ));
        } else if t > 1024 {
            return Err(FrontError::input(
                k.span,
                format!("blockDim has {t} threads; CUDA allows at most 1024 per block"),
            )
            .with_help("fix --block-dim / autosync.yaml / the //--blockDim header"));
        }
        if let Some((b, span)) = bounds {
            if t > b {
                return Err(FrontError::input(
                    span,
                    format!("blockDim has {t} threads but __launch_bounds__ allows at most {b}"),
                )
                .with_help("make the launch configuration agree with __launch_bounds__"));
            }
        }
    }
    let mut params = file.params.clone();
    if let Some(f) = &file_exact {
        params.extend(f.params.iter().map(|(n, v)| (n.clone(), *v)));
    }
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
