/* Environment settings of the host library: valid values and clear errors. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "offtrace/offtrace.h"

static void clear_env(void)
{
    unsetenv("OFFTRACE_ENABLE");
    unsetenv("OFFTRACE_OUTPUT");
    unsetenv("OFFTRACE_BUFFER_SIZE");
    unsetenv("OFFTRACE_VERBOSE");
    unsetenv("OFFTRACE_OUTPUT_CLAIMED");
    unsetenv("OFFTRACE_MEMORY_BUDGET");
    unsetenv("OFFTRACE_KEEP_RAW");
    unsetenv("OFFTRACE_BACKGROUND_WRITEBACK");
    unsetenv("OFFTRACE_MAX_RECORDING_SIZE");
}

TestSuite(config, .init = clear_env);

Test(config, defaults)
{
    ot_config c;
    char err[256];
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0);
    cr_assert_eq(c.enabled, 1);
    cr_assert_eq(c.chunk_bytes, OFFTRACE_DEFAULT_BUFFER_SIZE);
    cr_assert_eq(c.verbose, 1);
    cr_assert_eq(c.background_writeback, 1);
    cr_assert_str_empty(c.output);
}

Test(config, background_writeback_can_be_turned_off)
{
    setenv("OFFTRACE_BACKGROUND_WRITEBACK", "off", 1);
    ot_config c;
    char err[256];
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.background_writeback, 0);
}

Test(config, sizes_with_suffixes)
{
    size_t s;
    cr_assert_eq(ot_config_parse_size("64K", &s), 0);
    cr_assert_eq(s, 65536);
    cr_assert_eq(ot_config_parse_size("4M", &s), 0);
    cr_assert_eq(s, 4u << 20);
    cr_assert_eq(ot_config_parse_size("1GiB", &s), 0);
    cr_assert_eq(s, 1u << 30);
    cr_assert_eq(ot_config_parse_size("12345", &s), 0);
    cr_assert_eq(s, 12345);
    cr_assert_neq(ot_config_parse_size("", &s), 0);
    cr_assert_neq(ot_config_parse_size("4X", &s), 0);
    cr_assert_neq(ot_config_parse_size("-1M", &s), 0);
    cr_assert_neq(ot_config_parse_size("99999999999999999999", &s), 0);
}

static void expect_rejected(const char *name, const char *value)
{
    clear_env();
    setenv(name, value, 1);
    ot_config c;
    char err[512] = "";
    cr_assert_neq(ot_config_from_env(&c, err, sizeof err), 0, "%s=%s accepted", name, value);
    cr_assert(strstr(err, name), "message does not name the variable: %s", err);
    cr_assert(strstr(err, "accepted"), "message does not list the accepted values: %s", err);
    cr_assert(strchr(err, '\n') == NULL);
}

Test(config, wrong_values_name_the_variable)
{
    expect_rejected("OFFTRACE_ENABLE", "maybe");
    expect_rejected("OFFTRACE_VERBOSE", "9");
    expect_rejected("OFFTRACE_BUFFER_SIZE", "abc");
    expect_rejected("OFFTRACE_BUFFER_SIZE", "1K");
    expect_rejected("OFFTRACE_BUFFER_SIZE", "2G");
    expect_rejected("OFFTRACE_OUTPUT", "");
    expect_rejected("OFFTRACE_MEMORY_BUDGET", "100K");
    expect_rejected("OFFTRACE_MEMORY_BUDGET", "65G");
    expect_rejected("OFFTRACE_MEMORY_BUDGET", "lots");
    expect_rejected("OFFTRACE_KEEP_RAW", "perhaps");
    expect_rejected("OFFTRACE_BACKGROUND_WRITEBACK", "later");
}

Test(config, memory_budget_default_and_setting)
{
    unsetenv("OFFTRACE_MEMORY_BUDGET");
    ot_config c;
    char err[256];
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0);
    cr_assert_eq(c.memory_budget, 64ull << 20);
    setenv("OFFTRACE_MEMORY_BUDGET", "256K", 1);
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0);
    cr_assert_eq(c.memory_budget, 256ull << 10);
    unsetenv("OFFTRACE_MEMORY_BUDGET");
}

Test(config, switches_and_rounding)
{
    setenv("OFFTRACE_ENABLE", "off", 1);
    setenv("OFFTRACE_BUFFER_SIZE", "100000", 1);
    setenv("OFFTRACE_VERBOSE", "0", 1);
    ot_config c;
    char err[256];
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0);
    cr_assert_eq(c.enabled, 0);
    cr_assert_eq(c.verbose, 0);
    cr_assert_eq(c.chunk_bytes % 4096, 0);
    cr_assert_geq(c.chunk_bytes, 100000);
}

Test(config, recording_size_limit)
{
    ot_config c;
    char err[256];
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0);
    cr_assert_eq(c.max_size, 0, "0: chosen from the free space when the session opens");
    setenv("OFFTRACE_MAX_RECORDING_SIZE", "20G", 1);
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.max_size, 20ull << 30);
    setenv("OFFTRACE_MAX_RECORDING_SIZE", "Unlimited", 1);
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.max_size, UINT64_MAX);
    setenv("OFFTRACE_MAX_RECORDING_SIZE", "512K", 1);
    cr_assert_neq(ot_config_from_env(&c, err, sizeof err), 0);
    cr_assert_str_eq(err, "offtrace: OFFTRACE_MAX_RECORDING_SIZE='512K' is not valid (accepted: a size of at least "
                          "1M, such as 512M or 20G, or unlimited); this run is not traced");
}
