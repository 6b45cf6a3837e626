# `offtrace export` (docs/export.md). Included from host/CMakeLists.txt after
# add_executable(offtrace_cli); paths are relative to host/.
target_sources(offtrace_analysis PRIVATE analysis/export_chrome.c analysis/export_writer.c)
target_sources(offtrace_cli PRIVATE cli/export_cmd.c)
target_compile_definitions(offtrace_cli PRIVATE OFFTRACE_HAVE_EXPORT)
