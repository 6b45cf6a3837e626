# The view page in a real browser (tests/browser/view_page.test.js): Debian's
# chromium driven by playwright-core (tests/browser/node_modules, from
# ./setup.sh's npm ci). Without node the test is still registered and fails
# with one line saying what to do, never skipped.
# include()d from tests/CMakeLists.txt.
find_program(OFFTRACE_NODE node)
if(OFFTRACE_NODE)
  add_test(NAME browser_view
    COMMAND ${OFFTRACE_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/view_page.test.js
            ${CMAKE_BINARY_DIR}/bin ${CMAKE_BINARY_DIR}/test-scratch)
else()
  add_test(NAME browser_view
    COMMAND sh -c "echo 'browser test: node is missing: run ./setup.sh'; exit 1")
endif()
set_tests_properties(browser_view PROPERTIES LABELS browser TIMEOUT 180)
