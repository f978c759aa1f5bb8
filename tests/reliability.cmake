# Reliability of walltime-analyze as a user runs it (docs/RELIABILITY.md, "Reader and
# analyzer"): hostile files made by the test, the peak memory of each command on crafted
# files, a trace given twice or killed early, and the allocation-failure sweep.
wt_add_test(test_cli_reliability SOURCES test_cli_reliability.c)
