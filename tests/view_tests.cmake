# `offtrace view` (docs/view.md): end to end through the CLI on archives of
# the examples, and unit tests of its time parsing (hence offtrace_analysis).
# include()d from tests/CMakeLists.txt after offtrace_test() is defined.
offtrace_test(view offtrace_test_check offtrace_analysis)
target_sources(test_view PRIVATE check/xml_check.c)
add_dependencies(test_view offtrace_cli offtrace offtrace-device example_cg example_nowait example_two_devices
  example_bucket_sort example_task_tree example_lock_histogram)
# The zoomable page: tiles against OTF2's own counts, the budget, --serve over a socket.
offtrace_test(view_tiles offtrace_test_check)
add_dependencies(test_view_tiles offtrace_cli offtrace offtrace-device example_cg)
