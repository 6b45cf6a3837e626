# Runs one fuzzer for SECONDS on the seeds in CORPUS (read only: new inputs
# go to SCRATCH/new), then says how many inputs ran. Fails when the fuzzer
# found anything: a crash, a sanitizer report (undefined behaviour
# included), a leak, an input that took more than 10 s, a single allocation
# past MALLOC_LIMIT_MB (default 512 MiB) or memory past 2 GiB. The input that did it is left in
# SCRATCH (crash-*, timeout-*, leak-*, oom-*); reproduce with
#   FUZZER SCRATCH/crash-...
cmake_minimum_required(VERSION 3.20)
foreach(v FUZZER SECONDS CORPUS DICT SUPPRESSIONS SCRATCH)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_fuzzer.cmake: ${v} not given")
  endif()
endforeach()
if(NOT DEFINED MALLOC_LIMIT_MB)
  set(MALLOC_LIMIT_MB 512)
endif()

file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/new ${SCRATCH}/tmp)
set(ENV{TMPDIR} ${SCRATCH}/tmp)
set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=0:allocator_may_return_null=1")
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
set(ENV{LSAN_OPTIONS} "suppressions=${SUPPRESSIONS}:print_suppressions=0")

execute_process(
  COMMAND ${FUZZER} ${SCRATCH}/new ${CORPUS} -dict=${DICT} -max_total_time=${SECONDS} -timeout=10
    -rss_limit_mb=2048 -malloc_limit_mb=${MALLOC_LIMIT_MB} -print_final_stats=1 -artifact_prefix=${SCRATCH}/
  RESULT_VARIABLE rc
  OUTPUT_FILE ${SCRATCH}/fuzz.log
  ERROR_FILE ${SCRATCH}/fuzz.log)

file(READ ${SCRATCH}/fuzz.log log)
set(runs "?")
if(log MATCHES "stat::number_of_executed_units: *([0-9]+)")
  set(runs ${CMAKE_MATCH_1})
endif()
set(seconds "?")
if(log MATCHES "Done [0-9]+ runs in ([0-9]+) second")
  set(seconds ${CMAKE_MATCH_1})
endif()
set(coverage "?")
string(REGEX MATCHALL "cov: [0-9]+ ft: [0-9]+" all_coverage "${log}")
if(all_coverage)
  list(POP_BACK all_coverage last)
  string(REGEX REPLACE "cov: ([0-9]+) ft: ([0-9]+)" "\\1 edges, \\2 features" coverage "${last}")
endif()
get_filename_component(name ${FUZZER} NAME)
file(GLOB found ${SCRATCH}/crash-* ${SCRATCH}/timeout-* ${SCRATCH}/leak-* ${SCRATCH}/oom-* ${SCRATCH}/slow-unit-*)
if(NOT rc EQUAL 0 OR found)
  string(LENGTH "${log}" length)
  if(length GREATER 20000)
    math(EXPR from "${length} - 20000")
    string(SUBSTRING "${log}" ${from} -1 log)
  endif()
  message("${log}")
  message(FATAL_ERROR "${name} found a failure (exit ${rc}) after ${runs} inputs; the input: ${found}")
endif()
message(STATUS "${name}: ${runs} inputs in ${seconds} s (coverage: ${coverage}), nothing found")
