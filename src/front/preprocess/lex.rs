//! Preprocessing tokens and the lexer that cuts original file bytes into them.
//!
//! The lexer never fails: unterminated literals end at the line end, unterminated comments at the
//! end of the file, and any byte it does not know becomes an `Other` token. Backslash-newline
//! splices are whitespace (so multi-line `#define`s work); a splice *inside* a token is not
//! supported, which real kernels do not rely on.

use std::rc::Rc;

/// The kind of a preprocessing token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Identifier or keyword.
    Ident,
    /// A pp-number (`12`, `0x1fU`, `1.5e+3f`).
    Number,
    /// A string literal, with its prefix.
    Str,
    /// A character literal, with its prefix.
    Char,
    /// A punctuator (`+`, `##`, `...`).
    Punct,
    /// Horizontal whitespace and line splices.
    Space,
    /// A line ending (`\n` or `\r\n`).
    Newline,
    /// A block or line comment.
    Comment,
    /// Anything else (non-ASCII characters, stray control bytes, lone backslashes).
    Other,
}

impl Kind {
    /// Whether the token only separates other tokens.
    pub(crate) fn is_blank(self) -> bool {
        matches!(self, Kind::Space | Kind::Newline | Kind::Comment)
    }
}

/// Where the spelling of a token lives.
#[derive(Clone, Debug)]
pub(crate) enum Text {
    /// A byte range of the file being processed.
    Src(u32, u32),
    /// An owned spelling (macro bodies, pasted and stringized tokens).
    Own(Rc<str>),
}

/// Where a token came from, in the file being processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Copied from this byte range of the source.
    Src(u32, u32),
    /// Produced by the macro use covering this byte range.
    Exp(u32, u32),
}

impl Origin {
    /// The byte range, whatever the kind.
    pub(crate) fn range(self) -> (u32, u32) {
        match self {
            Origin::Src(lo, hi) | Origin::Exp(lo, hi) => (lo, hi),
        }
    }
}

/// The set of macros a token may no longer expand ("painted blue"), sorted ids.
pub(crate) type HideSet = Option<Rc<[u32]>>;

/// A preprocessing token.
#[derive(Clone, Debug)]
pub(crate) struct Tok {
    /// Kind.
    pub kind: Kind,
    /// Spelling.
    pub text: Text,
    /// Origin for the position map.
    pub origin: Origin,
    /// Whether whitespace preceded it (only meaningful in macro bodies and arguments).
    pub space_before: bool,
    /// Macros that must not expand this token again.
    pub hide: HideSet,
}

impl Tok {
    /// A token copied from `lo..hi` of the current file.
    pub(crate) fn src(kind: Kind, lo: u32, hi: u32) -> Tok {
        Tok {
            kind,
            text: Text::Src(lo, hi),
            origin: Origin::Src(lo, hi),
            space_before: false,
            hide: None,
        }
    }

    /// A token with an owned spelling.
    pub(crate) fn own(kind: Kind, text: &str, origin: Origin) -> Tok {
        Tok {
            kind,
            text: Text::Own(text.into()),
            origin,
            space_before: false,
            hide: None,
        }
    }

    /// The spelling; `src` is the text of the file being processed.
    pub(crate) fn text<'a>(&'a self, src: &'a str) -> &'a str {
        match &self.text {
            Text::Src(lo, hi) => src.get(*lo as usize..*hi as usize).unwrap_or(""),
            Text::Own(s) => s,
        }
    }

    /// Whether this is the punctuator `p`.
    pub(crate) fn is_punct(&self, src: &str, p: &str) -> bool {
        self.kind == Kind::Punct && self.text(src) == p
    }
}

/// Whether `c` may start an identifier.
pub(crate) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

/// Whether `c` may continue an identifier.
pub(crate) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Length of a backslash-newline splice at `i`, or 0.
fn splice_len(b: &[u8], i: usize) -> usize {
    if b.get(i) != Some(&b'\\') {
        return 0;
    }
    match (b.get(i + 1), b.get(i + 2)) {
        (Some(b'\n'), _) => 2,
        (Some(b'\r'), Some(b'\n')) => 3,
        _ => 0,
    }
}

