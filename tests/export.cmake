# Tests of `walltime-analyze export` (issue 5): Perfetto output decoded by protoc with the
# official schema (skipped with a reason when protoc or the schema is missing), Chrome JSON
# parsed by python3's json module (skipped likewise), and the command line.
wt_add_test(test_export_perfetto SOURCES test_export_perfetto.c)
wt_add_test(test_export_chrome SOURCES test_export_chrome.c)
wt_add_test(test_export_nesting SOURCES test_export_nesting.c)
wt_add_test(test_export_output SOURCES test_export_output.c)
