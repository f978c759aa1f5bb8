# The Python module (issue 8): python3 unittest scripts in tests/python/, run against the
# build tree's package (PYTHONPATH=<build>/python) with the Python the module was built for.
if(NOT WT_PYTHON_EXECUTABLE)
  return()
endif()
add_library(wt_pyclib SHARED python_clib.c)
target_link_libraries(wt_pyclib PRIVATE walltime::shared)
enable_language(CXX)
add_library(wt_pycxxlib SHARED python_cxxlib.cpp)
target_link_libraries(wt_pycxxlib PRIVATE walltime::shared)
# Under AddressSanitizer the interpreter is not instrumented: its runtime is preloaded, and
# leak checks are off (the interpreter keeps what it allocates until exit, on purpose).
set(WT_PY_ENV "")
set(WT_PY_SANITIZED "")
if(WT_SANITIZE)
  set(WT_PY_SANITIZED 1) # the wheel test builds without sanitizers: it skips
endif()
if(WT_SANITIZE MATCHES "address")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE WT_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(WT_PY_ENV "LD_PRELOAD=${WT_LIBASAN};ASAN_OPTIONS=detect_leaks=0")
elseif(WT_SANITIZE)
  return() # TSan cannot run an uninstrumented interpreter's threads
endif()
file(GLOB WT_PY_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/python/test_*.py)
foreach(script ${WT_PY_TESTS})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME py_${name} COMMAND ${WT_PYTHON_EXECUTABLE} -m unittest -v ${name}
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/python)
  set_tests_properties(py_${name} PROPERTIES TIMEOUT 300 LABELS python ENVIRONMENT
    "WT_PYTHONPATH=${WT_PYTHON_PATH};WT_ANALYZE=$<TARGET_FILE:walltime-analyze>;WT_PYCLIB=$<TARGET_FILE:wt_pyclib>;WT_PYCXXLIB=$<TARGET_FILE:wt_pycxxlib>;PYTHONDONTWRITEBYTECODE=1;WT_SANITIZE=${WT_PY_SANITIZED};${WT_PY_ENV}")
endforeach()