/// Whether a line ending starts at `i`.
fn newline_at(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        Some(b'\n') => true,
        Some(b'\r') => b.get(i + 1) == Some(&b'\n'),
        _ => false,
    }
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(b' ' | b'\t' | 0x0b | 0x0c) => i += 1,
            Some(b'\r') if !newline_at(b, i) => i += 1,
            Some(b'\\') if splice_len(b, i) > 0 => i += splice_len(b, i),
            _ => return i,
        }
    }
}

/// End of a quoted literal whose opening quote is at `i`; unterminated literals end before the
/// line ending.
fn quoted_end(b: &[u8], i: usize, quote: u8) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            c if c == quote => return j + 1,
            // An escape (or a splice) never ends the literal.
            b'\\' => j += splice_len(b, j).max(2),
            _ if newline_at(b, j) => return j,
            _ => j += 1,
        }
    }
    b.len()
}

fn line_comment_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    while j < b.len() {
        if splice_len(b, j) > 0 {
            // A backslash at the end of a line comment continues the comment.
            j += splice_len(b, j);
        } else if newline_at(b, j) {
            return j;
        } else {
            j += 1;
        }
    }
    b.len()
}

fn block_comment_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    while j + 1 < b.len() {
        if b[j] == b'*' && b[j + 1] == b'/' {
            return j + 2;
        }
        j += 1;
    }
    b.len()
}

fn pp_number_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        let c = b[j];
        let exponent_sign = (c == b'+' || c == b'-') && matches!(b[j - 1], b'e' | b'E' | b'p' | b'P');
        // `'` followed by a digit or letter is a C++14 digit separator.
        let separator = c == b'\'' && b.get(j + 1).is_some_and(|n| n.is_ascii_alphanumeric());
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || exponent_sign || separator {
            j += 1;
        } else {
            break;
        }
    }
    j
}

fn punct_end(b: &[u8], i: usize) -> usize {
    let c = b[i];
    let n1 = b.get(i + 1).copied().unwrap_or(0);
    let n2 = b.get(i + 2).copied().unwrap_or(0);
    let len = match (c, n1, n2) {
        (b'.', b'.', b'.') | (b'<', b'<', b'=') | (b'>', b'>', b'=') | (b'-', b'>', b'*') => 3,
        (b'#', b'#', _) | (b'-', b'>', _) | (b'+', b'+', _) | (b'-', b'-', _) | (b'<', b'<', _) => 2,
        (b'>', b'>', _) | (b'&', b'&', _) | (b'|', b'|', _) | (b':', b':', _) | (b'.', b'*', _) => 2,
        (b'<' | b'>' | b'=' | b'!' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^', b'=', _) => 2,
        _ => 1,
    };
    i + len
}

/// Lexes the token starting at `i < b.len()`; returns its kind and end.
pub(crate) fn lex_one(b: &[u8], i: usize) -> (Kind, usize) {
    let c = b[i];
    let next = b.get(i + 1).copied();
    match c {
        b'\n' => (Kind::Newline, i + 1),
        b'\r' if next == Some(b'\n') => (Kind::Newline, i + 2),
        b' ' | b'\t' | 0x0b | 0x0c | b'\r' => (Kind::Space, skip_space(b, i)),
        b'\\' if splice_len(b, i) > 0 => (Kind::Space, skip_space(b, i)),
        b'/' if next == Some(b'*') => (Kind::Comment, block_comment_end(b, i)),
        b'/' if next == Some(b'/') => (Kind::Comment, line_comment_end(b, i)),
        b'"' => (Kind::Str, quoted_end(b, i, b'"')),
        b'\'' => (Kind::Char, quoted_end(b, i, b'\'')),
        _ if is_ident_start(c) => {
            let mut j = i + 1;
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            let prefix = matches!(&b[i..j], b"L" | b"u" | b"U" | b"u8");
            match b.get(j) {
                Some(b'"') if prefix => (Kind::Str, quoted_end(b, j, b'"')),
                Some(b'\'') if prefix => (Kind::Char, quoted_end(b, j, b'\'')),
                _ => (Kind::Ident, j),
            }
        }
        b'0'..=b'9' => (Kind::Number, pp_number_end(b, i)),
        b'.' if next.is_some_and(|n| n.is_ascii_digit()) => (Kind::Number, pp_number_end(b, i)),
        b'\\' | b'`' => (Kind::Other, i + 1),
        _ if c.is_ascii_punctuation() => (Kind::Punct, punct_end(b, i)),
        _ if c >= 0x80 => {
            // Keep whole UTF-8 sequences together so token ranges are char boundaries.
            let mut j = i + 1;
            while j < b.len() && (0x80..0xc0).contains(&b[j]) {
                j += 1;
            }
            (Kind::Other, j)
        }
        _ => (Kind::Other, i + 1),
    }
}

/// Lexes all of `s` into tokens with `Src` ranges relative to `s` shifted by `base`.
/// Start of the first `/*` comment that never ends (the lexer itself never fails, so the
/// preprocessor asks before it runs; otherwise the parser reports a vague syntax error at the end).
pub(crate) fn unterminated_comment(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        let (kind, end) = lex_one(b, i);
        if kind == Kind::Comment && b[i + 1] == b'*' && (end < i + 4 || !b[..end].ends_with(b"*/")) {
            return Some(i);
        }
        i = end.max(i + 1);
    }
    None
}

