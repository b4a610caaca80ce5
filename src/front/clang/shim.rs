//! The CUDA shim headers, compiled into the binary and written once to a cache directory so
//! that Clang can include them (`-isystem DIR -include DIR/autosync_cuda.h`).

use crate::front::intrinsics;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The shim's files: name and contents.
pub const FILES: &[(&str, &str)] = &[
    ("autosync_annotations.h", include_str!("shim/autosync_annotations.h")),
    ("autosync_cuda.h", include_str!("shim/autosync_cuda.h")),
    ("autosync_nvcc.h", include_str!("shim/autosync_nvcc.h")),
    ("cooperative_groups.h", include_str!("shim/cooperative_groups.h")),
    ("cuda.h", include_str!("shim/cuda.h")),
    (
        "cuda_device_runtime_api.h",
        include_str!("shim/cuda_device_runtime_api.h"),
    ),
    ("cuda_runtime.h", include_str!("shim/cuda_runtime.h")),
    ("cuda_runtime_api.h", include_str!("shim/cuda_runtime_api.h")),
    ("curand.h", include_str!("shim/curand.h")),
    ("curand_kernel.h", include_str!("shim/curand_kernel.h")),
    ("curand_mtgp32.h", include_str!("shim/curand_mtgp32.h")),
    ("curand_mtgp32_host.h", include_str!("shim/curand_mtgp32_host.h")),
    ("curand_mtgp32_kernel.h", include_str!("shim/curand_mtgp32_kernel.h")),
    (
        "curand_mtgp32dc_p_11213.h",
        include_str!("shim/curand_mtgp32dc_p_11213.h"),
    ),
    (
        "device_atomic_functions.h",
        include_str!("shim/device_atomic_functions.h"),
    ),
    ("device_functions.h", include_str!("shim/device_functions.h")),
    (
        "device_launch_parameters.h",
        include_str!("shim/device_launch_parameters.h"),
    ),
    ("driver_types.h", include_str!("shim/driver_types.h")),
    ("host_defines.h", include_str!("shim/host_defines.h")),
    ("math_functions.h", include_str!("shim/math_functions.h")),
    (
        "sm_20_atomic_functions.h",
        include_str!("shim/sm_20_atomic_functions.h"),
    ),
    ("sm_30_intrinsics.h", include_str!("shim/sm_30_intrinsics.h")),
    ("sm_32_intrinsics.h", include_str!("shim/sm_32_intrinsics.h")),
    ("vector_functions.h", include_str!("shim/vector_functions.h")),
    ("vector_types.h", include_str!("shim/vector_types.h")),
];

/// The header force-included before the user's file.
pub const MAIN: &str = "autosync_cuda.h";

/// GPUVerify's annotation vocabulary, force-included when a real toolkit is read.
pub const ANNOTATIONS_HEADER: &str = "autosync_annotations.h";

/// What nvcc declares itself and Clang does not (its `__nv_atomic_*` built-ins), force-included
/// when a real toolkit is read.
pub const NVCC_HEADER: &str = "autosync_nvcc.h";

/// The directory holding the shim, written on first use. Its name carries a hash of the
/// contents, so a newer autosync never reads an older shim.
pub fn dir() -> Result<&'static Path, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(materialize)
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(Clone::clone)
}

