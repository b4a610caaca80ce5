//! Read-only facts about the original text that emission needs: line endings, indentation,
//! line boundaries, and what follows a position on its line.

/// How lines end and how one indentation level is written in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Style {
    /// `"\r\n"` or `"\n"`.
    pub eol: &'static str,
    /// One indentation level (`"\t"` or N spaces).
    pub unit: String,
}

impl Style {
    /// Detects the style of `src` (majority line ending; tabs vs the most common space step).
    pub fn detect(src: &str) -> Style {
        Style {
            eol: detect_eol(src),
            unit: detect_indent_unit(src),
        }
    }
}

fn detect_eol(src: &str) -> &'static str {
    let newlines = src.bytes().filter(|&b| b == b'\n').count();
    let crlf = src.matches("\r\n").count();
    if newlines > 0 && crlf * 2 > newlines {
        "\r\n"
    } else {
        "\n"
    }
}

fn detect_indent_unit(src: &str) -> String {
    let (mut tab_lines, mut space_lines) = (0usize, 0usize);
    // How often the indentation grew by N spaces from one code line to the next.
    let mut steps = [0usize; 9];
    let mut prev: Option<usize> = None;
    for line in src.lines() {
        let rest = line.trim_start_matches([' ', '\t']);
        let lead = &line[..line.len() - rest.len()];
        let rest = rest.trim_end();
        // Block-comment continuations (` * text`) and preprocessor lines do not follow the
        // code's indentation.
        if rest.is_empty() || rest.starts_with('*') || rest.starts_with('#') {
            continue;
        }
        if lead.starts_with('\t') {
            tab_lines += 1;
            prev = None;
            continue;
        }
        if !lead.is_empty() {
            space_lines += 1;
        }
        if lead.bytes().all(|b| b == b' ') {
            let w = lead.len();
            if let Some(p) = prev {
                if w > p && w - p < steps.len() {
                    steps[w - p] += 1;
                }
            }
            prev = Some(w);
        }
    }
    if tab_lines > space_lines {
        return "\t".to_string();
    }
    // The most frequent step wins; ties go to the smaller step.
    let best = (1..steps.len())
        .filter(|&n| steps[n] > 0)
        .max_by(|&a, &b| steps[a].cmp(&steps[b]).then(b.cmp(&a)));
    " ".repeat(best.unwrap_or(4))
}

/// Offset of the first byte of the line containing `at`.
pub fn line_start(src: &str, at: usize) -> usize {
    src[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The leading spaces and tabs of the line containing `at`.
pub fn indent_of(src: &str, at: usize) -> &str {
    let start = line_start(src, at);
    let rest = src[start..].trim_start_matches([' ', '\t']);
    &src[start..src.len() - rest.len()]
}

/// Whether only spaces and tabs precede `at` on its line.
pub fn starts_line(src: &str, at: usize) -> bool {
    src[line_start(src, at)..at].bytes().all(|b| b == b' ' || b == b'\t')
}

/// Whether `a` and `b` are on the same line.
pub fn same_line(src: &str, a: usize, b: usize) -> bool {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    !src[lo..hi].contains('\n')
}

/// What follows a position on its line, once spaces, tabs and one-line comments are skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rest {
    /// Nothing but whitespace and comments: `at` is the line terminator (or the end of file).
    LineEnd {
        /// Offset of `\n`, of the `\r` of `\r\n`, or the text length.
        at: usize,
    },
    /// Code (or a comment spanning several lines) starts at `code` on the same line; the bytes
    /// `trim_from..code` are spaces and tabs.
    Code {
        /// End of the last statement or comment before the code.
        trim_from: usize,
        /// First byte of the code.
        code: usize,
    },
}

/// Looks at what follows `from` on its line.
pub fn rest_of_line(src: &str, from: usize) -> Rest {
    let b = src.as_bytes();
    let mut i = from;
    let mut last = from;
    loop {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        if i >= b.len() {
            return Rest::LineEnd { at: b.len() };
        }
        if b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) == Some(&b'\n')) {
            return Rest::LineEnd { at: i };
        }
        if src[i..].starts_with("//") {
            return Rest::LineEnd {
                at: line_comment_end(src, i),
            };
        }
        if src[i..].starts_with("/*") {
            match src[i + 2..].find("*/") {
                Some(len) if !src[i..i + 2 + len].contains('\n') => {
                    i += len + 4;
                    last = i;
                    continue;
                }
                // A comment running onto later lines: break the line before it.
                _ => {
                    return Rest::Code {
                        trim_from: last,
                        code: i,
                    }
                }
            }
        }
        return Rest::Code {
            trim_from: last,
            code: i,
        };
    }
}

