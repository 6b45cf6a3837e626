/**
 * \file test_catalogue.c
 * \brief The event catalogue (offtrace/event_catalogue.h) is complete and
 *        consistent: every raw and device record kind has its source line,
 *        every source but the clock's is written as some class, names are
 *        unique and found again, the columns of a line agree with each other,
 *        and location ids keep roles apart.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "offtrace/event_catalogue_otf2.h"

Test(catalogue, every_raw_kind_has_a_source)
{
#define RAW_KIND(name, value)                                                                           \
    cr_assert_neq(offtrace_raw_source(value), OFFTRACE_SOURCE_NONE, "raw kind %s has no source line", #name);
    OFFTRACE_RAW_EVENTS(RAW_KIND)
#undef RAW_KIND
    cr_assert_eq(offtrace_raw_source(0), OFFTRACE_SOURCE_NONE);
    cr_assert_eq(offtrace_raw_source(200), OFFTRACE_SOURCE_NONE);
}

Test(catalogue, every_device_kind_has_a_source)
{
#define DEVICE_KIND(name, value)                                                                           \
    cr_assert_neq(offtrace_device_source(value), OFFTRACE_SOURCE_NONE, "device kind %s has no source line", \
                  #name);
    OFFTRACE_DEVICE_KINDS(DEVICE_KIND)
#undef DEVICE_KIND
    cr_assert_eq(offtrace_device_source(0), OFFTRACE_SOURCE_NONE);
    cr_assert_eq(offtrace_device_source(OFFTRACE_DEVICE_LOST + 1), OFFTRACE_SOURCE_NONE);
}

/* Host and device kinds share numbers: each lookup finds its own. */
Test(catalogue, host_and_device_kinds_do_not_mix)
{
    cr_assert_eq(offtrace_raw_source(OFFTRACE_RAW_TARGET), OFFTRACE_SOURCE_TARGET);
    cr_assert_eq(offtrace_device_source(OFFTRACE_DEVICE_PARALLEL), OFFTRACE_SOURCE_DEVICE_PARALLEL);
    cr_assert_eq((int)OFFTRACE_RAW_TARGET, (int)OFFTRACE_DEVICE_PARALLEL, "the premise of this test changed");
}

/* Only records that name an offload device put one to use: a kind that
 * names none must not give device 0 (its zeroed field) a group. */
Test(catalogue, only_targets_and_data_ops_put_a_host_device_to_use)
{
    for (unsigned e = 0; e < 256; e++) {
        offtrace_source s = offtrace_raw_source(e);
        offtrace_device_field f = offtrace_source_device_field(s);
        if (s == OFFTRACE_SOURCE_TARGET)
            cr_assert_eq(f, OFFTRACE_DEVICE_FIELD_DST_DEVICE);
        else if (s == OFFTRACE_SOURCE_DATA_OP)
            cr_assert_eq(f, OFFTRACE_DEVICE_FIELD_OP_DEVICE);
        else
            cr_assert_eq(f, OFFTRACE_DEVICE_FIELD_NONE, "raw event %u puts a device to use", e);
    }
}

Test(catalogue, every_source_but_the_clock_is_written)
{
    int written[OFFTRACE_SOURCE_COUNT] = {0};
    for (int c = 1; c < OFFTRACE_CLASS_COUNT; c++)
        written[offtrace_class((offtrace_event_class)c)->source]++;
    for (int s = 1; s < OFFTRACE_SOURCE_COUNT; s++)
        if (s != OFFTRACE_SOURCE_SYNC && s != OFFTRACE_SOURCE_NVTX_PROBLEM && /* clock pairs shape the time map,
                                                                            NVTX problems are counts, not events */
            s != OFFTRACE_SOURCE_MPI_COMM && s != OFFTRACE_SOURCE_MPI_CLOCK) /* MPI communicators and clocks
                                                                                are definitions and properties */
            cr_assert_gt(written[s], 0, "source %d is written as no class", s);
    cr_assert_eq(written[OFFTRACE_SOURCE_SYNC], 0);
    cr_assert_eq(written[OFFTRACE_SOURCE_NVTX_PROBLEM], 0);
    cr_assert_eq(written[OFFTRACE_SOURCE_MPI_COMM], 0);
    cr_assert_eq(written[OFFTRACE_SOURCE_MPI_CLOCK], 0);
}