/// FNV-1a of `bytes`: stable across runs and builds (std's hasher is randomly keyed), for the
/// names of cache entries.
pub fn fnv(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = ::fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

fn content_hash() -> u64 {
    let mut all = Vec::new();
    for (name, text) in FILES {
        all.extend_from_slice(name.as_bytes());
        all.extend_from_slice(text.as_bytes());
    }
    fnv(&all)
}

/// The directory autosync caches files in: the platform's user cache directory
/// (`XDG_CACHE_HOME` or `~/.cache` on Linux), else the temporary directory.
pub fn cache_base() -> PathBuf {
    directories::BaseDirs::new()
        .map(|d| d.cache_dir().to_path_buf())
        .filter(|p| std::fs::create_dir_all(p).is_ok())
        .unwrap_or_else(std::env::temp_dir)
}

fn materialize() -> Result<PathBuf, String> {
    let base = cache_base();
    let dir = base.join(format!("autosync-shim-{:016x}", content_hash()));
    if FILES
        .iter()
        .all(|(n, t)| std::fs::read(dir.join(n)).is_ok_and(|b| b == t.as_bytes()))
    {
        return Ok(dir);
    }
    // Write into a fresh directory and rename it into place, so that concurrent runs never see
    // a half-written shim.
    let tmp = base.join(format!(
        "autosync-shim-{:016x}.{}.tmp",
        content_hash(),
        std::process::id()
    ));
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&tmp)?;
        for (n, t) in FILES {
            std::fs::write(tmp.join(n), t)?;
        }
        match std::fs::rename(&tmp, &dir) {
            Ok(()) => Ok(()),
            // Another process won the race; its copy is identical.
            Err(_) if dir.join(MAIN).exists() => {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => Err(e),
        }
    };
    write().map_err(|e| format!("cannot write the CUDA shim headers to {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Declaration families of the shim a translation unit may need, from the identifiers its
/// user files mention (`AUTOSYNC_WANT_<NAME>` macros).
pub fn families<'t>(texts: impl IntoIterator<Item = &'t str>) -> Vec<&'static str> {
    let mut want: Vec<&'static str> = Vec::new();
    let mut add = |f: &'static str| {
        if !want.contains(&f) {
            want.push(f);
        }
    };
    for text in texts {
        if text.contains("<<<") {
            add("HOST");
        }
        for id in identifiers(text) {
            // Texture types are named like host API types: both families.
            if matches!(id, "cudaTextureObject_t" | "cudaSurfaceObject_t")
                || ["cudaReadMode", "cudaAddressMode", "cudaFilterMode"]
                    .iter()
                    .any(|p| id.starts_with(p))
            {
                add("TEX");
            }
            let fam = if id.starts_with("atomic") {
                "ATOMICS"
            } else if let Some(x) = intrinsics::lookup(id) {
                x.family.macro_name()
            } else if [
                "__shfl",
                "__ballot",
                "__any",
                "__all",
                "__activemask",
                "__match",
                "__reduce_",
                "__uni_sync",
                "__lanemask",
            ]
            .iter()
            .any(|p| id.starts_with(p))
            {
                "WARP"
            } else if id.starts_with("make_") {
                "MAKE"
            } else if id.starts_with("__ldg") {
                "LDG"
            } else if id.starts_with("cuda") || id.starts_with("CUDA") || id.starts_with("__cuda") {
                "HOST"
            } else if id.starts_with("tex") && TEXTURE.contains(&id) || id.starts_with("surf") {
                "TEX"
            } else if ANNOTATIONS.contains(&id) {
                "ANNOT"
            } else {
                continue;
            };
            add(fam);
        }
    }
    want
}

