//! Prints a generated Singe-shaped kernel: `gen_singe [WARPS PHASES LINES SLOTS] [--sync0]`
//! (check it with `autosync check FILE`; the header line asks for `--warp-sync 32`).

use autosync_devtools::singe::{singe_kernel, SingeShape};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let nums: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let d = SingeShape::default_named();
    let shape = match nums[..] {
        [] => d,
        [warps, phases, lines, slots] => SingeShape {
            warps,
            phases,
            lines,
            slots,
            named: true,
        },
        _ => {
            eprintln!("usage: gen_singe [WARPS PHASES LINES SLOTS] [--sync0]");
            return ExitCode::from(2);
        }
    };
    let shape = SingeShape {
        named: !args.iter().any(|a| a == "--sync0"),
        ..shape
    };
    print!("{}", singe_kernel(&shape));
    ExitCode::SUCCESS
}
