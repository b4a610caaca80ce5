//! Running Clang in CUDA device mode: the environment (which Clang, which toolkit, `select`,
//! `toolkit`), the command line, the precompiled prelude (`pch`), streaming the JSON AST into
//! [`crate::front::ast`], and reading Clang's diagnostics.

mod cache;
pub mod compile_db;
mod options;
mod pch;
pub mod select;
pub mod shim;
pub mod toolkit;

pub use options::{ClangError, ClangOptions, DEFAULT_ARCH, MIN_VERSION};
pub use select::Environment;

use super::ast::{self, Ast};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The name Clang gives the main file (it is read from standard input).
pub const STDIN_NAME: &str = "<stdin>";

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
    /// Where the file was read.
    pub env: Environment,
}

/// The flags of the device pass in `env` for `opts`, without the input, the main file's
/// directory, the forced includes and the dump options: what a precompiled prelude must be
/// built with.
fn base_flags(env: &Environment, opts: &ClangOptions) -> Result<Vec<String>, ClangError> {
    let mut f: Vec<String> = ["-x", "cuda", "--cuda-device-only", "-nocudalib"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    f.push(format!("--cuda-gpu-arch={}", env.arch));
    f.push(format!("-std={}", opts.std.as_deref().unwrap_or("c++17")));
    f.push("-D__AUTOSYNC__=1".into());
    match &env.toolkit {
        Some(tk) => {
            f.push(format!("--cuda-path={}", tk.root.display()));
            if let Some(v) = &env.sdk_version {
                f.extend(["-Xclang".into(), format!("-target-sdk-version={v}")]);
            }
            f.push("-Wno-unknown-cuda-version".into());
            for (n, v) in tk.nvcc_macros(&env.arch) {
                f.push(format!("-D{n}={v}"));
            }
        }
        None => {
            let shim = shim::dir().map_err(|m| ClangError {
                message: m,
                help: "set XDG_CACHE_HOME or TMPDIR to a writable directory".into(),
            })?;
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

/// The command line for reading `dir/<stdin>` in `env` (the main file's directory anchors
/// its quoted includes); `pch` is the precompiled prelude, when there is one.
pub fn command(
    env: &Environment,
    main_dir: &Path,
    opts: &ClangOptions,
    pch: Option<&Path>,
) -> Result<Command, ClangError> {
    let mut c = Command::new(&env.clang);
    c.args(base_flags(env, opts)?)
        .args([
            "-fsyntax-only",
            "-ferror-limit=0",
            "-fno-color-diagnostics",
            "-Wno-undefined-internal",
        ])
        .args(["-fno-caret-diagnostics", "-fno-diagnostics-fixit-info"])
        .args(["-Xclang", "-ast-dump=json"]);
    if let Some(p) = pch {
        c.args(["-Xclang", "-include-pch", "-Xclang"]).arg(p);
    }
    if let Ok(shim) = shim::dir() {
        let prelude = if env.toolkit.is_none() {
            shim::MAIN
        } else {
            shim::ANNOTATIONS_HEADER
        };
        c.arg("-include").arg(shim.join(prelude));
    }
    // Quoted includes of the main file resolve next to it (it is read from stdin).
    c.arg("-iquote").arg(if main_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        main_dir
    });
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
}

impl SystemDirs {
    /// The system directories for a run in `env` with `opts`.
    pub fn new(env: &Environment, opts: &ClangOptions) -> SystemDirs {
        let mut prefixes: Vec<PathBuf> = ["/usr/include", "/usr/local/include", "/usr/lib", "/usr/local/cuda"]
            .iter()
            .map(PathBuf::from)
            .collect();
        if let Ok(d) = shim::dir() {
            prefixes.push(d.to_path_buf());
        }
        prefixes.extend(select::resource_dir(&env.clang));
        if let Some(tk) = &env.toolkit {
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
/// With a toolkit, the CUDA prelude comes precompiled. With the shim, only the declaration
/// families the file's identifiers mention are declared; when Clang then misses a
/// declaration, the file is read again with all of them.
pub fn parse(text: &str, main_dir: &Path, opts: &ClangOptions) -> Result<Parsed, ClangError> {
    let env = select::environment(opts)?;
    let system = SystemDirs::new(&env, opts);
    if env.toolkit.is_some() {
        let flags = base_flags(&env, opts)?;
        let pch = if opts.plain_prelude {
            None
        } else {
            pch::prelude(&env.clang, &flags)
        };
        let first = run(&env, text, main_dir, opts, &system, None, pch.as_deref())?;
        if !refused_prelude(pch.as_deref(), &first) {
            return Ok(first);
        }
        // A precompiled prelude Clang refuses (a stale or foreign file): build it again once,
        // else read without it (the lowering reads both alike, only slower).
        let fresh = pch::rebuild(&env.clang, &flags);
        let again = run(&env, text, main_dir, opts, &system, None, fresh.as_deref())?;
        if !refused_prelude(fresh.as_deref(), &again) {
            return Ok(again);
        }
        return run(&env, text, main_dir, opts, &system, None, None);
    }
    let mut dirs: Vec<&Path> = vec![main_dir];
    dirs.extend(opts.include_dirs.iter().map(PathBuf::as_path));
    let includes = shim::user_includes(text, &dirs, &|p| system.is_system(&p.to_string_lossy()));
    let families = shim::families(std::iter::once(text).chain(includes.iter().map(String::as_str)));
    let lean = run(&env, text, main_dir, opts, &system, Some(&families), None)?;
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
        return run(&env, text, main_dir, opts, &system, None, None);
    }
    Ok(lean)
}

/// Whether Clang refused the precompiled prelude it was given.
fn refused_prelude(pch: Option<&Path>, parsed: &Parsed) -> bool {
    let Some(pch) = pch else {
        return false;
    };
    let path = pch.to_string_lossy();
    parsed.errors.iter().any(|e| {
        // "input is not a PCH file", "... has been modified since the precompiled header was
        // built", "PCH file built from a different branch", or any error naming the file.
        ["precompiled header", "PCH file", "AST file"]
            .iter()
            .any(|m| e.message.contains(m))
            || e.message.contains(path.as_ref())
    })
}

fn run(
    env: &Environment,
    text: &str,
    main_dir: &Path,
    opts: &ClangOptions,
    system: &SystemDirs,
    families: Option<&[&str]>,
    pch: Option<&Path>,
) -> Result<Parsed, ClangError> {
    let mut cmd = command(env, main_dir, opts, pch)?;
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
            message: format!("cannot run `{}`: {e}", env.clang.display()),
            help: "check that Clang is installed and executable (--clang PATH)".into(),
        })?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let stdout = child.stdout.take().expect("piped stdout");
    widen_pipe(&stdout);
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
    let classify = |n: &str| system.is_system(n);
    let ast = ast::read::read(stdout, &classify);
    let _ = writer.join();
    let err_text = err_reader.join().unwrap_or_default();
    let status = child.wait().map_err(|e| ClangError {
        message: format!("Clang did not finish: {e}"),
        help: String::new(),
    })?;
    let errors = parse_diagnostics(&err_text);
    let env = env.clone();
    match ast {
        Ok(ast) => Ok(Parsed { ast, errors, env }),
        // A fatal error (a missing include) stops Clang before it dumps anything.
        Err(_) if !errors.is_empty() => Ok(Parsed {
            ast: Ast::default(),
            errors,
            env,
        }),
        Err(e) => Err(ClangError {
            message: format!("{e} (Clang exited with {status})"),
            help: first_lines(&err_text, 5),
        }),
    }
}

/// Asks for a 1 MiB pipe (Linux allows it to any process): the dump is hundreds of MB, and
/// with the default 64 KiB each block costs Clang and the reader a wake-up.
#[cfg(target_os = "linux")]
fn widen_pipe(pipe: &std::process::ChildStdout) {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on a descriptor this process owns; a refusal only leaves the default size.
    unsafe {
        libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20);
    }
}

#[cfg(not(target_os = "linux"))]
fn widen_pipe(_: &std::process::ChildStdout) {}

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
