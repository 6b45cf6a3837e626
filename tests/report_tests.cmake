# `offtrace report` end to end (tests/test_report.c): real archives of the
# examples, the counting tool as the runtime's word, the two examples made
# for the findings. Included from tests/CMakeLists.txt.
offtrace_test(report offtrace_test_check)
target_compile_definitions(test_report PRIVATE OFFTRACE_EXAMPLES_DIR="${CMAKE_SOURCE_DIR}/examples"
  OFFTRACE_SUPPORT_DIR="${CMAKE_SOURCE_DIR}/tests/support")
add_dependencies(test_report cxx_kernels offtrace_cli offtrace offtrace-device offtrace_test_counter example_cg example_saxpy
  example_stencil example_enter_exit example_two_devices example_transfer_mistakes example_transfer_done_right
  example_device_tasks example_bucket_sort example_host_phases example_task_tree example_lock_histogram
  lock_between_targets
  offtrace_test_host_counter)
