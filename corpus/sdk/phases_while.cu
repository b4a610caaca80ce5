//--blockDim=64 --gridDim=1
// Repeated relaxation sweeps in a while loop with a uniform trip count: read the
// neighbours, synchronize, write back, synchronize.
__global__ void phases_while(float *data, int sweeps)
{
    __shared__ float cell[66];
    int t = threadIdx.x;
    cell[t + 1] = data[t];
    if (t == 0) {
        cell[0] = 0.0f;
        cell[65] = 0.0f;
    }
    __syncthreads();

    int done = 0;
    while (done < sweeps) {
        float next = 0.5f * (cell[t] + cell[t + 2]);
        __syncthreads();
        cell[t + 1] = next;
        __syncthreads();
        done++;
    }
    data[t] = cell[t + 1];
}
