//! Kernels the front end could not lower: each is inconclusive on its own (named, with the
//! construct's location and what to do), and the file's other kernels keep their verdicts. A
//! kernel template the file leaves open is instantiated elsewhere in the code base: when a
//! directory is checked it is a note (it is checked where it is instantiated).

use super::errors::kind_word;
use super::options::Format;
use crate::front::{FrontErrorKind, SourceUnit};
use crate::output::diag::{self, Style};
use crate::output::results::{self, FileResult, NotLowered};
use crate::vocab::exit::{self, worst};
use crate::vocab::texts::Texts;

/// Adds the unit's unlowered kernels to `res` (`fix` says so in its own words): their results,
/// the inconclusive exit code and, in the human formats, their messages. `explicit`: the file
/// was named, not found in a directory.
pub(super) fn add_unlowered(
    res: &mut FileResult,
    unit: &SourceUnit,
    explicit: bool,
    format: Format,
    style: Style,
    fix: bool,
) {
    let tx = Texts { texts: &unit.texts };
    for u in &unit.unlowered {
        if !explicit && u.error.kind == FrontErrorKind::Uninstantiated {
            let at = tx.location_in(&unit.files, u.span);
            let at = at.map_or_else(|| res.file.clone(), |l| format!("{}:{}:{}", l.file, l.line, l.column));
            res.messages.push(format!(
                "{at}: note: kernel template `{}` has no instantiation in this file; it is checked where the code base instantiates it",
                u.kernel
            ));
            continue;
        }
        let nl = NotLowered {
            kernel: &u.kernel,
            at: u.span,
            kind: kind_word(u.error.kind),
            message: &u.error.message,
            help: u.error.help.as_deref(),
            span: u.error.span,
        };
        let kr = results::from_unlowered(&res.file, &nl, &unit.files, &tx, fix);
        res.exit_code = worst(res.exit_code, exit::INCONCLUSIVE);
        match (format, fix) {
            (Format::Text | Format::Concise, true) => res.messages.extend(diag::unlowered_fix_lines(&kr)),
            (Format::Text, false) => res.stdout.push_str(&diag::render_check(&kr, &tx, style)),
            (Format::Concise, false) => res.stdout.push_str(&diag::concise(&kr)),
            (Format::Github, _) => res.stdout.push_str(&diag::github_check(&kr)),
            (Format::Json | Format::Sarif, _) => {}
        }
        res.kernels.push(kr);
    }
    // Results in file order, whichever kernels lowered.
    res.kernels
        .sort_by_key(|k| k.location.as_ref().map(|l| (l.text_index, l.line, l.column)));
}
