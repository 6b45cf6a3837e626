# `offtrace view`: the timeline as SVG or self-contained HTML (docs/view.md).
# include()d from host/CMakeLists.txt; paths are relative to host/.
target_sources(offtrace_analysis PRIVATE
  analysis/view.c analysis/view_build.c analysis/view_bucket.c analysis/view_rows.c analysis/view_classes.c
  analysis/view_time.c analysis/view_svg.c analysis/view_svg_frame.c analysis/view_svg_plot.c
  analysis/view_svg_arrows.c analysis/view_svg_legend.c analysis/view_html.c)
target_sources(offtrace_cli PRIVATE cli/view_cmd.c)
target_compile_definitions(offtrace_cli PRIVATE OFFTRACE_HAVE_VIEW)
