//! Snapshots of the IR of representative corpus kernels (`autosync ir` output).

use autosync::front;
use autosync_devtools::manifest;
use std::path::Path;

const KERNELS: &[&str] = &[
    "micro/straight_line.cu",
    "micro/two_ifs.cu",
    "micro/loop_nest_d2.cu",
    "micro/while_uniform.cu",
    "sdk/reduce_tree.cu",
    "sdk/reduce_template.cu",
    "sdk/matmul_tiled.cu",
    "sdk/transpose_padded.cu",
    "sdk/histogram_shared.cu",
    "sdk/device_helper.cu",
    "sdk/include_common.cu",
    "sdk/macro_rotate.cu",
    "sdk/pointer_rows.cu",
    "sdk/coop_shift.cu",
    "sdk/struct_fields.cu",
    "racy/pointer_alias.cu",
    "named/producer_consumer.cu",
    "named/cutlass_style.cu",
    "named/pipeline_double_buffer.cu",
    "regress/braceless_for.cu",
    "regress/crlf.cu",
    "regress/twod_block.cu",
];

#[test]
fn ir_snapshots() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    for path in KERNELS {
        let e = m
            .kernels
            .iter()
            .find(|e| e.path == *path)
            .unwrap_or_else(|| panic!("{path} not in manifest"));
        let unit = front::load(&Path::new("corpus").join(path), &e.front_options()).unwrap();
        let text = autosync_oracle::print::kernel(&unit.kernels[0]);
        let name = path.replace(['/', '.'], "_");
        insta::assert_snapshot!(name, text);
    }
}
