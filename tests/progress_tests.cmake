# The progress line of reader passes (host/progress/progress.h) through a
# real pseudo-terminal (python3's pty). include()d from tests/CMakeLists.txt.
find_program(OFFTRACE_PYTHON3 python3)
if(OFFTRACE_PYTHON3)
  add_test(NAME progress_line
    COMMAND ${OFFTRACE_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/progress_line_test.py ${CMAKE_BINARY_DIR})
endif()
