# Many runs (issue 12): the warehouse tables (test_fleet_table: rows by hand from tracebuild
# traces) and docs/FLEET.md's DuckDB queries against the ledger (test_fleet_duckdb: node and
# @duckdb/node-api from tests/fleet, `npm ci` there; skipped with a line saying so without them).
# test_fleet_inputs: --files-from lists, stdin and directories against orders worked out by hand.
wt_add_test(test_fleet_table SOURCES test_fleet_table.c)
wt_add_test(test_fleet_hosts SOURCES test_fleet_hosts.c)
add_test(NAME test_fleet_duckdb
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fleet/run_duckdb_test.sh
                 $<TARGET_FILE:walltime-analyze> $<TARGET_FILE_DIR:hello_load>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/fleet_duckdb)
set_tests_properties(test_fleet_duckdb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
wt_add_test(test_fleet_trend SOURCES test_fleet_trend.c LABELS threads)
wt_add_test(test_fleet_runsum SOURCES test_fleet_runsum.c)
wt_add_test(test_fleet_extsort SOURCES test_fleet_extsort.c)
wt_add_test(test_fleet_inputs SOURCES test_fleet_inputs.c LABELS threads)
# test_fleet_trend_fail: a --json trend whose temporary files fail (a file size limit; the Nth
# seek or read of an unlinked file, through the linker's --wrap) ends whole or writes nothing.
wt_add_test(test_fleet_trend_fail SOURCES test_fleet_trend_fail.c LABELS threads)
target_link_options(test_fleet_trend_fail PRIVATE -Wl,--wrap=fseeko -Wl,--wrap=pread)
