# Reliability of walltime-analyze as a user runs it (docs/RELIABILITY.md, "Reader and
# analyzer"): hostile files made by the test, the peak memory of each command on crafted
# files, a trace given twice or killed early, and the allocation-failure sweep.
wt_add_test(test_cli_reliability SOURCES test_cli_reliability.c)
# The allocation-failure hook, preloaded into walltime-analyze by the sweep test.
add_library(wt_failalloc SHARED failalloc.c)
target_compile_definitions(test_cli_reliability PRIVATE WT_FAILALLOC_LIB="$<TARGET_FILE:wt_failalloc>")
add_dependencies(test_cli_reliability wt_failalloc)
