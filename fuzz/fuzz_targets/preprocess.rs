//! Fuzzes the preprocessor on arbitrary text: it must return Ok or an error, never panic or hang.
#![no_main]

use autosync::front::preprocess::{preprocess, PpOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let opts = PpOptions {
            defines: vec![("FUZZ".into(), Some("3".into()))],
            include_dirs: vec![],
        };
        let _ = preprocess(std::path::Path::new("/nonexistent/fuzz.cu"), text, &opts);
    }
});
