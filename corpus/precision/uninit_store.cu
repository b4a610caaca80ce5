//--blockDim=64 --gridDim=1
// Every thread copies an uninitialized local struct into one slot. The copy's bytes are
// indeterminate and need not agree between threads: a race, not a benign one.
struct entry_t {
    int key;
    float weight;
};

__global__ void uninit_store(entry_t *slots)
{
    entry_t fresh;
    slots[42] = fresh;
}
