//--blockDim=[16,16] --gridDim=[4,4]
// GPUVerify's file-scope axioms: facts about the launch that hold for every thread of every
// kernel of the file. The axioms say every block runs with blockIdx.y == 2 (a verifier's
// setting for the launch); autosync assumes them at each kernel's entry, so the write under
// `blockIdx.y != 2` never runs and the kernel is race-free. Without the axioms every thread
// writes `tile[0][0]`.

__axiom(blockIdx.y == 2);
__axiom(gridDim.x == 4 && blockDim.x == 16);

__global__ void gpuverify_axiom(int *out)
{
    __shared__ int tile[16][16];
    tile[threadIdx.y][threadIdx.x] = threadIdx.y;
    if (blockIdx.y != 2) {
        tile[0][0] = threadIdx.x;
    }
    __syncthreads();
    out[(blockIdx.y * 4 + blockIdx.x) * 256 + threadIdx.y * 16 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
