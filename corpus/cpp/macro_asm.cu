//--blockDim=128 --gridDim=1
// Inline PTX whose text a macro builds: the opcode is a stringized macro argument (`#x`)
// joined to string literals, as half-precision headers write their arithmetic. The dump does
// not carry such a template, so it is read from Clang's preprocessed output: the `mov` gives
// each thread its own slot and the macro-built `bar.sync` orders the store before the read.

#define PTX_NAME(x) #x
#define PTX_BARRIER(kind) asm volatile(PTX_NAME(bar) "." PTX_NAME(kind) " 0;" ::: "memory")
#define PTX_MOVE(out, reg) asm(PTX_NAME(mov) ".u32 %0, %%" PTX_NAME(reg) ";" : "=r"(out))
#define PTX_HALF(out, reg) asm(PTX_NAME(bfe) ".u32 %0, %%" PTX_NAME(reg) ", 1, 7;" : "=r"(out))

__global__ void macro_asm(unsigned int *out) {
    __shared__ unsigned int slot[128];
    unsigned int i;
    PTX_MOVE(i, tid.x);
    slot[i] = threadIdx.x;
    PTX_BARRIER(sync);
    out[threadIdx.x] = slot[127 - threadIdx.x];
}
