//! Tests of the preprocessor: macros, conditionals, includes, errors and the position map.

use std::path::{Path, PathBuf};

use autosync_oracle::ir::{FileId, Span};
use proptest::prelude::*;

use super::{preprocess, PpError, PpOptions, Preprocessed};

fn pp(src: &str) -> Preprocessed {
    pp_with(src, &PpOptions::default())
}

fn pp_with(src: &str, opts: &PpOptions) -> Preprocessed {
    preprocess(Path::new("main.cu"), src, opts).unwrap_or_else(|e| panic!("unexpected error: {e:?}"))
}

fn pp_err(src: &str) -> PpError {
    match preprocess(Path::new("main.cu"), src, &PpOptions::default()) {
        Ok(p) => panic!("expected an error, got {:?}", p.text),
        Err(e) => e,
    }
}

/// Output text with runs of whitespace collapsed, for tests about tokens rather than layout.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn offset_of(hay: &str, needle: &str) -> usize {
    hay.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {hay:?}"))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn pp_file(path: &Path, opts: &PpOptions) -> Result<Preprocessed, PpError> {
    let text = std::fs::read_to_string(path).unwrap();
    preprocess(path, &text, opts)
}

#[test]
fn object_like_macro_expands_and_directive_becomes_blank_line() {
    let p = pp("#define N 256\nint a[N];\n");
    assert_eq!(p.text, "\nint a[256];\n");
}

#[test]
fn function_like_macro_substitutes_arguments() {
    let p = pp("#define MAX(a,b) ((a)>(b)?(a):(b))\nint x = MAX(p, q+1);\n");
    assert_eq!(p.text, "\nint x = ((p)>(q+1)?(p):(q+1));\n");
}

#[test]
fn function_like_macro_name_without_parens_is_not_expanded() {
    let p = pp("#define F(x) x\nint F; F (2)\n");
    assert_eq!(p.text, "\nint F; 2\n");
}

