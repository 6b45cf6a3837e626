/**
 * \file trace_read_mpi.h
 * \brief Internal to trace_read.c: the pairing of MPI messages (issue 16).
 *
 * A message's two sides (its MpiSend/MpiIsend and its MpiRecv/MpiIrecv)
 * meet on a channel (communicator, sender's world rank, receiver's world
 * rank, tag) in MPI's non-overtaking order: the k-th send of a channel is
 * the k-th receive's. A channel holds only one kind of side at a time (the
 * sends that no receive has come for yet, or the receives whose send has
 * not come), oldest first. Irecv postings wait for their completion by
 * (rank, request id) in a second table. Both are bounded: past `cap`
 * entries the caller takes the oldest out (ot_trm_oldest) and delivers it
 * unmatched.
 */
#ifndef OT_ANALYSIS_TRACE_READ_MPI_H
#define OT_ANALYSIS_TRACE_READ_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "trace_read.h"

typedef struct ot_trm ot_trm;

/** \brief A matcher holding at most \p cap sides and \p cap postings; NULL when out of memory. */
ot_trm *ot_trm_new(size_t cap);
void ot_trm_free(ot_trm *m);

/**
 * \brief One side of a message arrives: \p msg holds its side's fields (sender and send_* for a send,
 *        receiver, recv_* for a receive) and the channel (send_rank, recv_rank, comm, tag).
 * \return 1: the other side was waiting and \p msg is now whole (deliver it); 0: kept until its other side
 *         comes; -ENOMEM. The caller makes room first (ot_trm_full).
 */
int ot_trm_arrive(ot_trm *m, int is_send, ot_tr_message *msg);

/** \brief Whether \p cap sides are held: take the oldest out before the next arrives. */
int ot_trm_full(const ot_trm *m);

/** \brief The oldest side held, taken out into \p msg (its other side missing); 0 when none is held. */
int ot_trm_oldest(ot_trm *m, ot_tr_message *msg);

/** \brief An Irecv of \p rank with request \p request was posted at \p t (the oldest posting is forgotten
 *         when \p cap are held). \return 0 or -ENOMEM. */
int ot_trm_post(ot_trm *m, uint32_t rank, uint64_t request, uint64_t t);

/** \brief The posting time of that Irecv, forgotten; 0 when it is not known. */
uint64_t ot_trm_take_post(ot_trm *m, uint32_t rank, uint64_t request);

#endif
