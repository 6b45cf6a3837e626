/* Host target id <-> runtime target id pairing (see ompt_trace_targets.h). */
#include "ompt_trace_targets.h"

#include <string.h>

#include <omp-tools.h>

/* Pairing only has to tell constructs of different kinds apart, and the spec
 * does not say that a record repeats the nowait variant the host callback
 * saw, so compare without it (ompt_target_nowait = ompt_target + 8, ...). */
static int base_kind(int kind)
{
    return kind > ompt_target_update ? kind - (ompt_target_nowait - ompt_target) : kind;
}

void ot_ompt_targets_init(ot_ompt_targets *t)
{
    memset(t, 0, sizeof *t);
}

static void pending_remove(ot_ompt_targets *t, unsigned i)
{
    memmove(&t->pending[i], &t->pending[i + 1], (t->pending_count - i - 1) * sizeof t->pending[0]);
    t->pending_count--;
}

void ot_ompt_targets_host_begin(ot_ompt_targets *t, uint64_t host_id, int kind)
{
    if (t->pending_count == OT_OMPT_TARGETS_PENDING)
        pending_remove(t, 0);
    t->pending[t->pending_count].host_id = host_id;
    t->pending[t->pending_count].kind = base_kind(kind);
    t->pending_count++;
}

static void remember(ot_ompt_targets *t, uint64_t runtime_id, uint64_t host_id, uint64_t codeptr)
{
    t->known[t->known_next].runtime_id = runtime_id;
    t->known[t->known_next].host_id = host_id;
    t->known[t->known_next].codeptr = codeptr;
    t->known_next = (t->known_next + 1) % OT_OMPT_TARGETS_KNOWN;
    if (t->known_count < OT_OMPT_TARGETS_KNOWN)
        t->known_count++;
}

uint64_t ot_ompt_targets_runtime_begin(ot_ompt_targets *t, uint64_t runtime_id, int kind,
                                       uint64_t codeptr)
{
    uint64_t host_id = 0;
    kind = base_kind(kind);
    for (unsigned i = 0; i < t->pending_count; i++) {
        if (t->pending[i].kind == kind) {
            host_id = t->pending[i].host_id;
            pending_remove(t, i);
            break;
        }
    }
    /* Id 0 names no construct: the pending entry is still consumed, so that
     * the queue stays in step with the runtime's records. */
    if (runtime_id != 0)
        remember(t, runtime_id, host_id, codeptr);
    return host_id;
}

int ot_ompt_targets_find(const ot_ompt_targets *t, uint64_t runtime_id, uint64_t *host_id,
                         uint64_t *codeptr)
{
    for (unsigned n = 1; runtime_id != 0 && n <= t->known_count; n++) {
        unsigned i = (t->known_next + OT_OMPT_TARGETS_KNOWN - n) % OT_OMPT_TARGETS_KNOWN;
        if (t->known[i].runtime_id == runtime_id) {
            *host_id = t->known[i].host_id;
            *codeptr = t->known[i].codeptr;
            return 1;
        }
    }
    *host_id = 0;
    *codeptr = 0;
    return 0;
}
