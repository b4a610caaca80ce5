//! Emission tests on kernels lowered by the real front end.

use super::*;
use crate::front::{load, FrontOptions, SourceUnit};
use autosync_oracle::ir::{Barrier, Block, Kernel, Label, Loop, Op, Span, Stmt, StmtKind};
use autosync_oracle::tree::{candidate_positions, for_each_stmt, insert_barriers, Position};
use std::path::{Path, PathBuf};

/// Lowers `src` from a file in a fresh temp dir (kept alive by the returned guard).
fn lower_unit(src: &str) -> (tempfile::TempDir, SourceUnit) {
    lower_unit_near(src, None)
}

/// Like [`lower_unit`], finding `#include "..."` files in `include_dir`.
fn lower_unit_near(src: &str, include_dir: Option<&Path>) -> (tempfile::TempDir, SourceUnit) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("k.cu");
    std::fs::write(&path, src).expect("write");
    let opts = FrontOptions {
        include_dirs: include_dir.map(Path::to_path_buf).into_iter().collect(),
        ..FrontOptions::default()
    };
    let unit = load(&path, &opts).unwrap_or_else(|e| panic!("front end rejected the test source: {e:?}\n{src}"));
    (dir, unit)
}

fn lower(src: &str) -> Kernel {
    let (_dir, unit) = lower_unit(src);
    unit.kernels.into_iter().next().expect("a kernel")
}

/// The statement with a barrier position whose source text starts with `needle`.
fn stmt(k: &Kernel, src: &str, needle: &str) -> Label {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if found.is_none() && s.emit_after && s.span.file.0 == 0 && src[s.span.lo as usize..].starts_with(needle) {
            found = Some(s.label);
        }
    });
    found.unwrap_or_else(|| panic!("no statement starting with `{needle}`"))
}

/// The blocks (then, else or body) owned by the statement starting with `needle`.
fn blocks_of(k: &Kernel, src: &str, needle: &str) -> Vec<Label> {
    let l = stmt(k, src, needle);
    let mut out = Vec::new();
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if s.label == l {
            match &s.kind {
                StmtKind::If { then_blk, else_blk, .. } => out.extend([then_blk.label, else_blk.label]),
                StmtKind::Loop(Loop { body, .. }) => out.push(body.label),
                _ => {}
            }
        }
    });
    out
}

fn sync(pos: Position) -> Insertion {
    Insertion {
        pos,
        text: BarrierText::SyncThreads,
        comment: None,
    }
}

fn fixed(k: &Kernel, src: &str, inserts: &[Insertion]) -> String {
    let fix = plan(k, src, inserts).unwrap_or_else(|e| panic!("plan failed: {e}"));
    apply(src, &fix)
}

/// A shape of the kernel body that ignores labels, spans and expressions but shows where
/// barriers are: two kernels with equal skeletons have their barriers at the same places.
fn skeleton(b: &Block) -> String {
    fn stmt(s: &Stmt, out: &mut String) {
        match &s.kind {
            StmtKind::Basic(_) => out.push_str("b "),
            StmtKind::If { then_blk, else_blk, .. } => {
                out.push_str("if");
                block(then_blk, out);
                block(else_blk, out);
            }
            StmtKind::Loop(Loop { body, .. }) => {
                out.push_str("loop");
                block(body, out);
            }
            StmtKind::Break => out.push_str("break "),
            StmtKind::Continue => out.push_str("continue "),
            StmtKind::Return => out.push_str("return "),
            StmtKind::Barrier(Barrier::Block, _) => out.push_str("SYNC "),
            StmtKind::Barrier(..) => out.push_str("bar "),
            StmtKind::Assume(_) => out.push_str("assume "),
        }
    }
    fn block(b: &Block, out: &mut String) {
        out.push('{');
        b.stmts.iter().for_each(|s| stmt(s, out));
        out.push_str("} ");
    }
    let mut out = String::new();
    block(b, &mut out);
    out
}

/// Re-lowers emitted text and checks that the barriers sit where the IR put them.
fn assert_relowers_like(k: &Kernel, out: &str, positions: &[Position]) {
    assert_relowers_near(k, out, positions, None)
}

