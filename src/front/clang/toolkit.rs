//! Finding the CUDA toolkit nvcc would compile against, and presenting it to Clang.
//!
//! Search order: `--cuda-path` / `cuda_path:`, `CUDA_PATH`, `CUDA_HOME`, `nvcc` on `PATH` (its
//! root), `/usr/local/cuda`, then the NVIDIA pip wheels of the active Python environment
//! (`VIRTUAL_ENV`, then `python3`'s site directories). Wheels spread the toolkit over several
//! packages; they are used only when the runtime, CCCL and nvcc's `crt/` headers are all there,
//! and are assembled into one view (a cached directory of links with a `version.json`, which
//! Clang reads the toolkit's version from). Without a toolkit, the built-in shim stands in.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A toolkit version as nvcc reports it (`12.9.86`; the build is 0 when unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Version {
    /// Major version (`__CUDACC_VER_MAJOR__`).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Build number of nvcc.
    pub build: u32,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)?;
        if self.build > 0 {
            write!(f, ".{}", self.build)?;
        }
        Ok(())
    }
}

/// A CUDA toolkit Clang can read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Toolkit {
    /// The directory given to Clang as `--cuda-path` (the toolkit's root, or the assembled view
    /// of pip wheels).
    pub root: PathBuf,
    /// How it was found, for messages (`pip wheels in /venv/lib/python3.11/site-packages`).
    pub source: String,
    /// Its version.
    pub version: Version,
}

impl Toolkit {
    /// nvcc's predefined version macros (`__CUDACC_VER_MAJOR__`, ...) and `__CUDA_ARCH_LIST__`
    /// for `arch`, so that headers take nvcc's device branch. `__NVCC__` is left out: it flips
    /// CCCL's compiler detection to nvcc.
    pub fn nvcc_macros(&self, arch: &str) -> Vec<(String, String)> {
        let mut out = vec![
            ("__CUDACC_VER_MAJOR__".to_string(), self.version.major.to_string()),
            ("__CUDACC_VER_MINOR__".to_string(), self.version.minor.to_string()),
            ("__CUDACC_VER_BUILD__".to_string(), self.version.build.to_string()),
        ];
        if let Some(n) = arch_number(arch) {
            out.push(("__CUDA_ARCH_LIST__".to_string(), n.to_string()));
        }
        out
    }
}

/// `sm_80` → 800, `sm_90a` → 900.
pub fn arch_number(arch: &str) -> Option<u32> {
    let digits = arch.strip_prefix("sm_")?.trim_end_matches('a');
    digits.parse::<u32>().ok().map(|v| v * 10)
}

/// What to read CUDA's headers from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Choice {
    /// The first toolkit found; the shim when none is.
    #[default]
    Auto,
    /// This toolkit (a root with `include/cuda_runtime.h`, or a site directory with the
    /// NVIDIA wheels).
    Path(PathBuf),
    /// The built-in shim, even when a toolkit is installed.
    Shim,
}

/// The outcome of a search: the toolkit, and notes on candidates passed over.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// The toolkit to use (None: the shim).
    pub toolkit: Option<Toolkit>,
    /// Why candidates were not used (shown with `--verbose`).
    pub notes: Vec<String>,
}

/// Finds the toolkit for `choice`. An explicit path that holds no toolkit is an error.
pub fn find(choice: &Choice) -> Result<Found, String> {
    match choice {
        Choice::Shim => Ok(Found {
            toolkit: None,
            notes: vec!["the built-in CUDA shim was requested".into()],
        }),
        Choice::Path(p) => {
            let mut notes = Vec::new();
            match at(p, "--cuda-path", &mut notes) {
                Some(t) => Ok(Found {
                    toolkit: Some(t),
                    notes,
                }),
                None => Err(format!(
                    "no CUDA toolkit at `{}`{}",
                    p.display(),
                    notes.first().map(|n| format!(" ({n})")).unwrap_or_default()
                )),
            }
        }
        Choice::Auto => Ok(search()),
    }
}

/// The automatic search (cached for the process: the environment does not change).
fn search() -> Found {
    static FOUND: OnceLock<Found> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let mut notes = Vec::new();
            for (dir, source) in candidates() {
                if let Some(t) = at(&dir, &source, &mut notes) {
                    return Found {
                        toolkit: Some(t),
                        notes,
                    };
                }
            }
            notes.push("no CUDA toolkit found: using the built-in CUDA shim".into());
            Found { toolkit: None, notes }
        })
        .clone()
}

/// Directories that may hold a toolkit, in search order, with how each was found.
fn candidates() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            out.push((PathBuf::from(v), var.to_string()));
        }
    }
    if let Some(nvcc) = on_path("nvcc") {
        let real = nvcc.canonicalize().unwrap_or(nvcc.clone());
        if let Some(root) = real.parent().and_then(Path::parent) {
            out.push((root.to_path_buf(), format!("nvcc on PATH ({})", nvcc.display())));
        }
    }
    out.push((PathBuf::from("/usr/local/cuda"), "/usr/local/cuda".into()));
    for site in site_dirs() {
        out.push((site.clone(), format!("pip wheels in {}", site.display())));
    }
    out
}

