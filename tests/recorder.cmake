# The recorder runtime (issue 2): round trips through the reader, nesting, the disabled mode,
# write errors, path templates, fork, crashes; the threaded ones run under TSan in CI.
wt_add_test(test_recorder SOURCES test_recorder.c LABELS threads)
wt_add_test(test_recorder_threads SOURCES test_recorder_threads.c LABELS threads)
wt_add_test(test_recorder_labels SOURCES test_recorder_labels.c LABELS threads)
