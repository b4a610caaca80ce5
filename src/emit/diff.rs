//! Unified diffs of a fix, the form a reviewer reads (`autosync fix --diff`) and `git apply`
//! takes.

use crate::vocab::paths::diff_path;
use similar::TextDiff;
use std::path::Path;

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
