//! Inserted named barriers written through the file's own helpers: detection of helper functions
//! and macros, fixes that call them, the same barriers after re-lowering, and the fallback to
//! asm (with a note) for `--named-style macro` on a file without helpers.

use crate::common;

use autosync::front::{self, FrontOptions};
use autosync::jobs::fix::{fix_file, FileFix, FixOptions};
use autosync::synth::named::{NamedSettings, NamedStyle};
use autosync::synth::space::SynthOptions;
use autosync_devtools::manifest::{self, Entry};
use autosync_oracle::ir::{Barrier, BarrierHelper, Expr, HelperKind, Kernel, Op, StmtKind};
use autosync_oracle::named::{check, NamedOptions};
use autosync_oracle::tree::for_each_stmt;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn entry(path: &str) -> Entry {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    m.kernels.into_iter().find(|e| e.path == path).unwrap()
}

fn opts(style: Option<NamedStyle>) -> FixOptions {
    FixOptions {
        synth: SynthOptions {
            named: NamedSettings {
                style,
                ..Default::default()
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

fn helpers_of(src: &str) -> Vec<BarrierHelper> {
    front::lower_text(Path::new("h.cu"), src, &FrontOptions::default())
        .unwrap()
        .helpers
        .remove(0)
}

fn added_lines(f: &FileFix) -> Vec<&str> {
    f.diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect()
}

/// The kernel's barriers in text order as `kind id, count`, with variables assigned once (such
/// as inlined parameters) replaced by their value and conversions dropped, so that a barrier
/// written through a helper compares equal to the same barrier written as asm.
fn barriers(k: &Kernel) -> Vec<String> {
    fn show(e: &Expr, env: &HashMap<u32, Expr>, k: &Kernel) -> String {
        match e {
            Expr::Cast(_, x) => show(x, env, k),
            Expr::Var(v) => match env.get(&v.0) {
                Some(x) => show(x, env, k),
                None => k.var(*v).name.clone(),
            },
            Expr::Const(c, _) => c.to_string(),
            Expr::Bin(op, _, a, b) => format!("({} {op:?} {})", show(a, env, k), show(b, env, k)),
            other => format!("{other:?}"),
        }
    }
    let mut assigned: HashMap<u32, Vec<Expr>> = HashMap::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                if let Op::Assign(v, e) = op {
                    assigned.entry(v.0).or_default().push(e.clone());
                }
            }
        }
    });
    let env: HashMap<u32, Expr> = assigned
        .into_iter()
        .filter_map(|(v, mut es)| (es.len() == 1).then(|| (v, es.remove(0))))
        .collect();
    let mut out = Vec::new();
    for_each_stmt(&k.body, &mut |s| match &s.kind {
        StmtKind::Barrier(Barrier::NamedSync { id, count: Some(c) }, _) => {
            out.push(format!("sync {}, {}", show(id, &env, k), show(c, &env, k)))
        }
        StmtKind::Barrier(Barrier::NamedArrive { id, count }, _) => {
            out.push(format!("arrive {}, {}", show(id, &env, k), show(count, &env, k)))
        }
        StmtKind::Barrier(b, _) => out.push(format!("{b:?}")),
        _ => {}
    });
    out
}

/// Lowers a patched text again: it must verify, and its barriers are returned.
fn relower(path: &Path, text: &str, fo: &FrontOptions) -> Vec<String> {
    let unit = front::lower_text(path, text, fo).unwrap();
    let k = &unit.kernels[0];
    let r = check(k, &NamedOptions::default());
    assert!(
        r.is_clean(),
        "{}: patched kernel does not verify: {r:#?}",
        path.display()
    );
    barriers(k)
}

/// Fixes `path` with helpers (default style) and with asm; both verify, the helper version calls
/// the helpers only, and both lower to the same barriers.
fn fix_both_ways(path: &Path, fo: &FrontOptions) -> FileFix {
    let with = fix_file(path, fo, &opts(None)).unwrap();
    let asm = fix_file(path, fo, &opts(Some(NamedStyle::Asm))).unwrap();
    assert!(with.changed && asm.changed, "{}", path.display());
    assert!(added_lines(&with).iter().all(|l| !l.contains("asm")), "{}", with.diff);
    let a = relower(path, with.patched.as_ref().unwrap(), fo);
    let b = relower(path, asm.patched.as_ref().unwrap(), fo);
    assert!(!a.is_empty());
    assert_eq!(a, b, "helper calls lower to other barriers than asm");
    with
}