/// The toolkit at `dir` (a root, or a site directory of wheels), or None with a note.
fn at(dir: &Path, source: &str, notes: &mut Vec<String>) -> Option<Toolkit> {
    if dir.join("include/cuda_runtime.h").is_file() {
        let version = root_version(dir)?;
        return Some(Toolkit {
            root: dir.to_path_buf(),
            source: source.to_string(),
            version,
        });
    }
    let wheels = dir.join("nvidia");
    if !wheels.join("cuda_runtime/include/cuda_runtime.h").is_file() {
        if !source.starts_with("pip") && dir.exists() {
            notes.push(format!("{source}: `{}` holds no CUDA toolkit", dir.display()));
        }
        return None;
    }
    let missing: Vec<&str> = [
        ("cuda_cccl/include/cub", "CCCL (nvidia-cuda-cccl-cu12)"),
        ("cuda_nvcc/include/crt", "nvcc's crt headers (nvidia-cuda-nvcc-cu12)"),
    ]
    .iter()
    .filter(|(p, _)| !wheels.join(p).is_dir())
    .map(|(_, what)| *what)
    .collect();
    if !missing.is_empty() {
        notes.push(format!(
            "{source}: the CUDA runtime wheel is there but not {}; not used",
            missing.join(" or ")
        ));
        return None;
    }
    match assemble(&wheels) {
        Ok((root, version)) => Some(Toolkit {
            root,
            source: source.to_string(),
            version,
        }),
        Err(e) => {
            notes.push(format!("{source}: {e}"));
            None
        }
    }
}

/// The version of a toolkit root: `CUDA_VERSION` of `include/cuda.h`, nvcc's build from
/// `version.json` when it has one.
fn root_version(root: &Path) -> Option<Version> {
    let cuda_h = std::fs::read_to_string(root.join("include/cuda.h")).ok()?;
    let (major, minor) = cuda_version(&cuda_h)?;
    let build = std::fs::read_to_string(root.join("version.json"))
        .ok()
        .and_then(|j| nvcc_build_from_json(&j))
        .unwrap_or(0);
    Some(Version { major, minor, build })
}

/// `#define CUDA_VERSION 12090` → (12, 9).
fn cuda_version(cuda_h: &str) -> Option<(u32, u32)> {
    let line = cuda_h.lines().find(|l| {
        let t = l.trim_start();
        t.starts_with("#define") && t.split_whitespace().nth(1) == Some("CUDA_VERSION")
    })?;
    let v: u32 = line.split_whitespace().nth(2)?.parse().ok()?;
    Some((v / 1000, (v % 1000) / 10))
}

/// nvcc's build number from a toolkit's `version.json` (`"cuda_nvcc": {"version": "12.9.86"}`).
fn nvcc_build_from_json(json: &str) -> Option<u32> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let s = v.get("cuda_nvcc")?.get("version")?.as_str()?;
    s.split('.').nth(2)?.parse().ok()
}

/// nvcc's build number from the wheel's `dist-info` directory (`..._cu12-12.9.86.dist-info`).
fn nvcc_build_from_wheel(site: &Path) -> Option<u32> {
    let rd = std::fs::read_dir(site).ok()?;
    rd.flatten().find_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        let rest = name.strip_prefix("nvidia_cuda_nvcc_cu")?.strip_suffix(".dist-info")?;
        rest.split('-').nth(1)?.split('.').nth(2)?.parse().ok()
    })
}