Test(catalogue, class_names_are_unique_and_found_again)
{
    cr_assert_null(offtrace_class(OFFTRACE_CLASS_NONE));
    cr_assert_null(offtrace_class(OFFTRACE_CLASS_COUNT));
    for (int c = 1; c < OFFTRACE_CLASS_COUNT; c++) {
        const offtrace_class_info *info = offtrace_class((offtrace_event_class)c);
        cr_assert_eq((int)offtrace_class_by_name(info->class_name), c, "%s", info->class_name);
        if (info->form == OFFTRACE_FORM_ENTER_LEAVE)
            cr_assert_gt(strlen(info->name), 0, "region class %s has no name", info->class_name);
    }
    cr_assert_eq(offtrace_class_by_name("TARGE"), OFFTRACE_CLASS_NONE);
    cr_assert_eq(offtrace_class_by_name("TARGETS"), OFFTRACE_CLASS_NONE);
    cr_assert_eq(offtrace_class_by_name(""), OFFTRACE_CLASS_NONE);
}

/* The columns of one line tell the same story. */
Test(catalogue, columns_agree)
{
#define AGREE(c, source, name, form, role, paradigm, location, reader, construct, op, nowait, view, export, report) \
    {                                                                                                             \
        int measurement = !strcmp(#paradigm, "MEASUREMENT_SYSTEM");                                               \
        cr_assert_eq(measurement, !strcmp(#reader, "MEASUREMENT"), "%s: paradigm and reader class", #c);         \
        cr_assert_eq(measurement, !strcmp(#view, "MEASUREMENT"), "%s: paradigm and view class", #c);             \
        cr_assert_eq(strcmp(#construct, "NONE") != 0, !strcmp(#reader, "TARGET"), "%s: construct", #c);          \
        cr_assert_eq(strcmp(#report, "NONE") != 0, !strcmp(#reader, "TARGET") || !strcmp(#reader, "API"),       \
                     "%s: report kind", #c);                                                                      \
        cr_assert(!nowait || !strcmp(#reader, "TARGET"), "%s: nowait", #c);                                     \
        if (!strcmp(#reader, "DEVICE_OPENMP"))                                                                  \
            cr_assert_str_eq(#location, "DEVICE_THREAD", "%s", #c);                                              \
        if (!strcmp(#reader, "TRANSFER"))                                                                       \
            cr_assert_str_eq(#location, "RDMA", "%s", #c);                                                       \
        if (!strcmp(#reader, "KERNEL"))                                                                         \
            cr_assert_str_eq(#location, "KERNEL_STREAM", "%s", #c);                                              \
        if (strcmp(#form, "ENTER_LEAVE") != 0)                                                                   \
            cr_assert_str_eq(#reader, "OTHER_REGION", "%s: not a region", #c);                                  \
        cr_assert_neq(offtrace_class_paradigm(OFFTRACE_CLASS_##c), OTF2_PARADIGM_UNKNOWN, "%s", #c);            \
    }
    OFFTRACE_EVENT_CLASSES(AGREE)
#undef AGREE
}

Test(catalogue, location_roles_and_ids)
{
    for (int r = 0; r < OFFTRACE_LOC_ROLE_COUNT; r++)
        cr_assert_eq((int)offtrace_location_role_by_name(offtrace_location_role_name((offtrace_location_role)r)), r);
    cr_assert_eq(offtrace_location_role_by_name("HOST"), OFFTRACE_LOC_ROLE_COUNT);
    cr_assert_eq(offtrace_location_type(OFFTRACE_LOC_HOST_THREAD), OTF2_LOCATION_TYPE_CPU_THREAD);
    /* OTF2 3.0: an accelerator group holds accelerator streams only */
    for (int r = OFFTRACE_LOC_HOST_THREAD + 1; r < OFFTRACE_LOC_ROLE_COUNT; r++)
        cr_assert_eq(offtrace_location_type((offtrace_location_role)r), OTF2_LOCATION_TYPE_ACCELERATOR_STREAM);
    cr_assert_eq(offtrace_location_id(OFFTRACE_LOC_HOST_THREAD, -1, 7), 7);
    cr_assert_eq(offtrace_location_id(OFFTRACE_LOC_RDMA, 3, 0), 1ull << 32 | 3ull << 16 | 0xFFFF);
    /* the same (device, number) under different roles: different ids */
    for (int a = OFFTRACE_LOC_KERNEL_STREAM; a < OFFTRACE_LOC_ROLE_COUNT; a++)
        for (int b = a + 1; b < OFFTRACE_LOC_ROLE_COUNT; b++)
            cr_assert_neq(offtrace_location_id((offtrace_location_role)a, 2, 5),
                          offtrace_location_id((offtrace_location_role)b, 2, 5), "roles %d and %d", a, b);
}
