// autosync shim: everything is declared in autosync_cuda.h, which is force-included.
// Like the verifiers' stand-ins for the toolkit (GPUVerify's own <cuda.h>), this header also
// declares the device libraries kernels written in that dialect use without including them:
// cooperative groups and the cuRAND device API. The real toolkit's <cuda.h> (the driver API)
// declares neither; with a real toolkit such a file needs their own headers.
#include "autosync_cuda.h"
#include "cooperative_groups.h"
#include "curand_kernel.h"
