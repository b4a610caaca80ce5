//! Running Clang in CUDA device mode: finding the executable, building the command line,
//! streaming its JSON AST into [`crate::front::ast`] and reading its diagnostics.

pub mod compile_db;
pub mod shim;

use super::ast::{self, Ast};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The name Clang gives the main file (it is read from standard input).
pub const STDIN_NAME: &str = "<stdin>";

/// How to run Clang for one file.
#[derive(Clone, Debug, Default)]
pub struct ClangOptions {
    /// `--clang PATH` / `AUTOSYNC_CLANG` / `clang:` in autosync.yaml.
    pub clang: Option<PathBuf>,
    /// `--cuda-path DIR`: a real CUDA toolkit instead of the shim.
    pub cuda_path: Option<PathBuf>,
    /// `--arch sm_NN` (default `sm_80`).
    pub arch: Option<String>,
    /// Include directories (`-I`).
    pub include_dirs: Vec<PathBuf>,
    /// System include directories (`-isystem`).
    pub system_dirs: Vec<PathBuf>,
    /// Macros (`-D NAME[=VALUE]`).
    pub defines: Vec<(String, Option<String>)>,
    /// `-U NAME`.
    pub undefines: Vec<String>,
    /// `-std=`.
    pub std: Option<String>,
    /// Files to include first (`-include`).
    pub pre_includes: Vec<PathBuf>,
}

/// A diagnostic Clang printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file as Clang named it (`<stdin>` for the main file).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (bytes).
    pub col: u32,
    /// `error` or `fatal error`.
    pub severity: String,
    /// The message.
    pub message: String,
    /// Where the main file includes the header the diagnostic is in (`In file included from`).
    pub included_from: Option<(u32, u32)>,
}

/// What one Clang run produced (warnings are read only to explain errors).
#[derive(Debug)]
pub struct Parsed {
    /// The AST (empty when Clang stopped early).
    pub ast: Ast,
    /// Errors.
    pub errors: Vec<Diagnostic>,
}

/// Why Clang could not be run.
#[derive(Clone, Debug)]
pub struct ClangError {
    /// What went wrong.
    pub message: String,
    /// What to do.
    pub help: String,
}

/// Default GPU architecture: one every supported Clang (14–19) knows.
pub const DEFAULT_ARCH: &str = "sm_80";

/// Oldest supported Clang major version.
pub const MIN_VERSION: u32 = 14;

/// Finds the Clang to use: `explicit` (CLI, then config), `AUTOSYNC_CLANG`, then `clang`,
/// `clang-19` … `clang-14` on `PATH`.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, ClangError> {
    let install = "install Clang 14 or newer (Debian/Ubuntu: `sudo apt-get install clang`), or point \
                   autosync at one with --clang PATH, AUTOSYNC_CLANG or `clang:` in autosync.yaml";
    let env = std::env::var_os("AUTOSYNC_CLANG").map(PathBuf::from);
    if let Some(p) = explicit.map(Path::to_path_buf).or(env) {
        let found = resolve(&p).ok_or_else(|| ClangError {
            message: format!("Clang not found at `{}`", p.display()),
            help: install.into(),
        })?;
        check_version(&found)?;
        return Ok(found);
    }
    let mut names = vec!["clang".to_string()];
    names.extend((MIN_VERSION..=19).rev().map(|v| format!("clang-{v}")));
    for n in &names {
        if let Some(p) = resolve(Path::new(n)) {
            if check_version(&p).is_ok() {
                return Ok(p);
            }
        }
    }
    Err(ClangError {
        message: "Clang not found: autosync reads CUDA through Clang's device pass".into(),
        help: install.into(),
    })
}

/// A path as given, or a bare name looked up on `PATH`.
fn resolve(p: &Path) -> Option<PathBuf> {
    if p.components().count() > 1 || p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(p)).find(|c| c.is_file())
}

/// The major version of a Clang executable.
pub fn version(clang: &Path) -> Result<u32, ClangError> {
    let text = probe(clang, "--version").map_err(|m| ClangError {
        message: m,
        help: String::new(),
    })?;
    parse_version(&text).ok_or_else(|| ClangError {
        message: format!("`{} --version` does not name a Clang version", clang.display()),
        help: String::new(),
    })
}

