# fuzz: hostile and damaged traces through the reader and every analysis (deterministic
# mutations of tracebuild seeds; docs/FUZZING.md). The libFuzzer harness is fuzz/.
wt_add_test(test_fuzz_traces SOURCES test_fuzz_traces.c ${PROJECT_SOURCE_DIR}/fuzz/frame_mutate.c)
target_include_directories(test_fuzz_traces PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
