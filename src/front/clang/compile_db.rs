//! `compile_commands.json`: the include directories, macros, language standard and GPU
//! architecture a build uses for a file, found in the nearest database above the file (or in
//! a `build/` directory next to one of its ancestors, as clangd looks).

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

/// The flags the database gives for `file`, added to `opts` (CLI and config settings come
/// first and win). Returns the database used, or an error message for a database that cannot
/// be read.
pub fn apply(file: &Path, opts: &mut ClangOptions) -> Result<Option<PathBuf>, String> {
    let Some(db) = find(file) else { return Ok(None) };
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
    absorb(&args, &entry.directory, opts);
    Ok(Some(db))
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
    let mut it = args.iter().skip(1).peekable();
    while let Some(a) = it.next() {
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
            .or_else(|| a.strip_prefix("-arch="))
            .or_else(|| a.strip_prefix("--gpu-architecture="))
        {
            if v.starts_with("sm_") {
                opts.arch.get_or_insert_with(|| v.to_string());
            }
        }
    }
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
    fn splits_quotes() {
        assert_eq!(
            split_command(r#"cc -D'A=1 2' "-DB=\"x\"" c\ d"#),
            vec!["cc", "-DA=1 2", "-DB=\"x\"", "c d"]
        );
    }
}
