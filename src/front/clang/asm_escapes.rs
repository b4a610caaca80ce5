//! nvcc's inline-asm dialect in headers: nvcc passes a `%` that starts no operand through to
//! the PTX (`"mov.u32 %0, %clusterid.x;"`), where Clang stops with "invalid % escape in inline
//! assembly string". Such a header is read through a copy that says `%%` at exactly the
//! places Clang named — the same PTX — which a virtual file system overlay puts in the place
//! of the original; the AST then names the original file and reads its text from the copy,
//! whose offsets Clang's locations are in.

use super::diagnostics::{Diagnostic, STDIN_NAME};
use super::shim::{cache_base, fnv};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Clang's message for a `%` that starts no operand.
const MESSAGE: &str = "invalid % escape in inline assembly string";

/// Headers read through rewritten copies: original (absolute) path → the copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// The copies, by the file they stand for.
    pub copies: BTreeMap<PathBuf, PathBuf>,
}

impl Overlay {
    /// The copy standing for the file Clang names `name`, if any.
    pub fn copy_of(&self, name: &str) -> Option<&Path> {
        let abs = std::path::absolute(name).ok()?;
        self.copies.get(&abs).map(PathBuf::as_path)
    }

    /// The overlay with the escapes of `errors` that lie in headers doubled (in the copy when
    /// the header has one already); `None` when there are none it can double.
    pub fn extended(&self, errors: &[Diagnostic]) -> Option<Overlay> {
        let mut by_file: BTreeMap<PathBuf, Vec<(u32, u32)>> = BTreeMap::new();
        for e in errors.iter().filter(|e| e.message == MESSAGE && e.file != STDIN_NAME) {
            if let Ok(abs) = std::path::absolute(&e.file) {
                by_file.entry(abs).or_default().push((e.line, e.col));
            }
        }
        let mut next = self.clone();
        let mut changed = false;
        for (file, places) in by_file {
            let current = self.copies.get(&file).cloned().unwrap_or_else(|| file.clone());
            let Ok(text) = std::fs::read_to_string(&current) else {
                continue;
            };
            let Some(fixed) = doubled(&text, &places) else { continue };
            let Some(copy) = write_copy(&file, &fixed) else {
                continue;
            };
            next.copies.insert(file, copy);
            changed = true;
        }
        changed.then_some(next)
    }

    /// The overlay file Clang reads (`-ivfsoverlay`), written beside the copies.
    pub fn yaml_file(&self) -> Option<PathBuf> {
        let roots: Vec<String> = self
            .copies
            .iter()
            .map(|(file, copy)| {
                format!(
                    "{{'type': 'file', 'name': {}, 'external-contents': {}}}",
                    quoted(file),
                    quoted(copy)
                )
            })
            .collect();
        let text = format!(
            "{{'version': 0, 'use-external-names': false, 'roots': [{}]}}\n",
            roots.join(", ")
        );
        write_in_cache("overlay.yaml", &text)
    }
}

/// `text` with a second `%` before the `%` Clang means at each 1-based (line, byte column):
/// Clang points past a modifier letter (`%c` of `%clusterid`), so the `%` is the nearest one
/// at most two bytes before; `None` when there is none (a location inside a macro's
/// expansion, say).
fn doubled(text: &str, places: &[(u32, u32)]) -> Option<String> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut at: Vec<usize> = places
        .iter()
        .map(|&(l, c)| {
            let s = *starts.get(l.checked_sub(1)? as usize)?;
            let i = s + c.checked_sub(1)? as usize;
            (i.saturating_sub(2).max(s)..=i)
                .rev()
                .find(|&j| text.as_bytes().get(j) == Some(&b'%'))
        })
        .collect::<Option<_>>()?;
    at.sort_unstable();
    at.dedup();
    let mut out = String::with_capacity(text.len() + at.len());
    let mut last = 0;
    for i in at {
        out.push_str(&text[last..i]);
        out.push('%');
        last = i;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// Writes the copy of `file` with `text` into the cache (named by the file and the text, so
/// that runs share it and a changed header gets a new one).
fn write_copy(file: &Path, text: &str) -> Option<PathBuf> {
    let name = file.file_name()?.to_string_lossy().to_string();
    write_in_cache(&name, text)
}

/// Writes `text` to `<cache>/autosync-asm-escapes/<hash>/<name>` unless it is there already.
fn write_in_cache(name: &str, text: &str) -> Option<PathBuf> {
    let key = fnv(format!("{name}\0{text}").as_bytes());
    let dir = cache_base().join("autosync-asm-escapes").join(format!("{key:016x}"));
    let path = dir.join(name);
    if std::fs::read_to_string(&path).is_ok_and(|t| t == text) {
        return Some(path);
    }
    std::fs::create_dir_all(&dir).ok()?;
    // Written whole under a temporary name, then renamed: a concurrent run never reads half.
    let tmp = dir.join(format!("{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).ok()?;
    std::fs::rename(&tmp, &path).ok()?;
    Some(path)
}

/// A YAML single-quoted string.
fn quoted(p: &Path) -> String {
    format!("'{}'", p.to_string_lossy().replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_the_named_escapes_only() {
        let t = "a\n  asm(\"mov.u32 %0, %clusterid.x;\");\n";
        assert_eq!(
            doubled(t, &[(2, 22)]).as_deref(),
            Some("a\n  asm(\"mov.u32 %0, %%clusterid.x;\");\n")
        );
        assert_eq!(doubled(t, &[(2, 20)]), doubled(t, &[(2, 22)]));
        assert_eq!(doubled(t, &[(2, 3)]), None);
        assert_eq!(doubled(t, &[(9, 1)]), None);
    }

    #[test]
    fn the_overlay_names_the_original_and_the_copy() {
        let mut o = Overlay::default();
        o.copies.insert("/src/it's.cuh".into(), "/cache/x/it's.cuh".into());
        let y = std::fs::read_to_string(o.yaml_file().unwrap()).unwrap();
        assert!(y.contains("'name': '/src/it''s.cuh'"), "{y}");
        assert!(y.contains("'use-external-names': false"), "{y}");
    }
}
