//! Paths as the outputs name them: relative to the working directory, the way git writes
//! them in a diff header (shared by diffs and SARIF artifact locations).

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