pub(crate) fn lex_all(s: &str, base: u32) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (kind, end) = lex_one(b, i);
        out.push(Tok::src(kind, base + i as u32, base + end as u32));
        i = end;
    }
    out
}

/// Index of the first non-blank token at or after `i`.
pub(crate) fn skip_blank(toks: &[Tok], mut i: usize) -> usize {
    while toks.get(i).is_some_and(|t| t.kind.is_blank()) {
        i += 1;
    }
    i
}

/// Walks a file line by line, stopping in front of directive lines.
pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
    /// Whether `pos` is at a line start not yet checked for a directive.
    check_line: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor {
            b: text.as_bytes(),
            pos: 0,
            check_line: true,
        }
    }

    /// Whether the whole file has been consumed.
    pub(crate) fn eof(&self) -> bool {
        self.pos >= self.b.len()
    }

    /// Whether the line starting at the current position is a directive (`#` first token).
    pub(crate) fn at_directive(&self) -> bool {
        let mut i = self.pos;
        while i < self.b.len() {
            let (kind, end) = lex_one(self.b, i);
            match kind {
                Kind::Space => {}
                Kind::Comment if self.b[i + 1] == b'*' => {}
                Kind::Punct => return &self.b[i..end] == b"#",
                _ => return false,
            }
            i = end;
        }
        false
    }

    /// The next token of ordinary text, or `None` at the end or in front of a directive line.
    pub(crate) fn next_text(&mut self) -> Option<(Kind, u32, u32)> {
        if self.eof() {
            return None;
        }
        if self.check_line {
            if self.at_directive() {
                return None;
            }
            self.check_line = false;
        }
        let (kind, end) = lex_one(self.b, self.pos);
        let lo = self.pos;
        self.pos = end;
        if kind == Kind::Newline {
            self.check_line = true;
        }
        Some((kind, lo as u32, end as u32))
    }

    /// Consumes the rest of the current line; returns `(start, content_end, end)` where
    /// `content_end` excludes the line ending. Block comments may make a line span several
    /// physical lines.
    pub(crate) fn read_line(&mut self) -> (usize, usize, usize) {
        let start = self.pos;
        while self.pos < self.b.len() {
            let (kind, end) = lex_one(self.b, self.pos);
            if kind == Kind::Newline {
                let content_end = self.pos;
                self.pos = end;
                self.check_line = true;
                return (start, content_end, end);
            }
            self.pos = end;
        }
        self.check_line = true;
        (start, self.pos, self.pos)
    }
}