/// Like [`assert_relowers_like`] for a file whose includes live in `include_dir`.
fn assert_relowers_near(k: &Kernel, out: &str, positions: &[Position], include_dir: Option<&Path>) {
    let (_dir, unit) = lower_unit_near(out, include_dir);
    let again = unit.kernels.iter().find(|x| x.name == k.name).expect("kernel survives");
    let inserts: Vec<_> = positions.iter().map(|p| (*p, Barrier::Block)).collect();
    let (expected, _) = insert_barriers(k, &inserts).expect("positions exist");
    assert_eq!(
        skeleton(&again.body),
        skeleton(&expected.body),
        "barriers moved in:\n{out}"
    );
}

const SIMPLE: &str = "__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[63 - t];
}
";

#[test]
fn after_a_simple_statement() {
    let k = lower(SIMPLE);
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    let out = fixed(&k, SIMPLE, &[sync(Position::After(l))]);
    assert_eq!(
        out,
        SIMPLE.replace("    s[t] = in[t];\n", "    s[t] = in[t];\n    __syncthreads();\n")
    );
    assert_relowers_like(&k, &out, &[Position::After(l)]);
}

#[test]
fn no_insertions_no_edits() {
    let k = lower(SIMPLE);
    let fix = plan(&k, SIMPLE, &[]).expect("plan");
    assert!(fix.is_empty());
    assert_eq!(apply(SIMPLE, &fix), SIMPLE);
}

#[test]
fn after_an_if_block_closing_brace() {
    let src = "__global__ void k(float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = 1.0f;
    }
    out[t] = s[63 - t];
}
";
    let k = lower(src);
    let l = stmt(&k, src, "if (t < 32)");
    let out = fixed(&k, src, &[sync(Position::After(l))]);
    assert_eq!(out, src.replace("    }\n", "    }\n    __syncthreads();\n"));
    assert_relowers_like(&k, &out, &[Position::After(l)]);
}

#[test]
fn block_start_of_a_loop_body() {
    let src = "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    for (int i = 0; i < n; i++) {
      s[t] = out[i];
      out[i] = s[(t + 1) % 64];
    }
}
";
    let k = lower(src);
    let body = blocks_of(&k, src, "for")[0];
    let out = fixed(&k, src, &[sync(Position::BlockStart(body))]);
    // The new line copies the first statement's (unusual) indentation.
    assert_eq!(out, src.replace("i++) {\n", "i++) {\n      __syncthreads();\n"));
    assert_relowers_like(&k, &out, &[Position::BlockStart(body)]);
}

#[test]
fn block_start_of_the_kernel_body_and_empty_block() {
    let src = "__global__ void k(float *out)
{
  if (threadIdx.x < 32) {}
  out[threadIdx.x] = 0.0f;
}
";
    let k = lower(src);
    let then = blocks_of(&k, src, "if")[0];
    let inserts = [
        sync(Position::BlockStart(k.body.label)),
        sync(Position::BlockStart(then)),
    ];
    let out = fixed(&k, src, &inserts);
    assert_eq!(
        out,
        "__global__ void k(float *out)
{
  __syncthreads();
  if (threadIdx.x < 32) {
    __syncthreads();
  }
  out[threadIdx.x] = 0.0f;
}
"
    );
    let positions: Vec<_> = inserts.iter().map(|i| i.pos).collect();
    assert_relowers_like(&k, &out, &positions);
}

#[test]
fn braceless_for_body_gets_braces() {
    let src = "__global__ void k(float *out, int n)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    for (int i = 0; i < n; i++)
        s[(i % 2) * 64 + t] = s[((i + 1) % 2) * 64 + (t + 1) % 64];
    out[t] = s[t];
}
";
    let k = lower(src);
    let l = stmt(&k, src, "s[(i % 2)");
    let out = fixed(&k, src, &[sync(Position::After(l))]);
    assert_eq!(
        out,
        "__global__ void k(float *out, int n)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    for (int i = 0; i < n; i++) {
        s[(i % 2) * 64 + t] = s[((i + 1) % 2) * 64 + (t + 1) % 64];
        __syncthreads();
    }
    out[t] = s[t];
}
"
    );
    assert_relowers_like(&k, &out, &[Position::After(l)]);
}

