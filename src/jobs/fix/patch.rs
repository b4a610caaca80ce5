//! The patched text: the edits of every kernel's insertions and removals, and the lines the
//! inserted barriers land on.

use super::file::{FileFix, FixError};
use crate::emit::{self, Insertion};
use autosync_oracle::ir::{Kernel, Span};
use autosync_oracle::tree::LabelTree;

/// The edits of a file: one plan per source function, then the removals; insertions before
/// deletions at the same offset. `inserts` name the index of their kernel.
pub(super) fn plan(
    kernels: &[Kernel],
    original: &str,
    inserts: &[(usize, Insertion)],
    removals: Vec<Span>,
) -> Result<emit::Fix, FixError> {
    // One plan per source function: kernels occupy disjoint text, except the instantiations
    // of one kernel template, whose insertions go into one plan of the first of them (a
    // barrier written into a template body applies to every instantiation).
    let mut edits: Vec<emit::Edit> = Vec::new();
    let mut planned: Vec<usize> = Vec::new();
    for (ki, k) in kernels.iter().enumerate() {
        if planned.contains(&ki) {
            continue;
        }
        let group: Vec<usize> = (ki..kernels.len()).filter(|&j| kernels[j].span == k.span).collect();
        planned.extend(&group);
        edits.extend(group_edits(kernels, &group, original, inserts)?);
    }
    edits.dedup();
    for span in removals {
        edits.push(emit::removal(original, span).map_err(|e| FixError::Emit(e.to_string()))?);
    }
    // Insertions before deletions at the same offset.
    edits.sort_by_key(|e| (e.offset, e.delete));
    Ok(emit::Fix { edits })
}

/// The edits of the insertions of `group`, the kernels of one source function (instantiations
/// of one template), planned in its first kernel.
fn group_edits(
    kernels: &[Kernel],
    group: &[usize],
    original: &str,
    inserts: &[(usize, Insertion)],
) -> Result<Vec<emit::Edit>, FixError> {
    let k = &kernels[group[0]];
    let mut edits = Vec::new();
    let mut ins: Vec<Insertion> = Vec::new();
    let mut separate: Vec<(usize, Insertion)> = Vec::new();
    for (i, x) in inserts.iter().filter(|(i, _)| group.contains(i)) {
        match same_position(&kernels[*i], k, x.pos) {
            Some(pos) => {
                let x = Insertion { pos, ..x.clone() };
                if !ins.iter().any(|y| y.pos == x.pos && y.text == x.text) {
                    ins.push(x);
                }
            }
            None => separate.push((*i, x.clone())),
        }
    }
    if !ins.is_empty() {
        let fix = emit::plan(k, original, &ins).map_err(|e| FixError::Emit(e.to_string()))?;
        edits.extend(fix.edits);
    }
    // A position only one instantiation has (a discarded `if constexpr` branch): its own
    // plan; identical edits merge in [`plan`], and the patched text is verified for all.
    for (i, x) in separate {
        let fix = emit::plan(&kernels[i], original, &[x]).map_err(|e| FixError::Emit(e.to_string()))?;
        edits.extend(fix.edits);
    }
    Ok(edits)
}

/// The position of `to` at the same place of the source as `pos` of `from` (instantiations of
/// one kernel template share their statements' spans).
fn same_position(
    from: &Kernel,
    to: &Kernel,
    pos: autosync_oracle::tree::Position,
) -> Option<autosync_oracle::tree::Position> {
    use autosync_oracle::tree::Position;
    if std::ptr::eq(from, to) {
        return Some(pos);
    }
    let span = LabelTree::new(from).get(pos.label()).span;
    let tree = LabelTree::new(to);
    autosync_oracle::tree::candidate_positions(to)
        .into_iter()
        .rev()
        .filter(|p| std::mem::discriminant(p) == std::mem::discriminant(&pos))
        .find(|p| tree.get(p.label()).span == span)
        .map(|p| match p {
            Position::After(l) => Position::After(l),
            Position::BlockStart(l) => Position::BlockStart(l),
        })
}

/// Sets the line of each inserted barrier in the patched text and the original line it is
/// inserted before, from the edits that write them: a line's number is one more than the
/// newlines before it (those of the original text before its edit, those earlier edits added
/// or removed, and those of its edit before it); the original line is the first one that starts
/// after the insertion point. Barriers are matched to the statements in text order.
pub(super) fn fill_lines(result: &mut FileFix, original: &str, fix: &emit::Fix) {
    let inserted = barrier_lines(original, fix);
    // Instantiations of one kernel template insert the same barrier once: one line for all.
    let mut places: Vec<(u32, String)> = result
        .kernels
        .iter()
        .flat_map(|k| k.barriers.iter().map(|b| (b.at, b.text.clone())))
        .collect();
    places.sort();
    places.dedup();
    for ((at, text), (line, before)) in places.into_iter().zip(inserted) {
        for b in result.kernels.iter_mut().flat_map(|k| k.barriers.iter_mut()) {
            if b.at == at && b.text == text {
                b.line = line;
                b.original_line = before;
            }
        }
    }
}

