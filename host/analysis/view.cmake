# `offtrace view`: the timeline as SVG or a zoomable self-contained HTML page
# (docs/view.md). include()d from host/CMakeLists.txt; paths are relative to host/.
target_sources(offtrace_analysis PRIVATE
  analysis/view.c analysis/view_build.c analysis/view_bucket.c analysis/view_rows.c analysis/view_classes.c
  analysis/view_time.c analysis/view_svg.c analysis/view_svg_frame.c analysis/view_svg_plot.c
  analysis/view_svg_arrows.c analysis/view_svg_legend.c analysis/view_store.c analysis/view_tiles.c
  analysis/view_pyramid.c analysis/view_json.c analysis/view_page.c)

# The page's script and stylesheet, built into the binary as C strings
# (embed_text.cmake); made again whenever either file changes.
foreach(part js css)
  set(embedded ${CMAKE_CURRENT_BINARY_DIR}/view_page_${part}.c)
  add_custom_command(OUTPUT ${embedded}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${CMAKE_CURRENT_SOURCE_DIR}/analysis/view_page/page.${part}
      -DOUTPUT=${embedded} -DNAME=ot_view_page_${part} -P ${CMAKE_CURRENT_SOURCE_DIR}/analysis/embed_text.cmake
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/analysis/view_page/page.${part}
      ${CMAKE_CURRENT_SOURCE_DIR}/analysis/embed_text.cmake
    COMMENT "Embedding view_page/page.${part}" VERBATIM)
  target_sources(offtrace_analysis PRIVATE ${embedded})
endforeach()

# --serve: libmicrohttpd (Debian libmicrohttpd-dev) answers the page's tile
# requests on 127.0.0.1. Loaded by soname when a server starts, not linked:
# it and GnuTLS's libraries would cost every run of the CLI (issue 18).
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
find_library(OFFTRACE_MHD_LIBRARY NAMES microhttpd HINTS ${MHD_LIBRARY_DIRS})
get_filename_component(OFFTRACE_MHD_REAL "${OFFTRACE_MHD_LIBRARY}" REALPATH)
string(REGEX MATCH "libmicrohttpd\\.so\\.[0-9]+" OFFTRACE_MHD_SONAME "${OFFTRACE_MHD_REAL}")
target_sources(offtrace_cli PRIVATE cli/view_cmd.c cli/view_serve.c)
target_include_directories(offtrace_cli SYSTEM PRIVATE ${MHD_INCLUDE_DIRS})
target_link_libraries(offtrace_cli PRIVATE ${CMAKE_DL_LIBS})
set_property(SOURCE cli/view_serve.c APPEND PROPERTY COMPILE_DEFINITIONS OFFTRACE_MHD_SONAME="${OFFTRACE_MHD_SONAME}")
target_compile_definitions(offtrace_cli PRIVATE OFFTRACE_HAVE_VIEW)