#[test]
fn several_barriers_in_one_braceless_body_make_one_edit() {
    let src = "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    for (int i = 0; i < n; i++)
        s[threadIdx.x] = s[(threadIdx.x + i) % 64];
}
";
    let k = lower(src);
    let body = blocks_of(&k, src, "for")[0];
    let l = stmt(&k, src, "s[threadIdx.x] =");
    let inserts = [
        sync(Position::BlockStart(body)),
        sync(Position::After(l)),
        sync(Position::After(l)),
    ];
    let fix = plan(&k, src, &inserts).expect("plan");
    assert_eq!(fix.edits.len(), 1, "{fix:?}");
    let out = apply(src, &fix);
    assert_eq!(
        out,
        "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    for (int i = 0; i < n; i++) {
        __syncthreads();
        s[threadIdx.x] = s[(threadIdx.x + i) % 64];
        __syncthreads();
        __syncthreads();
    }
}
"
    );
    let positions: Vec<_> = inserts.iter().map(|i| i.pos).collect();
    assert_relowers_like(&k, &out, &positions);
}

#[test]
fn one_line_if_gets_braces() {
    let src = "__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 32) s[t + 32] = s[t] + 1.0f;
    out[t] = s[t];
}
";
    let k = lower(src);
    let then = blocks_of(&k, src, "if")[0];
    let l = stmt(&k, src, "s[t + 32]");
    let inserts = [sync(Position::BlockStart(then)), sync(Position::After(l))];
    let fix = plan(&k, src, &inserts).expect("plan");
    assert_eq!(fix.edits.len(), 1);
    let out = apply(src, &fix);
    assert_eq!(
        out,
        src.replace(
            "    if (t < 32) s[t + 32] = s[t] + 1.0f;\n",
            "    if (t < 32) {
        __syncthreads();
        s[t + 32] = s[t] + 1.0f;
        __syncthreads();
    }
"
        )
    );
    let positions: Vec<_> = inserts.iter().map(|i| i.pos).collect();
    assert_relowers_like(&k, &out, &positions);
}

#[test]
fn else_without_braces() {
    let src = "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (n > 1) {
        s[t] = 1.0f;
    } else
        s[t] = 2.0f;
    if (n > 2) s[t] = 3.0f; else s[t] = 4.0f;
    out[t] = s[63 - t];
}
";
    let k = lower(src);
    let else1 = blocks_of(&k, src, "if (n > 1)")[1];
    let then2 = blocks_of(&k, src, "if (n > 2)")[0];
    let else2 = blocks_of(&k, src, "if (n > 2)")[1];
    let inserts = [
        sync(Position::BlockStart(else1)),
        sync(Position::BlockStart(then2)),
        sync(Position::BlockStart(else2)),
    ];
    let out = fixed(&k, src, &inserts);
    assert_eq!(
        out,
        "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (n > 1) {
        s[t] = 1.0f;
    } else {
        __syncthreads();
        s[t] = 2.0f;
    }
    if (n > 2) {
        __syncthreads();
        s[t] = 3.0f;
    } else {
        __syncthreads();
        s[t] = 4.0f;
    }
    out[t] = s[63 - t];
}
"
    );
    let positions: Vec<_> = inserts.iter().map(|i| i.pos).collect();
    assert_relowers_like(&k, &out, &positions);
}

#[test]
fn nested_braceless_bodies_and_the_statement_after_them() {
    let src = "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    for (int i = 0; i < n; i++)
        if (threadIdx.x < i)
            s[threadIdx.x] = s[threadIdx.x + 1];
    out[threadIdx.x] = s[0];
}
";
    let k = lower(src);
    let body = blocks_of(&k, src, "for")[0];
    let then = blocks_of(&k, src, "if")[0];
    let l = stmt(&k, src, "s[threadIdx.x] =");
    let iff = stmt(&k, src, "if");
    let lfor = stmt(&k, src, "for");
    let inserts = [
        sync(Position::After(lfor)),
        sync(Position::After(iff)),
        sync(Position::BlockStart(then)),
        sync(Position::After(l)),
        sync(Position::BlockStart(body)),
    ];
    let fix = plan(&k, src, &inserts).expect("plan");
    let out = apply(src, &fix);
    assert_eq!(
        out,
        "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    for (int i = 0; i < n; i++) {
        __syncthreads();
        if (threadIdx.x < i) {
            __syncthreads();
            s[threadIdx.x] = s[threadIdx.x + 1];
            __syncthreads();
        }
        __syncthreads();
    }
    __syncthreads();
    out[threadIdx.x] = s[0];
}
"
    );
    let positions: Vec<_> = inserts.iter().map(|i| i.pos).collect();
    assert_relowers_like(&k, &out, &positions);
}

