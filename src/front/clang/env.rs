//! The environment a file is read in, resolved once from the user's options: the toolchain
//! (`select`), the device pass's flags, the prelude (precompiled with a toolkit, the shim's
//! headers without), the system directories and the forced includes. Running Clang consumes it
//! as it is: nothing about the environment is worked out while a file is read.

use super::options::{ClangError, ClangOptions};
use super::select::{self, Toolchain};
use super::{pch, shim};
use std::path::{Path, PathBuf};

/// What Clang reads before the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prelude {
    /// The toolkit's CUDA prelude, compiled once into this precompiled header.
    Precompiled(PathBuf),
    /// The toolkit's CUDA prelude read from its headers (no precompiled header could be had, or
    /// the user asked for none).
    Headers,
    /// autosync's built-in CUDA declarations in this directory (no toolkit).
    Shim(PathBuf),
}

/// Everything a Clang run of one file depends on but the file itself.
#[derive(Clone, Debug)]
pub struct Environment {
    /// Which Clang, toolkit and architecture.
    pub toolchain: Toolchain,
    /// The device pass's flags, without the input, the main file's directory, the forced
    /// includes and the dump options: what a precompiled prelude is built with.
    pub flags: Vec<String>,
    /// What Clang reads first.
    pub prelude: Prelude,
    /// Files the user includes first (`-include`).
    pub pre_includes: Vec<PathBuf>,
    /// The user's include directories (`-I`), which the shim's lean read searches too.
    pub include_dirs: Vec<PathBuf>,
    /// Which file names are system headers.
    pub system: SystemDirs,
    /// Headers Clang reads through rewritten copies (`-ivfsoverlay`; see `asm_escapes`).
    pub vfs_overlay: Option<PathBuf>,
}

impl Environment {
    /// Resolves the environment for `opts`: the toolchain (cached per process), the flags, and
    /// the prelude (built on first use and cached on disk).
    pub fn resolve(opts: &ClangOptions) -> Result<Environment, ClangError> {
        let toolchain = select::toolchain(opts)?;
        let flags = device_flags(&toolchain, opts)?;
        let prelude = match &toolchain.toolkit {
            Some(_) if opts.plain_prelude || !precompiles(opts.std.as_deref()) => Prelude::Headers,
            Some(_) => pch::prelude(&toolchain.clang, &flags).map_or(Prelude::Headers, Prelude::Precompiled),
            None => Prelude::Shim(shim_dir()?),
        };
        let system = SystemDirs::new(&toolchain, opts);
        Ok(Environment {
            toolchain,
            flags,
            prelude,
            pre_includes: opts.pre_includes.clone(),
            include_dirs: opts.include_dirs.clone(),
            system,
            vfs_overlay: None,
        })
    }

    /// The same environment with its precompiled prelude built again (Clang refused the one it
    /// had: stale, or built by another Clang), or read from the headers when that fails.
    pub fn with_rebuilt_prelude(&self) -> Environment {
        let prelude = pch::rebuild(&self.toolchain.clang, &self.flags).map_or(Prelude::Headers, Prelude::Precompiled);
        Environment {
            prelude,
            ..self.clone()
        }
    }

    /// The same environment reading the toolkit's prelude from its headers.
    pub fn with_header_prelude(&self) -> Environment {
        Environment {
            prelude: Prelude::Headers,
            ..self.clone()
        }
    }

    /// The same environment reading headers through the overlay file `yaml`.
    pub fn with_overlay(&self, yaml: PathBuf) -> Environment {
        Environment {
            vfs_overlay: Some(yaml),
            ..self.clone()
        }
    }

    /// One line for `--verbose`.
    pub fn describe(&self) -> String {
        self.toolchain.describe()
    }
}

/// Whether the toolkit prelude may be precompiled for C++ standard `std`. From C++20 on it may
/// not: loaded from a precompiled header, Clang 19's CUDA device pass no longer finds the
/// aligned `operator new(size_t, align_val_t)`, which libstdc++'s allocator (constexpr, so
/// host and device in CUDA) calls, and `#include <vector>` stops in `new_allocator.h` ("no
/// matching function for call to 'operator new'"); read from the headers it compiles.
fn precompiles(std: Option<&str>) -> bool {
    let version = std.and_then(|s| s.split("++").nth(1)).unwrap_or("17");
    matches!(version, "98" | "03" | "0x" | "11" | "1y" | "14" | "1z" | "17")
}

