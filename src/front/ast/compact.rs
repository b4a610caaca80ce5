//! Drops the indentation of Clang's pretty-printed JSON before it is parsed.
//!
//! Clang indents its JSON dump (no flag turns that off): two thirds of a CUB file's 390 MB dump
//! are line breaks and the spaces after them, and serde_json's streaming reader pays per byte.
//! A JSON string cannot hold a raw line break, so a line break and the spaces that follow it
//! are always outside strings and can go without parsing anything.

use std::io::{self, Read};

/// A reader that yields its input without line breaks and the spaces that start each line.
pub struct Unindent<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// The last byte seen was a line break or an indentation space.
    indenting: bool,
}

impl<R: Read> Unindent<R> {
    /// Wraps `inner`, reading it in blocks of `capacity` bytes.
    pub fn new(inner: R, capacity: usize) -> Self {
        Unindent {
            inner,
            buf: vec![0; capacity.max(1)].into_boxed_slice(),
            start: 0,
            end: 0,
            indenting: false,
        }
    }

    /// Copies the kept bytes of the buffered block into `out`; returns how many.
    fn drain_into(&mut self, out: &mut [u8]) -> usize {
        let mut n = 0;
        while self.start < self.end && n < out.len() {
            let block = &self.buf[self.start..self.end];
            if self.indenting {
                let spaces = indentation(block);
                match spaces {
                    Some(k) => {
                        self.start += k;
                        self.indenting = false;
                    }
                    None => self.start = self.end,
                }
                continue;
            }
            let line = memchr::memchr(b'\n', block).unwrap_or(block.len());
            let take = line.min(out.len() - n);
            out[n..n + take].copy_from_slice(&block[..take]);
            n += take;
            self.start += take;
            if take == line && line < block.len() {
                self.start += 1;
                self.indenting = true;
            }
        }
        n
    }
}

/// Where the indentation at the start of `block` ends (None: it runs to the end). Eight spaces
/// at a time: the indentation is two thirds of the dump.
fn indentation(block: &[u8]) -> Option<usize> {
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    let mut i = 0;
    while let Some(w) = block.get(i..i + 8) {
        if u64::from_ne_bytes(w.try_into().expect("eight bytes")) != SPACES {
            break;
        }
        i += 8;
    }
    block[i..].iter().position(|&b| b != b' ' && b != b'\n').map(|k| i + k)
}

impl<R: Read> Read for Unindent<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if self.start == self.end {
                self.start = 0;
                self.end = self.inner.read(&mut self.buf)?;
                if self.end == 0 {
                    return Ok(0);
                }
            }
            let n = self.drain_into(out);
            // A block of nothing but indentation yields nothing: read on, since 0 means the end.
            if n > 0 {
                return Ok(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `input` through `Unindent` with tiny blocks and output buffers, so that line
    /// breaks and indentation fall on every boundary.
    fn unindent(input: &str, block: usize, chunk: usize) -> String {
        let mut r = Unindent::new(input.as_bytes(), block);
        let mut out = Vec::new();
        let mut piece = vec![0; chunk];
        loop {
            let n = r.read(&mut piece).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&piece[..n]);
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn drops_line_breaks_and_indentation_only() {
        let pretty = "{\n  \"kind\": \"A b\",\n  \"inner\": [\n    {\n      \"x\": \"  two  \"\n    }\n  ]\n}\n";
        let want = "{\"kind\": \"A b\",\"inner\": [{\"x\": \"  two  \"}]}";
        for block in 1..8 {
            for chunk in 1..6 {
                assert_eq!(unindent(pretty, block, chunk), want, "block {block}, chunk {chunk}");
            }
        }
        assert_eq!(unindent(pretty, 1 << 16, 1 << 16), want);
    }

    #[test]
    fn parses_to_the_same_value() {
        let v = serde_json::json!({"a": [1, {"b": "c\nd  e"}, [], {}], "f": "  g"});
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        for block in [1, 3, 64] {
            let back: serde_json::Value = serde_json::from_str(&unindent(&pretty, block, 5)).unwrap();
            assert_eq!(back, v);
        }
    }
}
