# compare (keep/skip): statistics, the analysis fed with hand-built events and traces, the
# page-cache probe.
wt_add_test(test_stats SOURCES test_stats.c)
wt_add_test(test_compare SOURCES test_compare.c)
wt_add_test(test_compare_launch SOURCES test_compare_launch.c)
