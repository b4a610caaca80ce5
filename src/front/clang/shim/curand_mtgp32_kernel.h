// autosync shim: see curand_mtgp32.h.
#include "curand_mtgp32.h"
