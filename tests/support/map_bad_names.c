/*
 * map_bad_names - libomptarget's data entry points called with handmade
 * arrays (issue 15, tests/test_map_names.c): names that are malformed,
 * truncated, empty or absent, a construct whose ident_t says nothing, a
 * zero-length entry and a user-defined mapper that maps nothing. Each is
 * what a broken or foreign compiler could pass; the trace must mark them,
 * never crash. Prints "ok" when every value came back.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident;

void __tgt_target_data_begin_mapper(ident *loc, int64_t device, int32_t count, void **bases, void **begins,
                                    int64_t *sizes, int64_t *types, void **names, void **mappers);
void __tgt_target_data_end_mapper(ident *loc, int64_t device, int32_t count, void **bases, void **begins,
                                  int64_t *sizes, int64_t *types, void **names, void **mappers);

#define TO 0x1
#define FROM 0x2

/* A mapper that maps nothing: it pushes no component. */
static void empty_mapper(void *handle, void *base, void *begin, int64_t size, int64_t type, void *name)
{
    (void)handle, (void)base, (void)begin, (void)size, (void)type, (void)name;
}

static double good[16], malformed[16], truncated[16], empty_name[16], unnamed[16], zero[1], mapped_by_nothing[16];

int main(void)
{
    int flag = 0;
#pragma omp target map(tofrom: flag) /* libomptarget initialised the usual way */
    flag = 1;

    static ident loc = {0, 2, 0, 22, ";map_bad_names.c;main;40;1;;"};
    static ident silent = {0, 2, 0, 22, ";unknown;unknown;0;0;;"}; /* what clang passes without -g */
    void *bases[] = {good, malformed, truncated, empty_name, zero, mapped_by_nothing};
    int64_t sizes[] = {sizeof good, sizeof malformed, sizeof truncated, sizeof empty_name, 0, sizeof mapped_by_nothing};
    int64_t types[] = {TO | FROM, TO | FROM, TO | FROM, TO | FROM, TO, TO | FROM};
    /* libomptarget itself parses a name's line and column (std::stoi: it
     * aborts the program on a name without them), so the broken names keep
     * those and break what offtrace reads: the leading ';', the expression
     * (longer than offtrace keeps: cut before its end), the expression's
     * presence. */
    static char longest[1200];
    longest[0] = ';';
    for (int i = 1; i < 1100; i++)
        longest[i] = 'a';
    snprintf(longest + 1100, sizeof longest - 1100, ";map_bad_names.c;2;1;;");
    void *names[] = {";good[0:16];map_bad_names.c;1;1;;", "malformed[0:16];map_bad_names.c;2;1;2;;", longest,
                     ";;map_bad_names.c;2;1;;", ";zero[0:0];map_bad_names.c;3;1;;", ";mapped_by_nothing;x;4;1;;"};
    void *mappers[] = {NULL, NULL, NULL, NULL, NULL, (void *)empty_mapper};
    for (int i = 0; i < 16; i++)
        good[i] = malformed[i] = truncated[i] = empty_name[i] = unnamed[i] = i;
    __tgt_target_data_begin_mapper(&loc, 0, 6, bases, bases, sizes, types, names, mappers);
    __tgt_target_data_end_mapper(&loc, 0, 6, bases, bases, sizes, types, names, mappers);

    /* no names at all (a build without debug info), and the ident_t clang makes without debug info */
    void *one[] = {unnamed};
    int64_t one_size[] = {sizeof unnamed}, one_type[] = {TO | FROM};
    __tgt_target_data_begin_mapper(&silent, 0, 1, one, one, one_size, one_type, NULL, NULL);
    __tgt_target_data_end_mapper(&silent, 0, 1, one, one, one_size, one_type, NULL, NULL);

    int ok = flag == 1 && good[3] == 3 && unnamed[5] == 5;
    printf("%s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