/// The identifiers of C/C++ text (comments and literals skipped).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let c = b[i];
            if c == b'/' && b.get(i + 1) == Some(&b'/') {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            } else if c == b'"' || c == b'\'' {
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let st = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                return Some(&text[st..i]);
            } else if c.is_ascii_digit() {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

const TEXTURE: &[&str] = &[
    "texture",
    "tex1Dfetch",
    "tex1D",
    "tex2D",
    "tex3D",
    "tex1DLayered",
    "tex2DLayered",
    "tex2DLod",
    "texCubemap",
];

/// GPUVerify's annotation vocabulary: the names `autosync_annotations.h` declares (a test keeps
/// the two in step).
const ANNOTATIONS: &[&str] = &[
    "__requires",
    "__global_requires",
    "__assume",
    "bugle_assume",
    "__axiom",
    "__ensures",
    "__global_ensures",
    "__assert",
    "__global_assert",
    "__candidate_assert",
    "__candidate_global_assert",
    "__unsafe_assert",
    "__unsafe_global_assert",
    "__unsafe_candidate_assert",
    "__unsafe_candidate_global_assert",
    "__invariant",
    "__global_invariant",
    "__candidate_invariant",
    "__candidate_global_invariant",
    "__function_wide_invariant",
    "__function_wide_candidate_invariant",
    "__barrier_invariant",
    "__binary_barrier_invariant",
    "__non_temporal_loads_begin",
    "__non_temporal_loads_end",
    "__implies",
    "__enabled",
    "__dominator_enabled",
    "__return_val_int",
    "__return_val_bool",
    "__return_val_ptr",
    "__return_val_funptr",
    "__old_int",
    "__old_bool",
    "ptr_base_t",
    "__read",
    "__write",
    "__read_offset_bytes",
    "__write_offset_bytes",
    "__read_offset",
    "__write_offset",
    "__ptr_base",
    "__ptr_offset_bytes",
    "__ptr_offset",
    "__reads_from",
    "__writes_to",
    "__requires_fresh_array",
    "__no_read",
    "__no_write",
    "__read_implies",
    "__write_implies",
    "__atomic_has_taken_value",
    "__array_snapshot",
    "__other_int",
    "__other_bool",
    "__other_ptr_base",
    "__uniform_int",
    "__uniform_bool",
    "__uniform_ptr_base",
    "__distinct_int",
    "__distinct_bool",
    "__distinct_ptr_base",
    "__exclusive",
    "__same_group",
    "__is_pow2",
    "__mod_pow2",
    "__ite",
    "__add",
    "__add_noovfl_char",
    "__add_noovfl_short",
    "__add_noovfl_int",
    "__add_noovfl_long",
    "__add_noovfl_unsigned_char",
    "__add_noovfl_unsigned_short",
    "__add_noovfl_unsigned_int",
    "__add_noovfl_unsigned_long",
];

/// The user files a translation unit includes, found by following `#include` lines from the
/// main file through the include directories (system directories excluded), with their text.
pub fn user_includes(main_text: &str, dirs: &[&Path], is_system: &dyn Fn(&Path) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut todo: Vec<(String, Option<PathBuf>)> = vec![(main_text.to_string(), None)];
    while let Some((text, here)) = todo.pop() {
        for line in text.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix('#') else { continue };
            let Some(rest) = rest.trim_start().strip_prefix("include") else {
                continue;
            };
            let rest = rest.trim();
            let name = match rest.chars().next() {
                Some('"') => rest[1..].split('"').next(),
                Some('<') => rest[1..].split('>').next(),
                _ => None,
            };
            let Some(name) = name else { continue };
            let candidates = here.iter().map(PathBuf::as_path).chain(dirs.iter().copied());
            let found = candidates.map(|d| d.join(name)).find(|p| p.is_file());
            let Some(p) = found else { continue };
            if is_system(&p) || seen.contains(&p) || seen.len() >= 256 {
                continue;
            }
            seen.push(p.clone());
            if let Ok(t) = std::fs::read_to_string(&p) {
                out.push(t.clone());
                todo.push((t, p.parent().map(Path::to_path_buf)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name the annotations header declares or defines selects the header's family, so
    /// that a lean read of a file using it still declares it.
    #[test]
    fn annotation_family_lists_every_name_of_the_header() {
        let text = include_str!("shim/autosync_annotations.h");
        let internal = |n: &str| {
            n.starts_with("__AS_")
                || n.ends_with("__")
                || !(n.starts_with("__") || n == "bugle_assume" || n == "ptr_base_t")
        };
        let mut missing = Vec::new();
        for line in text.lines() {
            let t = line.trim_start();
            let declared: Vec<&str> = if let Some(m) = t.strip_prefix("#define ") {
                identifiers(m).take(1).collect()
            } else if t.starts_with("__device__") || t.starts_with("template") || t.starts_with("typedef") {
                // The declared name is the identifier before the parameter list.
                t.split('(')
                    .next()
                    .map(|h| identifiers(h).last().into_iter().collect())
                    .unwrap_or_default()
            } else if t.starts_with("__AS_ANNOT(") || t.starts_with("__AS_NOOVFL(") {
                identifiers(t).filter(|n| !n.starts_with("__AS_")).collect()
            } else {
                Vec::new()
            };
            for n in declared {
                let n = if t.starts_with("__AS_NOOVFL(") {
                    format!("__add_noovfl_{n}")
                } else {
                    n.to_string()
                };
                if !internal(&n) && !ANNOTATIONS.contains(&n.as_str()) {
                    missing.push(n);
                }
            }
        }
        assert!(missing.is_empty(), "not in ANNOTATIONS: {missing:?}");
        assert_eq!(families(["__uniform_int(x)"]), vec!["ANNOT"]);
        assert_eq!(families(["__axiom(blockIdx.x == 0);"]), vec!["ANNOT"]);
    }
}