#[test]
fn device_function_and_macro_helpers_are_detected() {
    let fo = FrontOptions {
        params: [("iters".to_string(), 4)].into(),
        ..Default::default()
    };
    let unit = front::load(Path::new("corpus/named/pipeline_double_buffer.cu"), &fo).unwrap();
    let h = &unit.helpers[0];
    assert_eq!(h.len(), 2, "{h:?}");
    assert_eq!(
        (
            h[0].name.as_str(),
            h[0].kind,
            h[0].id_arg,
            h[0].count_arg,
            h[0].is_macro,
            h[0].used
        ),
        ("named_sync", HelperKind::Sync, 0, 1, false, true)
    );
    assert_eq!(
        (h[1].name.as_str(), h[1].kind, h[1].arity),
        ("named_arrive", HelperKind::Arrive, 2)
    );
    let unit = front::load(
        Path::new("corpus/named/unsynced/macro_stencil.cu"),
        &FrontOptions::default(),
    )
    .unwrap();
    let h = &unit.helpers[0];
    assert_eq!(h.len(), 2, "{h:?}");
    assert_eq!(
        (
            h[0].name.as_str(),
            h[0].kind,
            h[0].id_arg,
            h[0].count_arg,
            h[0].is_macro,
            h[0].used
        ),
        ("BAR_SYNC", HelperKind::Sync, 1, 0, true, false)
    );
    assert_eq!(
        (h[1].name.as_str(), h[1].kind, h[1].id_arg, h[1].count_arg),
        ("BAR_ARRIVE", HelperKind::Arrive, 0, 1)
    );
}

#[test]
fn only_pure_wrappers_are_helpers() {
    const KERNEL: &str = "__global__ void k() {}\n";
    let one = |def: &str| helpers_of(&format!("{def}\n{KERNEL}"));
    // Accepted: `barrier.cta.sync.aligned`, comments, a parenthesized operand.
    let h = one("__device__ void w(unsigned n, unsigned id) { /* wait */ asm volatile(\"barrier.cta.sync.aligned %0, %1;\" :: \"r\"((id)), \"r\"(n) : \"memory\"); }");
    assert_eq!((h[0].kind, h[0].id_arg, h[0].count_arg), (HelperKind::Sync, 1, 0));
    let rejected = [
        // The ID is changed on the way.
        "__device__ void w(int id, int n) { asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id + 1), \"r\"(n)); }",
        // A second statement.
        "__device__ void w(int id, int n) { asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n)); id = 0; }",
        // A parameter emission has no value for.
        "__device__ void w(int id, int n, int x) { asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n)); }",
        // No thread count.
        "__device__ void w(int id) { asm volatile(\"bar.sync %0;\" :: \"r\"(id)); }",
        // Two instructions.
        "__device__ void w(int id, int n) { asm volatile(\"bar.sync %0, %1; bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(n)); }",
        // A literal count.
        "__device__ void w(int id, int n) { asm volatile(\"bar.sync %0, 64;\" :: \"r\"(id)); }",
        // A variadic macro, and a macro with a statement after the asm.
        "#define W(...) asm volatile(\"bar.sync %0, %1;\" :: \"r\"(__VA_ARGS__))",
        "#define W(id, n) asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n)); n = 0",
    ];
    for def in rejected {
        assert!(one(def).is_empty(), "{def}");
    }
    // A macro in `do { } while (0)` is accepted; the kernel's calls mark it used.
    let h = helpers_of(
        "#define ARR(id, n) do { asm volatile(\"bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(n)); } while (0)\n__global__ void k() { if (threadIdx.x < 32) ARR(1, 64); }\n",
    );
    assert_eq!((h[0].kind, h[0].is_macro, h[0].used), (HelperKind::Arrive, true, true));
    // Helpers defined after the kernel cannot be called from it.
    let sync = "__device__ void w(int id, int n) { asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n)); }";
    let mac = "#define W2(id, n) asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n))";
    assert!(helpers_of(&format!("{KERNEL}{sync}\n{mac}\n")).is_empty());
    assert_eq!(helpers_of(&format!("{mac}\n{KERNEL}{sync}\n")).len(), 1);
}

