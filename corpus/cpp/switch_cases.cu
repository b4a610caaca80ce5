//--blockDim=64 --gridDim=2
// A kernel whose work is picked by a uniform `mode` argument in a switch with braced case
// blocks. Mode 0 stages the row and ends its case with `break;` inside the braces; mode 1
// stages a shifted row and deliberately falls through into mode 2, which smooths the row in
// place. The fall-through path reads neighbours that other threads wrote in case 1 with no
// barrier in between: a race. Case 0's write does not reach case 2 (its block ends in a
// break), so a front end that takes braced `case N: { ...; break; }` for fall-through
// reports a second, false pair.

enum Mode { kCopy = 0, kShift = 1, kSmooth = 2, kClear = 3 };

__global__ void switch_cases(const float *in, float *out, int mode)
{
    __shared__ float row[64];
    int t = threadIdx.x;
    const float *src = in + blockIdx.x * 64;
    float v = 0.0f;

    switch (mode) {
    case kCopy: {
        row[t] = src[t];
        break;
    }
    case kShift: {
        row[t] = src[(t + 1) % 64];
    }
        // fall through
    case kSmooth: {
        float left = row[(t + 63) % 64];
        v = 0.5f * left;
        break;
    }
    case kClear:
    default: {
        row[t] = 0.0f;
        break;
    }
    }
    __syncthreads();
    out[blockIdx.x * 64 + t] = v + row[t];
}