#[test]
fn header_comment_puts_the_brace_on_its_own_line() {
    let src = "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    for (int i = 0; i < n; i++) // countdown
        s[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
";
    let k = lower(src);
    let l = stmt(&k, src, "s[threadIdx.x]");
    let out = fixed(&k, src, &[sync(Position::After(l))]);
    assert_eq!(
        out,
        "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    for (int i = 0; i < n; i++) // countdown
    {
        s[threadIdx.x] = s[(threadIdx.x + 1) % 64];
        __syncthreads();
    }
}
"
    );
    assert_relowers_like(&k, &out, &[Position::After(l)]);
}

#[test]
fn do_while_switch_and_else_if() {
    let src = "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    do s[t] = s[(t + 1) % 64]; while (--n > 0);
    switch (n) {
    case 0: s[t] = 1.0f; break;
    default:
        s[t] = 2.0f;
        break;
    }
    if (n == 1) s[t] = 3.0f;
    else if (n == 2) s[t] = 4.0f;
    out[t] = s[63 - t];
}
";
    let k = lower(src);
    let body = blocks_of(&k, src, "do")[0];
    let else1 = blocks_of(&k, src, "if (n == 1)")[1];
    let inserts = [
        sync(Position::BlockStart(body)),
        sync(Position::After(stmt(&k, src, "s[t] = 1.0f"))),
        sync(Position::After(stmt(&k, src, "s[t] = 2.0f"))),
        sync(Position::BlockStart(else1)),
    ];
    let out = fixed(&k, src, &inserts);
    assert_eq!(
        out,
        "__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    do {
        __syncthreads();
        s[t] = s[(t + 1) % 64];
    } while (--n > 0);
    switch (n) {
    case 0: s[t] = 1.0f;
        __syncthreads();
        break;
    default:
        s[t] = 2.0f;
        __syncthreads();
        break;
    }
    if (n == 1) s[t] = 3.0f;
    else {
        __syncthreads();
        if (n == 2) s[t] = 4.0f;
    }
    out[t] = s[63 - t];
}
"
    );
    let positions: Vec<_> = inserts.iter().map(|i| i.pos).collect();
    assert_relowers_like(&k, &out, &positions);
}

#[test]
fn crlf_file_keeps_crlf() {
    let src = SIMPLE.replace('\n', "\r\n");
    let k = lower(&src);
    let l = stmt(&k, &src, "s[t] = in[t]");
    let fix = plan(&k, &src, &[sync(Position::After(l))]).expect("plan");
    let out = apply(&src, &fix);
    assert_eq!(
        out,
        src.replace("    s[t] = in[t];\r\n", "    s[t] = in[t];\r\n    __syncthreads();\r\n")
    );
    assert!(out.match_indices('\n').all(|(i, _)| &out[i - 1..i] == "\r"));
    assert_eq!(fix.edits.len(), 1);
    assert_eq!(fix.edits[0].delete, 0, "no original byte is replaced");
}

#[test]
fn tabs_are_copied() {
    let src = "__global__ void k(const float *in, float *out, int n)\n{\n\t__shared__ float s[64];\n\tint t = threadIdx.x;\n\tfor (int i = 0; i < n; i++) {\n\t\ts[t] = in[i * 64 + t];\n\t\tout[i * 64 + t] = s[(t + 1) % 64];\n\t}\n\tif (t < n)\n\t\ts[t] = 0.0f;\n}\n";
    let k = lower(src);
    let l = stmt(&k, src, "s[t] = in");
    let then = blocks_of(&k, src, "if (t < n)")[0];
    let inserts = [sync(Position::After(l)), sync(Position::BlockStart(then))];
    let out = fixed(&k, src, &inserts);
    assert_eq!(
        out,
        "__global__ void k(const float *in, float *out, int n)\n{\n\t__shared__ float s[64];\n\tint t = threadIdx.x;\n\tfor (int i = 0; i < n; i++) {\n\t\ts[t] = in[i * 64 + t];\n\t\t__syncthreads();\n\t\tout[i * 64 + t] = s[(t + 1) % 64];\n\t}\n\tif (t < n) {\n\t\t__syncthreads();\n\t\ts[t] = 0.0f;\n\t}\n}\n"
    );
}