/// Per barrier statement the edits write, in text order: its 1-based line in the patched text
/// and the 1-based original line it is inserted before.
fn barrier_lines(original: &str, fix: &emit::Fix) -> Vec<(u32, u32)> {
    let src = original.as_bytes();
    let newlines = |b: &[u8]| memchr::memchr_iter(b'\n', b).count();
    let mut out = Vec::new();
    // Newlines of the original before `cursor`, and those the edits before it added (net).
    let (mut cursor, mut before, mut added) = (0usize, 0usize, 0isize);
    for e in &fix.edits {
        let (lo, hi) = (e.offset.min(src.len()), (e.offset + e.delete).min(src.len()));
        before += newlines(&src[cursor.min(lo)..lo]);
        cursor = cursor.max(lo);
        for b in &e.barriers {
            let line = before as isize + added + newlines(&e.insert.as_bytes()[..b.at]) as isize + 1;
            let origin = b.origin.min(src.len());
            let mid_line = origin > 0 && src[origin - 1] != b'\n';
            let original_line = newlines(&src[..origin]) + usize::from(mid_line) + 1;
            out.push((line as u32, original_line as u32));
        }
        added += newlines(e.insert.as_bytes()) as isize - newlines(&src[lo..hi]) as isize;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::barrier_lines;
    use crate::emit::{self, BarrierText, Insertion};
    use crate::front::{lower_text, FrontOptions};
    use autosync_oracle::tree::candidate_positions;
    use std::path::Path;

    /// Every form emission writes: after statements and blocks, block starts, a brace-less
    /// body on its own line and on the header's line, a header ending in a comment, code after
    /// the statement on its line, `else` and `do`-`while` without braces.
    const FORMS: &str = "//--blockDim=64 --gridDim=1
__global__ void k(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = out[t]; out[t] = 0;
    for (int i = 0; i < 4; i++)
        s[t] += 1.0f;
    if (t < 32) s[t] = 2.0f;
    for (int i = 0; i < 2; i++) // no brace here
        s[t] -= 1.0f;
    if (n > 2) {
        s[t] = 3.0f;
    } else
        s[t] = 4.0f;
    do
        s[t] *= 2.0f;
    while (n-- > 8);
    out[t] = s[63 - t];
}
";

    /// What the lines were before they came from the edits: the inserted lines of a diff of
    /// the texts that hold a barrier, each with the original line after the last original
    /// line the diff passed.
    fn by_diff(original: &str, patched: &str) -> Vec<(u32, u32)> {
        let diff = similar::TextDiff::from_lines(original, patched);
        let mut out = Vec::new();
        let mut next_old = 1u32;
        for change in diff.iter_all_changes() {
            if let Some(o) = change.old_index() {
                next_old = o as u32 + 2;
            }
            if change.tag() == similar::ChangeTag::Insert && change.value().contains("__syncthreads") {
                out.push((change.new_index().unwrap() as u32 + 1, next_old));
            }
        }
        out
    }

    /// One barrier at a time, the diff is unambiguous and the lines must match it; with a
    /// barrier at every position, a diff groups neighbouring changes (a line split by one
    /// insertion, a header given a brace by the next), so there only the patched lines are
    /// compared, and each barrier's original line must be the one it had alone.
    #[test]
    fn barrier_lines_from_the_edits_match_a_diff_of_the_texts() {
        for src in [FORMS.to_string(), FORMS.replace('\n', "\r\n")] {
            let unit = lower_text(Path::new("forms.cu"), &src, &FrontOptions::default()).unwrap();
            let k = &unit.kernels[0];
            let at = |pos| Insertion {
                pos,
                text: BarrierText::SyncThreads,
                comment: None,
            };
            let positions = candidate_positions(k);
            let mut alone = Vec::new();
            for &p in &positions {
                let fix = emit::plan(k, &src, &[at(p)]).unwrap();
                let patched = emit::apply(&src, &fix);
                let lines = barrier_lines(&src, &fix);
                assert_eq!(lines, by_diff(&src, &patched), "{patched}");
                alone.push(lines[0].1);
            }
            let all: Vec<Insertion> = positions.iter().map(|&p| at(p)).collect();
            let fix = emit::plan(k, &src, &all).unwrap();
            let patched = emit::apply(&src, &fix);
            let lines = barrier_lines(&src, &fix);
            let new_lines = |v: &[(u32, u32)]| v.iter().map(|l| l.0).collect::<Vec<_>>();
            assert_eq!(new_lines(&lines), new_lines(&by_diff(&src, &patched)), "{patched}");
            let mut before: Vec<u32> = lines.iter().map(|l| l.1).collect();
            before.sort_unstable();
            alone.sort_unstable();
            assert_eq!(before, alone);
        }
    }
}
