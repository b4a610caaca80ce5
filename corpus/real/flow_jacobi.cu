//--blockDim=[16,8] --gridDim=[4,4]
// One block of Horn-Schunck optical flow: JACOBI_STEPS Jacobi iterations of the
// flow (u, v) on a 16x8 tile, all inside shared memory. The tile carries a one
// pixel halo on every side, loaded with clamping at the image border; the halo
// stays fixed during the iterations (each block only refines its interior and
// writes it to the output arrays: the neighbours still read the input's halo).
// Two buffers per component alternate between iterations.
#define TX 16
#define TY 8
#define JACOBI_STEPS 6
#define HX (TX + 2)
#define HY (TY + 2)

__device__ int clampi(int x, int lo, int hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

__global__ void flow_jacobi(const float *ix, const float *iy, const float *it, const float *u, const float *v,
                            float *u_out, float *v_out, int width, int height, float alpha2)
{
    __requires(width > 0);
    __requires(height > 0);
    __shared__ float su[2][HY][HX];
    __shared__ float sv[2][HY][HX];
    __shared__ float sgx[TY][TX];
    __shared__ float sgy[TY][TX];
    __shared__ float sgt[TY][TX];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * TX + tx;
    int y = blockIdx.y * TY + ty;
    int cx = clampi(x, 0, width - 1);
    int cy = clampi(y, 0, height - 1);

    // Image derivatives of the thread's own pixel.
    sgx[ty][tx] = ix[cy * width + cx];
    sgy[ty][tx] = iy[cy * width + cx];
    sgt[ty][tx] = it[cy * width + cx];

    // Interior of both flow components, into buffer 0.
    su[0][ty + 1][tx + 1] = u[cy * width + cx];
    sv[0][ty + 1][tx + 1] = v[cy * width + cx];

    // Left and right halo columns: the first two columns of threads.
    if (tx < 2) {
        int hx = tx == 0 ? 0 : HX - 1;
        int gx = clampi(blockIdx.x * TX + hx - 1, 0, width - 1);
        su[0][ty + 1][hx] = u[cy * width + gx];
        sv[0][ty + 1][hx] = v[cy * width + gx];
        su[1][ty + 1][hx] = u[cy * width + gx];
        sv[1][ty + 1][hx] = v[cy * width + gx];
    }
    // Top and bottom halo rows (with the corners): the first two rows of threads.
    if (ty < 2) {
        int hy = ty == 0 ? 0 : HY - 1;
        int gy = clampi(blockIdx.y * TY + hy - 1, 0, height - 1);
        for (int hx = tx; hx < HX; hx += TX) {
            int gx = clampi(blockIdx.x * TX + hx - 1, 0, width - 1);
            su[0][hy][hx] = u[gy * width + gx];
            sv[0][hy][hx] = v[gy * width + gx];
            su[1][hy][hx] = u[gy * width + gx];
            sv[1][hy][hx] = v[gy * width + gx];
        }
    }
    __syncthreads();

    float gx = sgx[ty][tx];
    float gy = sgy[ty][tx];
    float gt = sgt[ty][tx];
    float denom = alpha2 + gx * gx + gy * gy;

    for (int step = 0; step < JACOBI_STEPS; step++) {
        int src = step & 1;
        int dst = 1 - src;
        // Four-neighbour averages of the previous iterate.
        float ubar = 0.25f * (su[src][ty][tx + 1] + su[src][ty + 2][tx + 1] +
                              su[src][ty + 1][tx] + su[src][ty + 1][tx + 2]);
        float vbar = 0.25f * (sv[src][ty][tx + 1] + sv[src][ty + 2][tx + 1] +
                              sv[src][ty + 1][tx] + sv[src][ty + 1][tx + 2]);
        float t = (gx * ubar + gy * vbar + gt) / denom;
        su[dst][ty + 1][tx + 1] = ubar - gx * t;
        sv[dst][ty + 1][tx + 1] = vbar - gy * t;
        __syncthreads();
    }

    // JACOBI_STEPS is even: the last iterate is in buffer 0.
    if (x < width && y < height) {
        u_out[y * width + x] = su[0][ty + 1][tx + 1];
        v_out[y * width + x] = sv[0][ty + 1][tx + 1];
    }
}