/// The output of `clang FLAG`, cached in memory and on disk (keyed by the executable's path,
/// size and modification time), so that most runs spawn Clang only once.
fn probe(clang: &Path, flag: &str) -> Result<String, String> {
    static CACHE: OnceLock<Mutex<Vec<(PathBuf, String, String)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let hit = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(p, f, _)| p == clang && f == flag)
        .map(|x| x.2.clone());
    if let Some(out) = hit {
        return Ok(out);
    }
    let real = clang.canonicalize().unwrap_or_else(|_| clang.to_path_buf());
    let key = std::fs::metadata(&real).ok().map(|m| {
        let mtime = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs())
            .unwrap_or(0);
        format!("{}\t{}\t{mtime}\t{flag}", real.display(), m.len())
    });
    let disk = shim::dir().ok().map(|d| d.join("probes.txt"));
    if let (Some(key), Some(disk)) = (&key, &disk) {
        if let Ok(text) = std::fs::read_to_string(disk) {
            for entry in text.split("\u{1e}") {
                if let Some(out) = entry.strip_prefix(key.as_str()).and_then(|r| r.strip_prefix('\n')) {
                    cache.lock().unwrap_or_else(|e| e.into_inner()).push((
                        clang.to_path_buf(),
                        flag.to_string(),
                        out.to_string(),
                    ));
                    return Ok(out.to_string());
                }
            }
        }
    }
    let out = Command::new(clang)
        .arg(flag)
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", clang.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if let (Some(key), Some(disk)) = (key, disk) {
        // Appending is atomic enough for a cache: a torn entry just misses.
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(disk) {
            let _ = write!(f, "{key}\n{text}\u{1e}");
        }
    }
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((clang.to_path_buf(), flag.to_string(), text.clone()));
    Ok(text)
}

/// `clang version 14.0.6` (any vendor prefix) → 14.
fn parse_version(text: &str) -> Option<u32> {
    let line = text.lines().find(|l| l.contains("clang version"))?;
    let rest = &line[line.find("clang version")? + "clang version".len()..];
    rest.trim().split(['.', ' ']).next()?.parse().ok()
}

fn check_version(clang: &Path) -> Result<(), ClangError> {
    let v = version(clang)?;
    if v < MIN_VERSION {
        return Err(ClangError {
            message: format!(
                "`{}` is Clang {v}; autosync needs Clang {MIN_VERSION} or newer",
                clang.display()
            ),
            help: "install a newer Clang (Debian/Ubuntu: `sudo apt-get install clang`) or pass --clang PATH".into(),
        });
    }
    Ok(())
}

/// Clang's resource directory (its own headers: system).
fn resource_dir(clang: &Path) -> Option<PathBuf> {
    probe(clang, "-print-resource-dir")
        .ok()
        .map(|o| PathBuf::from(o.trim()))
        .filter(|p| !p.as_os_str().is_empty())
}

/// The command line for reading `dir/<stdin>` (the main file's directory anchors its quoted
/// includes).
pub fn command(clang: &Path, main_dir: &Path, opts: &ClangOptions) -> Result<Command, ClangError> {
    let mut c = Command::new(clang);
    let arch = opts.arch.as_deref().unwrap_or(DEFAULT_ARCH);
    c.args(["-x", "cuda", "--cuda-device-only", "-nocudalib"])
        .arg(format!("--cuda-gpu-arch={arch}"))
        .args([
            "-fsyntax-only",
            "-ferror-limit=0",
            "-fno-color-diagnostics",
            "-Wno-undefined-internal",
        ])
        .args(["-fno-caret-diagnostics", "-fno-diagnostics-fixit-info"])
        .args(["-Xclang", "-ast-dump=json"])
        .arg(format!("-std={}", opts.std.as_deref().unwrap_or("c++17")))
        .arg("-D__AUTOSYNC__=1");
    match &opts.cuda_path {
        Some(p) => {
            c.arg(format!("--cuda-path={}", p.display()));
        }
        None => {
            let shim = shim::dir().map_err(|m| ClangError {
                message: m,
                help: "set XDG_CACHE_HOME or TMPDIR to a writable directory".into(),
            })?;
            c.arg("-nocudainc").arg("-isystem").arg(shim);
            c.arg("-include").arg(shim.join(shim::MAIN));
        }
    }
    // Quoted includes of the main file resolve next to it (it is read from stdin).
    c.arg("-iquote").arg(if main_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        main_dir
    });
    for d in &opts.include_dirs {
        c.arg("-I").arg(d);
    }
    for d in &opts.system_dirs {
        c.arg("-isystem").arg(d);
    }
    for (n, v) in &opts.defines {
        match v {
            Some(v) => c.arg(format!("-D{n}={v}")),
            None => c.arg(format!("-D{n}")),
        };
    }
    for n in &opts.undefines {
        c.arg(format!("-U{n}"));
    }
    for f in &opts.pre_includes {
        c.arg("-include").arg(f);
    }
    c.arg("-");
    Ok(c)
}

