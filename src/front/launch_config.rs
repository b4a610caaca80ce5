//! Which launch configuration a kernel is checked with: the command line, then the project's
//! config file, then the file's GPUVerify-style header line, then the launches the file's host
//! code writes, then `__launch_bounds__`. What the launches say about a block they do not fix
//! (one dimension equal to a kernel argument, the others constant) becomes facts of the launch
//! configuration, which the checker assumes at the kernel's entry.

use super::error::{FResult, FrontError};
use super::launch;
use super::launch_sites::{Extent, LaunchSite};
use super::lower::kernels::KernelDef;
use super::lower::source::SourceMap;
use super::options::FrontOptions;
use super::source_unit::{base_name, ASSUMPTION};
use autosync_oracle::ir::{
    BinOp, Builtin, Dim, Expr, FileId, Kernel, LaunchConfig, ScalarTy, Span, VarKind, DEVICE_INDEX_BITS,
};

/// Launch configuration: CLI > config file > header > the file's launches of the kernel
/// (`sites`) > `__launch_bounds__`. A block of more
/// than 1024 threads is an error when the command line, the config file or `__launch_bounds__`
/// gives it (a launch CUDA refuses); a GPUVerify header line is a verifier's setting, so a
/// larger block there is checked as given, with a note.
pub(super) fn resolve_launch(
    src: &SourceMap,
    d: &KernelDef,
    header: &launch::Header,
    opts: &FrontOptions,
    k: &Kernel,
    sites: &[LaunchSite],
    notes: &mut Vec<(Span, String)>,
) -> FResult<LaunchConfig> {
    let bounds = d.launch_bounds.map(|(v, attr)| {
        let s = src.node_span(attr);
        let span = if s.is_dummy() { k.span } else { s };
        (v, span)
    });
    let file = opts.file_launch.for_kernel(base_name(&k.name));
    let file_exact = opts.file_launch.by_kernel.get(&k.name).cloned();
    let file_block = file_exact.as_ref().and_then(|f| f.block_dim).or(file.block_dim);
    let given = opts.block_dim.or(file_block).or(header.block_dim);
    let launched = if given.is_none() {
        from_sites(k, sites, notes)
    } else {
        None
    };
    let block_dim = given.or(launched).or(bounds.map(|(v, _)| [v as u32, 1, 1]));
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
        facts: Vec::new(),
        index_bits: (!opts.index_wraparound).then_some(DEVICE_INDEX_BITS),
    })
}

