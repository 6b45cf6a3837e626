# Every archive-reading verb on damaged and missing archives (fuzz test).
# Included from tests/CMakeLists.txt after offtrace_test() is defined.
offtrace_test(bad_input offtrace_test_check)
target_sources(test_bad_input PRIVATE check/synthetic_archive.c)
add_dependencies(test_bad_input offtrace_cli offtrace offtrace-device example_cg)
