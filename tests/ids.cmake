# The ledger and anomalies on span batches keyed by string ids (analyze/core/analysis.c).
wt_add_test(test_analysis_ids SOURCES test_analysis_ids.c)
