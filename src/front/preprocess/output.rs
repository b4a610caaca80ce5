//! The preprocessed text under construction, with its map back to original file bytes.

use autosync_oracle::ir::{FileId, Span};

/// How the bytes of one output segment relate to the original file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegKind {
    /// Copied byte for byte starting at `Segment::src`.
    Verbatim,
    /// Produced by the macro use `Segment::src..hi`.
    Expansion {
        /// End of the use site.
        hi: u32,
    },
}

/// A run of output bytes from one origin; it extends to the next segment's `out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// First output byte.
    pub out: usize,
    /// File the bytes come from.
    pub file: FileId,
    /// Original offset of the first byte (verbatim) or start of the use site (expansion).
    pub src: u32,
    /// Kind.
    pub kind: SegKind,
}

/// Whether putting `b` right after `a` could glue two tokens into a different one.
pub(crate) fn needs_space(a: u8, b: u8) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let glue = |c: u8| b"+-*/%<>=!&|^.:#".contains(&c);
    (word(a) && (word(b) || b == b'.' || b == b'"' || b == b'\''))
        || (a == b'.' && b.is_ascii_digit())
        || (glue(a) && glue(b))
        || ((a == b'"' || a == b'\'') && word(b))
}

/// Output text plus segment map.
#[derive(Default)]
pub(crate) struct Output {
    /// The text.
    pub text: String,
    /// Segments sorted by `out`.
    pub segs: Vec<Segment>,
}

impl Output {
    fn last_is_expansion(&self) -> bool {
        matches!(
            self.segs.last(),
            Some(Segment {
                kind: SegKind::Expansion { .. },
                ..
            })
        )
    }

    /// Appends `s`, copied verbatim from offset `src` of `file`.
    pub(crate) fn push_verbatim(&mut self, file: FileId, src: u32, s: &str) {
        let Some(&first) = s.as_bytes().first() else {
            return;
        };
        if self.last_is_expansion() {
            // The separating space belongs to the expansion before it.
            if let Some(&last) = self.text.as_bytes().last() {
                if needs_space(last, first) {
                    self.text.push(' ');
                }
            }
        }
        let contiguous = self.segs.last().is_some_and(|seg| {
            seg.kind == SegKind::Verbatim
                && seg.file == file
                && seg.src as usize + (self.text.len() - seg.out) == src as usize
        });
        if !contiguous {
            self.segs.push(Segment {
                out: self.text.len(),
                file,
                src,
                kind: SegKind::Verbatim,
            });
        }
        self.text.push_str(s);
    }

    /// Appends the token `s` produced by the macro use `lo..hi` of `file`.
    pub(crate) fn push_expansion(&mut self, file: FileId, lo: u32, hi: u32, s: &str, space: bool) {
        let Some(&first) = s.as_bytes().first() else {
            return;
        };
        let kind = SegKind::Expansion { hi };
        let same = self
            .segs
            .last()
            .is_some_and(|seg| seg.kind == kind && seg.file == file && seg.src == lo);
        if !same {
            self.segs.push(Segment {
                out: self.text.len(),
                file,
                src: lo,
                kind,
            });
        }
        if let Some(&last) = self.text.as_bytes().last() {
            if !last.is_ascii_whitespace() && (space || needs_space(last, first)) {
                self.text.push(' ');
            }
        }
        self.text.push_str(s);
    }

    /// Appends the line endings found in `text[lo..hi]` of `file`, each copied verbatim, so that
    /// a removed line keeps its own `\n` or `\r\n`.
    pub(crate) fn push_line_breaks(&mut self, file: FileId, text: &str, lo: usize, hi: usize) {
        let b = text.as_bytes();
        for i in lo..hi.min(b.len()) {
            if b[i] == b'\n' {
                let start = if i > lo && b[i - 1] == b'\r' { i - 1 } else { i };
                self.push_verbatim(file, start as u32, &text[start..=i]);
            }
        }
    }
}

/// The segment map of a finished output: answers "where did this byte come from".
#[derive(Clone, Debug, Default)]
pub(crate) struct SegMap {
    segs: Vec<Segment>,
    len: usize,
}

impl SegMap {
    /// The map of an output of `len` bytes made of `segs`.
    pub(crate) fn new(segs: Vec<Segment>, len: usize) -> Self {
        SegMap { segs, len }
    }

    /// Index of the segment holding output byte `off` (the last one for offsets past the end).
    fn find(&self, off: usize) -> Option<usize> {
        self.segs.partition_point(|s| s.out <= off).checked_sub(1)
    }

    fn seg_len(&self, i: usize) -> usize {
        self.segs.get(i + 1).map_or(self.len, |s| s.out) - self.segs[i].out
    }

    /// Original `(file, offset)` of output byte `off`.
    pub(crate) fn origin(&self, off: usize) -> (FileId, u32) {
        let Some(i) = self.find(off) else {
            return (FileId(0), 0);
        };
        let seg = self.segs[i];
        match seg.kind {
            SegKind::Verbatim => {
                let delta = (off - seg.out).min(self.seg_len(i));
                (seg.file, seg.src + delta as u32)
            }
            SegKind::Expansion { .. } => (seg.file, seg.src),
        }
    }

    /// Whether output byte `off` was produced by a macro expansion (not copied from a file).
    pub(crate) fn is_expanded(&self, off: usize) -> bool {
        self.find(off)
            .is_some_and(|i| matches!(self.segs[i].kind, SegKind::Expansion { .. }))
    }

    /// Original end offset of the byte at `off`: one past it when verbatim, the end of the use
    /// site when produced by a macro.
    fn origin_end(&self, i: usize, off: usize) -> u32 {
        let seg = self.segs[i];
        match seg.kind {
            SegKind::Verbatim => seg.src + ((off - seg.out).min(self.seg_len(i)) + 1) as u32,
            SegKind::Expansion { hi } => hi,
        }
    }

    /// Original span of output bytes `lo..hi` (see `Preprocessed::origin_span`).
    pub(crate) fn origin_span(&self, lo: usize, hi: usize) -> Span {
        let (file, start) = self.origin(lo);
        if hi <= lo {
            return Span::new(file, start, start);
        }
        let Some(mut i) = self.find(hi - 1) else {
            return Span::new(file, start, start);
        };
        let mut last = hi - 1;
        // Clamp to the file of `lo`: walk back to the last segment of that file.
        while self.segs[i].file != file {
            if i == 0 {
                return Span::new(file, start, start);
            }
            i -= 1;
            last = self.segs[i + 1].out - 1;
        }
        let end = self.origin_end(i, last).max(start);
        Span::new(file, start, end)
    }
}
