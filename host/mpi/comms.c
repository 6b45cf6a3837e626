/**
 * \file comms.c
 * \brief Communicators: the job-wide id of each handle, and the wrappers
 *        that make and free them.
 *
 * Why ids derived without talking: every member of a communicator calls the
 * calls that make one from it in the same order (MPI requires it of
 * collectives), so each member can count them itself. A new communicator's
 * id mixes its parent's id, that count, and the world rank of its member 0
 * (which tells apart the communicators one MPI_Comm_split makes): every
 * member computes the same id, no message is added to the program's, and a
 * rank that records nothing cannot make the others wait. MPI_COMM_WORLD and
 * MPI_COMM_SELF are 0 and 1; a handle never seen made (from a call not
 * wrapped, such as MPI_Cart_create) is OFFTRACE_RAW_MPI_COMM_UNKNOWN, and so
 * are its children.
 *
 * The table is read on every message (lock-free: a key is published after
 * its id) and written only when communicators are made or freed (under a
 * lock). It holds OT_MPI_COMMS handles; more are unknown.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_internal.h"

#define OT_EXPORT __attribute__((visibility("default")))
#define OT_MPI_COMMS 4096u /* a power of two */

typedef struct comm_slot {
    uint64_t key; /* the handle's bits, published last; 0: free */
    uint64_t id;
    uint64_t children; /* communicators made from it so far */
} comm_slot;

