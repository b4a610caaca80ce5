//! `compile_commands.json`: the include directories, macros, language standard and GPU
//! architecture a build uses for a file, from the database the user names (`-p DIR`, as
//! clang-tidy takes it) or else the nearest one above the file (or in a `build/` directory next
//! to one of its ancestors, as clangd looks). Entries may be clang, gcc or nvcc command lines:
//! nvcc's spellings (`-gencode arch=…,code=sm_90a`, `--generate-code=…`, `-arch=sm_90a`,
//! `--options-file`) are translated to what Clang's device pass needs, and host-compiler
//! pass-through flags (`-Xcompiler …`) are left to the host compiler.

use super::ClangOptions;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Entry {
    directory: PathBuf,
    file: PathBuf,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    arguments: Option<Vec<String>>,
}

/// The nearest `compile_commands.json` above `file`.
pub fn find(file: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(file).ok()?;
    let mut dir = abs.parent();
    while let Some(d) = dir {
        for cand in [
            d.join("compile_commands.json"),
            d.join("build").join("compile_commands.json"),
        ] {
            if cand.is_file() {
                return Some(cand);
            }
        }
        dir = d.parent();
    }
    None
}

/// The database `-p` names: a `compile_commands.json` file, or a directory holding one.
pub fn named(p: &Path) -> PathBuf {
    if p.is_dir() {
        p.join("compile_commands.json")
    } else {
        p.to_path_buf()
    }
}

/// Which database entry gave a file its flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Used {
    /// The database.
    pub db: PathBuf,
    /// The entry's command line, as the database has it (arguments joined by spaces).
    pub command: String,
}

/// The flags the database gives for `file`, added to `opts` (CLI and config settings come
/// first and win): the database `explicit` names, else the nearest one above the file.
/// Returns the entry used (None when there is no database, or no entry for the file in it),
/// or an error message for a database that cannot be read.
pub fn apply(file: &Path, explicit: Option<&Path>, opts: &mut ClangOptions) -> Result<Option<Used>, String> {
    let db = match explicit {
        Some(p) => named(p),
        None => match find(file) {
            Some(db) => db,
            None => return Ok(None),
        },
    };
    let text = std::fs::read_to_string(&db).map_err(|e| format!("{}: cannot read: {e}", db.display()))?;
    let entries: Vec<Entry> =
        serde_json::from_str(&text).map_err(|e| format!("{}: not a compilation database: {e}", db.display()))?;
    let want = canonical(file);
    let Some(entry) = entries.iter().find(|e| canonical(&e.directory.join(&e.file)) == want) else {
        return Ok(None);
    };
    let args = match (&entry.arguments, &entry.command) {
        (Some(a), _) => a.clone(),
        (None, Some(c)) => split_command(c),
        (None, None) => vec![],
    };
    let args = expand_options_files(args, &entry.directory);
    absorb(&args, &entry.directory, opts);
    Ok(Some(Used {
        db,
        command: args.join(" "),
    }))
}

/// nvcc's `--options-file F` / `-optf F` replaced by the flags the file holds.
fn expand_options_files(args: Vec<String>, dir: &Path) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let file = match a.as_str() {
            "--options-file" | "-optf" => it.next(),
            _ => a.strip_prefix("--options-file=").map(str::to_string),
        };
        match file {
            Some(f) => {
                let p = dir.join(&f);
                match std::fs::read_to_string(&p) {
                    // The first word of a command line is the compiler: keep the file's flags.
                    Ok(text) => out.extend(split_command(&text)),
                    Err(_) => out.push(format!("--options-file={f}")),
                }
            }
            None => out.push(a),
        }
    }
    out
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Takes the flags that matter for reading the file from a compiler command line (clang, gcc
/// or nvcc spelling).
pub fn absorb(args: &[String], dir: &Path, opts: &mut ClangOptions) {
    let path = |s: &str| -> PathBuf {
        let p = PathBuf::from(s);
        if p.is_absolute() {
            p
        } else {
            dir.join(p)
        }
    };
    let mut archs: Vec<String> = Vec::new();
    let mut it = args.iter().skip(1).peekable();
    while let Some(a) = it.next() {
        // Host-compiler pass-through (`-Xcompiler -fPIC,-Wall`): not the device pass's flags.
        if [
            "-Xcompiler",
            "--compiler-options",
            "-Xlinker",
            "--linker-options",
            "-Xptxas",
            "-Xcudafe",
        ]
        .contains(&a.as_str())
        {
            it.next();
            continue;
        }
        if let Some(spec) = a
            .strip_prefix("--generate-code=")
            .or_else(|| a.strip_prefix("-gencode="))
            .map(str::to_string)
            .or_else(|| {
                (a == "-gencode" || a == "--generate-code")
                    .then(|| it.next().cloned())
                    .flatten()
            })
        {
            archs.extend(gencode_archs(&spec));
            continue;
        }
        let mut value = |flag: &str| -> Option<String> {
            if a == flag {
                it.next().cloned()
            } else {
                a.strip_prefix(flag).map(|v| v.trim_start_matches('=').to_string())
            }
        };
        if let Some(v) = value("-isystem") {
            opts.system_dirs.push(path(&v));
        } else if let Some(v) = value("-I").or_else(|| value("--include-path")) {
            opts.include_dirs.push(path(&v));
        } else if let Some(v) = value("-D").or_else(|| value("--define-macro")) {
            let (n, v) = match v.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (v, None),
            };
            if !opts.defines.iter().any(|(m, _)| *m == n) {
                opts.defines.push((n, v));
            }
        } else if let Some(v) = value("-U") {
            opts.undefines.push(v);
        } else if let Some(v) = a.strip_prefix("-std=").or_else(|| a.strip_prefix("--std=")) {
            opts.std.get_or_insert_with(|| v.to_string());
        } else if let Some(v) = value("-include") {
            opts.pre_includes.push(path(&v));
        } else if let Some(v) = a.strip_prefix("--cuda-path=") {
            opts.cuda_path.get_or_insert_with(|| path(v));
        } else if let Some(v) = a
            .strip_prefix("--cuda-gpu-arch=")
            .or_else(|| a.strip_prefix("--offload-arch="))
            .map(str::to_string)
            .or_else(|| value("-arch"))
            .or_else(|| value("--gpu-architecture"))
            .or_else(|| value("--gpu-code"))
            .or_else(|| value("-code"))
        {
            archs.extend(v.split(',').filter(|a| a.starts_with("sm_")).map(str::to_string));
        }
    }
    // Several targets: read the newest, whose code paths (`__CUDA_ARCH__`) are the most capable.
    if let Some(newest) = archs.into_iter().max_by_key(|a| arch_number(a)) {
        opts.arch.get_or_insert(newest);
    }
}

