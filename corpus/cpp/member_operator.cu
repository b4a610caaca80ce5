//--blockDim=64 --gridDim=2
// A shared-memory row wrapped in a class template whose member operators do the accesses:
// operator+= adds to the calling thread's own slot, operator[] reads any slot, clear()
// zeroes the own slot. The kernel reads the right neighbour's slot right after the updates
// with no barrier in between: the neighbour's clear() and += writes race with the read.

template <int N>
class SharedRow {
public:
    __device__ explicit SharedRow(float *storage) : data_(storage), self_(threadIdx.x % N) {}

    __device__ void clear() { data_[self_] = 0.0f; }

    __device__ SharedRow &operator+=(float v)
    {
        data_[self_] += v;
        return *this;
    }

    __device__ float operator[](int i) const { return data_[i % N]; }

private:
    float *data_;
    int self_;
};

__global__ void member_operator(const float *in, float *out)
{
    __shared__ float storage[64];
    SharedRow<64> row(storage);
    int g = blockIdx.x * 64 + threadIdx.x;

    row.clear();
    row += in[g];
    row += 1.0f;

    out[g] = row[threadIdx.x + 1] - row[threadIdx.x];
}