static comm_slot slots[OT_MPI_COMMS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t home_of(uint64_t key)
{
    key ^= key >> 31;
    key *= 0x9e3779b97f4a7c15ull;
    return (size_t)(key >> 40) & (OT_MPI_COMMS - 1);
}

/* The slot of \p key, or (with \p make) the free one it would take; NULL. */
static comm_slot *slot_of(uint64_t key, int make)
{
    size_t i = home_of(key);
    for (size_t n = 0; n < OT_MPI_COMMS; n++, i = (i + 1) & (OT_MPI_COMMS - 1)) {
        uint64_t k = __atomic_load_n(&slots[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return &slots[i];
        if (!k)
            return make ? &slots[i] : NULL;
    }
    return NULL;
}

uint64_t ot_mpi_comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return OFFTRACE_RAW_MPI_COMM_WORLD;
    if (comm == MPI_COMM_SELF)
        return OFFTRACE_RAW_MPI_COMM_SELF;
    comm_slot *s = slot_of(OT_MPI_HANDLE_KEY(comm), 0);
    return s ? __atomic_load_n(&s->id, __ATOMIC_RELAXED) : OFFTRACE_RAW_MPI_COMM_UNKNOWN;
}

/* Under the lock: \p comm now has \p id (a handle MPI reuses gets its new one). */
static void remember(MPI_Comm comm, uint64_t id)
{
    uint64_t key = OT_MPI_HANDLE_KEY(comm);
    comm_slot *s = key ? slot_of(key, 1) : NULL;
    if (!s)
        return;
    __atomic_store_n(&s->id, id, __ATOMIC_RELAXED);
    s->children = 0;
    __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
}

/* The next child's number of \p parent (counted on every member alike); 0: unknown parent. */
static uint64_t next_child(MPI_Comm parent)
{
    uint64_t key = OT_MPI_HANDLE_KEY(parent), n = 0;
    pthread_mutex_lock(&lock);
    comm_slot *s = key ? slot_of(key, 0) : NULL;
    if (s && s->id != OFFTRACE_RAW_MPI_COMM_UNKNOWN)
        n = ++s->children;
    pthread_mutex_unlock(&lock);
    return n;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t derived_id(uint64_t parent, uint64_t child, int world_rank0)
{
    uint64_t id = mix(mix(parent) ^ child) ^ mix((uint64_t)(uint32_t)world_rank0 << 1);
    id |= 1ull << 63;
    return id == OFFTRACE_RAW_MPI_COMM_UNKNOWN ? id - 1 : id;
}

/* The world ranks of \p comm's first \p n members, into \p out. */
static void world_ranks(MPI_Comm comm, int n, int *out)
{
    MPI_Group group, world;
    int *ranks = n > 1 ? malloc((size_t)n * sizeof *ranks) : NULL, one = 0;
    if (n > 1 && !ranks) {
        for (int i = 0; i < n; i++)
            out[i] = -1;
        return;
    }
    if (!ranks)
        ranks = &one;
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, n, ranks, world, out);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    if (ranks != &one)
        free(ranks);
}

/* The line of mpi.comms: "<id> <parent> <size> <world ranks>\n". Every member
 * writes it into its own raw/: its part of the archive defines the
 * communicators it used with their members (docs/mpi.md), and another rank's
 * raw/ may be gone (converted) when this rank's is converted. */
static void write_members(const ot_mpi_recorder *rec, MPI_Comm comm, uint64_t id, uint64_t parent, int size)
{
    int *world = malloc((size_t)size * sizeof *world);
    size_t cap = 64 + (size_t)size * 12;
    char *line = malloc(cap);
    if (world && line) {
        world_ranks(comm, size, world);
        size_t len = (size_t)snprintf(line, cap, "%llu %llu %d", (unsigned long long)id,
                                      (unsigned long long)parent, size);
        for (int i = 0; i < size && len < cap; i++)
            len += (size_t)snprintf(line + len, cap - len, " %d", world[i]);
        if (len < cap - 1) {
            line[len++] = '\n';
            rec->append(OFFTRACE_RAW_MPI_COMMS_FILE, line, len);
        }
    }
    free(world);
    free(line);
}

/* After a call that made \p made from \p parent (MPI_COMM_NULL on ranks not in it). */
static void made(ot_mpi_call *c, MPI_Comm parent, MPI_Comm made_comm, uint8_t op)
{
    uint64_t child = next_child(parent); /* on every member of the parent, in it or not */
    if (made_comm == MPI_COMM_NULL)
        return;
    uint64_t parent_id = ot_mpi_comm_id(parent), id = OFFTRACE_RAW_MPI_COMM_UNKNOWN;
    int size = 0, rank = 0, world0 = -1;
    PMPI_Comm_size(made_comm, &size);
    PMPI_Comm_rank(made_comm, &rank);
    if (child) {
        world_ranks(made_comm, 1, &world0);
        id = derived_id(parent_id, child, world0);
    }
    pthread_mutex_lock(&lock);
    remember(made_comm, id);
    pthread_mutex_unlock(&lock);
    offtrace_raw_record r = {.id = id, .target_id = parent_id, .bytes = (uint64_t)size,
                             .src_addr = (uint64_t)(uint32_t)rank, .subkind = op, .event = OFFTRACE_RAW_MPI_COMM};
    ot_mpi_put(c, &r);
    if (id != OFFTRACE_RAW_MPI_COMM_UNKNOWN) /* a definition: also while measurement is off */
        write_members(c->rec, made_comm, id, parent_id, size);
}

void ot_mpi_comm_remember_world(void)
{
    pthread_mutex_lock(&lock);
    remember(MPI_COMM_WORLD, OFFTRACE_RAW_MPI_COMM_WORLD);
    remember(MPI_COMM_SELF, OFFTRACE_RAW_MPI_COMM_SELF);
    pthread_mutex_unlock(&lock);
}

void ot_mpi_comm_world(ot_mpi_call *c)
{
    ot_mpi_comm_remember_world();
    int size = 0, rank = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    offtrace_raw_record r = {.id = OFFTRACE_RAW_MPI_COMM_WORLD, .target_id = OFFTRACE_RAW_MPI_COMM_UNKNOWN,
                             .bytes = (uint64_t)size, .src_addr = (uint64_t)(uint32_t)rank,
                             .subkind = OFFTRACE_RAW_MPI_COMM_OP_WORLD, .event = OFFTRACE_RAW_MPI_COMM};
    ot_mpi_put(c, &r);
}

OT_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Comm_dup, __builtin_return_address(0), 1))
        return PMPI_Comm_dup(comm, newcomm);
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS)
        made(&c, comm, *newcomm, OFFTRACE_RAW_MPI_COMM_OP_DUP);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Comm_split, __builtin_return_address(0), 1))
        return PMPI_Comm_split(comm, color, key, newcomm);
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS)
        made(&c, comm, *newcomm, OFFTRACE_RAW_MPI_COMM_OP_SPLIT);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Comm_split_type, __builtin_return_address(0), 1))
        return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    if (rc == MPI_SUCCESS)
        made(&c, comm, *newcomm, OFFTRACE_RAW_MPI_COMM_OP_SPLIT);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Comm_create, __builtin_return_address(0), 1))
        return PMPI_Comm_create(comm, group, newcomm);
    int rc = PMPI_Comm_create(comm, group, newcomm);
    if (rc == MPI_SUCCESS)
        made(&c, comm, *newcomm, OFFTRACE_RAW_MPI_COMM_OP_CREATE);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Comm_free, __builtin_return_address(0), 1))
        return PMPI_Comm_free(comm);
    MPI_Comm freed = *comm;
    int size = 0, rank = 0;
    PMPI_Comm_size(freed, &size);
    PMPI_Comm_rank(freed, &rank);
    offtrace_raw_record r = {.id = ot_mpi_comm_id(freed), .target_id = OFFTRACE_RAW_MPI_COMM_UNKNOWN,
                             .bytes = (uint64_t)size, .src_addr = (uint64_t)(uint32_t)rank,
                             .subkind = OFFTRACE_RAW_MPI_COMM_OP_FREE, .event = OFFTRACE_RAW_MPI_COMM};
    int rc = PMPI_Comm_free(comm);
    if (rc == MPI_SUCCESS) {
        ot_mpi_put(&c, &r);
        pthread_mutex_lock(&lock);
        comm_slot *s = slot_of(OT_MPI_HANDLE_KEY(freed), 0);
        if (s)
            __atomic_store_n(&s->id, OFFTRACE_RAW_MPI_COMM_UNKNOWN, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&lock);
    }
    ot_mpi_leave(&c);
    return rc;
}
