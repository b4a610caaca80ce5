//! Running Clang in CUDA device mode: a straight line from the user's options to the dump.
//! [`Environment::resolve`] works out once which Clang, toolkit, architecture, flags and
//! prelude a file is read with (`select`, `toolkit`, `pch`, `shim`); [`parse`] runs Clang in
//! that environment, streams the JSON AST into [`crate::front::ast`] and reads Clang's
//! diagnostics (`diagnostics`).

mod asm_escapes;
mod cache;
pub mod compile_db;
mod depfile;
mod diagnostics;
mod env;
mod options;
mod pch;
pub mod prelude_types;
pub mod preprocess;
pub mod select;
pub mod shim;
pub mod toolkit;

pub use diagnostics::{parse_diagnostics, Diagnostic, STDIN_NAME};
pub use env::{Environment, Prelude, SystemDirs};
pub use options::{ClangError, ClangOptions, DEFAULT_ARCH, MIN_VERSION};
pub use select::Toolchain;

use super::ast::{self, Ast};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one Clang run produced (warnings are read only to explain errors).
#[derive(Debug)]
pub struct Parsed {
    /// The AST (empty when Clang stopped early).
    pub ast: Ast,
    /// Errors.
    pub errors: Vec<Diagnostic>,
    /// The files Clang read besides standard input (headers, the precompiled prelude), as its
    /// dependency output lists them; empty when it wrote none.
    pub deps: Vec<PathBuf>,
}

/// What a Clang run is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    /// The JSON AST (with the precompiled prelude when there is one).
    Dump,
    /// The preprocessed text (`-E`), the prelude read from its headers.
    Preprocess,
}

/// The command line for reading `dir/<stdin>` in `env` (the main file's directory anchors
/// its quoted includes); `families` are the shim's declaration families to declare (all of
/// them when None).
pub fn command(env: &Environment, main_dir: &Path, families: Option<&[&str]>) -> Command {
    command_for(env, main_dir, families, Pass::Dump)
}

/// [`command`] for `pass`.
pub(crate) fn command_for(env: &Environment, main_dir: &Path, families: Option<&[&str]>, pass: Pass) -> Command {
    let mut c = Command::new(&env.toolchain.clang);
    c.args(&env.flags);
    if pass == Pass::Preprocess {
        c.args(["-E", "-w"]);
    } else {
        c.args([
            "-fsyntax-only",
            "-ferror-limit=0",
            "-fno-color-diagnostics",
            "-Wno-undefined-internal",
        ])
        .args(["-fno-caret-diagnostics", "-fno-diagnostics-fixit-info"])
        .args(["-Xclang", "-ast-dump=json"]);
    }
    match &env.prelude {
        Prelude::Precompiled(p) if pass == Pass::Dump => {
            c.args(["-Xclang", "-include-pch", "-Xclang"]).arg(p);
        }
        Prelude::Precompiled(_) | Prelude::Headers | Prelude::Shim(_) => {}
    }
    if let Ok(shim) = shim::dir() {
        let prelude = match env.prelude {
            Prelude::Shim(_) => shim::MAIN,
            _ => shim::ANNOTATIONS_HEADER,
        };
        c.arg("-include").arg(shim.join(prelude));
        if !matches!(env.prelude, Prelude::Shim(_)) {
            c.arg("-include").arg(shim.join(shim::NVCC_HEADER));
        }
    }
    if let Some(o) = &env.vfs_overlay {
        c.arg("-ivfsoverlay").arg(o);
    }
    // Quoted includes of the main file resolve next to it (it is read from stdin).
    c.arg("-iquote").arg(if main_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        main_dir
    });
    for f in &env.pre_includes {
        c.arg("-include").arg(f);
    }
    if let Some(fams) = families {
        c.arg("-DAUTOSYNC_LEAN");
        for f in fams {
            c.arg(format!("-DAUTOSYNC_WANT_{f}"));
        }
    }
    c.arg("-");
    c
}

/// Runs Clang on `text` (the contents of a file in `main_dir`) in `env` and reads its AST and
/// errors. With a toolkit, the CUDA prelude comes precompiled; a precompiled header Clang
/// refuses is built again once, else the prelude is read from the headers. With the shim, only
/// the declaration families the file's identifiers mention are declared; when Clang then misses
/// a declaration, the file is read again with all of them.
pub fn parse(text: &str, main_dir: &Path, env: &Environment) -> Result<Parsed, ClangError> {
    let mut parsed = parse_once(text, main_dir, env)?;
    // Each round doubles the escapes Clang named (it names one per asm string).
    let mut overlay = asm_escapes::Overlay::default();
    for _ in 0..8 {
        let Some(next) = overlay.extended(&parsed.errors) else {
            break;
        };
        let Some(yaml) = next.yaml_file() else { break };
        overlay = next;
        parsed = parse_once(text, main_dir, &env.with_overlay(yaml))?;
    }
    for f in &mut parsed.ast.files {
        f.content = overlay.copy_of(&f.name).map(Path::to_path_buf);
    }
    Ok(parsed)
}