fn shim_dir() -> Result<PathBuf, ClangError> {
    shim::dir().map(Path::to_path_buf).map_err(|m| ClangError {
        message: m,
        help: "set XDG_CACHE_HOME or TMPDIR to a writable directory".into(),
    })
}

/// The flags of the device pass for `tc` and `opts`.
fn device_flags(tc: &Toolchain, opts: &ClangOptions) -> Result<Vec<String>, ClangError> {
    let mut f: Vec<String> = ["-x", "cuda", "--cuda-device-only", "-nocudalib"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    f.push(format!("--cuda-gpu-arch={}", tc.arch));
    f.push(format!("-std={}", opts.std.as_deref().unwrap_or("c++17")));
    f.push("-D__AUTOSYNC__=1".into());
    match &tc.toolkit {
        Some(tk) => {
            f.push(format!("--cuda-path={}", tk.root.display()));
            if let Some(v) = &tc.sdk_version {
                f.extend(["-Xclang".into(), format!("-target-sdk-version={v}")]);
            }
            f.push("-Wno-unknown-cuda-version".into());
            for (n, v) in tk.nvcc_macros(&tc.arch) {
                f.push(format!("-D{n}={v}"));
            }
        }
        None => {
            let shim = shim_dir()?;
            f.extend(["-nocudainc".into(), "-isystem".into(), shim.display().to_string()]);
        }
    }
    for d in &opts.include_dirs {
        f.extend(["-I".into(), d.display().to_string()]);
    }
    for d in &opts.system_dirs {
        f.extend(["-isystem".into(), d.display().to_string()]);
    }
    for (n, v) in &opts.defines {
        f.push(match v {
            Some(v) => format!("-D{n}={v}"),
            None => format!("-D{n}"),
        });
    }
    f.extend(opts.undefines.iter().map(|n| format!("-U{n}")));
    Ok(f)
}

/// Classifies file names as Clang prints them: system headers are the shim, Clang's own
/// headers, the C/C++ library, a CUDA toolkit and `-isystem` directories.
#[derive(Clone, Debug)]
pub struct SystemDirs {
    prefixes: Vec<PathBuf>,
}

impl SystemDirs {
    /// The system directories for a run with `tc` and `opts`.
    pub fn new(tc: &Toolchain, opts: &ClangOptions) -> SystemDirs {
        let mut prefixes: Vec<PathBuf> = ["/usr/include", "/usr/local/include", "/usr/lib", "/usr/local/cuda"]
            .iter()
            .map(PathBuf::from)
            .collect();
        if let Ok(d) = shim::dir() {
            prefixes.push(d.to_path_buf());
        }
        prefixes.extend(select::resource_dir(&tc.clang));
        if let Some(tk) = &tc.toolkit {
            prefixes.push(tk.root.clone());
            // An assembled view links into the wheels: their real directories are the toolkit.
            if let Ok(rd) = std::fs::read_dir(tk.root.join("include")) {
                prefixes.extend(rd.flatten().filter_map(|e| std::fs::read_link(e.path()).ok()));
            }
        }
        prefixes.extend(opts.cuda_path.iter().cloned());
        prefixes.extend(opts.system_dirs.iter().cloned());
        let canon: Vec<PathBuf> = prefixes.iter().filter_map(|p| p.canonicalize().ok()).collect();
        prefixes.extend(canon);
        SystemDirs { prefixes }
    }

    /// Whether a file Clang named is a system header.
    pub fn is_system(&self, name: &str) -> bool {
        if name == super::diagnostics::STDIN_NAME {
            return false;
        }
        let p = Path::new(name);
        if self.prefixes.iter().any(|d| p.starts_with(d)) {
            return true;
        }
        // Relative names resolve against our working directory, like Clang's.
        match p.canonicalize() {
            Ok(c) => self.prefixes.iter().any(|d| c.starts_with(d)),
            // Built-in buffers (`<built-in>`, `<command line>`, `<scratch space>`).
            Err(_) => name.starts_with('<'),
        }
    }
}
