//! Lowering never panics: random truncations and byte mutations of corpus files give either a
//! kernel or an error. The two properties run a fraction of their 300 cases by default (the
//! merge gate), all of them with `AUTOSYNC_FULL_SWEEPS=1` (`common::sweep`).

use crate::common::sweep;
use autosync::front::{lower_text, FrontOptions};
use proptest::prelude::*;
use std::path::Path;

fn corpus_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new("corpus").to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "cu") {
                out.push((p.display().to_string(), std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    ";",
    "[",
    "]",
    "*",
    "&",
    "__syncthreads();",
    "#define X(a) a##a\n",
    "/*",
    "\"",
    "'",
    "\\\n",
    "#if 1\n",
    "#endif\n",
    "for(;;)",
    "asm(\"bar.sync 1, 64;\");",
    "0x",
    "->",
    "template<",
    "switch(x){case 1:",
    "goto l;",
    "return",
    "\u{0}",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: sweep::cases(300) as u32, .. ProptestConfig::default() })]

    #[test]
    fn truncation_never_panics(file in 0usize..1000, cut in 0.0f64..1.0) {
        let files = corpus_files();
        let (path, text) = &files[file % files.len()];
        let mut at = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(at) { at -= 1; }
        let _ = lower_text(Path::new(path), &text[..at], &FrontOptions::default());
    }

    #[test]
    fn mutation_never_panics(file in 0usize..1000, edits in prop::collection::vec((0.0f64..1.0, 0usize..TOKENS.len(), 0usize..4), 1..6)) {
        let files = corpus_files();
        let (path, text) = &files[file % files.len()];
        let mut t = text.clone();
        for (pos, tok, del) in edits {
            let mut at = (t.len() as f64 * pos) as usize;
            while !t.is_char_boundary(at) { at -= 1; }
            let mut end = (at + del).min(t.len());
            while !t.is_char_boundary(end) { end += 1; }
            t.replace_range(at..end, TOKENS[tok]);
        }
        let _ = lower_text(Path::new(path), &t, &FrontOptions::default());
    }
}

/// Found by fuzzing the lowering: an absurd array extent overflowed the size computation.
#[test]
fn huge_array_extents_do_not_overflow() {
    let src = "//--blockDim=32\n__global__ void k(float *o) {\n  __shared__ float s[4611686018427387904][8];\n  s[threadIdx.x][0] = 1.0f;\n  o[threadIdx.x] = s[0][threadIdx.x];\n}\n";
    let _ = lower_text(Path::new("huge.cu"), src, &FrontOptions::default());
}