#[test]
fn indentation_unit_is_detected_for_one_line_bodies() {
    let src = "__global__ void k(float *out)\n{\n  __shared__ float s[64];\n  if (threadIdx.x < 32) {\n    s[threadIdx.x] = 1.0f;\n  }\n  if (threadIdx.x > 3) s[threadIdx.x] = 2.0f;\n}\n";
    let k = lower(src);
    let then = blocks_of(&k, src, "if (threadIdx.x > 3)")[0];
    let out = fixed(&k, src, &[sync(Position::BlockStart(then))]);
    assert!(
        out.contains("  if (threadIdx.x > 3) {\n    __syncthreads();\n    s[threadIdx.x] = 2.0f;\n  }\n"),
        "{out}"
    );
}

#[test]
fn trailing_comment_stays_on_its_line() {
    let src = "__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];   // stage  
    out[t] = s[63 - t]; /* one */ /* two */
}
";
    let k = lower(src);
    let a = stmt(&k, src, "s[t] = in[t]");
    let b = stmt(&k, src, "out[t] =");
    let out = fixed(&k, src, &[sync(Position::After(a)), sync(Position::After(b))]);
    assert_eq!(
        out,
        "__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];   // stage  
    __syncthreads();
    out[t] = s[63 - t]; /* one */ /* two */
    __syncthreads();
}
"
    );
}

#[test]
fn code_on_the_same_line_is_broken_onto_a_new_line() {
    let src = "__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];  out[t] = s[63 - t];
    if (t < 2) { s[t] = 0.0f; }
    if (t < 3) s[t] = 1.0f; out[t] = 2.0f;
}
";
    let k = lower(src);
    let a = stmt(&k, src, "s[t] = in[t]");
    let b = stmt(&k, src, "s[t] = 0.0f");
    let c = stmt(&k, src, "s[t] = 1.0f");
    let inserts = [
        sync(Position::After(a)),
        sync(Position::After(b)),
        sync(Position::After(c)),
    ];
    let out = fixed(&k, src, &inserts);
    assert_eq!(
        out,
        "__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[63 - t];
    if (t < 2) { s[t] = 0.0f;
        __syncthreads();
    }
    if (t < 3) {
        s[t] = 1.0f;
        __syncthreads();
    }
    out[t] = 2.0f;
}
"
    );
    let positions: Vec<_> = inserts.iter().map(|i| i.pos).collect();
    assert_relowers_like(&k, &out, &positions);
}

#[test]
fn missing_final_newline_stays_missing() {
    let src = SIMPLE.trim_end();
    let k = lower(src);
    let l = stmt(&k, src, "out[t] =");
    let out = fixed(&k, src, &[sync(Position::After(l))]);
    assert!(out.ends_with("    __syncthreads();\n}"), "{out}");
    assert!(!out.ends_with('\n'));
}

#[test]
fn two_insertions_at_one_position_keep_their_order() {
    let k = lower(SIMPLE);
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    let named = "asm volatile(\"bar.sync %0, %1;\" :: \"r\"(1), \"r\"(64) : \"memory\");";
    let inserts = [
        sync(Position::After(l)),
        Insertion {
            pos: Position::After(l),
            text: BarrierText::Custom(named.to_string()),
            comment: Some("orders s[t] = in[t] before out[t] = s[63 - t]".into()),
        },
    ];
    let out = fixed(&k, SIMPLE, &inserts);
    let expected = format!(
        "    s[t] = in[t];\n    __syncthreads();\n    {named} // orders s[t] = in[t] before out[t] = s[63 - t]\n    out[t]"
    );
    assert!(out.contains(&expected), "{out}");
    let (_d, unit) = lower_unit(&out);
    assert_eq!(unit.kernels.len(), 1);
}

