//! Fuzzes the JSON AST reader and the lowering on dumps no Clang produced (the seeds are
//! Clang's dumps of the corpus, mutated): errors are fine, panics are not.
#![no_main]

use autosync::front::{self, ast, clang, launch, FrontOptions};
use libfuzzer_sys::fuzz_target;

/// The main file's text the spans of the dump refer to (any text will do: spans that do not
/// fit it must be handled, not trusted).
const TEXT: &str = "//--blockDim=64\n__global__ void k(float *o)\n{\n    __shared__ float s[64];\n    s[threadIdx.x] = o[0];\n    __syncthreads();\n    o[threadIdx.x] = s[63 - threadIdx.x];\n}\n";

fuzz_target!(|data: &[u8]| {
    // As the CLI runs: on a thread with the workers' deep stack (the reader and the lowering
    // recurse as deep as the input nests).
    autosync::workflow::on_worker_stack(|| {
        // User files are `<stdin>` and relative names; everything absolute is a system header.
        let classify = |n: &str| n.starts_with('/');
        let Ok(tree) = ast::read::read_slice(data, &classify) else {
            return;
        };
        let header = launch::parse_header(TEXT);
        let path = std::path::Path::new("/nonexistent/fuzz.cu");
        let _ = front::lower_parsed(
            path,
            TEXT,
            &tree,
            &[] as &[clang::Diagnostic],
            &header,
            vec![],
            &FrontOptions::default(),
        );
    });
});
