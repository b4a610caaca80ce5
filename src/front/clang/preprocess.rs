//! The translation unit as Clang's preprocessor writes it (`-E`), for the one thing the JSON
//! dump leaves out: the text of an asm statement that a macro builds (cuda_fp16's
//! `"{" __CUDA_FP16_STRINGIFY(name) ".f16x2 %0,%1,%2;\n}"`). Run only when such a statement is
//! reached; Clang's own preprocessor does the expansion, so nothing is re-implemented here.

use super::{command_for, Environment, Pass};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

/// Preprocessed text indexed by the original (file, line) each output line stands for.
#[derive(Debug, Default)]
pub struct Preprocessed {
    text: String,
    /// (file name as Clang names it, 1-based line) → byte offset of that output line. Only the
    /// first occurrence is kept; `ambiguous` holds the lines that occur again with other text.
    lines: HashMap<(String, u32), usize>,
    ambiguous: std::collections::HashSet<(String, u32)>,
}

impl Preprocessed {
    /// Indexes `-E` output by its line markers (`# 12 "file.h" 1 3`).
    pub fn index(text: String) -> Preprocessed {
        let mut lines = HashMap::new();
        let mut ambiguous = std::collections::HashSet::new();
        let (mut file, mut line) = (String::new(), 1u32);
        let mut at = 0usize;
        for raw in text.split_inclusive('\n') {
            let start = at;
            at += raw.len();
            if let Some((n, f)) = marker(raw) {
                (file, line) = (f, n);
                continue;
            }
            let key = (file.clone(), line);
            match lines.get(&key) {
                None => {
                    lines.insert(key, start);
                }
                Some(&first) if line_at(&text, first) != raw.trim_end_matches('\n') => {
                    ambiguous.insert(key);
                }
                Some(_) => {}
            }
            line += 1;
        }
        Preprocessed { text, lines, ambiguous }
    }

    /// The output from the line that stands for `line` of `file` to the next line marker:
    /// a statement expanded from a macro used there starts on that line.
    pub fn from_line(&self, file: &str, line: u32) -> Option<&str> {
        let key = (file.to_string(), line);
        if self.ambiguous.contains(&key) {
            return None;
        }
        let start = *self.lines.get(&key)?;
        let rest = &self.text[start..];
        let end = rest.find("\n#").map_or(rest.len(), |e| e + 1);
        Some(&rest[..end])
    }
}

/// A line marker's line number and file name.
fn marker(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix("# ")?;
    let (n, rest) = rest.split_once(' ')?;
    let n: u32 = n.parse().ok()?;
    let rest = rest.strip_prefix('"')?;
    let end = rest.rfind('"')?;
    Some((n, unescape(&rest[..end])))
}

/// Clang escapes `\` and `"` in the marker's file name.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn line_at(text: &str, start: usize) -> &str {
    let rest = &text[start..];
    &rest[..rest.find('\n').unwrap_or(rest.len())]
}

/// Runs Clang's preprocessor on `text` (the contents of a file in `main_dir`) with the flags
/// the dump was made with (the prelude read from its headers, not precompiled: `-E` cannot
/// print a precompiled header). None when Clang cannot be run or prints nothing.
pub fn preprocess(text: &str, main_dir: &Path, env: &Environment) -> Option<Preprocessed> {
    let mut child = command_for(env, main_dir, None, Pass::Preprocess)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = text.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    let text = String::from_utf8(out.stdout).ok()?;
    (!text.is_empty()).then(|| Preprocessed::index(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_lines_by_marker() {
        let out = "# 1 \"<stdin>\"\nint a;\n# 5 \"/x/h.hpp\" 1 3\n{ asm(\"{\" \"add\" \".f16x2\"); }\nint b;\n# 3 \"<stdin>\" 2\nint c;\n";
        let p = Preprocessed::index(out.to_string());
        assert_eq!(p.from_line("<stdin>", 1), Some("int a;\n"));
        assert_eq!(
            p.from_line("/x/h.hpp", 5),
            Some("{ asm(\"{\" \"add\" \".f16x2\"); }\nint b;\n")
        );
        assert_eq!(p.from_line("/x/h.hpp", 6), Some("int b;\n"));
        assert_eq!(p.from_line("<stdin>", 3), Some("int c;\n"));
        assert_eq!(p.from_line("<stdin>", 2), None);
    }

    #[test]
    fn a_line_expanded_twice_differently_is_ambiguous() {
        let out = "# 1 \"h.h\"\nasm(\"a\");\n# 1 \"h.h\"\nasm(\"b\");\n# 1 \"h.h\"\nasm(\"a\");\n";
        let p = Preprocessed::index(out.to_string());
        assert_eq!(p.from_line("h.h", 1), None);
        let same = "# 1 \"h.h\"\nasm(\"a\");\n# 1 \"h.h\"\nasm(\"a\");\n";
        assert_eq!(
            Preprocessed::index(same.to_string()).from_line("h.h", 1),
            Some("asm(\"a\");\n")
        );
    }
}