#[test]
fn annotation_comment_is_one_line() {
    let k = lower(SIMPLE);
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    let ins = Insertion {
        pos: Position::After(l),
        text: BarrierText::SyncThreads,
        comment: Some("race on s\nbetween lines 5 and 6".into()),
    };
    let out = fixed(&k, SIMPLE, &[ins]);
    assert!(out.contains("    __syncthreads(); // race on s between lines 5 and 6\n"));
}

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

#[test]
fn apply_skips_invalid_edits() {
    let fix = Fix {
        edits: vec![
            Edit {
                offset: 1,
                delete: 1,
                insert: "X".into(),
            },
            Edit {
                offset: 1,
                delete: 0,
                insert: "overlap".into(),
            },
            Edit {
                offset: 99,
                delete: 0,
                insert: "out of range".into(),
            },
        ],
    };
    assert_eq!(apply("abc", &fix), "aXc");
}

#[test]
fn diff_has_headers_and_context() {
    let k = lower(SIMPLE);
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    let out = fixed(&k, SIMPLE, &[sync(Position::After(l))]);
    let d = unified_diff(std::path::Path::new("k.cu"), SIMPLE, &out);
    assert!(d.starts_with("--- a/k.cu\n+++ b/k.cu\n@@ "), "{d}");
    assert!(d.contains("\n+    __syncthreads();\n"));
    assert_eq!(unified_diff(std::path::Path::new("k.cu"), SIMPLE, SIMPLE), "");
}

#[cfg(unix)]
#[test]
fn write_atomic_keeps_permissions_and_links() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("k.cu");
    std::fs::write(&p, "old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o751)).unwrap();
    write_atomic(&p, "new text").unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "new text");
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o751);
    let link = dir.path().join("link.cu");
    std::os::unix::fs::symlink(&p, &link).unwrap();
    write_atomic(&link, "via link").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "via link");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    assert!(write_atomic(&dir.path().join("missing/k.cu"), "x").is_err());
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every `.cu` file of the corpus that the front end accepts with default options.
fn corpus_units() -> Vec<(PathBuf, SourceUnit)> {
    let mut files = Vec::new();
    for group in std::fs::read_dir(corpus_dir()).expect("corpus dir") {
        let group = group.expect("entry").path();
        if !group.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&group).expect("group dir") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "cu") {
                files.push(f);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|f| {
            let u = load(&f, &FrontOptions::default()).ok()?;
            Some((f, u))
        })
        .collect()
}

/// The property behind `fix` idempotence: a barrier at any candidate position, or at all of
/// them at once, gives text that re-lowers to the kernel with the barrier at that position.
#[test]
fn every_candidate_position_of_the_corpus_relowers() {
    let units = corpus_units();
    assert!(units.len() >= 20, "only {} corpus files load", units.len());
    let mut checked = 0;
    for (path, unit) in &units {
        let src = &unit.texts[0];
        for k in &unit.kernels {
            let positions = candidate_positions(k);
            for &p in &positions {
                let fix = plan(k, src, &[sync(p)]).unwrap_or_else(|e| panic!("{}: {p:?}: {e}", path.display()));
                assert_relowers_near(k, &apply(src, &fix), &[p], path.parent());
                checked += 1;
            }
            let all: Vec<_> = positions.iter().map(|p| sync(*p)).collect();
            let fix = plan(k, src, &all).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_keeps_code(src, &fix);
            let out = apply(src, &fix);
            assert_relowers_near(k, &out, &positions, path.parent());
            // The fixed text needs nothing more: planning nothing on it changes nothing.
            let (_d, again) = lower_unit_near(&out, path.parent());
            assert!(plan(&again.kernels[0], &out, &[]).unwrap().is_empty());
        }
    }
    assert!(checked > 200, "only {checked} positions checked");
}

/// Every edit keeps the code it replaces: the non-blank bytes it deletes reappear, in order,
/// in what it inserts (only whitespace is ever dropped).
fn assert_keeps_code(src: &str, fix: &Fix) {
    for e in &fix.edits {
        let deleted = src[e.offset..e.offset + e.delete]
            .chars()
            .filter(|c| !c.is_whitespace());
        let mut inserted = e.insert.chars();
        for c in deleted {
            assert!(inserted.any(|x| x == c), "edit {e:?} drops `{c}`");
        }
    }
}

