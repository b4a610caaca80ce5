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

/// Finds the line of each inserted barrier in the patched text: the inserted barrier lines in
/// text order, matched to the barriers ordered by where they go; and the original line each is
/// inserted before.
pub(super) fn fill_lines(result: &mut FileFix, patched: &str, original: &str) {
    let diff = similar::TextDiff::from_lines(original, patched);
    // Barriers written through the kernel's own helpers carry none of the keywords below.
    let barrier_texts: Vec<String> = result
        .kernels
        .iter()
        .flat_map(|k| k.barriers.iter().map(|b| b.text.clone()))
        .collect();
    let mut inserted: Vec<(u32, u32)> = Vec::new();
    let mut next_old = 1u32;
    for change in diff.iter_all_changes() {
        if let Some(o) = change.old_index() {
            next_old = o as u32 + 2;
        }
        if change.tag() != similar::ChangeTag::Insert {
            continue;
        }
        let (Some(i), v) = (change.new_index(), change.value()) else {
            continue;
        };
        let own = |t: &str| !t.is_empty() && v.contains(t.trim_end_matches(';'));
        if v.contains("__syncthreads")
            || v.contains("bar.")
            || v.contains("NamedBarrier::")
            || barrier_texts.iter().any(|t| own(t))
        {
            inserted.push((i as u32 + 1, next_old));
        }
    }
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
