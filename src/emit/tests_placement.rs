//! Where emission puts a barrier and how it writes it: after statements and blocks, at block
//! starts, braces for brace-less bodies, the file's line endings, indentation and comments.

use super::tests::*;
use super::*;
use autosync_oracle::tree::Position;

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
