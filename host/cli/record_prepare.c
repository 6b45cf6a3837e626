/**
 * \file record_prepare.c
 * \brief What `offtrace record` readies for the conversion while the
 *        program runs (issue 18, seventh round).
 *
 * A short program's whole cost under record is fixed costs: loading
 * libraries, and fresh heap pages faulted in one by one (about 2.6 us each
 * on this VM). record's thread only waits while the program runs, so it
 * does then what the conversion after the end would do first: it loads the
 * symbolizer's library (libdw, libelf and theirs: symbolize_library.h) and
 * faults in the heap the conversion will take, at once. Nothing here reads
 * the recording: the archive is what it would be without it (the same code
 * converts the same records); only where the time is spent moves. A
 * program shorter than this waits for it at its end, as it would have for
 * the same work in the conversion.
 */
#define _GNU_SOURCE
#include "record_prepare.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbolize.h"

/* The heap a short recording's conversion and its summary take after the
 * program's end: OTF2's chunks (256 KiB for every location's event and
 * definition writers and for the summary's reader, the same pages again
 * once one is freed), the first pages of its 4 MiB file buffers, the raw
 * reader's windows, the tables. Freed at once: below main.c's trim
 * threshold (16 MiB) the pages stay with the heap and serve the
 * conversion's allocations, which come from the same top. 1 MiB: the page
 * faults after the end of a 1-region program's recording 207 -> 37; 1.5
 * and 2 MiB take no more off, and cost their pages' faulting and freeing
 * (issue 18, seventh round, docs/performance.md). */
#define PREPARED_HEAP (1u << 20)

static void prepare_heap(void)
{
    unsigned char *block = malloc(PREPARED_HEAP);
    if (!block)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)block + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)block + PREPARED_HEAP) & ~(page - 1);
    /* one call instead of one fault a page (Linux 5.14); else by hand */
    if (end <= start || madvise((void *)start, end - start, MADV_POPULATE_WRITE) != 0)
        for (uintptr_t p = start; p < end; p += page)
            *(volatile unsigned char *)p = 0;
    free(block);
}

void ot_record_prepare_conversion(void)
{
    ot_symbolizer_load(); /* a failure is said by the conversion, which needs it */
    prepare_heap();
}
