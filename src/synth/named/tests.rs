//! Unit tests of the per-warp role analysis and the ID-set parser.

use super::roles::{Exec, Roles};
use super::*;
use autosync_oracle::ir::{Label, StmtKind};
use autosync_oracle::tree::candidate_positions;
use autosync_oracle::tree::{for_each_stmt, Position};
use std::path::Path;

fn load(path: &str) -> Kernel {
    let opts = crate::front::FrontOptions::default();
    crate::front::load(Path::new(path), &opts).unwrap().kernels.remove(0)
}

#[test]
fn id_sets_parse_ranges_and_lists() {
    assert_eq!(parse_id_set("0-6").unwrap(), (0..=6).collect::<Vec<_>>());
    assert_eq!(parse_id_set("1,3-4, 9").unwrap(), vec![1, 3, 4, 9]);
    assert!(parse_id_set("3-1").is_err());
    assert!(parse_id_set("16").is_err());
    assert!(parse_id_set("x").is_err());
    let s = NamedSettings::with_reserved(&parse_id_set("0-6").unwrap());
    assert_eq!(s.allowed_ids, (7..=15).collect::<Vec<_>>());
}

#[test]
fn roles_split_warps_by_branch() {
    let k = load("corpus/named/unsynced/two_channels.cu");
    let roles = Roles::new(&k, &autosync_oracle::sdv::uniformity(&k)).unwrap();
    assert_eq!(roles.nwarps, 4);
    // Every warp executes exactly one of the four branch blocks.
    let mut seen = vec![0; 4];
    for p in candidate_positions(&k) {
        if let Position::BlockStart(b) = p {
            if let Some(w) = roles.warps_of(b) {
                if w.len() == 1 {
                    seen[w[0] as usize] += 1;
                }
            }
        }
    }
    assert_eq!(seen, vec![1, 1, 1, 1]);
    let _ = Exec::Maybe;
}

fn loops(k: &Kernel) -> Vec<Label> {
    let mut v = Vec::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Loop(_) = s.kind {
            v.push(s.label);
        }
    });
    v
}

#[test]
fn role_loops_have_per_warp_trip_counts() {
    let mut k = load("corpus/named/unsynced/double_buffer.cu");
    k.launch.params.insert("iters".into(), 4);
    let roles = Roles::new(&k, &autosync_oracle::sdv::uniformity(&k)).unwrap();
    let l = loops(&k);
    // The producer loop runs 4 times in warp 0 and never in warp 1; the consumer the reverse.
    assert_eq!(roles.trips(l[0], 0), Some(4));
    assert_eq!(roles.trips(l[1], 1), Some(4));
    assert_eq!(roles.trips(l[0], 1), None);
    // Without a value for `iters` nothing can be counted.
    let k2 = load("corpus/named/unsynced/double_buffer.cu");
    let r2 = Roles::new(&k2, &autosync_oracle::sdv::uniformity(&k2)).unwrap();
    assert_eq!(r2.trips(loops(&k2)[0], 0), None);
}

#[test]
fn lane_dependent_blocks_are_undecided() {
    let k = load("corpus/named/unsynced/subblock_reduce.cu");
    let roles = Roles::new(&k, &autosync_oracle::sdv::uniformity(&k)).unwrap();
    let l = loops(&k)[0];
    assert_eq!(roles.trips(l, 0), Some(6), "h = 32, 16, 8, 4, 2, 1");
    let mut inner_if_blocks = Vec::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::If { then_blk, .. } = &s.kind {
            inner_if_blocks.push(then_blk.label);
        }
    });
    // `if (warp < 2)` is decided per warp; `if (t < h)` and `if (t == 0)` are not.
    assert_eq!(roles.warps_of(inner_if_blocks[0]), Some(vec![0, 1]));
    assert_eq!(roles.warps_of(inner_if_blocks[1]), None);
    assert_eq!(roles.warps_of(inner_if_blocks[2]), None);
}

#[test]
fn early_return_removes_warps_from_later_positions() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("early.cu");
    std::fs::write(
        &p,
        "//--blockDim=96 --gridDim=1\n__global__ void early(float *out)\n{\n    __shared__ float c[32];\n    int warp = threadIdx.x / 32;\n    if (warp == 2) {\n        return;\n    }\n    c[threadIdx.x % 32] = 1.0f;\n}\n",
    )
    .unwrap();
    let k = crate::front::load(&p, &crate::front::FrontOptions::default())
        .unwrap()
        .kernels
        .remove(0);
    let roles = Roles::new(&k, &autosync_oracle::sdv::uniformity(&k)).unwrap();
    let last = k.body.stmts.last().unwrap().label;
    assert_eq!(roles.warps_of(last), Some(vec![0, 1]));
}
