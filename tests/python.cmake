# The Python module (issue 8): python3 unittest scripts in tests/python/, run against the
# build tree's package (PYTHONPATH=<build>/python) with the Python the module was built for.
if(NOT WT_PYTHON_EXECUTABLE)
  return()
endif()
add_library(wt_pyclib SHARED python_clib.c)
target_link_libraries(wt_pyclib PRIVATE walltime::shared)
file(GLOB WT_PY_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/python/test_*.py)
foreach(script ${WT_PY_TESTS})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME py_${name} COMMAND ${WT_PYTHON_EXECUTABLE} -m unittest -v ${name}
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/python)
  set_tests_properties(py_${name} PROPERTIES TIMEOUT 300 LABELS python ENVIRONMENT
    "WT_PYTHONPATH=${WT_PYTHON_PATH};WT_ANALYZE=$<TARGET_FILE:walltime-analyze>;WT_PYCLIB=$<TARGET_FILE:wt_pyclib>;PYTHONDONTWRITEBYTECODE=1")
endforeach()
