//! The second verification's place in the search: the corpus ring without its release, fixed
//! with the real replay, with a stand-in executor that rejects everything, and with one that
//! cannot run the kernel.

use super::*;
use crate::emit::{self, BarrierText, Insertion};
use crate::front::{self, FrontOptions};
use std::path::Path;

const RING: &str = "corpus/pipeline/ring2_no_release.cu";

fn front_options() -> FrontOptions {
    let mut o = FrontOptions {
        params: [("iters".to_string(), 4)].into(),
        ..Default::default()
    };
    o.clang.shim = true;
    o.clang.arch = Some("sm_90".into());
    o
}

/// Mbarrier synthesis on the ring with `second` as the second verification, each choice
/// written into the text and lowered again as `fix` does.
fn synthesize_ring(second: &Second) -> MbarOutcome {
    let opts = front_options();
    let unit = front::load(Path::new(RING), &opts).unwrap();
    let k = &unit.kernels[0];
    let text = &unit.texts[0];
    let mut realize = |placed: &[(Position, String)]| -> Result<Kernel, String> {
        let ins: Vec<Insertion> = placed
            .iter()
            .map(|(pos, t)| Insertion {
                pos: *pos,
                text: BarrierText::Custom(t.clone()),
                comment: None,
            })
            .collect();
        let fix = emit::plan(k, text, &ins).map_err(|e| e.to_string())?;
        let unit = front::lower_text(Path::new(RING), &emit::apply(text, &fix), &opts).map_err(|e| e.message)?;
        Ok(unit.kernels.into_iter().next().unwrap())
    };
    let mut stats = SynthStats::default();
    let at = k.span.lo as usize;
    synthesize_with(
        k,
        &unit.texts,
        at,
        &SynthOptions::default(),
        &mut realize,
        &mut stats,
        second,
    )
}

#[test]
fn the_replay_rejects_the_stripped_ring_and_accepts_its_fix() {
    let unit = front::load(Path::new(RING), &front_options()).unwrap();
    let stripped = replay::replay(&unit.kernels[0], &Report::default());
    assert!(
        matches!(&stripped, Replay::Rejected(why) if why.contains("deadlock")),
        "{stripped:?}"
    );
    let out = synthesize_ring(&replay::replay);
    assert!(matches!(out, MbarOutcome::Fixed { .. }), "{out:?}");
}

#[test]
fn a_placement_the_executor_rejects_is_inconclusive_not_fixed() {
    let out = synthesize_ring(&|_, _| Replay::Rejected("a stand-in's deadlock".into()));
    match out {
        MbarOutcome::Inconclusive(why) => {
            assert!(why.contains("reference executor rejects"), "{why}");
            assert!(why.contains("a stand-in's deadlock"), "{why}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_kernel_the_executor_cannot_run_rests_on_the_named_checker() {
    let out = synthesize_ring(&|_, _| Replay::NotRun("no value for kernel parameter `iters`".into()));
    assert!(matches!(out, MbarOutcome::Fixed { .. }), "{out:?}");
}
