// A stand-in for a device runtime's C++ library, loaded by Python with ctypes: a static
// object whose destructor reports the JIT-cache hits with wt_counter() when the process tears
// down, after the interpreter has finished. test_teardown.py reads the counter back.
#include <walltime/walltime.h>

namespace {

struct jit_cache {
    long hits = 0;
    ~jit_cache() { wt_counter("jit_cache.hits", hits); }
};

jit_cache the_cache;

} // namespace

extern "C" __attribute__((visibility("default"))) void wt_pycxx_hit(void) { the_cache.hits++; }
