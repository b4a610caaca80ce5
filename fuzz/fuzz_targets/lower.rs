//! Fuzzes preprocessing, parsing and lowering to the IR: errors are fine, panics are not.
#![no_main]

use autosync::front::{lower_text, FrontOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // As the CLI runs: on a thread with the workers' deep stack (the reader and the lowering
    // recurse as deep as the input nests).
    autosync::workflow::on_worker_stack(|| {
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = lower_text(
                std::path::Path::new("/nonexistent/fuzz.cu"),
                text,
                &FrontOptions::default(),
            );
        }
    });
});
