//--blockDim=128 --gridDim=8
// pdl_wait with its __syncthreads replaced by a second cudaGridDependencySynchronize: a
// grid-dependency wait orders this grid after the previous one, never one thread of the
// block after another, so the reversed read of the tile races with its store (RAW).
__global__ void pdl_wait_racy(const float *prev, float *out, int n)
{
    __shared__ float tile[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    cudaGridDependencySynchronize();
    tile[threadIdx.x] = i < n ? prev[i] : 0.0f;
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
    if (i < n)
        out[i] = tile[127 - threadIdx.x] * 2.0f;
}
