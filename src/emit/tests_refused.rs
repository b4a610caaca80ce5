//! Positions emission refuses, with the reason: unknown labels, synthesized statements,
//! included files, dummy spans and brace-less bodies made by macros.

use super::tests::*;
use super::*;
use crate::front::{load, FrontOptions};
use autosync_oracle::ir::{Barrier, Block, Label, Loop, Span, Stmt, StmtKind};
use autosync_oracle::tree::{candidate_positions, for_each_stmt, insert_barriers, Position};

#[test]
fn bad_positions_are_errors() {
    let k = lower(SIMPLE);
    let unknown = plan(&k, SIMPLE, &[sync(Position::After(Label(9999)))]).unwrap_err();
    assert!(unknown.message.contains("no statement or block L9999"), "{unknown}");
    let after_block = plan(&k, SIMPLE, &[sync(Position::After(k.body.label))]).unwrap_err();
    assert!(after_block.message.contains("is a block"), "{after_block}");
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    let start_stmt = plan(&k, SIMPLE, &[sync(Position::BlockStart(l))]).unwrap_err();
    assert!(start_stmt.message.contains("not a block"), "{start_stmt}");
    let empty = Insertion {
        pos: Position::After(l),
        text: BarrierText::Custom("  ".into()),
        comment: None,
    };
    assert!(plan(&k, SIMPLE, &[empty]).is_err());
    // A different text than the kernel was lowered from.
    let short = &SIMPLE[..40];
    let e = plan(&k, short, &[sync(Position::After(l))]).unwrap_err();
    assert!(e.message.contains("does not fit"), "{e}");
}

#[test]
fn synthesized_statements_and_dummy_spans_are_errors() {
    let k = lower(SIMPLE);
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    let (with_bar, labels) = insert_barriers(&k, &[(Position::After(l), Barrier::Block)]).unwrap();
    let e = plan(&with_bar, SIMPLE, &[sync(Position::After(labels[0]))]).unwrap_err();
    assert!(e.message.contains("no source text"), "{e}");
    // Planning on a kernel that already holds synthesized barriers still works elsewhere.
    let l2 = stmt(&with_bar, SIMPLE, "out[t] =");
    assert!(plan(&with_bar, SIMPLE, &[sync(Position::After(l2))]).is_ok());
    // Loop headers and steps made by lowering have no position.
    let src = "__global__ void k(float *o, int n)\n{\n    for (int i = 0; i < n; i++) { o[i] = 0.0f; }\n}\n";
    let k = lower(src);
    let mut step = None;
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Loop(Loop { step: st, .. }) = &s.kind {
            step = st.first().map(|x| x.label);
        }
    });
    let e = plan(&k, src, &[sync(Position::After(step.expect("a step")))]).unwrap_err();
    assert!(e.message.contains("made by lowering"), "{e}");
}

#[test]
fn positions_in_an_included_file_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("kern.cuh"),
        "__global__ void inc(float *o)\n{\n    o[threadIdx.x] = 1.0f;\n}\n",
    )
    .unwrap();
    let main = "#include \"kern.cuh\"\n";
    let path = dir.path().join("main.cu");
    std::fs::write(&path, main).unwrap();
    let unit = load(&path, &FrontOptions::default()).expect("load");
    let k = &unit.kernels[0];
    let pos = candidate_positions(k)[0];
    let e = plan(k, main, &[sync(pos)]).unwrap_err();
    assert!(e.message.contains("included file"), "{e}");
}

#[test]
fn a_span_moved_to_the_dummy_file_is_an_error() {
    let mut k = lower(SIMPLE);
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    fn fake(b: &mut Block, l: Label) {
        for s in b.stmts.iter_mut() {
            if s.label == l {
                s.span = Span::DUMMY;
            }
        }
    }
    fake(&mut k.body, l);
    let e = plan(&k, SIMPLE, &[sync(Position::After(l))]).unwrap_err();
    assert!(e.message.contains("no source text"), "{e}");
}

#[test]
fn braceless_bodies_made_by_macros_are_errors() {
    let src = "#define GUARD(c, x) if (c) x
#define LOOP(n) for (int i = 0; i < n; i++)
__global__ void k(float *o, int n)
{
    __shared__ float s[64];
    GUARD(threadIdx.x < 32, s[threadIdx.x] = 1.0f);
    LOOP(n) s[threadIdx.x] += 1.0f;
    o[0] = s[1];
}
";
    let k = lower(src);
    for needle in ["GUARD(", "LOOP("] {
        let body = blocks_of(&k, src, needle)[0];
        let e = plan(&k, src, &[sync(Position::BlockStart(body))]).unwrap_err();
        assert!(e.message.contains("comes from a macro"), "{e}");
    }
    // After the whole macro use is fine.
    let l = stmt(&k, src, "GUARD(");
    let out = fixed(&k, src, &[sync(Position::After(l))]);
    assert!(out.contains("1.0f);\n    __syncthreads();\n    LOOP"), "{out}");
}
