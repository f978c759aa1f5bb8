# The samples end to end: samples/model_load run cold, warm, with a changed cache key and in
# keep/skip rounds, its traces checked through walltime-analyze's JSON against what the
# sample's options imply (tests/test_model_load.py; python3's json is the parser). Labelled
# threads: the sample's loader threads run under TSan in CI too.
find_program(WT_PYTHON3 python3)
if(WT_PYTHON3 AND TARGET model_load)
  add_test(NAME test_model_load
           COMMAND ${WT_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_model_load.py
                   $<TARGET_FILE:model_load> $<TARGET_FILE:walltime-analyze>)
  set_tests_properties(test_model_load PROPERTIES TIMEOUT 300 LABELS "threads;samples")
else()
  message(STATUS "test_model_load: not registered (needs python3 and the samples)")
endif()
