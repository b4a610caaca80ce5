//! Fuzzes the whole `fix` pipeline (lower, check, synthesize, emit, re-verify) on small inputs.
//! Kernels that lower are checked with short solver limits so each input stays fast.
#![no_main]

use autosync::front::FrontOptions;
use autosync::jobs::fix::{fix_file, FixOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // As the CLI runs: on a thread with the workers' deep stack (the reader and the lowering
    // recurse as deep as the input nests).
    autosync::workflow::on_worker_stack(|| {
        // Large inputs only slow the solver down; the lowering target covers them.
        if data.len() > 2048 || std::str::from_utf8(data).is_err() {
            return;
        }
        // One file per process (libFuzzer runs inputs one at a time); `fix_file` reads from disk.
        let path = std::env::temp_dir().join(format!("autosync-fuzz-{}.cu", std::process::id()));
        if std::fs::write(&path, data).is_err() {
            return;
        }
        let opts = FixOptions {
            synth: autosync::synth::space::SynthOptions {
                timeout_ms: 200,
                max_rounds: 8,
                kernel_timeout: Some(std::time::Duration::from_secs(2)),
                ..Default::default()
            },
            annotate: true,
            ..Default::default()
        };
        let _ = fix_file(&path, &FrontOptions::default(), &opts);
        let _ = std::fs::remove_file(&path);
    });
});
