/* A stand-in for a device runtime: a shared library linked against libwalltime that records
 * its own spans in C. The Python tests load it with ctypes and call it inside a Python span:
 * both must land in one trace (one recorder per process), the C span nested in the Python one. */
#include <stdint.h>

#include "walltime/walltime.h"

/* Records span "c/upload" with `bytes`, after a counter; exported for ctypes. */
__attribute__((visibility("default"))) void wt_pyclib_upload(int64_t bytes)
{
    const wt_span s = wt_begin("c", "upload");
    wt_counter("c.device_bytes", bytes);
    const wt_span_args a = { WT_CACHED_HIT, 2, bytes, "from C" };
    wt_end_ex(s, &a);
}
