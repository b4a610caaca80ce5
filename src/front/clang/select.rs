//! The toolchain a file is read with: which Clang, which CUDA toolkit (or the built-in shim),
//! which architecture. A toolkit is used only with a Clang whose probe compile of its headers
//! for the architecture succeeds, newest Clang first; the probe's answer is cached.

use super::cache::{cached, cached_output, exe_key};
use super::options::{ClangError, ClangOptions, MIN_VERSION};
use super::toolkit::{self, Choice, Toolkit};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Newest Clang major version autosync looks for on `PATH`.
pub const MAX_VERSION: u32 = 19;

/// The Debian package that reads the newest CUDA toolkits.
const NEWEST_PACKAGE: &str = "clang-19";

/// Which Clang reads the file, with which toolkit, for which architecture.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Toolchain {
    /// The Clang executable.
    pub clang: PathBuf,
    /// Its major version.
    pub clang_version: u32,
    /// The toolkit; None: the built-in shim.
    pub toolkit: Option<Toolkit>,
    /// The SDK version to tell Clang when the toolkit is newer than Clang knows (Clang would
    /// otherwise fall back to the pre-9.2 kernel-launch API).
    pub sdk_version: Option<String>,
    /// The GPU architecture.
    pub arch: String,
    /// How the choice was made (candidates passed over, fallbacks).
    pub notes: Vec<String>,
}

impl Toolchain {
    /// One line for `--verbose`: `clang-19 (19), CUDA 12.9.86 from pip wheels in DIR, sm_80`.
    pub fn describe(&self) -> String {
        let tk = match &self.toolkit {
            Some(t) => format!("CUDA {} toolkit ({})", t.version, t.source),
            None => "the built-in CUDA shim".into(),
        };
        format!(
            "read with {} (Clang {}), {tk}, {}",
            self.clang.display(),
            self.clang_version,
            self.arch
        )
    }
}

