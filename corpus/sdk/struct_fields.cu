//--blockDim=64 --gridDim=2
// Complex values in a shared float2 buffer: fields are written and read one at a
// time; each thread multiplies its value by the value of the mirrored thread.
__global__ void struct_fields(const float2 *in, float2 *out)
{
    __shared__ float2 buf[64];
    int t = threadIdx.x;
    int g = blockIdx.x * 64 + t;
    buf[t].x = in[g].x;
    buf[t].y = in[g].y;
    __syncthreads();
    float re = buf[t].x * buf[63 - t].x - buf[t].y * buf[63 - t].y;
    float im = buf[t].x * buf[63 - t].y + buf[t].y * buf[63 - t].x;
    out[g].x = re;
    out[g].y = im;
}
