//! The CUDA device intrinsics autosync knows by name, each with how the lowering models a call
//! of it and which declaration family of the built-in shim declares it. One list serves both:
//! the shim's family selection (`clang::shim::families`) and the lowering (`lower::library`).

/// How a call of an intrinsic is modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Touches no memory except its output pointers (written with opaque values) and does not
    /// synchronize: the result is an opaque function of the arguments.
    Pure,
    /// An integer function modelled exactly (`min`, `abs`, `__mul24`).
    Exact,
}

/// The shim's declaration family that declares an intrinsic (`AUTOSYNC_WANT_<FAMILY>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `math_functions.h`.
    Math,
    /// Integer, conversion and timer intrinsics.
    Intrin,
    /// Warp shuffles, votes, matches and reductions.
    Warp,
    /// `make_int2` and the other vector constructors.
    Make,
}

impl Family {
    /// The family's macro suffix in the shim (`AUTOSYNC_WANT_MATH`).
    pub fn macro_name(self) -> &'static str {
        match self {
            Family::Math => "MATH",
            Family::Intrin => "INTRIN",
            Family::Warp => "WARP",
            Family::Make => "MAKE",
        }
    }
}

/// One intrinsic.
#[derive(Clone, Copy, Debug)]
pub struct Intrinsic {
    /// Its name (unqualified).
    pub name: &'static str,
    /// How a call is modelled.
    pub model: Model,
    /// Which shim family declares it.
    pub family: Family,
}

const fn i(name: &'static str, model: Model, family: Family) -> Intrinsic {
    Intrinsic { name, model, family }
}

use Family::*;
use Model::*;