/// The real architectures of an nvcc `-gencode` spec: `arch=compute_90a,code=sm_90a`,
/// `arch=compute_80,code=[compute_80,sm_80]`.
fn gencode_archs(spec: &str) -> Vec<String> {
    let code = spec.split_once("code=").map_or("", |(_, c)| c);
    code.trim_matches(['[', ']', '"', '\''])
        .split(',')
        .map(|c| c.trim_matches(['[', ']']))
        .filter(|c| c.starts_with("sm_"))
        .map(str::to_string)
        .collect()
}

/// `sm_90a` → (90, 1): the number, and the architecture-specific suffix after it.
fn arch_number(a: &str) -> (u32, bool) {
    let digits: String = a
        .trim_start_matches("sm_")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (digits.parse().unwrap_or(0), a.ends_with('a'))
}

/// Splits a shell command line (quotes and backslashes, no expansions).
fn split_command(c: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = c.chars();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (Some(q), c2) if c2 == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c2) => cur.push(c2),
            (None, '"' | '\'') => {
                quote = Some(ch);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                    in_word = true;
                }
            }
            (None, c2) if c2.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c2) => {
                cur.push(c2);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absorbs_clang_and_nvcc_flags() {
        let mut o = ClangOptions::default();
        let args =
            split_command("nvcc -Iinc -I /abs/x -DTILE=32 -D FAST -isystem sys -std=c++14 -arch=sm_70 -c k.cu -o k.o");
        absorb(&args, Path::new("/proj"), &mut o);
        assert_eq!(
            o.include_dirs,
            vec![PathBuf::from("/proj/inc"), PathBuf::from("/abs/x")]
        );
        assert_eq!(o.system_dirs, vec![PathBuf::from("/proj/sys")]);
        assert_eq!(
            o.defines,
            vec![("TILE".into(), Some("32".into())), ("FAST".into(), None)]
        );
        assert_eq!(o.std.as_deref(), Some("c++14"));
        assert_eq!(o.arch.as_deref(), Some("sm_70"));
    }

    #[test]
    fn nvcc_gencode_and_host_flags() {
        let mut o = ClangOptions::default();
        let args = split_command(
            "/usr/local/cuda/bin/nvcc -DGGML_CUDA_F16 -Xcompiler -DHOST_ONLY --expt-relaxed-constexpr \
             -gencode arch=compute_80,code=[compute_80,sm_80] --generate-code=arch=compute_90a,code=sm_90a -c k.cu",
        );
        absorb(&args, Path::new("/proj"), &mut o);
        assert_eq!(o.defines, vec![("GGML_CUDA_F16".into(), None)]);
        assert_eq!(o.arch.as_deref(), Some("sm_90a"));
        let mut o = ClangOptions::default();
        absorb(&split_command("nvcc -arch=sm_70 -c k.cu"), Path::new("/p"), &mut o);
        assert_eq!(o.arch.as_deref(), Some("sm_70"));
    }

    #[test]
    fn splits_quotes() {
        assert_eq!(
            split_command(r#"cc -D'A=1 2' "-DB=\"x\"" c\ d"#),
            vec!["cc", "-DA=1 2", "-DB=\"x\"", "c d"]
        );
    }
}
