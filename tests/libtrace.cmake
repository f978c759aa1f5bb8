# The format and the reader (the recorder's tests are in recorder.cmake).
wt_add_test(test_reader SOURCES test_reader.c)
# the same cases with the read-ahead thread forced on, small files included
add_test(NAME test_reader_ahead COMMAND test_reader)
set_tests_properties(test_reader_ahead PROPERTIES ENVIRONMENT WALLTIME_READER_THREAD=1 LABELS threads
                     WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
wt_add_test(test_reader_batch SOURCES test_reader_batch.c)
add_test(NAME test_reader_batch_ahead COMMAND test_reader_batch)
set_tests_properties(test_reader_batch_ahead PROPERTIES ENVIRONMENT WALLTIME_READER_THREAD=1 LABELS threads
                     WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
wt_add_test(test_format SOURCES test_format.c)
