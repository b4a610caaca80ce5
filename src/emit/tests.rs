//! Emission tests on kernels lowered by the real front end: the helpers the other emission
//! tests share (`tests_placement.rs`, `tests_refused.rs`, `tests_apply_write.rs`), the corpus
//! properties and the diff snapshots.

use super::*;
use crate::front::{load, FrontOptions, SourceUnit};
use autosync_oracle::ir::{Barrier, Block, Kernel, Label, Loop, Op, Stmt, StmtKind};
use autosync_oracle::tree::{candidate_positions, for_each_stmt, insert_barriers, Position};
use std::path::{Path, PathBuf};

/// Lowers `src` from a file in a fresh temp dir (kept alive by the returned guard).
pub(super) fn lower_unit(src: &str) -> (tempfile::TempDir, SourceUnit) {
    lower_unit_near(src, None)
}

/// Like [`lower_unit`], finding `#include "..."` files in `include_dir`.
pub(super) fn lower_unit_near(src: &str, include_dir: Option<&Path>) -> (tempfile::TempDir, SourceUnit) {
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

pub(super) fn lower(src: &str) -> Kernel {
    let (_dir, unit) = lower_unit(src);
    unit.kernels.into_iter().next().expect("a kernel")
}

/// The statement with a barrier position whose source text starts with `needle`.
pub(super) fn stmt(k: &Kernel, src: &str, needle: &str) -> Label {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if found.is_none() && s.emit_after && s.span.file.0 == 0 && src[s.span.lo as usize..].starts_with(needle) {
            found = Some(s.label);
        }
    });
    found.unwrap_or_else(|| panic!("no statement starting with `{needle}`"))
}

/// The blocks (then, else or body) owned by the statement starting with `needle`.
pub(super) fn blocks_of(k: &Kernel, src: &str, needle: &str) -> Vec<Label> {
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

pub(super) fn sync(pos: Position) -> Insertion {
    Insertion {
        pos,
        text: BarrierText::SyncThreads,
        comment: None,
    }
}

pub(super) fn fixed(k: &Kernel, src: &str, inserts: &[Insertion]) -> String {
    let fix = plan(k, src, inserts).unwrap_or_else(|e| panic!("plan failed: {e}"));
    apply(src, &fix)
}

/// A shape of the kernel body that ignores labels, spans and expressions but shows where
/// barriers are: two kernels with equal skeletons have their barriers at the same places.
pub(super) fn skeleton(b: &Block) -> String {
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
            StmtKind::Return { .. } => out.push_str("return "),
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
pub(super) fn assert_relowers_like(k: &Kernel, out: &str, positions: &[Position]) {
    assert_relowers_near(k, out, positions, None)
}

/// Like [`assert_relowers_like`] for a file whose includes live in `include_dir`.
pub(super) fn assert_relowers_near(k: &Kernel, out: &str, positions: &[Position], include_dir: Option<&Path>) {
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

pub(super) const SIMPLE: &str = "__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[63 - t];
}
";

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every `.cu` file of the corpus that the front end accepts with default options.
/// The corpus files whose index (in path order) `keep` accepts, lowered.
fn corpus_units(keep: impl Fn(usize) -> bool) -> Vec<(PathBuf, SourceUnit)> {
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
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .filter_map(|(_, f)| {
            let u = load(&f, &FrontOptions::default()).ok()?;
            Some((f, u))
        })
        .collect()
}

/// The property behind `fix` idempotence: a barrier at any candidate position, or at all of
/// them at once, gives text that re-lowers to the kernel with the barrier at that position.
/// Every kernel gets all its positions at once; single positions are a sweep (an evenly
/// spread share of each kernel's on the merge gate, all with `AUTOSYNC_FULL_SWEEPS=1`).
#[test]
fn every_candidate_position_of_the_corpus_relowers() {
    let units = corpus_units(|_| true);
    assert!(units.len() >= 20, "only {} corpus files load", units.len());
    let mut checked = 0;
    let mut salt = 0;
    for (path, unit) in &units {
        let src = &unit.texts[0];
        for k in &unit.kernels {
            let positions = candidate_positions(k);
            salt += 1;
            for &p in autosync_devtools::sweep::sample(&positions, salt) {
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
    let least = if autosync_devtools::sweep::full() { 200 } else { 50 };
    assert!(checked > least, "only {checked} positions checked");
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

/// The corpus property on the file converted to CRLF: every inserted line ends in `\r\n`
/// (a sweep: an evenly spread share of the files on the merge gate).
#[test]
fn corpus_in_crlf_gets_only_crlf_lines() {
    for (path, unit) in corpus_units(|i| autosync_devtools::sweep::keeps(i, 1)) {
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