#[test]
fn stringizing_and_pasting() {
    let p = pp("#define S(x) #x\n#define CAT(a,b) a##b\nS(a  +  b) S(\"q\\n\") CAT(foo, bar) CAT(x, 1) CAT(,y)\n");
    assert_eq!(squash(&p.text), r#""a + b" "\"q\\n\"" foobar x1 y"#);
}

#[test]
fn pasted_identifier_is_rescanned() {
    let p = pp("#define CAT(a,b) a##b\n#define xy 42\nCAT(x, y)\n");
    assert_eq!(squash(&p.text), "42");
}

#[test]
fn variadic_macros() {
    let p = pp(concat!(
        "#define F(fmt, ...) g(fmt, __VA_ARGS__)\n",
        "#define L(fmt, ...) p(fmt, ## __VA_ARGS__)\n",
        "#define O(x, ...) q(x __VA_OPT__(,) __VA_ARGS__)\n",
        "#define N(args...) r(args)\n",
        "F(1, 2, (3, 4)) L(1) L(1, 2) O(a) O(a, b) N(5, 6)\n"
    ));
    assert_eq!(squash(&p.text), "g(1, 2, (3, 4)) p(1) p(1, 2) q(a) q(a, b) r(5, 6)");
}

#[test]
fn nested_expansion_and_arguments_are_expanded_first() {
    let p = pp("#define A B\n#define B 3\n#define SQ(x) ((x)*(x))\nA SQ(A) SQ(SQ(2))\n");
    assert_eq!(squash(&p.text), "3 ((3)*(3)) ((((2)*(2)))*(((2)*(2))))");
}

#[test]
fn painted_blue_macros_are_not_reexpanded() {
    assert_eq!(squash(&pp("#define X X\nX\n").text), "X");
    assert_eq!(squash(&pp("#define A B\n#define B A\nA B\n").text), "A B");
    assert_eq!(squash(&pp("#define f(x) x+f(x)\nf(1)\n").text), "1+f(1)");
    // The C standard's example: `f(2)(9)` where `g` expands to `f`.
    let p = pp("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)\n");
    assert_eq!(squash(&p.text), "2*9*g");
}

/// Output with all whitespace removed, for comparing against hand-derived expansions.
fn dense(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn c_standard_example_3_expands_as_specified() {
    let src = r#"#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
"#;
    let want = r#"f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { "hello", "" };"#;
    assert_eq!(dense(&pp(src).text), dense(want));
}

#[test]
fn c_standard_example_4_stringizing_and_pasting() {
    let src = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
"#;
    let p = pp(src);
    // The multi-line call keeps its line ending (after its expansion), so compare squashed text.
    let text = squash(&p.text);
    assert!(
        text.contains(r#"printf("x" "1" "= %d, x" "2" "= %s", x1, x2);"#),
        "{text}"
    );
    assert!(
        text.contains(r#"fputs("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0" ": @\n", s);"#),
        "{text}"
    );
    assert!(text.contains(r#""vers2.h""#), "{text}");
    assert!(text.contains(r#""hello";"#), "{text}");
    assert!(text.contains(r#""hello" ", world""#), "{text}");
    assert_eq!(p.text.matches('\n').count(), src.matches('\n').count());
}

#[test]
fn runaway_exponential_expansion_is_an_error_not_a_hang() {
    let mut src = String::from("#define A0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    src.push_str("int y = A39;\n");
    let e = pp_err(&src);
    assert!(e.message.contains("`A39`"), "{}", e.message);
    let use_at = offset_of(&src, "A39;") as u32;
    assert_eq!(e.span, Span::new(FileId(0), use_at, use_at + 3));
}

#[test]
fn deeply_nested_macro_arguments_are_an_error_not_a_stack_overflow() {
    let depth = 5000;
    let src = format!("#define F(x) x\n{}1{}\n", "F(".repeat(depth), ")".repeat(depth));
    let e = pp_err(&src);
    assert!(e.message.contains("nested"), "{}", e.message);
}

#[test]
fn comments_and_literals_are_not_expanded() {
    let src = "#define N 4\n/* N */ \"N\" 'N' // N\nN\n";
    assert_eq!(pp(src).text, "\n/* N */ \"N\" 'N' // N\n4\n");
}

#[test]
fn expansion_does_not_glue_tokens() {
    let p = pp("#define NEG -1\n#define ID(x) x\nint a = -NEG; int b = ID(a)ID(b);\n");
    assert_eq!(p.text, "\n\nint a = - -1; int b = a b;\n");
}

#[test]
fn builtin_line_and_file() {
    let p = pp("\n\nint l = __LINE__; const char *f = __FILE__;\n");
    assert_eq!(p.text, "\n\nint l = 3; const char *f = \"main.cu\";\n");
}

#[test]
fn multi_line_macro_call_keeps_line_count() {
    let src = "#define ADD(a, b) a + b\nint x = ADD(1,\n  2);\nint y;\n";
    let p = pp(src);
    assert_eq!(p.text.lines().count(), src.lines().count());
    assert_eq!(p.text, "\nint x = 1 + 2\n;\nint y;\n");
}

#[test]
fn line_continuation_in_define() {
    let src = "#define SUM(a, b) \\\n  ((a) + \\\n   (b))\nint x = SUM(1, 2);\n";
    let p = pp(src);
    assert_eq!(p.text, "\n\n\nint x = ((1) + (2));\n");
}

#[test]
fn undef_removes_a_macro() {
    let p = pp("#define N 1\nN\n#undef N\nN\n");
    assert_eq!(p.text, "\n1\n\nN\n");
}

#[test]
fn conditionals_with_elif_chains_and_nesting() {
    let src = concat!(
        "#define V 2\n",
        "#if V == 1\none\n#elif V == 2\ntwo\n#elif V == 2\ntwo_again\n#else\nother\n#endif\n",
        "#ifdef V\n#  ifndef W\nnested\n#  else\nnot_this\n#  endif\n#else\n#if 1\nnor_this\n#endif\n#endif\n",
        "#if 0\n#if garbage (\n#error never\n#endif\n#elif defined V && (V > 1 || 1/0)\ntaken\n#endif\n",
    );
    let p = pp(src);
    assert_eq!(squash(&p.text), "two nested taken");
    assert_eq!(p.text.lines().count(), src.lines().count());
}

#[test]
fn if_expressions_cover_the_operators() {
    let cases = [
        ("1 + 2 * 3 == 7", true),
        ("(1 + 2) * 3 == 9", true),
        ("-1 < 0 && !0 && ~0 == -1", true),
        ("(7 & 3) == 3 && (4 | 1) == 5 && (6 ^ 3) == 5", true),
        ("1 << 4 == 16 && 256 >> 4 == 16", true),
        ("10 / 3 == 3 && 10 % 3 == 1", true),
        ("1 ? 2 : 3 == 2", true),
        ("0 ? 1 : 0", false),
        ("UNDEFINED_THING", false),
        ("defined(N) && defined N && !defined(M)", true),
        (
            "0x10 == 16 && 010 == 8 && 0b11 == 3 && 1000000000000ULL > 1 && 1'000 == 1000",
            true,
        ),
        ("'A' == 65 && '\\n' == 10 && '\\x41' == 65 && '\\101' == 65", true),
        ("N >= 4 && true && !false", true),
        ("1 > 2 || 2 >= 2 && 3 <= 2", false),
        ("0 && (1 / 0)", false),
        ("1 || (1 % 0)", true),
    ];
    for (expr, expected) in cases {
        let src = format!("#define N 4\n#if {expr}\nyes\n#else\nno\n#endif\n");
        let want = if expected { "yes" } else { "no" };
        assert_eq!(squash(&pp(&src).text), want, "#if {expr}");
    }
}

#[test]
fn if_expression_errors_carry_the_directive_span() {
    let src = "int a;\n#if 1 +\n#endif\n";
    let e = pp_err(src);
    let lo = offset_of(src, "#if") as u32;
    assert_eq!(e.span, Span::new(FileId(0), lo, lo + "#if 1 +".len() as u32));
    assert!(e.message.contains("#if"), "{}", e.message);
    assert!(pp_err("#if 1/0\n#endif\n").message.contains("division by zero"));
    assert!(pp_err("#if 1.5\n#endif\n").message.contains("integer"));
}

#[test]
fn unbalanced_conditionals_are_errors() {
    let e = pp_err("#ifdef X\nint a;\n");
    assert_eq!(e.span, Span::new(FileId(0), 0, 8));
    assert!(e.message.contains("#endif"));
    assert!(pp_err("#endif\n").message.contains("without"));
    assert!(pp_err("#else\n").message.contains("without"));
    assert!(pp_err("#if 1\n#else\n#else\n#endif\n").message.contains("second #else"));
    assert!(pp_err("#if 1\n#else\n#elif 1\n#endif\n")
        .message
        .contains("after #else"));
}

#[test]
fn error_directive_only_in_active_code() {
    let src = "int a;\n#ifdef CONFIGURED\n#error no config\n#endif\n#ifndef CONFIGURED\n#error set CONFIGURED please\n#endif\n";
    let e = pp_err(src);
    assert!(e.message.contains("set CONFIGURED please"), "{}", e.message);
    let lo = offset_of(src, "#error set") as u32;
    assert_eq!(
        e.span,
        Span::new(FileId(0), lo, lo + "#error set CONFIGURED please".len() as u32)
    );
}

#[test]
fn command_line_defines() {
    let opts = PpOptions {
        defines: vec![
            ("BLOCK".into(), Some("128".into())),
            ("USE_SHARED".into(), None),
            ("SQ(x)".into(), Some("((x)*(x))".into())),
        ],
        include_dirs: vec![],
    };
    let p = pp_with("#if USE_SHARED == 1\nint a[BLOCK]; int b = SQ(3);\n#endif\n", &opts);
    assert_eq!(squash(&p.text), "int a[128]; int b = ((3)*(3));");
    let bad = PpOptions {
        defines: vec![("1X".into(), None)],
        include_dirs: vec![],
    };
    let e = preprocess(Path::new("m.cu"), "", &bad).unwrap_err();
    assert!(e.message.contains("-D 1X"), "{}", e.message);
}

#[test]
fn predefined_cuda_macros() {
    let p = pp("#ifdef __CUDACC__\ncuda\n#endif\n#if __cplusplus >= 201103L\ncxx11\n#endif\n");
    assert_eq!(squash(&p.text), "cuda cxx11");
}

#[test]
fn pragmas_are_kept_verbatim_and_pragma_once_is_consumed() {
    let src = "#define N 4\n  #pragma unroll N\nfor(;;);\n#pragma once\n";
    let p = pp(src);
    assert_eq!(p.text, "\n  #pragma unroll N\nfor(;;);\n\n");
    let at = offset_of(&p.text, "#pragma");
    assert_eq!(p.origin(at), (FileId(0), offset_of(src, "#pragma") as u32));
}

#[test]
fn crlf_line_endings_are_preserved() {
    let src = "#define N 4\r\n#if 1\r\nint a[N];\r\n#else\r\nno\r\n#endif\r\nint b;\r\n";
    let p = pp(src);
    assert_eq!(p.text, "\r\n\r\nint a[4];\r\n\r\n\r\n\r\nint b;\r\n");
    let b = offset_of(&p.text, "int b");
    assert_eq!(p.origin(b), (FileId(0), offset_of(src, "int b") as u32));
}

#[test]
fn expanded_tokens_map_to_the_use_site() {
    let src = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define M MAX\nint x = MAX(p, q); int y = M(1, 2);\n";
    let p = pp(src);
    let use_lo = offset_of(src, "MAX(p") as u32;
    let use_hi = use_lo + "MAX(p, q)".len() as u32;
    let out_lo = offset_of(&p.text, "((p)");
    let out_hi = out_lo + "((p) > (q) ? (p) : (q))".len();
    assert_eq!(&p.text[out_lo..out_hi], "((p) > (q) ? (p) : (q))");
    for off in out_lo..out_hi {
        assert_eq!(p.origin(off), (FileId(0), use_lo), "offset {off}");
    }
    assert_eq!(p.origin_span(out_lo, out_hi), Span::new(FileId(0), use_lo, use_hi));
    // Verbatim text after the expansion maps 1:1 again.
    let semi = out_hi;
    assert_eq!(p.origin(semi), (FileId(0), use_hi));
    // Nested: `M` expands to `MAX`, whose call extends past `M`: the use site is all of `M(1, 2)`.
    let m_lo = offset_of(src, "M(1") as u32;
    let out = offset_of(&p.text, "((1)");
    let span = p.origin_span(out, out + "((1) > (2) ? (1) : (2))".len());
    assert_eq!(span, Span::new(FileId(0), m_lo, m_lo + "M(1, 2)".len() as u32));
    // A span partly in verbatim text and ending in an expansion ends at the end of the use.
    let int_x = offset_of(&p.text, "int x");
    assert_eq!(
        p.origin_span(int_x, out_lo + 1),
        Span::new(FileId(0), offset_of(src, "int x") as u32, use_hi)
    );
}

#[test]
fn include_of_a_local_header_and_mapping_across_it() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "defs.h",
        "#ifndef DEFS_H\n#define DEFS_H\n#define TILE 16\nint in_header;\n#endif\n",
    );
    let main = write(
        dir.path(),
        "k.cu",
        "#include \"defs.h\"\n#include \"defs.h\"\nint a[TILE];\n",
    );
    let p = pp_file(&main, &PpOptions::default()).unwrap();
    assert_eq!(squash(&p.text), "int in_header; int a[16];");
    assert_eq!(p.files.len(), 2);
    assert!(p.files[1].path.ends_with("defs.h"));
    assert_eq!(p.texts[1], std::fs::read_to_string(dir.path().join("defs.h")).unwrap());
    let h = offset_of(&p.text, "in_header");
    assert_eq!(p.origin(h), (FileId(1), offset_of(&p.texts[1], "in_header") as u32));
    let a = offset_of(&p.text, "int a");
    assert_eq!(p.origin(a), (FileId(0), offset_of(&p.texts[0], "int a") as u32));
    let sixteen = offset_of(&p.text, "16");
    let tile = offset_of(&p.texts[0], "TILE") as u32;
    assert_eq!(
        p.origin_span(sixteen, sixteen + 2),
        Span::new(FileId(0), tile, tile + 4)
    );
    // A range starting in the header and ending in the main file is clamped to the header.
    let span = p.origin_span(h, a + 3);
    assert_eq!(span.file, FileId(1));
    assert_eq!(span.lo, offset_of(&p.texts[1], "in_header") as u32);
    assert!(span.hi as usize <= p.texts[1].len() && span.hi > span.lo);
}

#[test]
fn include_dirs_and_pragma_once() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "inc/util.h", "#pragma once\nint util;\n");
    let main = write(
        dir.path(),
        "src/k.cu",
        "#include \"util.h\"\n#include \"util.h\"\nint k;\n",
    );
    let opts = PpOptions {
        defines: vec![],
        include_dirs: vec![dir.path().join("inc")],
    };
    let p = pp_file(&main, &opts).unwrap();
    assert_eq!(squash(&p.text), "int util; int k;");
}

#[test]
fn missing_include_is_an_error_with_the_line_span() {
    let dir = tempfile::tempdir().unwrap();
    let src = "int a;\n  #include \"nowhere.h\"\nint b;\n";
    let main = write(dir.path(), "k.cu", src);
    let e = pp_file(&main, &PpOptions::default()).unwrap_err();
    let lo = offset_of(src, "#include") as u32;
    assert_eq!(
        e.span,
        Span::new(FileId(0), lo, lo + "#include \"nowhere.h\"".len() as u32)
    );
    assert!(
        e.message.contains("nowhere.h") && e.message.contains("-I"),
        "{}",
        e.message
    );
}

#[test]
fn system_includes_are_skipped_with_notes() {
    let src = "#include <cuda.h>\n#include \"cuda_runtime.h\"\n#include <thrust/sort.h>\nint a;\n";
    let p = pp(src);
    assert_eq!(p.text, "\n\n\nint a;\n");
    assert_eq!(p.notes.len(), 3);
    assert_eq!(p.notes[0].1, "system include <cuda.h> skipped");
    assert_eq!(p.notes[0].0, Span::new(FileId(0), 0, 17));
    assert!(p.notes[1].1.contains("cuda_runtime.h"));
}

#[test]
fn include_through_a_macro() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cfg.h", "int cfg;\n");
    let main = write(dir.path(), "k.cu", "#define HEADER \"cfg.h\"\n#include HEADER\n");
    assert_eq!(squash(&pp_file(&main, &PpOptions::default()).unwrap().text), "int cfg;");
}

#[test]
fn recursive_include_hits_the_depth_limit() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(dir.path(), "self.h", "int x;\n#include \"self.h\"\n");
    let e = pp_file(&main, &PpOptions::default()).unwrap_err();
    assert!(e.message.contains("include guard"), "{}", e.message);
    assert_eq!(e.span.file, FileId(0));
}

#[test]
fn macro_call_errors() {
    let e = pp_err("#define F(a, b) a\nint x = F(1);\n");
    assert!(e.message.contains("expects 2"), "{}", e.message);
    let e = pp_err("#define F(a) a\nint x = F(1, 2;\n");
    assert!(e.message.contains("unterminated"), "{}", e.message);
    assert_eq!(e.span, Span::new(FileId(0), 23, 24));
    assert!(pp_err("#define\n").message.contains("macro name"));
    assert!(pp_err("#define F(a,) a\n").message.contains("parameter"));
    assert!(pp_err("#define F(a) ## a\n").message.contains("##"));
    assert!(pp_err("#define F(a) #b\n").message.contains("#"));
}

#[test]
fn unterminated_comment_and_literals_do_not_panic() {
    for src in [
        "/* open",
        "\"open\nint",
        "'x",
        "#define F(x) x\nF(",
        "#if",
        "#include",
        "#include <x",
        "\\",
        "#define A(",
        "a ## b #",
    ] {
        let _ = preprocess(Path::new("m.cu"), src, &PpOptions::default());
    }
}

#[test]
#[ignore = "timing; run with --release --ignored"]
fn ten_megabytes_preprocess_quickly() {
    let unit = "#define N 4\n__global__ void k(float *a) { a[threadIdx.x] = N * 2.0f; /* c */ }\n";
    let src = unit.repeat(10_000_000 / unit.len());
    let t = std::time::Instant::now();
    let p = pp(&src);
    let elapsed = t.elapsed();
    assert!(p.text.len() > 8_000_000);
    assert!(elapsed.as_secs_f64() < 1.0, "took {elapsed:?}");
}

/// C-like text (with line splices) without `#` or identifiers that are predefined macros.
fn c_like_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z_][a-z0-9_]{0,6}",
        "[0-9]{1,4}(\\.[0-9]+)?",
        Just(" ".to_string()),
        Just("\t".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\\\n".to_string()),
        Just("\\".to_string()),
        "[-+*/%<>=!&|^~?:;,.(){}\\[\\]]",
        "\"[a-z #\\\\]{0,5}\"",
        "'[a-z]'",
        "/\\*[a-z \n]{0,8}\\*/",
        "//[a-z #]{0,8}",
        "[é√ü]",
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn identity_on_text_without_directives_or_macros(src in c_like_text()) {
        // Pieces can combine into an unterminated `/*` (e.g. `//` eating an opener's partner):
        // that text is malformed, and reporting it is the right answer, not an identity case.
        let p = match preprocess(Path::new("main.cu"), &src, &PpOptions::default()) {
            Err(e) if e.message.starts_with("unterminated `/*`") => return Ok(()),
            other => other.unwrap_or_else(|e| panic!("unexpected error: {e:?}")),
        };
        prop_assert_eq!(&p.text, &src);
        for i in 0..=src.len() {
            prop_assert_eq!(p.origin(i), (FileId(0), i as u32));
        }
    }

    #[test]
    fn never_panics_on_random_input(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let src = String::from_utf8_lossy(&bytes);
        if let Ok(p) = preprocess(Path::new("m.cu"), &src, &PpOptions::default()) {
            for i in 0..=p.text.len() {
                let (f, o) = p.origin(i);
                prop_assert!(o as usize <= p.texts[f.0 as usize].len());
            }
        }
    }

    #[test]
    fn never_panics_on_random_preprocessor_soup(
        parts in proptest::collection::vec(prop_oneof![
            Just("#define F(x, ...) x ## y # x __VA_ARGS__ F(x)\n"), Just("#define G F(\n"),
            Just("#if "), Just("#ifdef F\n"), Just("#else\n"), Just("#endif\n"), Just("#elif "),
            Just("defined("), Just("F("), Just("G"), Just(")"), Just(","), Just("\n"), Just("\\\n"),
            Just("1"), Just("+"), Just("?"), Just(":"), Just("\""), Just("'"), Just("/*"), Just("*/"),
            Just("#"), Just("##"), Just("#undef F\n"), Just("#include"), Just(" <a>\n"), Just("\r\n"),
        ], 0..40)
    ) {
        let src = parts.concat();
        if let Ok(p) = preprocess(Path::new("m.cu"), &src, &PpOptions::default()) {
            // Directives, inactive lines and multi-line macro calls keep their line endings.
            prop_assert_eq!(p.text.matches('\n').count(), src.matches('\n').count());
            for i in 0..=p.text.len() {
                let (f, o) = p.origin(i);
                prop_assert!(o as usize <= p.texts[f.0 as usize].len());
                let s = p.origin_span(i, (i + 3).min(p.text.len()));
                prop_assert!(s.lo <= s.hi);
                // Copied bytes map to the very same byte of the original file.
                if i < p.text.len() && !p.is_expanded(i) {
                    prop_assert_eq!(p.texts[f.0 as usize].as_bytes()[o as usize], p.text.as_bytes()[i]);
                }
            }
        }
    }
}
