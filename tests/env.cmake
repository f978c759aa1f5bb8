# The recorder's environment variables (libtrace/src/rec_env.c): switch words and the warnings
# for values and WALLTIME_* names it does not know.
wt_add_test(test_rec_env SOURCES test_rec_env.c)
