//! Prints a generated warp-specialized pipeline kernel:
//! `gen_pipeline WARPS STAGES ITERATIONS ACCESSES [--defect]` (check it with
//! `autosync check FILE --param iters=ITERATIONS`).

use autosync_devtools::workload::{pipeline_kernel, PipelineShape};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let nums: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if nums.len() != 4 || !(2..=32).contains(&nums[0]) || !(1..=7).contains(&nums[1]) {
        eprintln!("usage: gen_pipeline WARPS(2..=32) STAGES(1..=7) ITERATIONS ACCESSES [--defect]");
        return ExitCode::from(2);
    }
    let shape = PipelineShape {
        warps: nums[0],
        stages: nums[1],
        iterations: nums[2],
        accesses: nums[3],
        drop_release: args.iter().any(|a| a == "--defect"),
    };
    print!("{}", pipeline_kernel(&shape));
    ExitCode::SUCCESS
}
