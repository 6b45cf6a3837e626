# `offtrace report`: statistics and findings from one streaming pass over an
# archive (docs/report.md). Included from host/CMakeLists.txt; paths are
# relative to host/.
target_sources(offtrace_analysis PRIVATE
  analysis/report_collect.c analysis/report_kernels.c analysis/report_launches.c analysis/report_transfers.c
  analysis/report_history.c analysis/report_index.c analysis/report_findings.c
  analysis/report_highlights.c analysis/report_rows.c analysis/report_text.c analysis/report_json.c
  analysis/report_openmp.c analysis/report_openmp_print.c analysis/report_user.c
  analysis/report_variables.c analysis/report_ranks.c analysis/report_mpi.c
  analysis/report_mpi_waits.c)
target_sources(offtrace_cli PRIVATE cli/report_cmd.c)
target_compile_definitions(offtrace_cli PRIVATE OFFTRACE_HAVE_REPORT)
