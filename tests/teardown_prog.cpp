// A program shaped like a device runtime at teardown: a C++ static object, constructed before
// main (so before the recorder's first call), whose destructor reports its JIT-cache hits with
// wt_counter() after main has returned. test_fork.c runs it and reads its trace: the counter
// and the destructor's span must be there.
#include <walltime/walltime.h>

namespace {

struct runtime {
    ~runtime()
    {
        const wt_span s = wt_begin("teardown", "runtime teardown");
        wt_counter("jit_cache.hits", 41);
        wt_end(s, WT_CACHED_UNKNOWN, 0, nullptr);
    }
};

runtime the_runtime;

} // namespace

int main()
{
    const wt_span s = wt_begin("main", "main work");
    wt_end(s, WT_CACHED_UNKNOWN, 0, nullptr);
    return 0;
}
