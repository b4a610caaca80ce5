//--blockDim=128 --gridDim=1
// Racy twin of macro_asm: the macro-built `bfe` (bits 1..7 of the thread index) hands
// threads 2k and 2k+1 the same slot, so their stores collide. Read as an unknown value the
// index would race too, but only this reading says which threads (1 and 0).

#define PTX_NAME(x) #x
#define PTX_BARRIER(kind) asm volatile(PTX_NAME(bar) "." PTX_NAME(kind) " 0;" ::: "memory")
#define PTX_MOVE(out, reg) asm(PTX_NAME(mov) ".u32 %0, %%" PTX_NAME(reg) ";" : "=r"(out))
#define PTX_HALF(out, reg) asm(PTX_NAME(bfe) ".u32 %0, %%" PTX_NAME(reg) ", 1, 7;" : "=r"(out))

__global__ void macro_asm_racy(unsigned int *out) {
    __shared__ unsigned int slot[128];
    unsigned int i;
    PTX_HALF(i, tid.x);
    slot[i] = threadIdx.x;
    PTX_BARRIER(sync);
    out[threadIdx.x] = slot[127 - threadIdx.x];
}
