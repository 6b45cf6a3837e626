/**
 * \file trace_read_mpi.c
 * \brief The pairing of MPI messages of trace_read_mpi.h: channels in a
 *        chained hash table, each a FIFO of the sides waiting on it, and one
 *        list of every side held by age, so that the oldest can be taken
 *        out when the bound is reached.
 */
#define _GNU_SOURCE
#include "trace_read_mpi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096u /* a power of two; chains stay short for the channels a job has in flight */

typedef struct side side;
typedef struct channel channel;

/* One side waiting for its partner. */
struct side {
    side *older, *newer;   /* every side held, by age */
    side *next;            /* the next (younger) side of its channel */
    channel *channel;
    int is_send;
    ot_tr_message msg;     /* its side's fields and the channel */
};

/* (communicator, sender's world rank, receiver's world rank, tag): the sides that wait on it, oldest first,
 * all sends or all receives. Freed when empty: the table holds only channels with something in flight. */
struct channel {
    channel *next;         /* the bucket's chain */
    uint32_t comm, send_rank, recv_rank, tag;
    side *head, *tail;
};

/* An Irecv posted and not completed yet. */
typedef struct posting {
    struct posting *next;  /* the bucket's chain */
    struct posting *older, *newer;
    uint32_t rank;
    uint64_t request, time;
} posting;

struct ot_trm {
    size_t cap;
    channel *channels[BUCKETS];
    side *oldest, *newest;
    size_t sides;
    posting *postings[BUCKETS];
    posting *oldest_post, *newest_post;
    size_t posts;
};

ot_trm *ot_trm_new(size_t cap)
{
    ot_trm *m = calloc(1, sizeof *m);
    if (m)
        m->cap = cap ? cap : 1;
    return m;
}

static uint32_t channel_bucket(uint32_t comm, uint32_t send_rank, uint32_t recv_rank, uint32_t tag)
{
    uint64_t h = comm * 0x9E3779B97F4A7C15ull;
    h = (h ^ send_rank) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ recv_rank) * 0x94D049BB133111EBull;
    h = (h ^ tag) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40) & (BUCKETS - 1);
}

static uint32_t posting_bucket(uint32_t rank, uint64_t request)
{
    uint64_t h = (request ^ ((uint64_t)rank << 32)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40) & (BUCKETS - 1);
}

static channel **channel_slot(ot_trm *m, const ot_tr_message *msg)
{
    channel **at = &m->channels[channel_bucket(msg->comm, msg->send_rank, msg->recv_rank, msg->tag)];
    while (*at && !((*at)->comm == msg->comm && (*at)->send_rank == msg->send_rank &&
                    (*at)->recv_rank == msg->recv_rank && (*at)->tag == msg->tag))
        at = &(*at)->next;
    return at;
}

/* Take the oldest side of its channel (\p s is that) out of both lists; the channel goes when empty. */
static void unlink_side(ot_trm *m, side *s)
{
    channel *c = s->channel;
    c->head = s->next;
    if (!c->head) {
        channel **at = channel_slot(m, &s->msg);
        *at = c->next;
        free(c);
    }
    if (s->older)
        s->older->newer = s->newer;
    else
        m->oldest = s->newer;
    if (s->newer)
        s->newer->older = s->older;
    else
        m->newest = s->older;
    m->sides--;
}

/* The sender's fields of \p from into \p to (or the receiver's, \p sender 0). */
static void take_side(ot_tr_message *to, const ot_tr_message *from, int sender)
{
    if (sender) {
        to->sender = from->sender;
        to->bytes = from->bytes;
        to->send_time = from->send_time;
        to->send_blocking = from->send_blocking;
        to->send_call = from->send_call;
        to->send_call_begin = from->send_call_begin;
        to->send_call_serial = from->send_call_serial;
    } else {
        to->receiver = from->receiver;
        to->recv_bytes = from->recv_bytes;
        to->recv_time = from->recv_time;
        to->recv_posted = from->recv_posted;
        to->recv_blocking = from->recv_blocking;
        to->recv_call = from->recv_call;
        to->recv_call_begin = from->recv_call_begin;
        to->recv_call_serial = from->recv_call_serial;
    }
}

int ot_trm_arrive(ot_trm *m, int is_send, ot_tr_message *msg)
{
    channel **at = channel_slot(m, msg);
    channel *c = *at;
    if (c && c->head && c->head->is_send != is_send) { /* its partner waits: the oldest of the channel */
        side *s = c->head;
        take_side(msg, &s->msg, s->is_send);
        unlink_side(m, s);
        free(s);
        return 1;
    }
    side *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c) {
            free(s);
            return -ENOMEM;
        }
        *c = (channel){.comm = msg->comm, .send_rank = msg->send_rank, .recv_rank = msg->recv_rank, .tag = msg->tag};
        *at = c;
    }
    s->is_send = is_send;
    s->msg = *msg;
    s->channel = c;
    if (c->tail && c->head)
        c->tail->next = s;
    else
        c->head = s;
    c->tail = s;
    s->older = m->newest;
    if (m->newest)
        m->newest->newer = s;
    else
        m->oldest = s;
    m->newest = s;
    m->sides++;
    return 0;
}

int ot_trm_full(const ot_trm *m)
{
    return m->sides >= m->cap;
}

int ot_trm_oldest(ot_trm *m, ot_tr_message *msg)
{
    side *s = m->oldest; /* the oldest of all is the oldest of its channel */
    if (!s)
        return 0;
    *msg = s->msg;
    unlink_side(m, s);
    free(s);
    return 1;
}

static void unlink_post(ot_trm *m, posting **at)
{
    posting *p = *at;
    *at = p->next;
    if (p->older)
        p->older->newer = p->newer;
    else
        m->oldest_post = p->newer;
    if (p->newer)
        p->newer->older = p->older;
    else
        m->newest_post = p->older;
    m->posts--;
    free(p);
}

static posting **posting_slot(ot_trm *m, uint32_t rank, uint64_t request)
{
    posting **at = &m->postings[posting_bucket(rank, request)];
    while (*at && !((*at)->rank == rank && (*at)->request == request))
        at = &(*at)->next;
    return at;
}

int ot_trm_post(ot_trm *m, uint32_t rank, uint64_t request, uint64_t t)
{
    posting **at = posting_slot(m, rank, request);
    if (*at) { /* the id again before its completion (a request freed unseen): the new posting counts */
        (*at)->time = t;
        return 0;
    }
    if (m->posts >= m->cap) {
        posting *old = m->oldest_post;
        unlink_post(m, posting_slot(m, old->rank, old->request));
        at = posting_slot(m, rank, request);
    }
    posting *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    *p = (posting){.rank = rank, .request = request, .time = t, .older = m->newest_post};
    *at = p;
    if (m->newest_post)
        m->newest_post->newer = p;
    else
        m->oldest_post = p;
    m->newest_post = p;
    m->posts++;
    return 0;
}

uint64_t ot_trm_take_post(ot_trm *m, uint32_t rank, uint64_t request)
{
    posting **at = posting_slot(m, rank, request);
    if (!*at)
        return 0;
    uint64_t t = (*at)->time;
    unlink_post(m, at);
    return t;
}

void ot_trm_free(ot_trm *m)
{
    if (!m)
        return;
    ot_tr_message msg;
    while (ot_trm_oldest(m, &msg))
        ;
    while (m->oldest_post)
        unlink_post(m, posting_slot(m, m->oldest_post->rank, m->oldest_post->request));
    free(m);
}