/// Every intrinsic known by name.
pub const INTRINSICS: &[Intrinsic] = &[
    // Math: float and double forms, fast intrinsics; results opaque, output pointers written.
    i("sqrt", Pure, Math),
    i("rsqrt", Pure, Math),
    i("cbrt", Pure, Math),
    i("rcbrt", Pure, Math),
    i("exp", Pure, Math),
    i("exp2", Pure, Math),
    i("exp10", Pure, Math),
    i("expm1", Pure, Math),
    i("log", Pure, Math),
    i("log2", Pure, Math),
    i("log10", Pure, Math),
    i("log1p", Pure, Math),
    i("sin", Pure, Math),
    i("cos", Pure, Math),
    i("tan", Pure, Math),
    i("asin", Pure, Math),
    i("acos", Pure, Math),
    i("atan", Pure, Math),
    i("sinh", Pure, Math),
    i("cosh", Pure, Math),
    i("tanh", Pure, Math),
    i("asinh", Pure, Math),
    i("acosh", Pure, Math),
    i("atanh", Pure, Math),
    i("fabs", Pure, Math),
    i("floor", Pure, Math),
    i("ceil", Pure, Math),
    i("round", Pure, Math),
    i("trunc", Pure, Math),
    i("rint", Pure, Math),
    i("nearbyint", Pure, Math),
    i("erf", Pure, Math),
    i("erfc", Pure, Math),
    i("erfinv", Pure, Math),
    i("erfcinv", Pure, Math),
    i("lgamma", Pure, Math),
    i("tgamma", Pure, Math),
    i("sinpi", Pure, Math),
    i("cospi", Pure, Math),
    i("normcdf", Pure, Math),
    i("normcdfinv", Pure, Math),
    i("logb", Pure, Math),
    i("pow", Pure, Math),
    i("fmin", Pure, Math),
    i("fmax", Pure, Math),
    i("fmod", Pure, Math),
    i("atan2", Pure, Math),
    i("hypot", Pure, Math),
    i("copysign", Pure, Math),
    i("fdim", Pure, Math),
    i("remainder", Pure, Math),
    i("nextafter", Pure, Math),
    i("sqrtf", Pure, Math),
    i("rsqrtf", Pure, Math),
    i("cbrtf", Pure, Math),
    i("rcbrtf", Pure, Math),
    i("expf", Pure, Math),
    i("exp2f", Pure, Math),
    i("exp10f", Pure, Math),
    i("expm1f", Pure, Math),
    i("logf", Pure, Math),
    i("log2f", Pure, Math),
    i("log10f", Pure, Math),
    i("log1pf", Pure, Math),
    i("sinf", Pure, Math),
    i("cosf", Pure, Math),
    i("tanf", Pure, Math),
    i("asinf", Pure, Math),
    i("acosf", Pure, Math),
    i("atanf", Pure, Math),
    i("sinhf", Pure, Math),
    i("coshf", Pure, Math),
    i("tanhf", Pure, Math),
    i("asinhf", Pure, Math),
    i("acoshf", Pure, Math),
    i("atanhf", Pure, Math),
    i("fabsf", Pure, Math),
    i("floorf", Pure, Math),
    i("ceilf", Pure, Math),
    i("roundf", Pure, Math),
    i("truncf", Pure, Math),
    i("rintf", Pure, Math),
    i("nearbyintf", Pure, Math),
    i("erff", Pure, Math),
    i("erfcf", Pure, Math),
    i("erfinvf", Pure, Math),
    i("erfcinvf", Pure, Math),
    i("lgammaf", Pure, Math),
    i("tgammaf", Pure, Math),
    i("sinpif", Pure, Math),
    i("cospif", Pure, Math),
    i("normcdff", Pure, Math),
    i("normcdfinvf", Pure, Math),
    i("logbf", Pure, Math),
    i("powf", Pure, Math),
    i("fminf", Pure, Math),
    i("fmaxf", Pure, Math),
    i("fmodf", Pure, Math),
    i("atan2f", Pure, Math),
    i("hypotf", Pure, Math),
    i("copysignf", Pure, Math),
    i("fdimf", Pure, Math),
    i("remainderf", Pure, Math),
    i("nextafterf", Pure, Math),
    i("fma", Pure, Math),
    i("fmaf", Pure, Math),
    i("sincos", Pure, Math),
    i("sincosf", Pure, Math),
    i("sincospif", Pure, Math),
    i("ldexp", Pure, Math),
    i("ldexpf", Pure, Math),
    i("frexpf", Pure, Math),
    i("modff", Pure, Math),
    i("isnan", Pure, Math),
    i("isinf", Pure, Math),
    i("isfinite", Pure, Math),
    i("signbit", Pure, Math),
    i("__expf", Pure, Math),
    i("__exp10f", Pure, Math),
    i("__logf", Pure, Math),
    i("__log2f", Pure, Math),
    i("__log10f", Pure, Math),
    i("__sinf", Pure, Math),
    i("__cosf", Pure, Math),
    i("__tanf", Pure, Math),
    i("__sincosf", Pure, Math),
    i("__powf", Pure, Math),
    i("__fdividef", Pure, Math),
    i("__frcp_rn", Pure, Math),
    i("__fsqrt_rn", Pure, Math),
    i("__frsqrt_rn", Pure, Math),
    i("__saturatef", Pure, Math),
    i("__fadd_rn", Pure, Math),
    i("__fsub_rn", Pure, Math),
    i("__fmul_rn", Pure, Math),
    i("__fdiv_rn", Pure, Math),
    i("__fmaf_rn", Pure, Math),
    i("__dadd_rn", Pure, Math),
    i("__dmul_rn", Pure, Math),
    i("__fma_rn", Pure, Math),
    // Integer and conversion intrinsics, timers.
    i("clock", Pure, Intrin),
    i("clock64", Pure, Intrin),
    i("__globaltimer", Pure, Intrin),
    i("__nanosleep", Pure, Intrin),
    i("__mulhi", Pure, Intrin),
    i("__umulhi", Pure, Intrin),
    i("__mul64hi", Pure, Intrin),
    i("__umul64hi", Pure, Intrin),
    i("__popc", Pure, Intrin),
    i("__popcll", Pure, Intrin),
    i("__clz", Pure, Intrin),
    i("__clzll", Pure, Intrin),
    i("__ffs", Pure, Intrin),
    i("__ffsll", Pure, Intrin),
    i("__brev", Pure, Intrin),
    i("__brevll", Pure, Intrin),
    i("__byte_perm", Pure, Intrin),
    i("__funnelshift_l", Pure, Intrin),
    i("__funnelshift_r", Pure, Intrin),
    i("__sad", Pure, Intrin),
    i("__usad", Pure, Intrin),
    i("__hadd", Pure, Intrin),
    i("__rhadd", Pure, Intrin),
    i("__uhadd", Pure, Intrin),
    i("__float2int_rn", Pure, Intrin),
    i("__float2int_rz", Pure, Intrin),
    i("__float2int_rd", Pure, Intrin),
    i("__float2int_ru", Pure, Intrin),
    i("__float2uint_rn", Pure, Intrin),
    i("__float2uint_rz", Pure, Intrin),
    i("__int2float_rn", Pure, Intrin),
    i("__uint2float_rn", Pure, Intrin),
    i("__float_as_int", Pure, Intrin),
    i("__float_as_uint", Pure, Intrin),
    i("__int_as_float", Pure, Intrin),
    i("__uint_as_float", Pure, Intrin),
    i("__double_as_longlong", Pure, Intrin),
    i("__longlong_as_double", Pure, Intrin),
    i("__double2int_rn", Pure, Intrin),
    i("__double2float_rn", Pure, Intrin),
    // Warp functions: values opaque; they neither access memory nor order it.
    i("__shfl_sync", Pure, Warp),
    i("__shfl_up_sync", Pure, Warp),
    i("__shfl_down_sync", Pure, Warp),
    i("__shfl_xor_sync", Pure, Warp),
    i("__shfl", Pure, Warp),
    i("__shfl_up", Pure, Warp),
    i("__shfl_down", Pure, Warp),
    i("__shfl_xor", Pure, Warp),
    i("__ballot_sync", Pure, Warp),
    i("__ballot", Pure, Warp),
    i("__any_sync", Pure, Warp),
    i("__all_sync", Pure, Warp),
    i("__uni_sync", Pure, Warp),
    i("__any", Pure, Warp),
    i("__all", Pure, Warp),
    i("__activemask", Pure, Warp),
    i("__match_any_sync", Pure, Warp),
    i("__reduce_add_sync", Pure, Warp),
    i("__reduce_min_sync", Pure, Warp),
    i("__reduce_max_sync", Pure, Warp),
    i("__lanemask_lt", Pure, Warp),
    // Vector constructors.
    i("make_char1", Pure, Make),
    i("make_char2", Pure, Make),
    i("make_char3", Pure, Make),
    i("make_char4", Pure, Make),
    i("make_uchar1", Pure, Make),
    i("make_uchar2", Pure, Make),
    i("make_uchar3", Pure, Make),
    i("make_uchar4", Pure, Make),
    i("make_short1", Pure, Make),
    i("make_short2", Pure, Make),
    i("make_short3", Pure, Make),
    i("make_short4", Pure, Make),
    i("make_ushort1", Pure, Make),
    i("make_ushort2", Pure, Make),
    i("make_ushort3", Pure, Make),
    i("make_ushort4", Pure, Make),
    i("make_int1", Pure, Make),
    i("make_int2", Pure, Make),
    i("make_int3", Pure, Make),
    i("make_int4", Pure, Make),
    i("make_uint1", Pure, Make),
    i("make_uint2", Pure, Make),
    i("make_uint3", Pure, Make),
    i("make_uint4", Pure, Make),
    i("make_long1", Pure, Make),
    i("make_long2", Pure, Make),
    i("make_long3", Pure, Make),
    i("make_long4", Pure, Make),
    i("make_ulong1", Pure, Make),
    i("make_ulong2", Pure, Make),
    i("make_ulong3", Pure, Make),
    i("make_ulong4", Pure, Make),
    i("make_longlong1", Pure, Make),
    i("make_longlong2", Pure, Make),
    i("make_longlong3", Pure, Make),
    i("make_longlong4", Pure, Make),
    i("make_ulonglong1", Pure, Make),
    i("make_ulonglong2", Pure, Make),
    i("make_ulonglong3", Pure, Make),
    i("make_ulonglong4", Pure, Make),
    i("make_float1", Pure, Make),
    i("make_float2", Pure, Make),
    i("make_float3", Pure, Make),
    i("make_float4", Pure, Make),
    i("make_double1", Pure, Make),
    i("make_double2", Pure, Make),
    i("make_double3", Pure, Make),
    i("make_double4", Pure, Make),
    // Integer functions with an exact model.
    i("abs", Exact, Math),
    i("labs", Exact, Math),
    i("llabs", Exact, Math),
    i("min", Exact, Math),
    i("max", Exact, Math),
    i("umin", Exact, Math),
    i("umax", Exact, Math),
    i("llmin", Exact, Math),
    i("llmax", Exact, Math),
    i("ullmin", Exact, Math),
    i("ullmax", Exact, Math),
    // Integer intrinsics with an exact model.
    i("__mul24", Exact, Intrin),
    i("__umul24", Exact, Intrin),
];

/// The intrinsic with this name.
pub fn lookup(name: &str) -> Option<&'static Intrinsic> {
    INTRINSICS.iter().find(|x| x.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = INTRINSICS.iter().map(|x| x.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len(), "an intrinsic is listed twice");
    }
}