#[test]
fn stripped_pipeline_is_fixed_through_its_device_function_helpers() {
    let e = entry("named/pipeline_double_buffer.cu");
    let src = std::fs::read_to_string(e.file(Path::new("corpus"))).unwrap();
    // Remove every helper call (and the `if` blocks that only held one) from the kernel.
    let at = src.find("__global__").unwrap();
    let (head, body) = src.split_at(at);
    let mut kept: Vec<&str> = Vec::new();
    for line in body.lines() {
        let t = line.trim();
        if t.starts_with("named_sync(") || t.starts_with("named_arrive(") {
            continue;
        }
        if t == "}" && kept.last().is_some_and(|l| l.trim_start().starts_with("if (it")) {
            kept.pop();
            continue;
        }
        kept.push(line);
    }
    let stripped = format!("{head}{}\n", kept.join("\n"));
    assert!(!body.is_empty() && !stripped[at..].contains("named_"), "{stripped}");
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("pipeline_double_buffer.cu");
    std::fs::write(&path, &stripped).unwrap();
    let fo = e.front_options();
    let unit = front::load(&path, &fo).unwrap();
    assert!(!check(&unit.kernels[0], &NamedOptions::default()).races.is_empty());
    let f = fix_both_ways(&path, &fo);
    let added = added_lines(&f).join("\n");
    assert!(added.contains("named_sync("), "{added}");
    assert!(added.contains("named_arrive("), "{added}");
    // The rotating IDs and the guards of the shifted channel are kept.
    assert!(added.contains("% 2, 64);"), "{added}");
    assert!(added.contains("if ("), "{added}");
    assert!(f.kernels[0].notes.is_empty());
}

#[test]
fn macro_kernel_is_fixed_through_its_macros() {
    let e = entry("named/unsynced/macro_stencil.cu");
    let path = e.file(Path::new("corpus"));
    let f = fix_both_ways(&path, &e.front_options());
    let added = added_lines(&f);
    assert!(added.iter().any(|l| l.ends_with("BAR_ARRIVE(1, 128);")), "{added:?}");
    assert!(added.iter().any(|l| l.ends_with("BAR_SYNC(128, 1);")), "{added:?}");
    // The reported lines are those of the inserted calls.
    let patched: Vec<&str> = f.patched.as_deref().unwrap().lines().collect();
    for b in &f.kernels[0].barriers {
        assert!(patched[b.line as usize - 1].contains(&b.text), "{b:?}");
    }
    // `--named-style macro` writes the same; `cutlass` ignores the helpers.
    let m = fix_file(&path, &e.front_options(), &opts(Some(NamedStyle::Macro))).unwrap();
    assert_eq!(m.diff, f.diff);
    assert!(m.kernels[0].notes.is_empty());
    insta::assert_snapshot!("named_helper_macro_stencil", f.diff);
}

#[test]
fn macro_style_without_helpers_writes_asm_and_says_so() {
    let e = entry("named/unsynced/single_shot.cu");
    let path = e.file(Path::new("corpus"));
    let m = fix_file(&path, &e.front_options(), &opts(Some(NamedStyle::Macro))).unwrap();
    let asm = fix_file(&path, &e.front_options(), &opts(Some(NamedStyle::Asm))).unwrap();
    assert_eq!(m.diff, asm.diff);
    let notes = &m.kernels[0].notes;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("--named-style macro: the file defines no helper for bar."),
        "{notes:?}"
    );
    assert!(asm.kernels[0].notes.is_empty());
    // The binary prints it with the kernel, like its other per-kernel lines (`--diff` exits 1:
    // the file would change).
    let out = common::bin()
        .args([
            "fix",
            "--diff",
            "--named-style",
            "macro",
            "corpus/named/unsynced/single_shot.cu",
        ])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert!(
        err.contains(
            "single_shot.cu: kernel `single_shot`: note: --named-style macro: the file defines no helper for bar."
        ),
        "{err}"
    );
    // Machine output carries the same note on the kernel.
    let out = common::bin()
        .args([
            "fix",
            "--diff",
            "--format",
            "json",
            "--named-style",
            "macro",
            "corpus/named/unsynced/single_shot.cu",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let notes = v["files"][0]["kernels"][0]["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{v}");
    assert!(notes[0].as_str().unwrap().starts_with("--named-style macro:"), "{v}");
}
