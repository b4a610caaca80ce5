// autosync shim for the MTGP32 generator headers: declarations only.
#pragma once
#include "curand_kernel.h"
#include "curand.h"
struct mtgp32_params_fast {
  int mexp, pos, sh1, sh2;
  unsigned int tbl[16], tmp_tbl[16], flt_tmp_tbl[16], mask;
  unsigned char poly_sha1[21];
};
typedef struct mtgp32_params_fast mtgp32_params_fast_t;
struct mtgp32_kernel_params {
  unsigned int pos_tbl[200], param_tbl[200][16], temper_tbl[200][16], single_temper_tbl[200][16];
  unsigned int sh1_tbl[200], sh2_tbl[200], mask[1];
};
typedef struct mtgp32_kernel_params mtgp32_kernel_params_t;
extern mtgp32_params_fast_t mtgp32dc_params_fast_11213[];
extern "C" {
curandStatus_t curandMakeMTGP32Constants(const mtgp32_params_fast_t params[], mtgp32_kernel_params_t *p);
curandStatus_t curandMakeMTGP32KernelState(curandStateMtgp32_t *s, mtgp32_params_fast_t params[],
                                           mtgp32_kernel_params_t *k, int n, unsigned long long seed);
}
