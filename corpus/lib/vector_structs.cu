//--blockDim=64 --gridDim=1
// Code written against CUDA's vector headers: vector types are plain structs (user operators
// take them and convert their other operands), `make_float3` converts its arguments,
// `make_int2` is exact (its fields index memory), with `uint`, `NULL`, `frexp`,
// `__double2hiint`/`__double2loint` and the pre-Volta votes `all`/`any`. One race: the
// neighbour's slot of `s` is read without a barrier after the stores.

__device__ float4 operator*(float4 a, float f) { return make_float4(a.x * f, a.y * f, a.z * f, a.w * f); }
__device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }

__global__ void vector_structs(const float4 *in, float3 *out, const double *d, int *e)
{
    __shared__ float4 s[64];
    uint t = threadIdx.x;
    const int *none = NULL;
    s[t] = in[t] * 2;
    float3 a = make_float3(1, 2.0, t);
    out[t] = a + make_float3(s[63 - t].x, 0.f, 0.f);
    int ex;
    double m = frexp(d[t], &ex);
    int2 at = make_int2(t, 64);
    e[at.x] = __double2hiint(m) + __double2loint(m) + ex + (none == NULL);
    e[at.y + at.x] = (all(t < 64) ? 1 : 0) + (any(t == 0) ? 1 : 0) + (int)sizeof(char3) + (int)alignof(double2);
}
