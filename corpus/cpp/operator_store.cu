//--blockDim=64 --gridDim=1
// A small "accumulator handle" type: operator+ on a handle stores the sum through the
// handle's pointer member and returns the handle. Every thread applies it to a handle on the
// same __shared__ cell, so all 64 threads read and write one address in one statement: a
// race no barrier can fix (the code needs an atomic or a reduction).

struct Accum {
    float *cell;
    int uses;
};

__device__ Accum operator+(Accum a, float v)
{
    *a.cell = *a.cell + v;
    a.uses += 1;
    return a;
}

__global__ void operator_store(const float *in, float *out)
{
    __shared__ float total;
    if (threadIdx.x == 0) {
        total = 0.0f;
    }
    __syncthreads();

    Accum h = {&total, 0};
    h = h + in[threadIdx.x];
    __syncthreads();

    out[threadIdx.x] = total / 64.0f + h.uses;
}
