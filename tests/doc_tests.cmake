# Docs that stay true (issue 12): every `offtrace ...` command shown in
# README.md and docs/*.md runs, as shown, on a demo archive recorded from
# example_cg (tests/doc_commands_test.py says which lines count and how a
# doc marks a command that is meant to fail). include()d from
# tests/CMakeLists.txt.
find_program(OFFTRACE_PYTHON3 python3)
if(NOT OFFTRACE_PYTHON3)
  message(WARNING "python3 not found: the doc test is not run")
  return()
endif()
add_test(NAME doc_commands
  COMMAND ${OFFTRACE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/doc_commands_test.py ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(doc_commands PROPERTIES TIMEOUT 600)

# What the README says of the rpaths: relative ones, in the build tree as
# installed, and never an empty entry (glibc searches it as the current
# directory).
find_program(OFFTRACE_READELF readelf)
if(OFFTRACE_READELF)
  set(rpath_checks "${CMAKE_BINARY_DIR}/bin/offtrace=$ORIGIN/../lib"
    "${CMAKE_BINARY_DIR}/lib/libofftrace.so=$ORIGIN" "${CMAKE_BINARY_DIR}/lib/libofftrace-device.so=$ORIGIN")
  add_test(NAME build_rpaths
    COMMAND ${OFFTRACE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/support/check_rpaths.py ${OFFTRACE_READELF} ${rpath_checks})
endif()
