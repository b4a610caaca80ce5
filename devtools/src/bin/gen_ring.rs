//! Prints the generated async pipeline of a seed (`autosync_devtools::pipelines`), as the
//! differential test `tests/it/pipeline_differential.rs` draws it: `gen_ring SEED`.

use autosync_devtools::pipelines::generate_pipeline;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(seed) = std::env::args().nth(1).and_then(|a| a.parse().ok()) else {
        eprintln!("usage: gen_ring SEED");
        return ExitCode::from(2);
    };
    print!("{}", generate_pipeline(seed).to_cuda());
    ExitCode::SUCCESS
}
