//! Places in a text as the protocol counts them: autosync locates findings by 1-based lines and
//! columns in Unicode code points; LSP positions are 0-based lines and UTF-16 code units (the
//! encoding every client supports). A column past a line's end is clamped to it.

use lsp_types::{Position, Range};

/// The lines of one text, to convert positions.
pub struct Lines<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    /// The lines of `text` (without their `\n`; a `\r` before it is not part of the line).
    pub fn new(text: &'a str) -> Lines<'a> {
        Lines {
            lines: text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect(),
        }
    }

    /// The position of 1-based `line` and code-point `column`.
    pub fn position(&self, line: u32, column: u32) -> Position {
        let l = line.saturating_sub(1);
        let Some(text) = self.lines.get(l as usize) else {
            return Position::new(l, 0);
        };
        let units: usize = text
            .chars()
            .take(column.saturating_sub(1) as usize)
            .map(char::len_utf16)
            .sum();
        Position::new(l, units as u32)
    }

    /// The range between two 1-based (line, code-point column) places.
    pub fn range(&self, start: (u32, u32), end: (u32, u32)) -> Range {
        Range::new(self.position(start.0, start.1), self.position(end.0, end.1))
    }

    /// The whole of 1-based `line`.
    pub fn line_range(&self, line: u32) -> Range {
        let len = self
            .lines
            .get(line.saturating_sub(1) as usize)
            .map_or(0, |t| t.chars().count() as u32);
        self.range((line, 1), (line, len + 1))
    }
}

/// Whether two ranges share a position (touching ends count: a cursor at a range's end is on it).
pub fn overlaps(a: &Range, b: &Range) -> bool {
    !(a.end < b.start || b.end < a.start)
}

/// The byte offset of `p` in `text` (clamped to the text and to the line's end).
pub fn offset(text: &str, p: Position) -> usize {
    let mut start = 0;
    for _ in 0..p.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line = text[start..].split('\n').next().unwrap_or("");
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= p.character as usize {
            return start + i;
        }
        units += c.len_utf16();
    }
    start + line.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_units_and_clamp_at_the_line_end() {
        let l = Lines::new("a\r\n𝑥é = s[t];\n");
        assert_eq!(l.position(2, 1), Position::new(1, 0));
        // `𝑥` is two UTF-16 units, `é` one: code-point column 3 is unit 3.
        assert_eq!(l.position(2, 3), Position::new(1, 3));
        assert_eq!(l.position(1, 9), Position::new(0, 1));
        assert_eq!(l.position(7, 2), Position::new(6, 0));
        assert_eq!(l.line_range(2).end, Position::new(1, 11));
    }

    #[test]
    fn touching_ranges_overlap() {
        let r = |a: u32, b: u32| Range::new(Position::new(a, 0), Position::new(b, 0));
        assert!(overlaps(&r(1, 2), &r(2, 3)));
        assert!(!overlaps(&r(1, 2), &r(3, 4)));
    }

    #[test]
    fn offsets_of_positions() {
        let t = "ab\n𝑥c\nd";
        assert_eq!(offset(t, Position::new(0, 1)), 1);
        assert_eq!(offset(t, Position::new(1, 2)), 7);
        assert_eq!(offset(t, Position::new(1, 9)), 8);
        assert_eq!(offset(t, Position::new(5, 0)), t.len());
    }
}
