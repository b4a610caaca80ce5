//! Unified diffs of a fix, the form a reviewer reads (`autosync fix --diff`).

use similar::TextDiff;

/// A unified diff from `old` to `new` with `--- a/path` / `+++ b/path` headers and 3 lines of
/// context; empty when the texts are equal.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}
