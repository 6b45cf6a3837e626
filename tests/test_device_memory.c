/* Device-memory bookkeeping of the converter: OMPT deletes report 0 bytes, so
 * their size comes from the allocation at the same device address. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "convert_internal.h"

Test(device_memory, same_address_on_two_devices_is_two_allocations)
{
    converter *c = calloc(1, sizeof *c);
    cr_assert_eq(ot_cv_alloc_remember(c, 0, 0x7f0000001000, 4096), 0);
    cr_assert_eq(ot_cv_alloc_remember(c, 1, 0x7f0000001000, 128), 0);
    cr_assert_eq(ot_cv_alloc_forget(c, 1, 0x7f0000001000), 128);
    cr_assert_eq(ot_cv_alloc_forget(c, 0, 0x7f0000001000), 4096);
    cr_assert_eq(ot_cv_alloc_forget(c, 0, 0x7f0000001000), 0, "forgotten twice");
    free(c->allocs);
    free(c);
}

Test(device_memory, many_allocations_survive_growth_and_reuse)
{
    converter *c = calloc(1, sizeof *c);
    for (uint64_t round = 0; round < 3; round++) {
        for (uint64_t i = 0; i < 5000; i++)
            cr_assert_eq(ot_cv_alloc_remember(c, (int)(i % 3), 0x1000 + 64 * i, i + round), 0);
        for (uint64_t i = 0; i < 5000; i++)
            cr_assert_eq(ot_cv_alloc_forget(c, (int)(i % 3), 0x1000 + 64 * i), i + round);
    }
    cr_assert_eq(ot_cv_alloc_forget(c, 0, 0x1000), 0);
    cr_assert_lt(c->alloc_capacity, 1u << 16, "tombstones made the table grow without bound");
    free(c->allocs);
    free(c);
}

Test(device_memory, unknown_address_is_zero_bytes)
{
    converter *c = calloc(1, sizeof *c);
    cr_assert_eq(ot_cv_alloc_forget(c, 0, 0xdead0000), 0);
    free(c);
}
