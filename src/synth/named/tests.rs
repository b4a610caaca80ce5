//! Unit tests of the per-warp role analysis and the ID-set parser.

use super::roles::{Exec, Roles};
use super::*;
use autosync_oracle::tree::candidate_positions;
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
    let roles = Roles::new(&k).unwrap();
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
