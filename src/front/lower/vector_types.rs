//! CUDA's built-in vector types (`float4`, `int2`, `dim3`, ...), whose layout is part of the
//! CUDA ABI (`vector_types.h`). With a real toolkit they are declared by the precompiled
//! prelude, which a dump does not show; the lowering then takes their layout from here. A
//! type declared in the file itself is never looked up here.

use crate::front::ctype::CType;

/// Tag of the synthetic record ids of vector types (clang ids are addresses below 2^48).
const TAG: u64 = 0xB000_0000_0000_0000;

/// The component type, component count and alignment of a vector type name.
fn shape(name: &str) -> Option<(CType, u64, u64)> {
    if name == "dim3" || name == "uint3" {
        return Some((CType::UINT, 3, 4));
    }
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (base, n) = name.split_at(name.len() - digits);
    let n: u64 = n.parse().ok().filter(|n| (1..=4).contains(n))?;
    let int = |bits: u8, signed: bool| CType::Int { bits, signed };
    let elem = match base {
        "char" => int(8, true),
        "uchar" => int(8, false),
        "short" => int(16, true),
        "ushort" => int(16, false),
        "int" => int(32, true),
        "uint" => int(32, false),
        "long" => int(64, true),
        "ulong" => int(64, false),
        "longlong" => int(64, true),
        "ulonglong" => int(64, false),
        "float" => CType::Float(32),
        "double" => CType::Float(64),
        _ => return None,
    };
    let size = elem_size(&elem);
    // vector_types.h: 2- and 4-component vectors are aligned to their size (at most 16);
    // 1- and 3-component ones to their component (4-component 64-bit types: 16).
    let align = match n {
        2 | 4 => (size * n).min(16),
        _ => size,
    };
    Some((elem, n, align))
}

fn elem_size(t: &CType) -> u64 {
    match t {
        CType::Int { bits, .. } | CType::Float(bits) => *bits as u64 / 8,
        _ => 4,
    }
}

/// The synthetic record id of a vector type name.
pub fn record_id(name: &str) -> Option<u64> {
    let i = NAMES.iter().position(|n| *n == name)?;
    shape(name)?;
    Some(TAG | i as u64)
}

/// Whether a record id is a vector type's.
pub fn is_vector(id: u64) -> bool {
    id & TAG == TAG && ((id & !TAG) as usize) < NAMES.len()
}

/// The name of a vector type's record id.
pub fn name_of(id: u64) -> Option<&'static str> {
    is_vector(id).then(|| NAMES[(id & !TAG) as usize])
}

/// A vector type's fields (name, type, byte offset), size and alignment.
pub type VectorLayout = (Vec<(&'static str, CType, u64)>, u64, u64);

/// The fields (name, type, offset), size and alignment of a vector type's record.
pub fn layout(id: u64) -> Option<VectorLayout> {
    let (elem, n, align) = shape(name_of(id)?)?;
    let es = elem_size(&elem);
    let fields = ["x", "y", "z", "w"][..n as usize]
        .iter()
        .enumerate()
        .map(|(i, f)| (*f, elem.clone(), i as u64 * es))
        .collect();
    let size = (es * n).div_ceil(align) * align;
    Some((fields, size, align))
}

const NAMES: &[&str] = &[
    "char1",
    "char2",
    "char3",
    "char4",
    "uchar1",
    "uchar2",
    "uchar3",
    "uchar4",
    "short1",
    "short2",
    "short3",
    "short4",
    "ushort1",
    "ushort2",
    "ushort3",
    "ushort4",
    "int1",
    "int2",
    "int3",
    "int4",
    "uint1",
    "uint2",
    "uint3",
    "uint4",
    "long1",
    "long2",
    "long3",
    "long4",
    "ulong1",
    "ulong2",
    "ulong3",
    "ulong4",
    "longlong1",
    "longlong2",
    "longlong3",
    "longlong4",
    "ulonglong1",
    "ulonglong2",
    "ulonglong3",
    "ulonglong4",
    "float1",
    "float2",
    "float3",
    "float4",
    "double1",
    "double2",
    "double3",
    "double4",
    "dim3",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_vector_types_h() {
        let l = |n: &str| layout(record_id(n).unwrap()).unwrap();
        assert_eq!((l("float4").1, l("float4").2), (16, 16));
        assert_eq!((l("float3").1, l("float3").2), (12, 4));
        assert_eq!((l("float2").1, l("float2").2), (8, 8));
        assert_eq!((l("double2").1, l("double2").2), (16, 16));
        assert_eq!((l("longlong4").1, l("longlong4").2), (32, 16));
        assert_eq!((l("char3").1, l("char3").2), (3, 1));
        assert_eq!((l("dim3").1, l("dim3").2), (12, 4));
        assert_eq!(l("int4").0.iter().map(|f| f.2).collect::<Vec<_>>(), [0, 4, 8, 12]);
        assert!(record_id("float5").is_none() && record_id("texture").is_none());
    }
}
