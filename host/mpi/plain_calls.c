/**
 * \file plain_calls.c
 * \brief The wrappers generated from offtrace/mpi_calls.h: every PLAIN call
 *        (a region, nothing else), and a compile-time check that the
 *        table's prototype of every call, OWN ones included, is mpi.h's.
 */
#include "mpi_internal.h"

#define OT_MPI_SAME_PROTOTYPE(name, family, role, op, body, params, args)                             \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&PMPI_##name), int(*) params),               \
                   "offtrace/mpi_calls.h: the prototype of MPI_" #name " is not mpi.h's");
OFFTRACE_MPI_CALLS(OT_MPI_SAME_PROTOTYPE)
#undef OT_MPI_SAME_PROTOTYPE

#define OT_MPI_WRAPPER_PLAIN(name, params, args)                      \
    __attribute__((visibility("default"))) int MPI_##name params     \
    {                                                                 \
        ot_mpi_call c;                                                \
        if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_##name, __builtin_return_address(0), 0)) \
            return PMPI_##name args;                                  \
        int rc = PMPI_##name args;                                    \
        ot_mpi_leave(&c);                                             \
        return rc;                                                    \
    }
#define OT_MPI_WRAPPER_OWN(name, params, args) /* host/mpi/<family>.c */
#define OT_MPI_WRAPPER(name, family, role, op, body, params, args) OT_MPI_WRAPPER_##body(name, params, args)
OFFTRACE_MPI_CALLS(OT_MPI_WRAPPER)
#undef OT_MPI_WRAPPER
