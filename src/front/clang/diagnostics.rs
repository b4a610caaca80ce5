//! Clang's diagnostics as it prints them (`file:line:col: error: message`), read back with the
//! `In file included from` context that locates an error in a header at the main file's
//! include line.

/// The name Clang gives the main file (it is read from standard input).
pub const STDIN_NAME: &str = "<stdin>";

/// A diagnostic Clang printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file as Clang named it (`<stdin>` for the main file).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (bytes).
    pub col: u32,
    /// `error` or `fatal error`.
    pub severity: String,
    /// The message.
    pub message: String,
    /// Where the main file includes the header the diagnostic is in (`In file included from`).
    pub included_from: Option<(u32, u32)>,
}

/// Reads `file:line:col: error: message` lines, with the `In file included from` context that
/// precedes each.
pub fn parse_diagnostics(text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut included_from: Option<(u32, u32)> = None;
    // A warning just before an error at the same place often says what is wrong (an
    // unterminated string is a warning, then "expected expression").
    let mut last_warning: Option<(String, u32, u32, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("In file included from ") {
            // The first context line names the outermost includer: the main file.
            if let Some((file, l)) = split_file_line(rest.trim_end_matches(':')) {
                if file == STDIN_NAME && included_from.is_none() {
                    included_from = Some((l, 1));
                }
            }
            continue;
        }
        let Some((loc, rest)) = split_severity(line) else {
            if !line.starts_with("                 from ") {
                included_from = None;
            } else if let Some((file, l)) =
                split_file_line(line.trim_start().trim_start_matches("from ").trim_end_matches(':'))
            {
                if file == STDIN_NAME {
                    included_from = Some((l, 1));
                }
            }
            continue;
        };
        let (severity, message) = rest;
        if let Some((file, l, c)) = split_loc(loc) {
            if severity == "warning" {
                last_warning = Some((file.to_string(), l, c, message.to_string()));
            }
            if severity.ends_with("error") {
                let message = match &last_warning {
                    Some((f, wl, wc, w)) if f == file && *wl == l && *wc == c => w.clone(),
                    _ => message.to_string(),
                };
                out.push(Diagnostic {
                    file: file.to_string(),
                    line: l,
                    col: c,
                    severity: severity.to_string(),
                    message,
                    included_from: if file == STDIN_NAME { None } else { included_from },
                });
            }
        } else if severity.ends_with("error") {
            out.push(Diagnostic {
                file: String::new(),
                line: 0,
                col: 0,
                severity: severity.to_string(),
                message: message.to_string(),
                included_from: None,
            });
        }
        included_from = None;
    }
    out
}

/// `LOC: SEVERITY: MESSAGE` → (LOC, (SEVERITY, MESSAGE)).
fn split_severity(line: &str) -> Option<(&str, (&str, &str))> {
    for sev in [": fatal error: ", ": error: ", ": warning: ", ": note: "] {
        if let Some(i) = line.find(sev) {
            let severity = sev.trim_matches([':', ' ']);
            return Some((&line[..i], (severity, &line[i + sev.len()..])));
        }
    }
    for sev in ["fatal error: ", "error: "] {
        if let Some(m) = line.strip_prefix(sev) {
            return Some(("", (sev.trim_matches([':', ' ']), m)));
        }
    }
    None
}

/// `file:line` (the file may itself contain colons).
fn split_file_line(s: &str) -> Option<(&str, u32)> {
    let (file, line) = s.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// `file:line:col` (the file may itself contain colons).
fn split_loc(s: &str) -> Option<(&str, u32, u32)> {
    let (rest, col) = s.rsplit_once(':')?;
    let (file, line) = rest.rsplit_once(':')?;
    Some((file, line.parse().ok()?, col.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics() {
        let d = parse_diagnostics(
            "In file included from <stdin>:3:\n./inc/a.h:2:5: error: unknown type name 'foo'\n\
             <stdin>:7:10: error: use of undeclared identifier 'x'\n<stdin>:8:1: warning: w\n\
             <stdin>:3:10: fatal error: 'b.h' file not found\n1 error generated.\n",
        );
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].file, "./inc/a.h");
        assert_eq!(d[0].included_from, Some((3, 1)));
        assert_eq!((d[1].line, d[1].col), (7, 10));
        assert_eq!(d[2].severity, "fatal error");
    }
}
