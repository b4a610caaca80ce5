//! `autosync fix`: synthesize, emit, re-verify the patched text, and write it (or show it).
//!
//! Nothing is written unless every kernel of the file was fixed or already clean, and the
//! patched file, lowered again from text, verifies with the oracle.
//!
//! `options` holds the options, `kernel` fixes each kernel (`named` is the named-barrier
//! path, `mbarrier` the missing arrives and waits of async pipelines), `entry` and `describe` build its report entry and words, `patch` plans the edits
//! and `verify` re-checks the patched text; this module runs them over one file and writes.

mod describe;
mod entry;
mod file;
mod kernel;
mod mbarrier;
mod named;
mod options;
mod patch;
mod verify;

pub use describe::{describe_remaining, describe_unfixable};
pub use file::{FileFix, FixError};
pub use options::{suppressions, FixOptions, Strategy};

use crate::emit;
use crate::front::{self, FrontOptions};
use crate::synth::space::SynthOptions;
use std::path::{Path, PathBuf};

/// Synthesizes barriers for every kernel of a file and prepares the patched text.
pub fn fix_file(path: &Path, front_opts: &FrontOptions, opts: &FixOptions) -> Result<FileFix, FixError> {
    let unit = front::load(path, front_opts).map_err(FixError::Front)?;
    fix_unit(path, unit, front_opts, opts)
}

/// [`fix_file`] on text that is not read from `path` (standard input); `path` names it in
/// messages and anchors includes.
pub fn fix_text(path: &Path, text: &str, front_opts: &FrontOptions, opts: &FixOptions) -> Result<FileFix, FixError> {
    let unit = front::lower_text(path, text, front_opts).map_err(FixError::Front)?;
    fix_unit(path, unit, front_opts, opts)
}

/// Fixes every kernel of a lowered file; when all of them are fixed or clean, patches the text
/// and re-verifies it.
fn fix_unit(
    path: &Path,
    unit: front::SourceUnit,
    front_opts: &FrontOptions,
    opts: &FixOptions,
) -> Result<FileFix, FixError> {
    let original = unit.texts.first().cloned().unwrap_or_default();
    let sup = suppressions(&unit, opts);
    let opts = &FixOptions {
        synth: SynthOptions {
            suppress: (!sup.is_empty()).then(|| sup.clone()),
            ..opts.synth.clone()
        },
        ..opts.clone()
    };
    let rl = mbarrier::Relower {
        path,
        front_opts,
        texts: &unit.texts,
    };
    let fixes = kernel::fix_kernels(&unit, opts, sup.as_ref(), &rl);
    let mut result = FileFix {
        file: path.display().to_string(),
        kernels: fixes.kernels,
        changed: false,
        diff: String::new(),
        patched: None,
        original: original.clone(),
        unit: None,
    };
    if !fixes.all_ok || (fixes.inserts.is_empty() && fixes.removals.is_empty()) {
        result.unit = Some(unit);
        return Ok(result);
    }
    let fix = patch::plan(&unit.kernels, &original, &fixes.inserts, fixes.removals)?;
    let patched = emit::apply(&original, &fix);
    if let Err((ki, e)) = verify::verify_patched(path, &patched, front_opts, opts, &fixes.partial) {
        let Some((i, reasons)) = fixes.fallback.iter().find(|(i, _)| Some(*i) == ki) else {
            return Err(e);
        };
        named::unverified_by_sdv(&mut result.kernels[*i], reasons);
        result.unit = Some(unit);
        return Ok(result);
    }
    patch::fill_lines(&mut result, &original, &fix);
    result.changed = patched != original;
    result.diff = emit::unified_diff(path, &original, &patched);
    result.patched = Some(patched);
    result.unit = Some(unit);
    Ok(result)
}

/// Writes the patched text if the file on disk is still what we read.
pub fn write_back(path: &Path, f: &FileFix) -> Result<(), String> {
    write_back_with(path, f, false)
}

/// Writes the patched text if the file on disk is still what we read and is not read-only;
/// with `backup`, first saves the original as `FILE.orig` (same permissions). Either the file
/// is replaced atomically or it is left as it was.
pub fn write_back_with(path: &Path, f: &FileFix, backup: bool) -> Result<(), String> {
    let Some(patched) = &f.patched else { return Ok(()) };
    let meta =
        std::fs::metadata(path).map_err(|e| format!("{}: cannot re-read before writing: {e}", path.display()))?;
    // Replacing by rename would succeed on a read-only file; respect the user's protection.
    if meta.permissions().readonly() {
        return Err(format!("{}: the file is read-only; nothing written", path.display()));
    }
    let now = std::fs::read(path).map_err(|e| format!("{}: cannot re-read before writing: {e}", path.display()))?;
    if now != f.original.as_bytes() {
        return Err(format!(
            "{}: the file changed on disk while autosync ran; nothing written (run again)",
            path.display()
        ));
    }
    if backup {
        let mut name = path.as_os_str().to_owned();
        name.push(".orig");
        let orig = PathBuf::from(name);
        emit::write_atomic(&orig, &f.original)
            .and_then(|()| std::fs::set_permissions(&orig, meta.permissions()))
            .map_err(|e| format!("{}: cannot write the backup: {e}; nothing written", orig.display()))?;
    }
    emit::write_atomic(path, patched).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