/// The terminator offset of a `//` comment starting at `at` (a trailing `\` continues it).
fn line_comment_end(src: &str, at: usize) -> usize {
    let mut i = at;
    loop {
        let nl = src[i..].find('\n').map_or(src.len(), |n| i + n);
        let content_end = if nl > i && src.as_bytes()[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        if nl < src.len() && content_end > i && src.as_bytes()[content_end - 1] == b'\\' {
            i = nl + 1;
            continue;
        }
        return content_end;
    }
}

/// The first byte after `from` that is neither whitespace nor inside a comment (or the length).
pub fn next_code(src: &str, from: usize) -> usize {
    let b = src.as_bytes();
    let mut i = from;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("//") {
            i = line_comment_end(src, i);
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |n| i + n + 4);
        } else {
            break;
        }
    }
    i
}

/// Start of the whitespace run that ends at `at` (spaces, tabs and line breaks).
pub fn ws_before(src: &str, at: usize) -> usize {
    let trimmed = src[..at].trim_end_matches([' ', '\t', '\r', '\n']);
    trimmed.len()
}

/// Whether `src[at..]` starts with the keyword `kw` (not a longer identifier).
pub fn starts_with_keyword(src: &str, at: usize, kw: &str) -> bool {
    let rest = &src[at..];
    rest.starts_with(kw)
        && !rest[kw.len()..]
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_crlf_and_lf() {
        assert_eq!(detect_eol("a\r\nb\r\n"), "\r\n");
        assert_eq!(detect_eol("a\nb\n"), "\n");
        assert_eq!(detect_eol("no newline"), "\n");
    }

    #[test]
    fn detects_indent_unit() {
        assert_eq!(detect_indent_unit("f()\n{\n\tx;\n\tif (c) {\n\t\ty;\n\t}\n}\n"), "\t");
        assert_eq!(detect_indent_unit("f()\n{\n  x;\n  if (c) {\n    y;\n  }\n}\n"), "  ");
        assert_eq!(
            detect_indent_unit("f()\n{\n    x;\n    /*\n     * c\n     */\n}\n"),
            "    "
        );
        assert_eq!(detect_indent_unit("f() { x; }"), "    ");
    }

    #[test]
    fn rest_of_line_kinds() {
        let s = "a = 1;   // note\nb = 2; /* c */ d = 3;\ne = 4; /* multi\n */\n";
        assert_eq!(rest_of_line(s, 6), Rest::LineEnd { at: 16 });
        let after_b = s.find("b = 2;").unwrap() + 6;
        let d = s.find("d = 3").unwrap();
        assert_eq!(
            rest_of_line(s, after_b),
            Rest::Code {
                trim_from: d - 1,
                code: d
            }
        );
        let after_e = s.find("e = 4;").unwrap() + 6;
        assert_eq!(
            rest_of_line(s, after_e),
            Rest::Code {
                trim_from: after_e,
                code: after_e + 1
            }
        );
        assert_eq!(rest_of_line("x;\r\n", 2), Rest::LineEnd { at: 2 });
        assert_eq!(rest_of_line("x;  ", 2), Rest::LineEnd { at: 4 });
    }

    #[test]
    fn line_helpers() {
        let s = "  ab\n\tcd";
        assert_eq!(indent_of(s, 3), "  ");
        assert_eq!(indent_of(s, 7), "\t");
        assert!(starts_line(s, 2));
        assert!(!starts_line(s, 3));
        assert_eq!(ws_before(s, 6), 4);
        assert_eq!(next_code("  // x\n /* y */ z", 0), 16);
        assert!(starts_with_keyword("else x", 0, "else"));
        assert!(!starts_with_keyword("elsewhere", 0, "else"));
    }
}
