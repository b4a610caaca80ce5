//--blockDim=128 --gridDim=8
// Programmatic dependent launch (sm_90): the kernel waits for the grid before it in the
// stream (cudaGridDependencySynchronize), reads what that grid wrote with plain loads, and
// lets the next grid start early (cudaTriggerProgrammaticLaunchCompletion). The waits order
// grids, not threads of one block: the shared tile is still ordered by __syncthreads. Clean,
// and no warning (no read-only-path load after the wait).
__global__ void pdl_wait(const float *prev, float *out, int n)
{
    __shared__ float tile[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    cudaGridDependencySynchronize();
    tile[threadIdx.x] = i < n ? prev[i] : 0.0f;
    __syncthreads();
    cudaTriggerProgrammaticLaunchCompletion();
    if (i < n)
        out[i] = tile[127 - threadIdx.x] * 2.0f;
}
