// autosync shim: everything is declared in autosync_cuda.h, which is force-included.
#include "autosync_cuda.h"
