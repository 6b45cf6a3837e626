/**
 * \file report_history.c
 * \brief The set-associative range table of report_history.h and the rules
 *        of findings 1 and 2 applied to each copy.
 */
#include "report_history.h"

#include <stdlib.h>

typedef struct rp_range {
    uint64_t host, bytes, used;
    int device;                /* -1: an empty way */
    uint32_t run;              /* instances in a row that uploaded it since it last came back */
    uint64_t run_instance;     /* the last of them */
    int32_t second_site;       /* the 2nd upload of the run, credited once the run reaches 3 */
    uint64_t second_ns;
    int32_t back_site;         /* the copy back not yet followed by an upload, -1 none */
    uint64_t back_ns, back_end;
} rp_range;

struct rp_history {
    rp_range ranges[RP_HISTORY_SETS][RP_HISTORY_WAYS];
    uint64_t clock, evictions;
};

rp_history *rp_history_new(void)
{
    rp_history *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    for (size_t s = 0; s < RP_HISTORY_SETS; s++)
        for (size_t w = 0; w < RP_HISTORY_WAYS; w++)
            h->ranges[s][w].device = -1;
    return h;
}

void rp_history_free(rp_history *h)
{
    free(h);
}

uint64_t rp_history_evictions(const rp_history *h)
{
    return h->evictions;
}

static rp_range *set_of(rp_history *h, const rp_range_key *k)
{
    uint64_t x = k->host ^ (k->bytes * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)(unsigned)k->device << 48);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return h->ranges[x % RP_HISTORY_SETS];
}

static int same(const rp_range *e, const rp_range_key *k)
{
    return e->device == k->device && e->host == k->host && e->bytes == k->bytes;
}

static rp_range *find(rp_history *h, const rp_range_key *k)
{
    rp_range *set = set_of(h, k);
    for (size_t w = 0; w < RP_HISTORY_WAYS; w++)
        if (same(&set[w], k)) {
            set[w].used = ++h->clock;
            return &set[w];
        }
    return NULL;
}

/* The range's entry, made (in place of the set's least recently used) if new. */
static rp_range *find_or_add(rp_history *h, const rp_range_key *k)
{
    rp_range *e = find(h, k);
    if (e)
        return e;
    rp_range *set = set_of(h, k);
    e = &set[0];
    for (size_t w = 1; w < RP_HISTORY_WAYS && e->device >= 0; w++)
        if (set[w].device < 0 || set[w].used < e->used)
            e = &set[w];
    if (e->device >= 0)
        h->evictions++;
    *e = (rp_range){.host = k->host, .bytes = k->bytes, .device = k->device, .used = ++h->clock,
                    .second_site = -1, .back_site = -1};
    return e;
}

/* Finding 2: the range went back to the host at e->back_site and now comes again. */
static void round_trip(ot_report *r, rp_range *e, const rp_range_key *k, int32_t site, uint64_t t,
                       rp_credit *credit)
{
    ot_rp_evidence *ev = &r->sites[e->back_site].ev;
    ev->trip_count++;
    ev->trip_bytes += 2 * k->bytes;
    ev->trip_ns += e->back_ns;
    ev->trip_gap_ns += t > e->back_end ? t - e->back_end : 0;
    if (!ev->trip_partners) {
        ev->trip_partner = site;
        ev->trip_partners = 1;
    } else if (ev->trip_partner != site)
        ev->trip_partners = 2;
    credit->trip_site = e->back_site;
    e->back_site = -1;
}

static void credit_repeat(ot_report *r, int32_t site, const rp_range *e, uint64_t ns)
{
    ot_rp_evidence *ev = &r->sites[site].ev;
    ev->repeat_copies++;
    ev->repeat_bytes += e->bytes;
    ev->repeat_ns += ns;
    if (e->run > ev->repeat_longest) {
        ev->repeat_longest = e->run;
        ev->repeat_range_bytes = e->bytes;
        ev->repeat_device = e->device;
    }
}

void rp_history_upload(rp_history *h, ot_report *r, const rp_range_key *k, int32_t site, uint64_t instance,
                       uint64_t t, rp_credit *credit)
{
    *credit = (rp_credit){.repeat_site = -1, .trip_site = -1};
    rp_range *e = find_or_add(h, k);
    if (e->back_site >= 0) {
        round_trip(r, e, k, site, t, credit);
        e->run = 1; /* a new run starts with this upload: the data changed on the device before */
        e->run_instance = instance;
        return;
    }
    if (e->run && instance == e->run_instance)
        return; /* one instance copying a range twice is not a repetition across regions */
    e->run++;
    e->run_instance = instance;
    if (e->run == 2) {
        e->second_site = site;
        e->second_ns = 0;
        credit->second = 1;
        return;
    }
    if (e->run == 3) {
        credit_repeat(r, e->second_site, e, e->second_ns);
        r->sites[site].ev.repeat_runs++;
    }
    if (e->run >= 3) {
        credit_repeat(r, site, e, 0);
        credit->repeat_site = site;
    }
}

void rp_history_download(rp_history *h, const rp_range_key *k, int32_t site, uint64_t t)
{
    rp_range *e = find_or_add(h, k);
    e->run = 0;
    e->back_site = site;
    e->back_ns = 0;
    e->back_end = t;
}

void rp_history_complete(rp_history *h, ot_report *r, const rp_range_key *k, int to_device, int32_t site,
                         uint64_t ns, uint64_t t, const rp_credit *credit)
{
    if (!to_device) {
        rp_range *e = find(h, k);
        if (e && e->back_site == site) {
            e->back_ns = ns;
            e->back_end = t;
        }
        return;
    }
    if (credit->second) {
        rp_range *e = find(h, k);
        if (e && e->run == 2)
            e->second_ns = ns;
    }
    if (credit->repeat_site >= 0)
        r->sites[credit->repeat_site].ev.repeat_ns += ns;
    if (credit->trip_site >= 0)
        r->sites[credit->trip_site].ev.trip_ns += ns;
}
