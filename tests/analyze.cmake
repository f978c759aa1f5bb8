# walltime-analyze: ledger, anomalies, info, dump (issue 3).
wt_add_test(test_ledger SOURCES test_ledger.c)
wt_add_test(test_anomalies SOURCES test_anomalies.c)
wt_add_test(test_spanstat SOURCES test_spanstat.c)
wt_add_test(test_cli_sample SOURCES test_cli_sample.c)
wt_add_test(test_cli_golden SOURCES test_cli_golden.c)
wt_add_test(test_cli_info SOURCES test_cli_info.c)
wt_add_test(test_cli_badinput SOURCES test_cli_badinput.c)
wt_add_test(test_source_batch SOURCES test_source_batch.c)
