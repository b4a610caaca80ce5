//--blockDim=64 --gridDim=[4,8]
// Sobol-style quasi-random points. Every block handles one dimension
// (blockIdx.y) and a slice of the sequence (blockIdx.x). The 32 direction
// numbers of the dimension are staged in shared memory once; each thread then
// produces POINTS_PER_THREAD points of the sequence with the Gray-code
// recurrence: the first point by XORing the direction numbers selected by the
// bits of its Gray code, the following ones by one XOR each (the direction
// number of the lowest zero bit of the index). The points are scaled to [0, 1)
// through a shared staging buffer so that the stores are coalesced.
#define BITS 32
#define THREADS 64
#define POINTS_PER_THREAD 8
#define SLICE (THREADS * POINTS_PER_THREAD)

__device__ unsigned int gray_code(unsigned int i)
{
    return i ^ (i >> 1);
}

__device__ unsigned int lowest_zero_bit(unsigned int i)
{
    unsigned int b = 0;
    while ((i & 1u) != 0 && b < BITS - 1) {
        i >>= 1;
        b++;
    }
    return b;
}

__global__ void sobol_dirs(const unsigned int *directions, float *points, int n_points)
{
    __requires(n_points > 0);
    __shared__ unsigned int v[BITS];
    __shared__ float staged[SLICE];

    int dim = blockIdx.y;
    int tid = threadIdx.x;
    // Load this dimension's direction numbers: half the block does it.
    if (tid < BITS) {
        v[tid] = directions[dim * BITS + tid];
    }
    __syncthreads();

    // The first index this thread produces, and its Gray code's value.
    unsigned int first = blockIdx.x * SLICE + tid * POINTS_PER_THREAD;
    unsigned int g = gray_code(first);
    unsigned int x = 0;
    for (int b = 0; b < BITS; b++) {
        if ((g >> b) & 1u) {
            x ^= v[b];
        }
    }

    // Consecutive indices differ in one Gray-code bit.
    const float scale = 2.3283064365386963e-10f;
    for (int k = 0; k < POINTS_PER_THREAD; k++) {
        staged[tid * POINTS_PER_THREAD + k] = x * scale;
        unsigned int c = lowest_zero_bit(first + k);
        x ^= v[c];
    }
    __syncthreads();

    // Coalesced stores of the slice: dimension-major output.
    int base = dim * n_points + blockIdx.x * SLICE;
    for (int k = 0; k < POINTS_PER_THREAD; k++) {
        int idx = k * THREADS + tid;
        if (blockIdx.x * SLICE + idx < n_points) {
            points[base + idx] = staged[idx];
        }
    }
}
