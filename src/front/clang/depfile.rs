//! Clang's dependency output (`-MD -MF FILE`, Make's syntax): the files a read depends on.

use std::path::PathBuf;

/// The prerequisites of a Make rule as Clang writes it: `target: a.h b\ c.h \` and more lines.
/// A backslash before a space keeps the space in the name; a backslash at the end of a line
/// continues the rule; `$$` is a dollar sign.
pub fn parse(text: &str) -> Vec<PathBuf> {
    let mut names = Vec::new();
    let mut cur = String::new();
    let mut after_target = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ') | Some('#')) => cur.push(chars.next().unwrap_or(' ')),
            '\\' if matches!(chars.peek(), Some('\n') | Some('\r')) => {
                chars.next();
                end(&mut cur, &mut names, after_target);
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                cur.push('$');
            }
            ':' if !after_target && matches!(chars.peek(), None | Some(' ') | Some('\n')) => {
                cur.clear();
                after_target = true;
            }
            ' ' | '\t' | '\n' | '\r' => end(&mut cur, &mut names, after_target),
            _ => cur.push(c),
        }
    }
    end(&mut cur, &mut names, after_target);
    names.into_iter().map(PathBuf::from).collect()
}

fn end(cur: &mut String, names: &mut Vec<String>, after_target: bool) {
    if after_target && !cur.is_empty() && !names.contains(cur) {
        names.push(std::mem::take(cur));
    }
    cur.clear();
}

#[cfg(test)]
mod tests {
    use super::parse;
    use std::path::PathBuf;

    #[test]
    fn prerequisites_with_continuations_and_escapes() {
        let t = "-.o: /a/b.h c\\ d.h \\\n  /usr/include/x.h \\\n /p/$$q.h\n";
        let want: Vec<PathBuf> = ["/a/b.h", "c d.h", "/usr/include/x.h", "/p/$q.h"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(parse(t), want);
        assert!(parse("").is_empty());
        assert!(parse("-.o:\n").is_empty());
    }
}
