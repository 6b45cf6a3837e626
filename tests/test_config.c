/* Environment settings of the host library: valid values and clear errors. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byte_size.h"
#include "config.h"
#include "device_config.h"
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
    unsetenv("OFFTRACE_DEVICE_BUFFER_SIZE");
    unsetenv("OFFTRACE_HOST_OPENMP");
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

/* The host OpenMP level: three names in any case; a wrong one is a warning
 * (the run is traced at the default), never an error. */
Test(config, host_openmp_levels)
{
    ot_config c;
    char err[256];
    cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.host_openmp, OT_HOST_OPENMP_LOOPS);
    cr_assert_str_empty(c.warning);
    static const struct { const char *text; int level; } ok[] = {
        {"off", OT_HOST_OPENMP_OFF}, {"Regions", OT_HOST_OPENMP_REGIONS}, {"LOOPS", OT_HOST_OPENMP_LOOPS}, {"All", OT_HOST_OPENMP_ALL}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        setenv("OFFTRACE_HOST_OPENMP", ok[i].text, 1);
        cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0, "%s", err);
        cr_expect_eq(c.host_openmp, ok[i].level, "%s", ok[i].text);
        cr_expect_str_empty(c.warning);
    }
    const char *bad[] = {"", "0", "every", "tasks", "loops ", "regionsx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("OFFTRACE_HOST_OPENMP", bad[i], 1);
        cr_assert_eq(ot_config_from_env(&c, err, sizeof err), 0, "%s", err);
        cr_expect_eq(c.host_openmp, OT_HOST_OPENMP_DEFAULT, "'%s'", bad[i]);
        cr_expect(strstr(c.warning, "OFFTRACE_HOST_OPENMP") && strstr(c.warning, "off, regions, loops, all"),
                  "'%s': %s", bad[i], c.warning);
    }
}

/* ---- the one size grammar (util/byte_size.h) ---- */

Test(config, sizes_follow_one_grammar)
{
    static const struct {
        const char *text;
        uint64_t bytes;
    } good[] = {{"12345", 12345},         {"0", 0},
                {"65536B", 65536},        {"64K", 64ull << 10},
                {"64k", 64ull << 10},     {"64KB", 64ull << 10},
                {"64KiB", 64ull << 10},   {"4M", 4ull << 20},
                {"4mib", 4ull << 20},     {"4MiB", 4ull << 20},
                {"1GiB", 1ull << 30},     {"1gb", 1ull << 30},
                {"3T", 3ull << 40},       {"16777215T", 16777215ull << 40},
                {"18446744073709551615", UINT64_MAX}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t bytes = 7;
        cr_assert_eq(ot_byte_size_parse(good[i].text, &bytes), 0, "'%s' refused", good[i].text);
        cr_assert_eq(bytes, good[i].bytes, "'%s' read as %llu", good[i].text, (unsigned long long)bytes);
    }
    static const char *const bad[] = {"", "K", "4X", "-1M", "+4M", " 4M", "4M ", "4 M", "1.5M", "0x10",
                                      "4Mi", "4MiBB", "4KM", "4iB", "99999999999999999999", "18446744073709551616",
                                      "16777216T", "17179869184G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t bytes = 7;
        cr_assert_neq(ot_byte_size_parse(bad[i], &bytes), 0, "'%s' accepted", bad[i]);
        cr_assert_eq(bytes, 7, "'%s' changed the output", bad[i]);
    }
    uint64_t bytes = 0;
    cr_assert_eq(ot_byte_size_parse_range("64K", 64 << 10, 1 << 30, &bytes), 0);
    cr_assert_eq(ot_byte_size_parse_range("63K", 64 << 10, 1 << 30, &bytes), -ERANGE);
    cr_assert_eq(ot_byte_size_parse_range("2G", 64 << 10, 1 << 30, &bytes), -ERANGE);
    cr_assert_eq(ot_byte_size_parse_range("lots", 64 << 10, 1 << 30, &bytes), -EINVAL);
}

Test(config, sizes_format_in_the_form_they_are_read)
{
    static const uint64_t sizes[] = {0, 1, 1000, 1024, 1536 << 10, 64 << 10, 1 << 20, 1ull << 30, 5ull << 40,
                                     1ull << 60, UINT64_MAX};
    static const char *const words[] = {"0", "1", "1000", "1K", "1536K", "64K", "1M", "1G", "5T", "1048576T",
                                        "18446744073709551615"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char buf[32];
        uint64_t back;
        cr_assert_str_eq(ot_byte_size_format(sizes[i], buf, sizeof buf), words[i]);
        cr_assert_eq(ot_byte_size_parse(buf, &back), 0);
        cr_assert_eq(back, sizes[i]);
    }
}

/* The host library, the device collector and `offtrace record` (which
 * checks both with their own code) read one size the same way. */
Test(config, the_host_library_and_the_device_collector_agree_on_sizes)
{
    static const struct {
        const char *text;
        uint64_t bytes;
    } both[] = {{"4MiB", 4ull << 20}, {"512K", 512ull << 10}, {"1GB", 1ull << 30}, {"262144", 256ull << 10}};
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
        ot_config host;
        ot_device_config device;
        char err[512] = "";
        setenv("OFFTRACE_MEMORY_BUDGET", both[i].text, 1);
        setenv("OFFTRACE_DEVICE_BUFFER_SIZE", both[i].text, 1);
        cr_assert_eq(ot_config_from_env(&host, err, sizeof err), 0, "host: %s", err);
        cr_assert_eq(ot_device_config_from_env(&device, err, sizeof err), 0, "device: %s", err);
        cr_assert_eq(host.memory_budget, both[i].bytes, "%s", both[i].text);
        cr_assert_eq(device.thread_budget, both[i].bytes, "%s", both[i].text);
    }
    static const char *const neither[] = {"4Mi", "lots", "-1M", " 1M"};
    for (size_t i = 0; i < sizeof neither / sizeof neither[0]; i++) {
        ot_config host;
        ot_device_config device;
        char err[512] = "";
        setenv("OFFTRACE_MEMORY_BUDGET", neither[i], 1);
        setenv("OFFTRACE_DEVICE_BUFFER_SIZE", neither[i], 1);
        cr_assert_neq(ot_config_from_env(&host, err, sizeof err), 0, "host took '%s'", neither[i]);
        cr_assert_neq(ot_device_config_from_env(&device, err, sizeof err), 0, "device took '%s'", neither[i]);
        cr_assert(strstr(err, "OFFTRACE_DEVICE_BUFFER_SIZE"), "%s", err);
    }
    unsetenv("OFFTRACE_DEVICE_BUFFER_SIZE");
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
