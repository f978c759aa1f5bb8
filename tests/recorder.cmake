# The recorder runtime (issue 2): round trips through the reader, nesting, the disabled mode,
# write errors, path templates, fork, crashes; the threaded ones run under TSan in CI.
wt_add_test(test_recorder SOURCES test_recorder.c LABELS threads)
wt_add_test(test_recorder_threads SOURCES test_recorder_threads.c LABELS threads)
# Issue 11: labels by content, whatever memory holds them.
wt_add_test(test_recorder_labels SOURCES test_recorder_labels.c LABELS threads)
# Issue 11: formatted labels copied at wt_begin, interned by the writer: reuse, cap, pages, crashes.
wt_add_test(test_recorder_fmt SOURCES test_recorder_fmt.c LABELS threads)
# Issue 11: the writer's cache of copied labels: shared sets and heads, a small ring, id order.
wt_add_test(test_recorder_wtext SOURCES test_recorder_wtext.c LABELS threads)
# Issue 11: lookups by content read aligned words: unmapped pages, alignments, cuts, collisions.
wt_add_test(test_recorder_strings SOURCES test_recorder_strings.c)
# Issue 11: the pointer cache never gives a wrong label: shared sets, writable memory, 5,000
# literals from 2 threads.
wt_add_test(test_recorder_icache SOURCES test_recorder_icache.c LABELS threads)
# The reconciled exit ledger against the analyzer and against values worked out by hand.
wt_add_test(test_exit_ledger SOURCES test_exit_ledger.c LABELS threads)
# Issue 10: every boundary value of every argument reads back; the string limits.
wt_add_test(test_recorder_boundary SOURCES test_recorder_boundary.c)
# Issue 10: the program's own signal handlers, and recording from a signal handler.
wt_add_test(test_recorder_signals SOURCES test_recorder_signals.c LABELS threads)
# Kills (SIGTERM, SIGINT, SIGHUP, SIGQUIT at their default): open spans and the signal in the
# trace, the same wait status; the program's own handlers and SIG_IGN left alone.
wt_add_test(test_recorder_term SOURCES test_recorder_term.c LABELS threads)
# Issue 10: dlclose() of the shared library while a thread that recorded is alive.
wt_add_test(test_recorder_dlclose SOURCES test_recorder_dlclose.c LABELS threads)
target_compile_definitions(test_recorder_dlclose PRIVATE WT_SHARED_LIB="$<TARGET_FILE:walltime_shared>")
target_link_libraries(test_recorder_dlclose PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_recorder_dlclose walltime_shared)
# Issue 10: the Nth allocation of the recorder fails, swept over N.
wt_add_test(test_recorder_alloc SOURCES test_recorder_alloc.c LABELS threads)
# Issue 11: the writer's compression budget (WALLTIME_COMPRESS_CPU) on made-up clocks.
wt_add_test(test_rec_zbudget SOURCES test_rec_zbudget.c)
# The tick-to-ns map: one function of the tick, increasing, near the clock (made-up clocks).
wt_add_test(test_rec_clock SOURCES test_rec_clock.c)