/// Resolves the toolchain for `opts` (cached per distinct options for the process).
pub fn toolchain(opts: &ClangOptions) -> Result<Toolchain, ClangError> {
    use std::sync::{Mutex, OnceLock};
    type Key = (Option<PathBuf>, Choice, String);
    type Entry = (Key, Result<Toolchain, ClangError>);
    static CACHE: OnceLock<Mutex<Vec<Entry>>> = OnceLock::new();
    let key: Key = (opts.clang.clone(), opts.toolkit_choice(), opts.arch().to_string());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = lock(cache).iter().find(|(k, _)| *k == key) {
        return hit.1.clone();
    }
    let r = resolve_toolchain(opts);
    lock(cache).push((key, r.clone()));
    r
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn resolve_toolchain(opts: &ClangOptions) -> Result<Toolchain, ClangError> {
    let arch = opts.arch().to_string();
    let choice = opts.toolkit_choice();
    let found = toolkit::find(&choice).map_err(|m| ClangError {
        message: m,
        help: "point --cuda-path (or `cuda_path:` in autosync.yaml) at a toolkit root holding \
               include/cuda_runtime.h, or at a site-packages directory with the NVIDIA wheels"
            .into(),
    })?;
    let mut notes = found.notes;
    let explicit = explicit_clang(opts);
    let Some(tk) = found.toolkit else {
        let clang = match explicit {
            Some(p) => checked(&p)?,
            None => newest_on_path()?,
        };
        return Ok(Toolchain {
            clang_version: version(&clang)?,
            clang,
            toolkit: None,
            sdk_version: None,
            arch,
            notes,
        });
    };
    let candidates = match &explicit {
        Some(p) => vec![checked(p)?],
        None => all_on_path(),
    };
    let mut refused = Vec::new();
    for c in candidates {
        match probe(&c, &tk, &arch) {
            Ok(sdk) => {
                return Ok(Toolchain {
                    clang_version: version(&c)?,
                    clang: c,
                    toolkit: Some(tk),
                    sdk_version: sdk,
                    arch,
                    notes,
                })
            }
            Err(why) => refused.push(format!("{} ({why})", c.display())),
        }
    }
    let message = format!(
        "no Clang here reads the CUDA {} toolkit ({}) for {arch}: {}",
        tk.version,
        tk.source,
        if refused.is_empty() {
            "no Clang found".to_string()
        } else {
            refused.join("; ")
        }
    );
    let help = format!(
        "install {NEWEST_PACKAGE} (Debian/Ubuntu: `sudo apt-get install {NEWEST_PACKAGE}`), or pass --clang PATH, \
         or --cuda-shim to read the built-in CUDA declarations instead"
    );
    if !matches!(choice, Choice::Auto) || explicit.is_some() {
        return Err(ClangError { message, help });
    }
    // A toolkit found by searching, but no Clang that reads it: the shim, with the reason.
    notes.push(format!("{message}; {help}; using the built-in CUDA shim"));
    let clang = newest_on_path()?;
    Ok(Toolchain {
        clang_version: version(&clang)?,
        clang,
        toolkit: None,
        sdk_version: None,
        arch,
        notes,
    })
}

/// The Clang the user named: `--clang` / `clang:`, then `AUTOSYNC_CLANG`.
fn explicit_clang(opts: &ClangOptions) -> Option<PathBuf> {
    opts.clang.clone().or_else(|| {
        std::env::var_os("AUTOSYNC_CLANG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

fn install_help() -> String {
    format!(
        "install Clang {MIN_VERSION} or newer (Debian/Ubuntu: `sudo apt-get install {NEWEST_PACKAGE}`), or point \
         autosync at one with --clang PATH, AUTOSYNC_CLANG or `clang:` in autosync.yaml"
    )
}

/// A Clang the user named, resolved and of a supported version.
fn checked(p: &Path) -> Result<PathBuf, ClangError> {
    let found = resolve(p).ok_or_else(|| ClangError {
        message: format!("Clang not found at `{}`", p.display()),
        help: install_help(),
    })?;
    let v = version(&found)?;
    if v < MIN_VERSION {
        return Err(ClangError {
            message: format!(
                "`{}` is Clang {v}; autosync needs Clang {MIN_VERSION} or newer",
                found.display()
            ),
            help: install_help(),
        });
    }
    Ok(found)
}

/// Every supported Clang on `PATH`, newest first, each executable once.
fn all_on_path() -> Vec<PathBuf> {
    let mut names: Vec<String> = (MIN_VERSION..=MAX_VERSION)
        .rev()
        .map(|v| format!("clang-{v}"))
        .collect();
    names.push("clang".into());
    let mut out: Vec<(u32, PathBuf, PathBuf)> = Vec::new();
    for n in &names {
        let Some(p) = resolve(Path::new(n)) else { continue };
        let real = p.canonicalize().unwrap_or_else(|_| p.clone());
        if out.iter().any(|(_, _, r)| *r == real) {
            continue;
        }
        if let Ok(v) = version(&p) {
            if v >= MIN_VERSION {
                out.push((v, p, real));
            }
        }
    }
    out.sort_by_key(|x| std::cmp::Reverse(x.0));
    out.into_iter().map(|(_, p, _)| p).collect()
}

/// The newest supported Clang on `PATH`.
fn newest_on_path() -> Result<PathBuf, ClangError> {
    all_on_path().into_iter().next().ok_or_else(|| ClangError {
        message: "Clang not found: autosync reads CUDA through Clang's device pass".into(),
        help: install_help(),
    })
}

/// A path as given, or a bare name looked up on `PATH`.
fn resolve(p: &Path) -> Option<PathBuf> {
    if p.components().count() > 1 || p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    toolkit::on_path(&p.to_string_lossy())
}

/// The major version of a Clang executable.
pub fn version(clang: &Path) -> Result<u32, ClangError> {
    let text = cached_output(clang, &["--version"]).map_err(|m| ClangError {
        message: m,
        help: String::new(),
    })?;
    parse_version(&text).ok_or_else(|| ClangError {
        message: format!("`{} --version` does not name a Clang version", clang.display()),
        help: String::new(),
    })
}

/// `clang version 14.0.6` (any vendor prefix) → 14.
pub fn parse_version(text: &str) -> Option<u32> {
    let line = text.lines().find(|l| l.contains("clang version"))?;
    let rest = &line[line.find("clang version")? + "clang version".len()..];
    rest.trim().split(['.', ' ']).next()?.parse().ok()
}

/// Clang's resource directory (its own headers: system).
pub fn resource_dir(clang: &Path) -> Option<PathBuf> {
    cached_output(clang, &["-print-resource-dir"])
        .ok()
        .map(|o| PathBuf::from(o.trim()))
        .filter(|p| !p.as_os_str().is_empty())
}

/// Whether `clang` compiles the toolkit's headers for `arch`: Ok with the SDK version to pass
/// when the toolkit is newer than Clang knows, or the first error. Cached on disk.
fn probe(clang: &Path, tk: &Toolkit, arch: &str) -> Result<Option<String>, String> {
    let key = format!(
        "{}\tprobe\t{}\t{}\t{arch}",
        exe_key(clang).unwrap_or_else(|| clang.display().to_string()),
        tk.root.display(),
        tk.version
    );
    let answer = cached(&key, || Some(run_probe(clang, tk, arch))).unwrap_or_default();
    match answer.split_once('\t') {
        Some(("ok", sdk)) => Ok((!sdk.is_empty()).then(|| sdk.to_string())),
        Some((_, why)) => Err(why.to_string()),
        None => Err("the probe compile did not run".into()),
    }
}

/// `ok\tSDK` or `fail\tREASON`.
fn run_probe(clang: &Path, tk: &Toolkit, arch: &str) -> String {
    let attempt = |sdk: Option<&str>| -> Result<(bool, String), String> {
        let mut c = Command::new(clang);
        c.args([
            "-x",
            "cuda",
            "--cuda-device-only",
            "-nocudalib",
            "-fsyntax-only",
            "-std=c++17",
        ])
        .arg(format!("--cuda-gpu-arch={arch}"))
        .arg(format!("--cuda-path={}", tk.root.display()));
        if let Some(s) = sdk {
            c.args(["-Xclang", &format!("-target-sdk-version={s}")]);
        }
        for (n, v) in tk.nvcc_macros(arch) {
            c.arg(format!("-D{n}={v}"));
        }
        let mut child = c
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run it: {e}"))?;
        if let Some(mut i) = child.stdin.take() {
            let _ = i.write_all(PROBE_SOURCE.as_bytes());
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        Ok((out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned()))
    };
    let (ok, err) = match attempt(None) {
        Ok(x) => x,
        Err(e) => return format!("fail\t{e}"),
    };
    // Clang reads a toolkit newer than it knows with a warning, but then takes it for an old one
    // (no `-target-sdk-version`): the newest version it knows stands in.
    let sdk = newest_known(&err);
    let (ok, err) = match &sdk {
        Some(s) => match attempt(Some(s)) {
            Ok(x) => x,
            Err(e) => return format!("fail\t{e}"),
        },
        None => (ok, err),
    };
    if ok {
        format!("ok\t{}", sdk.unwrap_or_default())
    } else {
        let first = err
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("the probe compile failed")
            .trim()
            .to_string();
        format!("fail\t{first}")
    }
}

/// What the probe compiles: the runtime API and a kernel launch, as host code of a `.cu` file
/// has it.
const PROBE_SOURCE: &str =
    "#include <cuda_runtime.h>\n__global__ void autosync_probe(int *p) { p[threadIdx.x] = 0; }\n\
void autosync_probe_launch(int *p) { autosync_probe<<<1, 32>>>(p); }\n";

/// The version in Clang's "newer than the latest (partially) supported version X" warning.
fn newest_known(stderr: &str) -> Option<String> {
    let line = stderr
        .lines()
        .find(|l| l.contains("CUDA version is newer than the latest"))?;
    let at = line.find("supported version ")? + "supported version ".len();
    let v: String = line[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    (!v.is_empty()).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_the_newest_known_sdk() {
        assert_eq!(parse_version("Debian clang version 14.0.6\nTarget: x"), Some(14));
        assert_eq!(parse_version("clang version 19.1.7 (3~deb12u1)"), Some(19));
        assert_eq!(parse_version("gcc 12"), None);
        let w = "clang-19: warning: CUDA version is newer than the latest partially supported version 12.5 [-Wunknown-cuda-version]";
        assert_eq!(newest_known(w).as_deref(), Some("12.5"));
        assert_eq!(newest_known("warning: something else"), None);
    }
}
