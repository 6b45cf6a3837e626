# Tests of the OMPT device-tracing backend (device/ompt_trace) against a fake
# device runtime. Included from tests/CMakeLists.txt after offtrace_test().

# The library normally comes from device/ompt_trace via device/CMakeLists.txt.
if(NOT TARGET offtrace_device_ompt_trace)
  add_subdirectory(${CMAKE_SOURCE_DIR}/device/ompt_trace ${CMAKE_BINARY_DIR}/device/ompt_trace)
endif()

offtrace_test(ompt_trace offtrace_device_ompt_trace)
# The fake runtime sees the backend's allocations through the linker: it
# counts the lent buffers the backend frees and makes memory run out on demand.
target_link_options(test_ompt_trace PRIVATE -Wl,--wrap=malloc -Wl,--wrap=realloc -Wl,--wrap=free)
