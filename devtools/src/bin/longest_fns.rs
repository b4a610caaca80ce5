//! Prints the longest functions of the product and oracle crates:
//! `longest_fns [N]` (default 10), run from the workspace root.

use autosync_devtools::lengths::functions;
use std::path::Path;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let mut all = Vec::new();
    for root in ["src/lib.rs", "oracle/src/lib.rs"] {
        all.extend(functions(Path::new(root)));
    }
    all.sort_by_key(|f| std::cmp::Reverse(f.lines));
    for f in all.iter().take(n) {
        println!("{:5}  {}  {}", f.lines, f.name, f.at);
    }
}
