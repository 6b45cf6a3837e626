# `cmake --install build --prefix P`: offtrace laid out as a library of the
# field (hwloc, OTF2) under P, and working wherever P is moved to.
#
#   bin/offtrace                      the CLI
#   lib/libofftrace.so                the OMPT tool (host library)
#   lib/libofftrace-device.so         the device collector
#   lib/libofftrace-user.so           the user API programs link (include/offtrace/offtrace_user.h)
#   lib/libofftrace-capture.so        the map capture record preloads (include/offtrace/capture.h)
#   lib/libofftrace-device-cupti.so   its CUPTI backend, when built
#   include/offtrace/*.h              the public, versioned headers
#   lib/pkgconfig/offtrace.pc         pkg-config
#   lib/pkgconfig/offtrace-user.pc    pkg-config of the user API (--cflags --libs)
#   lib/cmake/offtrace/               find_package(offtrace): offtrace::offtrace, offtrace::tool, ...
#   share/man/man1/offtrace*.1        one page per verb, made from the CLI's --help
#   share/doc/offtrace/               README.md and the guides of docs/
#
# bin/ and lib/ are fixed names, not CMAKE_INSTALL_LIBDIR: `offtrace record`
# finds the libraries at ../lib next to itself (host/cli/record.c) and the
# host library finds the CLI at ../bin/offtrace next to itself
# (host/convert_process.c), as in the build tree.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(OFFTRACE_INSTALL_BINDIR bin)
set(OFFTRACE_INSTALL_LIBDIR lib)
set(OFFTRACE_INSTALL_CMAKEDIR ${OFFTRACE_INSTALL_LIBDIR}/cmake/offtrace)

# Relative rpaths: an installed tree finds its own pieces wherever it lies.
# Dependencies outside the system's directories (an OTF2 in /opt, say) are
# added by absolute path (INSTALL_RPATH_USE_LINK_PATH), as they do not move
# with the tree. The build tree gets the same rpaths (it has the same bin/
# and lib/): otherwise CMake links it with a placeholder of empty entries
# (":::::::", room for the install rpath), and glibc searches an empty entry
# as the current directory, so a program traced from the build tree would
# load a libm.so.6 lying in its working directory into the preloaded device
# collector.
set_target_properties(offtrace_cli PROPERTIES BUILD_WITH_INSTALL_RPATH TRUE
  INSTALL_RPATH "$ORIGIN/../${OFFTRACE_INSTALL_LIBDIR}" INSTALL_RPATH_USE_LINK_PATH TRUE)
set_target_properties(offtrace offtrace-device PROPERTIES BUILD_WITH_INSTALL_RPATH TRUE
  INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS offtrace_cli RUNTIME DESTINATION ${OFFTRACE_INSTALL_BINDIR})
install(TARGETS offtrace offtrace-device LIBRARY DESTINATION ${OFFTRACE_INSTALL_LIBDIR})
install(TARGETS offtrace-user LIBRARY DESTINATION ${OFFTRACE_INSTALL_LIBDIR})
install(TARGETS offtrace-capture LIBRARY DESTINATION ${OFFTRACE_INSTALL_LIBDIR}) # the map capture (issue 15, preloaded by record)
install(TARGETS offtrace-symbolize LIBRARY DESTINATION ${OFFTRACE_INSTALL_LIBDIR}) # the symbolizer, loaded by the CLI (issue 18)
if(TARGET offtrace-mpi)
  install(TARGETS offtrace-mpi LIBRARY DESTINATION ${OFFTRACE_INSTALL_LIBDIR}) # the PMPI wrappers (issue 16)
endif()
if(TARGET offtrace-device-cupti)
  # Keeps its absolute rpath to libcupti (device/cupti/CMakeLists.txt), in
  # the build tree too, without the placeholder's empty entries.
  set_target_properties(offtrace-device-cupti PROPERTIES BUILD_WITH_INSTALL_RPATH TRUE)
  install(TARGETS offtrace-device-cupti LIBRARY DESTINATION ${OFFTRACE_INSTALL_LIBDIR})
