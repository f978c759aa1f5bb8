# Multi-process runs and teardown (issue 8): a forked child's own trace, the 1.1 header
# fields, rank metadata, and a C++ static destructor that records after main returned. Not
# labelled `threads`: a recording child starts its writer thread, which TSan forbids after a
# multi-threaded fork.
enable_language(CXX)
add_executable(wt_teardown_prog teardown_prog.cpp)
target_link_libraries(wt_teardown_prog PRIVATE walltime::shared)
wt_add_test(test_fork SOURCES test_fork.c)
target_compile_definitions(test_fork PRIVATE WT_TEARDOWN_BIN="$<TARGET_FILE:wt_teardown_prog>")
