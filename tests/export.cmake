# Tests of `walltime-analyze export` (issues 5, 13, 10): Perfetto output decoded by protoc with
# the official schema and rebuilt into slices as trace_processor does (export_decode.h; skipped
# with a reason when protoc or the schema is missing), Chrome JSON parsed by python3's json
# module (skipped likewise), the nesting (test_export_nesting), where the output goes, UTF-8
# and memory bounds (test_export_output), and the command line.
wt_add_test(test_export_perfetto SOURCES test_export_perfetto.c)
wt_add_test(test_export_chrome SOURCES test_export_chrome.c)
wt_add_test(test_export_nesting SOURCES test_export_nesting.c)
wt_add_test(test_export_output SOURCES test_export_output.c)
wt_add_test(test_export_pf_encode SOURCES test_export_pf_encode.c)
wt_add_test(test_export_pf_maps SOURCES test_export_pf_maps.c)
