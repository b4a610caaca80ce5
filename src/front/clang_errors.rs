//! Clang's errors while reading a file: an error inside a host function of the main file is
//! tolerated with a note (autosync reads device code only); any other stops the file, located
//! at its source (or at the main file's include line), with what to do.

use super::error::{FResult, FrontError};
use super::lower::source::SourceMap;
use super::{ast, clang};
use autosync_oracle::ir::{FileId, Span};
use std::path::Path;

/// Clang's errors: errors only inside host functions of the main file are tolerated (autosync
/// reads device code; host code may need headers or libraries it does not have); any other is
/// an input error located at its source.
pub(super) fn check_errors(
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
        } else if ASM_TEXT_ERRORS.contains(&e.message.as_str())
            && src.add_broken_asm(&e.file, e.line, e.col, &e.message)
        {
            // Judged per kernel: only a kernel that reaches the statement stops.
            continue;
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
        } else if msg.contains("invalid % escape in inline assembly string") {
            "nvcc passes a `%` that starts no operand through to the PTX, Clang does not: write \
             `%%` for a special register in the file's own asm (`%%clusterid.x`); in headers \
             autosync doubles such escapes itself"
                .to_string()
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

/// Clang's errors about an asm statement's text alone, which nvcc reports only where the
/// statement is compiled (a branch of `if constexpr` no instantiation takes is not).
const ASM_TEXT_ERRORS: &[&str] = &[
    "invalid operand number in inline asm string",
    "invalid % escape in inline assembly string",
    "unknown symbolic operand name in inline asm string",
];

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
