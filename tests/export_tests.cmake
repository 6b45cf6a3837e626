# Tests of `offtrace export` (docs/export.md). Included from tests/CMakeLists.txt
# after offtrace_test() is defined. offtrace_analysis: the JSON writer's own tests.
offtrace_test(export offtrace_test_check offtrace_analysis)
target_sources(test_export PRIVATE check/chrome_scan.c check/location_counts.c check/synthetic_archive.c)
add_dependencies(test_export offtrace_cli offtrace offtrace-device example_cg example_two_devices example_saxpy
  example_bucket_sort example_task_tree example_lock_histogram)