/// The corpus property on the file converted to CRLF: every inserted line ends in `\r\n`.
#[test]
fn corpus_in_crlf_gets_only_crlf_lines() {
    for (path, unit) in corpus_units() {
        let crlf = unit.texts[0].replace("\r\n", "\n").replace('\n', "\r\n");
        let (_d, unit) = lower_unit_near(&crlf, path.parent());
        for k in &unit.kernels {
            let positions = candidate_positions(k);
            let all: Vec<_> = positions.iter().map(|p| sync(*p)).collect();
            let fix = plan(k, &crlf, &all).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_keeps_code(&crlf, &fix);
            let out = apply(&crlf, &fix);
            assert!(
                out.match_indices('\n').all(|(i, _)| i > 0 && &out[i - 1..i] == "\r"),
                "{}: a line without CR",
                path.display()
            );
            assert_relowers_near(k, &out, &positions, path.parent());
        }
    }
}

/// Which candidate a snapshot test inserts at.
enum Pick {
    /// The first statement position after a statement that writes memory.
    AfterFirstWrite,
    /// The first block-start position that follows a writing statement.
    BlockStartAfterWrite,
}

fn writes(k: &Kernel, l: Label) -> bool {
    let mut w = false;
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if s.label == l {
            if let StmtKind::Basic(ops) = &s.kind {
                w = ops.iter().any(|o| matches!(o, Op::Write(..) | Op::Atomic(..)));
            }
        }
    });
    w
}

fn pick(k: &Kernel, how: Pick) -> Position {
    let cands = candidate_positions(k);
    let first_write = cands
        .iter()
        .position(|p| matches!(p, Position::After(l) if writes(k, *l)))
        .expect("a writing statement");
    match how {
        Pick::AfterFirstWrite => cands[first_write],
        Pick::BlockStartAfterWrite => *cands[first_write..]
            .iter()
            .find(|p| matches!(p, Position::BlockStart(_)))
            .expect("a block start after the write"),
    }
}

fn corpus_diff(rel: &str, how: Pick) -> String {
    let path = corpus_dir().join(rel);
    let unit = load(&path, &FrontOptions::default()).expect("corpus file loads");
    let src = &unit.texts[0];
    let k = &unit.kernels[0];
    let pos = pick(k, how);
    let fix = plan(k, src, &[sync(pos)]).expect("plan");
    let out = apply(src, &fix);
    assert_relowers_like(k, &out, &[pos]);
    // Snapshots normalize line endings; spell out `\r` so the CRLF case stays visible.
    unified_diff(std::path::Path::new(&format!("corpus/{rel}")), src, &out).replace('\r', "\\r")
}

#[test]
fn snapshot_braceless_for() {
    insta::assert_snapshot!(corpus_diff("regress/braceless_for.cu", Pick::AfterFirstWrite));
}

#[test]
fn snapshot_braceless_if() {
    insta::assert_snapshot!(corpus_diff("regress/braceless_if.cu", Pick::BlockStartAfterWrite));
}

#[test]
fn snapshot_one_line_if() {
    insta::assert_snapshot!(corpus_diff("regress/one_line_if.cu", Pick::BlockStartAfterWrite));
}

#[test]
fn snapshot_comments_blank() {
    insta::assert_snapshot!(corpus_diff("regress/comments_blank.cu", Pick::AfterFirstWrite));
}

#[test]
fn snapshot_crlf() {
    insta::assert_snapshot!(corpus_diff("regress/crlf.cu", Pick::AfterFirstWrite));
}

#[test]
fn snapshot_tabs() {
    insta::assert_snapshot!(corpus_diff("regress/tabs.cu", Pick::AfterFirstWrite));
}

#[test]
fn snapshot_loop_inter() {
    insta::assert_snapshot!(corpus_diff("micro/loop_inter.cu", Pick::AfterFirstWrite));
}

#[test]
fn snapshot_reduce_tree() {
    insta::assert_snapshot!(corpus_diff("sdk/reduce_tree.cu", Pick::BlockStartAfterWrite));
}
