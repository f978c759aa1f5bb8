# The ledger and anomalies on span batches keyed by string ids (analyze/core/analysis.c).
wt_add_test(test_analysis_ids SOURCES test_analysis_ids.c analysis_ways.c)
# Their runs over a batch (ledger.c lone_run()/leaf_run(), anomalies.c hit_run()).
wt_add_test(test_ledger_runs SOURCES test_ledger_runs.c analysis_ways.c)
# Counter samples and marks on its direct event path (analysis.c pair_event()).
wt_add_test(test_analysis_instants SOURCES test_analysis_instants.c analysis_ways.c)
# Inclusive time on the ledger's common case against its general path (ledger.c span_common()).
wt_add_test(test_ledger_inclusive SOURCES test_ledger_inclusive.c analysis_ways.c)
# A forked child's file before its parent's (analyze/core/forkorder.c).
wt_add_test(test_analysis_forks SOURCES test_analysis_forks.c analysis_ways.c)
