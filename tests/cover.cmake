# The coverage interval set (libtrace/src/ledger_cover.c) against a bitmap of covered ns.
wt_add_test(test_cover SOURCES test_cover.c)