/// Classifies file names as Clang prints them: system headers are the shim, Clang's own
/// headers, the C/C++ library, a CUDA toolkit and `-isystem` directories.
pub struct SystemDirs {
    prefixes: Vec<PathBuf>,
    keep: Vec<PathBuf>,
}

impl SystemDirs {
    /// The system directories for a run with `opts`.
    pub fn new(clang: &Path, opts: &ClangOptions) -> SystemDirs {
        let mut prefixes: Vec<PathBuf> = ["/usr/include", "/usr/local/include", "/usr/lib", "/usr/local/cuda"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let mut keep = Vec::new();
        if let Ok(d) = shim::dir() {
            prefixes.push(d.to_path_buf());
            keep.push(d.to_path_buf());
            keep.extend(d.canonicalize().ok());
        }
        prefixes.extend(resource_dir(clang));
        prefixes.extend(opts.cuda_path.iter().cloned());
        prefixes.extend(opts.system_dirs.iter().cloned());
        let canon: Vec<PathBuf> = prefixes.iter().filter_map(|p| p.canonicalize().ok()).collect();
        prefixes.extend(canon);
        SystemDirs { prefixes, keep }
    }

    /// (system header, declarations kept whole) for a file Clang named: the shim is both.
    pub fn classify(&self, name: &str) -> (bool, bool) {
        let system = self.is_system(name);
        (
            system,
            system && self.keep.iter().any(|d| Path::new(name).starts_with(d)),
        )
    }

    /// Whether a file Clang named is a system header.
    pub fn is_system(&self, name: &str) -> bool {
        if name == STDIN_NAME {
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

/// Runs Clang on `text` (the contents of a file in `main_dir`) and reads its AST and errors.
/// With the shim, only the declaration families the file's identifiers mention are declared;
/// when Clang then misses a declaration, the file is read again with all of them.
pub fn parse(text: &str, main_dir: &Path, opts: &ClangOptions) -> Result<Parsed, ClangError> {
    let clang = locate(opts.clang.as_deref())?;
    let system = SystemDirs::new(&clang, opts);
    if opts.cuda_path.is_some() {
        return run(&clang, text, main_dir, opts, &system, None);
    }
    let mut dirs: Vec<&Path> = vec![main_dir];
    dirs.extend(opts.include_dirs.iter().map(PathBuf::as_path));
    let includes = shim::user_includes(text, &dirs, &|p| system.is_system(&p.to_string_lossy()));
    let families = shim::families(std::iter::once(text).chain(includes.iter().map(String::as_str)));
    let lean = run(&clang, text, main_dir, opts, &system, Some(&families))?;
    let missing = lean.errors.iter().any(|e| {
        [
            "undeclared identifier",
            "no matching function",
            "unknown type name",
            "no template named",
            "no member named",
            "not declared",
        ]
        .iter()
        .any(|m| e.message.contains(m))
    });
    if missing {
        return run(&clang, text, main_dir, opts, &system, None);
    }
    Ok(lean)
}

fn run(
    clang: &Path,
    text: &str,
    main_dir: &Path,
    opts: &ClangOptions,
    system: &SystemDirs,
    families: Option<&[&str]>,
) -> Result<Parsed, ClangError> {
    let mut cmd = command(clang, main_dir, opts)?;
    if let Some(fams) = families {
        // Before the final `-`: defines go anywhere on Clang's command line.
        cmd.arg("-DAUTOSYNC_LEAN");
        for f in fams {
            cmd.arg(format!("-DAUTOSYNC_WANT_{f}"));
        }
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ClangError {
            message: format!("cannot run `{}`: {e}", clang.display()),
            help: "check that Clang is installed and executable (--clang PATH)".into(),
        })?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let stdout = child.stdout.take().expect("piped stdout");
    let input = text.to_string();
    // Separate threads feed stdin and drain stderr, so that no pipe fills up while the AST is
    // streamed from stdout.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let classify = |n: &str| system.classify(n);
    let ast = ast::read::read(stdout, &classify);
    let _ = writer.join();
    let err_text = err_reader.join().unwrap_or_default();
    let status = child.wait().map_err(|e| ClangError {
        message: format!("Clang did not finish: {e}"),
        help: String::new(),
    })?;
    let errors = parse_diagnostics(&err_text);
    match ast {
        Ok(ast) => Ok(Parsed { ast, errors }),
        // A fatal error (a missing include) stops Clang before it dumps anything.
        Err(_) if !errors.is_empty() => Ok(Parsed {
            ast: Ast::default(),
            errors,
        }),
        Err(e) => Err(ClangError {
            message: format!("{e} (Clang exited with {status})"),
            help: first_lines(&err_text, 5),
        }),
    }
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join("\n")
}

/// Reads `file:line:col: error: message` lines, with the `In file included from` context that
/// precedes each.
pub fn parse_diagnostics(text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut included_from: Option<(u32, u32)> = None;
    // A warning just before an error at the same place often says what is wrong (an
    // unterminated string is a warning, then "expected expression").
    let mut last_warning: Option<(String, u32, u32, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("In file included from ") {
            // The first context line names the outermost includer: the main file.
            if let Some((file, l)) = split_file_line(rest.trim_end_matches(':')) {
                if file == STDIN_NAME && included_from.is_none() {
                    included_from = Some((l, 1));
                }
            }
            continue;
        }
        let Some((loc, rest)) = split_severity(line) else {
            if !line.starts_with("                 from ") {
                included_from = None;
            } else if let Some((file, l)) =
                split_file_line(line.trim_start().trim_start_matches("from ").trim_end_matches(':'))
            {
                if file == STDIN_NAME {
                    included_from = Some((l, 1));
                }
            }
            continue;
        };
        let (severity, message) = rest;
        if let Some((file, l, c)) = split_loc(loc) {
            if severity == "warning" {
                last_warning = Some((file.to_string(), l, c, message.to_string()));
            }
            if severity.ends_with("error") {
                let message = match &last_warning {
                    Some((f, wl, wc, w)) if f == file && *wl == l && *wc == c => w.clone(),
                    _ => message.to_string(),
                };
                out.push(Diagnostic {
                    file: file.to_string(),
                    line: l,
                    col: c,
                    severity: severity.to_string(),
                    message,
                    included_from: if file == STDIN_NAME { None } else { included_from },
                });
            }
        } else if severity.ends_with("error") {
            out.push(Diagnostic {
                file: String::new(),
                line: 0,
                col: 0,
                severity: severity.to_string(),
                message: message.to_string(),
                included_from: None,
            });
        }
        included_from = None;
    }
    out
}

/// `LOC: SEVERITY: MESSAGE` → (LOC, (SEVERITY, MESSAGE)).
fn split_severity(line: &str) -> Option<(&str, (&str, &str))> {
    for sev in [": fatal error: ", ": error: ", ": warning: ", ": note: "] {
        if let Some(i) = line.find(sev) {
            let severity = sev.trim_matches([':', ' ']);
            return Some((&line[..i], (severity, &line[i + sev.len()..])));
        }
    }
    for sev in ["fatal error: ", "error: "] {
        if let Some(m) = line.strip_prefix(sev) {
            return Some(("", (sev.trim_matches([':', ' ']), m)));
        }
    }
    None
}

/// `file:line` (the file may itself contain colons).
fn split_file_line(s: &str) -> Option<(&str, u32)> {
    let (file, line) = s.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// `file:line:col` (the file may itself contain colons).
fn split_loc(s: &str) -> Option<(&str, u32, u32)> {
    let (rest, col) = s.rsplit_once(':')?;
    let (file, line) = rest.rsplit_once(':')?;
    Some((file, line.parse().ok()?, col.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(parse_version("Debian clang version 14.0.6\nTarget: x"), Some(14));
        assert_eq!(parse_version("clang version 19.1.7 (3~deb12u1)"), Some(19));
        assert_eq!(parse_version("gcc 12"), None);
    }

    #[test]
    fn diagnostics() {
        let d = parse_diagnostics(
            "In file included from <stdin>:3:\n./inc/a.h:2:5: error: unknown type name 'foo'\n\
             <stdin>:7:10: error: use of undeclared identifier 'x'\n<stdin>:8:1: warning: w\n\
             <stdin>:3:10: fatal error: 'b.h' file not found\n1 error generated.\n",
        );
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].file, "./inc/a.h");
        assert_eq!(d[0].included_from, Some((3, 1)));
        assert_eq!((d[1].line, d[1].col), (7, 10));
        assert_eq!(d[2].severity, "fatal error");
    }
}