/// Assembles the wheels under `wheels` (`site-packages/nvidia`) into one toolkit view in the
/// cache directory; returns its root and the version.
fn assemble(wheels: &Path) -> Result<(PathBuf, Version), String> {
    // The view links to the wheels from the cache directory: a relative path (`--cuda-path
    // venv/lib/...` given from the working directory) would make every link dangle.
    let canonical = wheels
        .canonicalize()
        .map_err(|e| format!("cannot read {}: {e}", wheels.display()))?;
    let wheels = canonical.as_path();
    // Every wheel's headers (runtime, CCCL, nvcc's crt, and whichever libraries are installed:
    // cuRAND, cuBLAS, ...), as a toolkit root's `include/` holds them all.
    let mut includes: Vec<PathBuf> = std::fs::read_dir(wheels)
        .map_err(|e| format!("cannot read {}: {e}", wheels.display()))?
        .flatten()
        .map(|e| e.path().join("include"))
        .filter(|d| d.is_dir())
        .collect();
    // The same header in two wheels: the first linked wins, the runtime's first as before.
    let first = ["cuda_runtime", "cuda_cccl", "curand", "cuda_nvcc"];
    includes.sort_by_key(|d| {
        let wheel = d.parent().and_then(Path::file_name).unwrap_or_default().to_os_string();
        (first.iter().position(|w| wheel == *w).unwrap_or(first.len()), wheel)
    });
    let cuda_h = std::fs::read_to_string(wheels.join("cuda_runtime/include/cuda.h"))
        .map_err(|e| format!("cannot read cuda.h: {e}"))?;
    let (major, minor) = cuda_version(&cuda_h).ok_or("cuda.h has no CUDA_VERSION")?;
    let site = wheels.parent().unwrap_or(wheels);
    let build = nvcc_build_from_wheel(site).unwrap_or(0);
    let version = Version { major, minor, build };
    let key = format!(
        "{}|{version}",
        includes
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join("|")
    );
    let base = super::shim::cache_base();
    let view = base.join(format!("autosync-cuda-{:016x}", super::shim::fnv(key.as_bytes())));
    if view.join("version.json").is_file() {
        return Ok((view, version));
    }
    let tmp = base.join(format!(
        "{}.{}.tmp",
        view.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let build_view = || -> std::io::Result<()> {
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(tmp.join("include"))?;
        std::fs::create_dir_all(tmp.join("bin"))?;
        for inc in &includes {
            link_tree(inc, &tmp.join("include"))?;
        }
        let json = format!(
            "{{\n  \"cuda\": {{ \"name\": \"CUDA SDK\", \"version\": \"{major}.{minor}.{build}\" }},\n  \"cuda_nvcc\": {{ \"name\": \"CUDA NVCC\", \"version\": \"{major}.{minor}.{build}\" }}\n}}\n"
        );
        std::fs::write(tmp.join("version.json"), json)?;
        match std::fs::rename(&tmp, &view) {
            Ok(()) => Ok(()),
            // Another process assembled the same view.
            Err(_) if view.join("version.json").is_file() => {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => Err(e),
        }
    };
    build_view().map_err(|e| format!("cannot assemble a toolkit view in {}: {e}", base.display()))?;
    Ok((view, version))
}

/// Links every entry of `from` into `to`, merging directories that several wheels share.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)?.flatten() {
        let src = e.path();
        let dst = to.join(e.file_name());
        match std::fs::symlink_metadata(&dst) {
            Err(_) => symlink(&src, &dst)?,
            Ok(m) if src.is_dir() => {
                // Both wheels have this directory: make a real one holding links to both.
                if m.file_type().is_symlink() {
                    let other = std::fs::read_link(&dst)?;
                    std::fs::remove_file(&dst)?;
                    std::fs::create_dir(&dst)?;
                    link_tree(&other, &dst)?;
                }
                link_tree(&src, &dst)?;
            }
            // The same file in two wheels: the first one wins (they are identical copies).
            Ok(_) => {}
        }
    }
    Ok(())
}

#[cfg(unix)]
fn symlink(src: &Path, dst: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(src, dst)
}

#[cfg(not(unix))]
fn symlink(src: &Path, dst: &Path) -> std::io::Result<()> {
    if src.is_dir() {
        Err(std::io::Error::other("directory links need unix"))
    } else {
        std::fs::copy(src, dst).map(|_| ())
    }
}

/// An executable on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|c| c.is_file())
}

/// Site directories of the active Python environment: the virtualenv's first, then those
/// `python3` reports.
fn site_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        out.extend(venv_sites(Path::new(&venv)));
    }
    if let Some(py) = on_path("python3") {
        let script = "import site,sys\nfor d in site.getsitepackages()+[site.getusersitepackages()]: print(d)";
        if let Ok(text) = super::cache::cached_output(&py, &["-c", script]) {
            out.extend(text.lines().map(PathBuf::from).filter(|p| p.is_dir()));
        }
    }
    out.dedup();
    out
}

/// `VENV/lib/python3.X/site-packages` directories.
fn venv_sites(venv: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(venv.join("lib")) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_cuda_h_and_version_json() {
        assert_eq!(cuda_version("#define CUDA_VERSION 12090\n"), Some((12, 9)));
        assert_eq!(cuda_version("  #define  CUDA_VERSION  11080 /* x */"), Some((11, 8)));
        assert_eq!(cuda_version("#define CUDA_VERSION_MAJOR 12"), None);
        let j = r#"{"cuda": {"version": "12.9.1"}, "cuda_nvcc": {"name": "x", "version": "12.9.86"}}"#;
        assert_eq!(nvcc_build_from_json(j), Some(86));
        assert_eq!(arch_number("sm_90a"), Some(900));
        assert_eq!(arch_number("sm_80"), Some(800));
    }

    #[test]
    fn macros_are_nvccs_version_macros_without_nvcc_itself() {
        let t = Toolkit {
            root: PathBuf::from("/x"),
            source: "test".into(),
            version: Version {
                major: 12,
                minor: 9,
                build: 86,
            },
        };
        let m = t.nvcc_macros("sm_90");
        assert!(m.contains(&("__CUDACC_VER_MAJOR__".into(), "12".into())));
        assert!(m.contains(&("__CUDACC_VER_BUILD__".into(), "86".into())));
        assert!(m.contains(&("__CUDA_ARCH_LIST__".into(), "900".into())));
        assert!(!m.iter().any(|(n, _)| n == "__NVCC__"));
    }
}
