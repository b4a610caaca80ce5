//! Unified diffs of a fix, the form a reviewer reads (`autosync fix --diff`) and `git apply`
//! takes.

use similar::TextDiff;
use std::path::{Component, Path};

/// The path a diff header names for `path`, as git writes it: relative to the working
/// directory, `/`-separated, without `./`; a path outside the working directory is given from
/// the root (`a/tmp/k.cu`), never with a doubled slash.
pub fn diff_path(path: &Path) -> String {
    let rel = std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            let abs = std::path::absolute(path).ok()?;
            let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
            let abs = abs
                .parent()
                .and_then(|d| std::fs::canonicalize(d).ok())
                .and_then(|d| Some(d.join(abs.file_name()?)))
                .unwrap_or(abs);
            abs.strip_prefix(&cwd).ok().map(Path::to_path_buf)
        })
        .unwrap_or_else(|| path.to_path_buf());
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    parts.join("/")
}

/// A unified diff from `old` to `new` with git-style `--- a/path` / `+++ b/path` headers
/// ([`diff_path`]) and 3 lines of context; empty when the texts are equal.
pub fn unified_diff(path: &Path, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let p = diff_path(path);
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{p}"), &format!("b/{p}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_paths_are_relative_and_slash_free_at_the_front() {
        assert_eq!(diff_path(Path::new("./k/./a.cu")), "k/a.cu");
        let here = std::env::current_dir().unwrap().join("k/a.cu");
        assert_eq!(diff_path(&here), "k/a.cu");
        assert_eq!(
            diff_path(Path::new("/nonexistent-dir/x/k.cu")),
            "nonexistent-dir/x/k.cu"
        );
    }
}
