//! The mbarrier path of `fix`: a pipeline kernel whose protocol misses an arrive or a wait
//! (issue 26) gets it from mbarrier synthesis, each candidate written into the text and lowered
//! again here, since only this layer may run the front end.

use super::entry::barrier_json;
use super::options::FixOptions;
use crate::emit::{self, BarrierText, Insertion};
use crate::front::{self, FrontOptions};
use crate::output::fixes::KernelFix;
use crate::synth::mbarrier::{self, MbarOutcome};
use crate::synth::space::SynthStats;
use autosync_oracle::ir::Kernel;
use autosync_oracle::tree::Position;
use std::path::Path;

/// What lowering a patched text again needs.
pub(super) struct Relower<'a> {
    /// The file (names it, anchors includes).
    pub path: &'a Path,
    /// How it was read.
    pub front_opts: &'a FrontOptions,
    /// The unit's texts (the first is the main file).
    pub texts: &'a [String],
}

impl Relower<'_> {
    /// `k` (the `ki`th kernel of the unit) with `placed` written into the main file, as the
    /// front end reads the patched text back.
    fn realize(&self, k: &Kernel, ki: usize, placed: &[(Position, String)]) -> Result<Kernel, String> {
        let original = self.texts.first().map_or("", String::as_str);
        let ins: Vec<Insertion> = placed
            .iter()
            .map(|(pos, text)| Insertion {
                pos: *pos,
                text: BarrierText::Custom(text.clone()),
                comment: None,
            })
            .collect();
        let fix = emit::plan(k, original, &ins).map_err(|e| e.to_string())?;
        let patched = emit::apply(original, &fix);
        let unit = front::lower_text(self.path, &patched, self.front_opts).map_err(|e| e.message)?;
        unit.kernels
            .into_iter()
            .nth(ki)
            .filter(|c| c.name == k.name)
            .ok_or_else(|| format!("kernel `{}` is not in the patched text", k.name))
    }
}

/// Runs mbarrier synthesis on kernel `ki` of the unit, which named synthesis left unfixable
/// with `kf`: on a verified placement `kf` becomes its fix and the insertions are returned;
/// otherwise `kf` keeps its outcome with synthesis' reason added (or becomes inconclusive).
pub(super) fn mbarrier_fix(
    rl: &Relower,
    k: &Kernel,
    ki: usize,
    opts: &FixOptions,
    kf: &mut KernelFix,
) -> Vec<Insertion> {
    let mut stats = SynthStats::default();
    let mut realize = |placed: &[(Position, String)]| rl.realize(k, ki, placed);
    let at = if k.span.file.0 == 0 { k.span.lo as usize } else { 0 };
    let outcome = mbarrier::synthesize(k, rl.texts, at, &opts.synth, &mut realize, &mut stats);
    kf.stats.oracle_calls += stats.oracle_calls;
    kf.stats.maxsat_calls += stats.maxsat_calls;
    kf.stats.rounds += stats.rounds;
    kf.stats.millis += stats.time.as_secs_f64() * 1000.0;
    match outcome {
        MbarOutcome::NoGap => vec![],
        MbarOutcome::Fixed { placed, cost } => {
            kf.status = "fixed";
            kf.cost = cost;
            kf.reasons.clear();
            kf.barriers = placed
                .iter()
                .map(|p| barrier_json(k, p.pos, &p.text, p.cost, &[]))
                .collect();
            placed
                .into_iter()
                .map(|p| Insertion {
                    pos: p.pos,
                    text: BarrierText::Custom(p.text),
                    comment: opts
                        .annotate
                        .then(|| format!("autosync: {} (mbarrier protocol)", p.what)),
                })
                .collect()
        }
        MbarOutcome::Unfixable(why) => {
            kf.reasons.push(why);
            vec![]
        }
        MbarOutcome::Inconclusive(why) => {
            kf.status = "inconclusive";
            kf.reasons.push(why);
            vec![]
        }
    }
}
