# CUPTI backend tests; included from tests/CMakeLists.txt when
# OFFTRACE_HAVE_CUPTI is set (after offtrace_test() is defined). They run
# without a GPU: the translator is fed buffers built in the test, and the
# module is only loaded and asked about a non-NVIDIA device (and about a
# CUDA one, which must fail cleanly where no driver is installed).
offtrace_test(cupti_translate offtrace_cupti_translate)
target_compile_definitions(test_cupti_translate PRIVATE OFFTRACE_LIB_DIR="${CMAKE_BINARY_DIR}/lib")
target_link_libraries(test_cupti_translate PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_cupti_translate offtrace-device-cupti)