/// One read of the file in `env` (the prelude built again or read from headers when Clang
/// refuses the precompiled one).
fn parse_once(text: &str, main_dir: &Path, env: &Environment) -> Result<Parsed, ClangError> {
    match &env.prelude {
        Prelude::Shim(_) => parse_with_shim(text, main_dir, env),
        Prelude::Headers => run(env, text, main_dir, None),
        Prelude::Precompiled(pch) => {
            let first = run(env, text, main_dir, None)?;
            if !refused_prelude(pch, &first) {
                return Ok(with_prelude_types(first, env, pch));
            }
            prelude_types::forget(pch);
            let fresh = env.with_rebuilt_prelude();
            let again = run(&fresh, text, main_dir, None)?;
            match &fresh.prelude {
                Prelude::Precompiled(p) if refused_prelude(p, &again) => {
                    run(&env.with_header_prelude(), text, main_dir, None)
                }
                Prelude::Precompiled(p) => Ok(with_prelude_types(again, &fresh, p)),
                _ => Ok(again),
            }
        }
    }
}

/// A dump read with the precompiled prelude `pch`, given the type aliases the prelude declares.
fn with_prelude_types(mut parsed: Parsed, env: &Environment, pch: &Path) -> Parsed {
    parsed.ast.prelude_types = prelude_types::of(&env.toolchain.clang, &env.flags, pch);
    parsed
}

/// The shim's lean read (only the declaration families the file mentions), or the full one
/// when the lean read misses a declaration.
fn parse_with_shim(text: &str, main_dir: &Path, env: &Environment) -> Result<Parsed, ClangError> {
    let mut dirs: Vec<&Path> = vec![main_dir];
    dirs.extend(env.include_dirs.iter().map(|p| p.as_path()));
    let includes = shim::user_includes(text, &dirs, &|p| env.system.is_system(&p.to_string_lossy()));
    let families = shim::families(std::iter::once(text).chain(includes.iter().map(String::as_str)));
    let lean = run(env, text, main_dir, Some(&families))?;
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
        return run(env, text, main_dir, None);
    }
    Ok(lean)
}

/// Whether Clang refused the precompiled prelude it was given.
fn refused_prelude(pch: &Path, parsed: &Parsed) -> bool {
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

fn run(env: &Environment, text: &str, main_dir: &Path, families: Option<&[&str]>) -> Result<Parsed, ClangError> {
    // The files read, for the result cache: a dependency file beside the dump costs nothing.
    let deps_file = tempfile::NamedTempFile::new().ok();
    let mut cmd = command(env, main_dir, families);
    if let Some(d) = &deps_file {
        cmd.args(["-MD", "-MF"]).arg(d.path());
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ClangError {
            message: format!("cannot run `{}`: {e}", env.toolchain.clang.display()),
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
    let classify = |n: &str| env.system.is_system(n);
    let ast = ast::read::read(stdout, &classify);
    let _ = writer.join();
    let err_text = err_reader.join().unwrap_or_default();
    let status = child.wait().map_err(|e| ClangError {
        message: format!("Clang did not finish: {e}"),
        help: String::new(),
    })?;
    let errors = parse_diagnostics(&err_text);
    let deps = deps_file
        .and_then(|d| std::fs::read_to_string(d.path()).ok())
        .map(|t| depfile::parse(&t))
        .unwrap_or_default();
    match ast {
        Ok(ast) => Ok(Parsed { ast, errors, deps }),
        // A fatal error (a missing include) stops Clang before it dumps anything.
        Err(_) if !errors.is_empty() => Ok(Parsed {
            ast: Ast::default(),
            errors,
            deps,
        }),
        Err(e) => Err(ClangError {
            message: format!("{e} (Clang exited with {status})"),
            help: crash_help(&err_text, &status),
        }),
    }
}

/// What to do when Clang's dump could not be read: Clang's own first lines of output, or
/// when it died without a word (a signal), what most likely made it.
fn crash_help(err_text: &str, status: &std::process::ExitStatus) -> String {
    let said = first_lines(err_text, 5);
    if !said.trim().is_empty() || status.success() || status.code().is_some() {
        return said;
    }
    "Clang itself crashed on this file; an expression or nesting thousands of levels deep (a \
     generated `a + b + c + ...`) overflows its stack: split it into statements"
        .into()
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
