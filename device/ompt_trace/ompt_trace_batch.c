/* Records waiting for delivery; stable sort by time (see ompt_trace_batch.h). */
#include "ompt_trace_batch.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void ot_ompt_batch_init(ot_ompt_batch *b)
{
    b->records = NULL;
    b->count = 0;
    b->capacity = 0;
}

int ot_ompt_batch_add(ot_ompt_batch *b, const offtrace_device_record *records, size_t n)
{
    if (n > SIZE_MAX / sizeof *records - b->count)
        return -ENOMEM;
    size_t need = b->count + n;
    if (need > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 1024;
        while (capacity < need)
            capacity = capacity <= SIZE_MAX / 2 / sizeof *records ? capacity * 2 : need;
        offtrace_device_record *grown = realloc(b->records, capacity * sizeof *records);
        if (!grown)
            return -ENOMEM;
        b->records = grown;
        b->capacity = capacity;
    }
    memcpy(b->records + b->count, records, n * sizeof *records);
    b->count += n;
    return 0;
}

/* Merge sorted runs a[lo, mid) and a[mid, hi) through tmp; ties take the
 * left run first, which is what keeps the sort stable. */
static void merge(offtrace_device_record *a, offtrace_device_record *tmp, size_t lo, size_t mid,
                  size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        tmp[k++] = a[j].time < a[i].time ? a[j++] : a[i++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < hi)
        tmp[k++] = a[j++];
    memcpy(a + lo, tmp + lo, (hi - lo) * sizeof *a);
}

/* Without memory for a merge: insertion sort, slow only on badly shuffled
 * input, which the runtime's order (close to time order) is not. */
static void insertion_sort(offtrace_device_record *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        offtrace_device_record r = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1].time > r.time; j--)
            a[j] = a[j - 1];
        a[j] = r;
    }
}

void ot_ompt_sort_by_time(offtrace_device_record *records, size_t n)
{
    if (n < 2)
        return;
    offtrace_device_record *tmp = malloc(n * sizeof *records);
    if (!tmp) {
        insertion_sort(records, n);
        return;
    }
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo + width < n; lo += 2 * width) {
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            /* Runs already in order (the common case) need no merge. */
            if (records[lo + width - 1].time > records[lo + width].time)
                merge(records, tmp, lo, lo + width, hi);
        }
    }
    free(tmp);
}

void ot_ompt_batch_free(ot_ompt_batch *b)
{
    free(b->records);
    ot_ompt_batch_init(b);
}
