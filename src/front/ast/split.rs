//! Splits the compacted dump into its top-level declarations, so that each is parsed from
//! memory (serde_json's slice reader) rather than a byte at a time from a stream.
//!
//! The dump is one object, the translation unit, whose `inner` array holds the top-level
//! declarations. The splitter finds where that array starts (the head), then where each of its
//! elements ends (matching brackets outside strings), and hands the bytes of each element on as
//! soon as they are complete: the dump is still read as Clang writes it, one declaration at a
//! time in memory. What follows the array is the tail.

use std::io::{self, Read};

/// A piece of the dump.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'b> {
    /// The translation unit up to and including the `[` that opens its `inner`.
    Head(&'b [u8]),
    /// One element of `inner`, complete.
    Element(&'b [u8]),
    /// What follows `inner`'s closing `]`, up to and including the object's closing `}`.
    Tail(&'b [u8]),
    /// A dump whose shape is not the one above (no `inner` at the top, not an object, or
    /// truncated): all of it that was read; the caller parses it as a stream, with the rest.
    Other(&'b [u8]),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Head,
    Elements,
    Tail,
    Done,
}

/// The splitter over a (compacted) dump.
pub struct Splitter<R> {
    inner: R,
    /// The bytes read and not yet handed on (and those of the piece being handed on).
    buf: Vec<u8>,
    /// What each read of `inner` fills.
    block: Box<[u8]>,
    /// Start of the unconsumed bytes.
    start: usize,
    /// How far the scan of the current piece has got, and its state there.
    pos: usize,
    depth: u32,
    in_str: bool,
    escaped: bool,
    /// In the head: the offsets of the last string that closed at depth 1 (a key candidate).
    last_key: Option<(usize, usize)>,
    key_start: usize,
    phase: Phase,
    eof: bool,
}

const BLOCK: usize = 1 << 20;

impl<R: Read> Splitter<R> {
    pub fn new(inner: R) -> Self {
        Splitter {
            inner,
            buf: Vec::with_capacity(BLOCK),
            block: vec![0; BLOCK].into_boxed_slice(),
            start: 0,
            pos: 0,
            depth: 0,
            in_str: false,
            escaped: false,
            last_key: None,
            key_start: 0,
            phase: Phase::Head,
            eof: false,
        }
    }

    /// The underlying reader, for the rest of an `Other` dump.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads another block; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        // Drop what was consumed before growing.
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.pos -= self.start;
            // Only past the head is anything consumed: its key offsets are no longer needed.
            self.last_key = None;
            self.start = 0;
        }
        // Read into a block of its own: growing `buf` to read into it would clear a block's
        // worth of memory for every read, and a pipe hands out far less than a block at a time.
        let n = loop {
            match self.inner.read(&mut self.block) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.buf.extend_from_slice(&self.block[..n]);
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// The next piece, or None after the tail (or an `Other`).
    pub fn next_piece(&mut self) -> io::Result<Option<Piece<'_>>> {
        loop {
            match self.phase {
                Phase::Done => return Ok(None),
                Phase::Head => {
                    if let Some(end) = self.scan_head() {
                        self.phase = Phase::Elements;
                        let s = self.start;
                        self.start = end;
                        self.pos = end;
                        return Ok(Some(Piece::Head(&self.buf[s..end])));
                    }
                    if self.phase == Phase::Done || !self.fill()? {
                        return Ok(Some(self.other()));
                    }
                }
                Phase::Elements => {
                    // Between elements: separators, then an element or the array's end.
                    if self.depth == 0 {
                        while self.pos < self.buf.len()
                            && matches!(self.buf[self.pos], b',' | b' ' | b'\t' | b'\r' | b'\n')
                        {
                            self.pos += 1;
                        }
                        if self.pos == self.buf.len() {
                            if !self.fill()? {
                                return Ok(Some(self.other()));
                            }
                            continue;
                        }
                        match self.buf[self.pos] {
                            b']' => {
                                self.pos += 1;
                                self.start = self.pos;
                                self.phase = Phase::Tail;
                                // The tail is scanned from inside the top object.
                                self.depth = 1;
                                continue;
                            }
                            b'{' => self.start = self.pos,
                            _ => return Ok(Some(self.other())),
                        }
                    }
                    match self.scan_to_depth(0) {
                        Some(end) => {
                            let s = self.start;
                            self.start = end;
                            self.pos = end;
                            return Ok(Some(Piece::Element(&self.buf[s..end])));
                        }
                        None => {
                            if !self.fill()? {
                                return Ok(Some(self.other()));
                            }
                        }
                    }
                }
                Phase::Tail => match self.scan_to_depth(0) {
                    Some(end) => {
                        self.phase = Phase::Done;
                        let s = self.start;
                        self.start = end;
                        return Ok(Some(Piece::Tail(&self.buf[s..end])));
                    }
                    None => {
                        if !self.fill()? {
                            return Ok(Some(self.other()));
                        }
                    }
                },
            }
        }
    }

    /// Everything read so far, as a dump of another shape.
    fn other(&mut self) -> Piece<'_> {
        self.phase = Phase::Done;
        Piece::Other(&self.buf[..])
    }

    /// Scans from `pos` until the nesting depth falls back to `target` after a closing
    /// bracket; the offset just past it, or None when the buffer ends first.
    fn scan_to_depth(&mut self, target: u32) -> Option<usize> {
        let buf = &self.buf[..];
        let mut i = self.pos;
        while i < buf.len() {
            if self.in_str {
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                match memchr::memchr2(b'"', b'\\', &buf[i..]) {
                    None => i = buf.len(),
                    Some(k) => {
                        i += k;
                        if buf[i] == b'\\' {
                            self.escaped = true;
                        } else {
                            self.in_str = false;
                        }
                        i += 1;
                    }
                }
                continue;
            }
            match buf[i] {
                b'"' => self.in_str = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == target {
                        self.pos = i + 1;
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.pos = i;
        None
    }

    /// Scans the head: the offset just past the `[` of a depth-1 `"inner":`, or None when the
    /// buffer ends first (or the shape is another: then the phase is `Done`).
    fn scan_head(&mut self) -> Option<usize> {
        let mut i = self.pos;
        while i < self.buf.len() {
            let b = self.buf[i];
            if self.in_str {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_str = false;
                    if self.depth == 1 {
                        self.last_key = Some((self.key_start, i + 1));
                    }
                }
                i += 1;
                continue;
            }
            match b {
                b'"' => {
                    self.in_str = true;
                    self.key_start = i;
                }
                b'{' | b'[' => {
                    if self.depth == 0 && b != b'{' {
                        self.phase = Phase::Done;
                        return None;
                    }
                    if b == b'[' && self.depth == 1 && self.inner_key_before(i) {
                        self.pos = i + 1;
                        self.depth = 0;
                        return Some(i + 1);
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    if self.depth <= 1 {
                        // The object closed without an `inner` (or the input is not one).
                        self.phase = Phase::Done;
                        return None;
                    }
                    self.depth -= 1;
                }
                b' ' | b'\t' | b'\r' | b'\n' | b':' | b',' => {}
                _ if self.depth == 0 => {
                    self.phase = Phase::Done;
                    return None;
                }
                _ => {}
            }
            i += 1;
        }
        self.pos = i;
        None
    }

    /// Whether the `[` at `i` is the value of a depth-1 key `"inner"`.
    fn inner_key_before(&self, i: usize) -> bool {
        let Some((a, b)) = self.last_key else {
            return false;
        };
        if &self.buf[a..b] != b"\"inner\"" {
            return false;
        }
        self.buf[b..i]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b':'))
            && self.buf[b..i].contains(&b':')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out `step` bytes at a time, so that every piece straddles blocks.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[derive(Debug, PartialEq, Eq)]
    enum Owned {
        Head(String),
        Element(String),
        Tail(String),
        Other(String),
    }

    /// The pieces of `input`; an `Other` with the rest of the input after it.
    fn pieces(input: &str, step: usize) -> Vec<Owned> {
        let mut s = Splitter::new(Trickle {
            data: input.as_bytes(),
            step,
        });
        let mut out = Vec::new();
        let t = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        while let Some(p) = s.next_piece().unwrap() {
            out.push(match p {
                Piece::Head(b) => Owned::Head(t(b)),
                Piece::Element(b) => Owned::Element(t(b)),
                Piece::Tail(b) => Owned::Tail(t(b)),
                Piece::Other(b) => {
                    let mut all = t(b);
                    let mut rest = Vec::new();
                    s.into_inner().read_to_end(&mut rest).unwrap();
                    all.push_str(&t(&rest));
                    out.push(Owned::Other(all));
                    return out;
                }
            });
        }
        out
    }

    /// Elements end at their matching bracket; brackets, quotes and escapes inside strings
    /// do not count, nor does a key `inner` below the top.
    #[test]
    fn splits_the_top_level_declarations() {
        let dump = r#"{"id": "0x1", "loc": {"inner": [1]}, "inner": [{"a": "}{[", "inner": [{"b": "\"]"}]}, {"c": "\\"},{}], "x": {"y": 2}}"#;
        let want = vec![
            Owned::Head(r#"{"id": "0x1", "loc": {"inner": [1]}, "inner": ["#.into()),
            Owned::Element(r#"{"a": "}{[", "inner": [{"b": "\"]"}]}"#.into()),
            Owned::Element(r#"{"c": "\\"}"#.into()),
            Owned::Element("{}".into()),
            Owned::Tail(r#", "x": {"y": 2}}"#.into()),
        ];
        for step in [1, 2, 3, 7, 1 << 20] {
            assert_eq!(pieces(dump, step), want, "step {step}");
        }
    }

    /// Dumps of another shape come back whole, for the stream reader (and its error).
    #[test]
    fn other_shapes_are_handed_back_whole() {
        for dump in [
            "",
            "[1, 2]",
            r#"{"kind": "TranslationUnitDecl"}"#,
            r#"{"inner": 3}"#,
            r#"{"inner": [{"a": 1}"#,
            r#"{"inner": [{"a": 1}, 7]}"#,
        ] {
            let got = pieces(dump, 2);
            let last = got.last().expect("a piece");
            assert!(matches!(last, Owned::Other(_)), "{dump}: {got:?}");
            if let [Owned::Other(all)] = &got[..] {
                assert_eq!(all, dump);
            }
        }
    }
}

#[cfg(test)]
mod read_tests {
    use super::super::read::read_slice;

    /// Read in pieces, the dump gives the AST the stream reader gives: the current file is
    /// carried from one top-level declaration to the next and through the translation unit's
    /// own keys; a dump of another shape is read as before, and a cut one is an error.
    #[test]
    fn pieces_read_as_the_whole() {
        let dump = br#"{"id": "0x1", "kind": "TranslationUnitDecl", "loc": {}, "inner": [
            {"id": "0x2", "kind": "VarDecl", "name": "a", "loc": {"offset": 1, "file": "/s/h.h", "line": 1, "col": 1, "tokLen": 1}},
            {"id": "0x3", "kind": "VarDecl", "name": "b\u0041", "loc": {"offset": 5, "col": 1, "tokLen": 1}},
            {"id": "0x4", "kind": "VarDecl", "name": "c", "loc": {"offset": 9, "file": "m.cu", "line": 1, "col": 1, "tokLen": 1}}]}"#;
        let ast = read_slice(dump, &|f| f.starts_with("/s/")).unwrap();
        assert_eq!(ast.roots.len(), 3);
        let file = |i: usize| {
            ast.node(ast.roots[i])
                .loc
                .map(|l| ast.files[l.expansion.file.0 as usize].name.clone())
        };
        assert_eq!(file(0).as_deref(), Some("/s/h.h"));
        assert_eq!(file(1).as_deref(), Some("/s/h.h"));
        assert_eq!(file(2).as_deref(), Some("m.cu"));
        assert_eq!(ast.node(ast.roots[1]).name.map(|n| ast.str(n)), Some("bA"));
        assert!(ast.files[0].system && !ast.files[1].system);
        let cut = &dump[..dump.len() - 40];
        assert!(read_slice(cut, &|_| false).is_err());
        let bare = br#"{"id": "0x1", "kind": "TranslationUnitDecl"}"#;
        assert!(read_slice(bare, &|_| false).unwrap().roots.is_empty());
        assert!(read_slice(b"[]", &|_| false).is_err());
    }
}
