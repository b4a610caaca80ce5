//! Snapshots of the diffs `autosync fix --diff` produces for corpus kernels (CRLF, brace-less
//! bodies, nested loops, ifs, several barriers).

use autosync::jobs::fix::{fix_file, FixOptions};
use autosync_devtools::manifest;
use std::path::Path;

const FILES: &[&str] = &[
    "micro/straight_line.cu",
    "micro/two_ifs.cu",
    "micro/loop_intra.cu",
    "micro/loop_inter.cu",
    "micro/loop_both.cu",
    "micro/loop_nest_d2.cu",
    "micro/loop_nest_d2_both.cu",
    "micro/two_races_two_barriers.cu",
    "micro/loop_start_barrier.cu",
    "regress/braceless_for.cu",
    "regress/braceless_if.cu",
    "regress/one_line_if.cu",
    "regress/crlf.cu",
    "regress/tabs.cu",
    "racy/backedge_d3.cu",
];

#[test]
fn fix_diff_snapshots() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    for f in FILES {
        let e = m
            .kernels
            .iter()
            .find(|e| e.path == *f)
            .unwrap_or_else(|| panic!("{f} not in manifest"));
        let opts = FixOptions {
            annotate: true,
            ..Default::default()
        };
        let r = fix_file(&Path::new("corpus").join(f), &e.front_options(), &opts).unwrap();
        assert!(r.changed, "{f}: nothing to fix");
        // insta normalizes line endings; spell out CR so CRLF output is visible.
        let diff = r.diff.replace('\r', "\\r");
        insta::assert_snapshot!(f.replace(['/', '.'], "_"), diff);
    }
}