endif()

# The public headers: what a program, a collector of another vendor or a
# reader of offtrace's files and archives builds against.
#   offtrace.h              the environment the host library reads, its limits, the archive's name
#   raw_format.h            the raw records a recording holds (DIR/raw)
#   collector.h             the host <-> device-collector interface (needs omp-tools.h, which
#                           comes with the OpenMP compiler: clang's resource directory)
#   event_catalogue.h       what every event, region class and location role in an archive is
#   event_catalogue_otf2.h  the same as OTF2 values, for readers that use OTF2 (needs otf2/otf2.h)
#   offtrace_user.h         the user API: regions, events, values, clock, measurement control
install(FILES
  ${PROJECT_SOURCE_DIR}/include/offtrace/offtrace_user.h
  ${PROJECT_SOURCE_DIR}/include/offtrace/offtrace.h
  ${PROJECT_SOURCE_DIR}/include/offtrace/raw_format.h
  ${PROJECT_SOURCE_DIR}/include/offtrace/collector.h
  ${PROJECT_SOURCE_DIR}/include/offtrace/event_catalogue.h
  ${PROJECT_SOURCE_DIR}/include/offtrace/event_catalogue_otf2.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/offtrace)

# pkg-config: the prefix is found from the .pc file's own place (${pcfiledir}),
# so a moved tree needs no edit.
configure_file(${PROJECT_SOURCE_DIR}/cmake/offtrace.pc.in ${PROJECT_BINARY_DIR}/offtrace.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/offtrace.pc DESTINATION ${OFFTRACE_INSTALL_LIBDIR}/pkgconfig)
configure_file(${PROJECT_SOURCE_DIR}/cmake/offtrace-user.pc.in ${PROJECT_BINARY_DIR}/offtrace-user.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/offtrace-user.pc DESTINATION ${OFFTRACE_INSTALL_LIBDIR}/pkgconfig)

# find_package(offtrace): a hand-written config (the imported targets are not
# the build's: see offtraceConfig.cmake.in) and a version file. 0.x: a minor
# version may break what the previous one promised.
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/offtraceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/offtraceConfig.cmake
  INSTALL_DESTINATION ${OFFTRACE_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR OFFTRACE_INSTALL_LIBDIR OFFTRACE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/offtraceConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/offtraceConfig.cmake ${PROJECT_BINARY_DIR}/offtraceConfigVersion.cmake
  DESTINATION ${OFFTRACE_INSTALL_CMAKEDIR})

# Man pages, made at build time from the built CLI's --help (one source: the
# option table of host/cli/options.c) by cmake/offtrace_man.py.
find_program(OFFTRACE_PYTHON NAMES python3 REQUIRED)
set(OFFTRACE_MAN_DIR ${PROJECT_BINARY_DIR}/share/man/man1)
add_custom_command(OUTPUT ${OFFTRACE_MAN_DIR}/offtrace.1
  COMMAND ${OFFTRACE_PYTHON} ${PROJECT_SOURCE_DIR}/cmake/offtrace_man.py $<TARGET_FILE:offtrace_cli>
          ${OFFTRACE_MAN_DIR} ${PROJECT_VERSION}
  DEPENDS offtrace_cli ${PROJECT_SOURCE_DIR}/cmake/offtrace_man.py
  COMMENT "Man pages from offtrace --help")
add_custom_target(offtrace_man ALL DEPENDS ${OFFTRACE_MAN_DIR}/offtrace.1)
install(DIRECTORY ${OFFTRACE_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1")

# Documentation, flat as hwloc's: messages name share/doc/offtrace/<guide>.md.
file(GLOB OFFTRACE_GUIDES ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${OFFTRACE_GUIDES} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/img DESTINATION ${CMAKE_INSTALL_DOCDIR})
