//--blockDim=64 --gridDim=1
// Twin of uninit_store: the local struct is initialized with constants, so every thread
// stores the same bytes into the slot: a benign race (a warning; a race under --strict).
struct entry_t {
    int key;
    float weight;
};

__global__ void uninit_store_init(entry_t *slots)
{
    entry_t fresh = {7, 0.5f};
    slots[42] = fresh;
}
