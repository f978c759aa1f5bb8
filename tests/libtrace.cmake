# The format and the reader (the recorder's tests are in recorder.cmake).
wt_add_test(test_reader SOURCES test_reader.c)
wt_add_test(test_format SOURCES test_format.c)
