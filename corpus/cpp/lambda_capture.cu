//--blockDim=64 --gridDim=2
// Lambdas in a kernel: `load` captures the shared row and the thread index by reference and
// writes the row; `scaled` captures a weight by value; `neighbour` captures by reference and
// reads another thread's element. The barrier between the lambda that writes and the
// lambda that reads is missing: a race through lambda bodies (write in `load`, read in
// `neighbour`).

__global__ void lambda_capture(const float *in, float *out, float weight)
{
    __shared__ float row[64];
    int t = threadIdx.x;
    int base = blockIdx.x * 64;

    auto load = [&](int i) { row[i] = in[base + i]; };
    auto scaled = [weight](float v) { return v * weight; };
    auto neighbour = [&](int d) { return row[(t + d) % 64]; };

    load(t);
    float left = neighbour(63);
    float right = neighbour(1);
    out[base + t] = scaled(left + right);
}