/// The block every launch of the kernel in the file gives, when they all give one constant
/// block; a note names it (or says why none is taken).
fn from_sites(k: &Kernel, sites: &[LaunchSite], notes: &mut Vec<(Span, String)>) -> Option<[u32; 3]> {
    let first = sites.first()?;
    let blocks: Vec<Option<[u32; 3]>> = sites.iter().map(LaunchSite::constant_block).collect();
    if let Some(b) = blocks[0].filter(|b| blocks.iter().all(|x| *x == Some(*b))) {
        let also = if sites.len() > 1 {
            format!(" (and {} more launches with the same block)", sites.len() - 1)
        } else {
            String::new()
        };
        notes.push((
            first.span,
            format!(
                "{}kernel `{}` is checked with blockDim = ({}, {}, {}), as launched here{also}",
                ASSUMPTION, k.name, b[0], b[1], b[2],
            ),
        ));
        return Some(b);
    }
    let distinct: Vec<String> = {
        let mut v: Vec<String> = blocks
            .iter()
            .flatten()
            .map(|b| format!("({}, {}, {})", b[0], b[1], b[2]))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let run_time = blocks.iter().any(Option::is_none);
    let why = match (distinct.is_empty(), run_time) {
        (false, true) => format!(
            "launched with blocks {} and with a block computed at run time",
            distinct.join(", ")
        ),
        (false, false) => format!("launched with different blocks {}", distinct.join(", ")),
        (true, _) => "launched with a block computed at run time".to_string(),
    };
    let more = match sites.len() - 1 {
        0 => String::new(),
        n => format!(" (here and in {n} more launches)"),
    };
    notes.push((
        first.span,
        format!(
            "kernel `{}` is {why}{more}: checked for every block size those launches allow{}; give --block-dim to check one",
            k.name,
            if whole_warps(sites) { " that is whole warps (a multiple of 32 threads)" } else { "" },
        ),
    ));
    None
}

/// What every launch of the kernel says about a block or grid dimension it does not fix: the
/// dimension's size is a constant, or equal to one of the kernel's arguments. Facts all the
/// launches share, as conditions on `blockDim` and `gridDim` (the launch configuration's
/// `facts`).
pub(super) fn launch_facts(k: &Kernel, params: &[String], sites: &[LaunchSite]) -> Vec<Expr> {
    let mut out = Vec::new();
    if sites.is_empty() {
        return out;
    }
    if k.launch.block_dim.is_none() {
        // Any block size (1024 at most) fits a 16-bit parameter.
        out.extend(dimension_facts(
            k,
            params,
            sites,
            |s| s.block,
            Builtin::BlockDim,
            16,
            true,
        ));
        if whole_warps(sites) {
            out.push(threads_multiple_of(WARP));
        }
    }
    if k.launch.grid_dim.is_none() {
        // A grid's x can be 2^31 - 1: only a parameter of 32 bits or more holds it as launched.
        // Constant grid extents are not taken: `gridDim.y == 1` beside a grid-stride loop left
        // a query the solver decided without it undecided (corpus/stride/grid_i64.cu).
        out.extend(dimension_facts(
            k,
            params,
            sites,
            |s| s.grid,
            Builtin::GridDim,
            32,
            false,
        ));
    }
    out
}

/// The note that names the grid extents the launches fix (`gridDim.x == (u32)cols`), at the
/// first launch.
pub(super) fn grid_note(k: &Kernel, sites: &[LaunchSite]) -> Option<(Span, String)> {
    let grid: Vec<String> = k
        .launch
        .facts
        .iter()
        .filter(|f| matches!(f, Expr::Bin(BinOp::Eq, _, l, _) if matches!(**l, Expr::Builtin(Builtin::GridDim(_)))))
        .map(|f| autosync_oracle::print::expr(k, f))
        .collect();
    (!grid.is_empty()).then(|| {
        (
            sites[0].span,
            format!(
                "{}kernel `{}` is checked with {}, as launched here",
                ASSUMPTION,
                k.name,
                grid.join(" and ")
            ),
        )
    })
}

/// `dim == value` for each dimension every launch gives the same argument (or, with
/// `constants`, the same constant); an argument counts only in an integer parameter of at
/// least `bits` bits.
fn dimension_facts(
    k: &Kernel,
    params: &[String],
    sites: &[LaunchSite],
    extents: impl Fn(&LaunchSite) -> [Extent; 3],
    builtin: impl Fn(Dim) -> Builtin,
    bits: u8,
    constants: bool,
) -> Vec<Expr> {
    let mut out = Vec::new();
    for (i, dim) in [Dim::X, Dim::Y, Dim::Z].into_iter().enumerate() {
        let e = extents(&sites[0])[i];
        if e == Extent::Unknown || sites.iter().any(|s| extents(s)[i] != e) {
            continue;
        }
        let value = match e {
            Extent::Const(c) if constants => Expr::Const(c as i64, ScalarTy::U32),
            Extent::Const(_) => continue,
            Extent::Arg(a) => {
                let Some(name) = params.get(a) else { continue };
                // A float, or a narrow integer that truncates the size, says nothing about it.
                let Some(v) = k.vars.iter().find(|v| {
                    v.kind == VarKind::Param && v.name == *name && v.ty.int_bits().is_some_and(|b| b >= bits)
                }) else {
                    continue;
                };
                // The launch converts the argument to `unsigned int`, as `dim3`'s constructor does.
                Expr::Cast(ScalarTy::U32, Box::new(Expr::Var(v.id)))
            }
            Extent::Unknown => continue,
        };
        let size = Expr::Builtin(builtin(dim));
        out.push(Expr::Bin(BinOp::Eq, ScalarTy::U32, Box::new(size), Box::new(value)));
    }
    out
}

/// Threads in a warp.
const WARP: i64 = 32;

/// Whether a block the launches compute at run time is taken to be whole warps: every launch
/// whose block is constant has a multiple of 32 threads (the policy for run-time
/// blocks: every block size of whole warps; `--block-dim` checks another).
/// A block equal to a kernel argument is not assumed to be whole warps: the argument says
/// which sizes the launch gives (a power of two below 32, say).
fn whole_warps(sites: &[LaunchSite]) -> bool {
    sites.iter().all(|s| match s.block {
        [Extent::Const(x), Extent::Const(y), Extent::Const(z)] => (x as i64 * y as i64 * z as i64) % WARP == 0,
        b => !b.iter().any(|e| matches!(e, Extent::Arg(_))),
    })
}

/// `blockDim.x * blockDim.y * blockDim.z % n == 0`.
fn threads_multiple_of(n: i64) -> Expr {
    let dim = |d| Box::new(Expr::Builtin(Builtin::BlockDim(d)));
    let u32c = |v| Box::new(Expr::Const(v, ScalarTy::U32));
    let yz = Expr::Bin(BinOp::Mul, ScalarTy::U32, dim(Dim::Y), dim(Dim::Z));
    let all = Expr::Bin(BinOp::Mul, ScalarTy::U32, dim(Dim::X), Box::new(yz));
    let rem = Expr::Bin(BinOp::Rem, ScalarTy::U32, Box::new(all), u32c(n));
    Expr::Bin(BinOp::Eq, ScalarTy::U32, Box::new(rem), u32c(0))
}
