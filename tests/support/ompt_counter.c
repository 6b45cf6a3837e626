/*
 * ompt_counter.c - an independent, minimal OMPT tool used as a reference by
 * the offtrace tests.  It counts what the OpenMP runtime (LLVM 19 libomp /
 * libomptarget) reports through the EMI target callbacks and prints a single
 * summary line:
 *
 *   OMPT_COUNTS target=N enter_data=N exit_data=N update=N kernels=N
 *               alloc=N alloc_bytes=N h2d=N h2d_bytes=N d2h=N d2h_bytes=N
 *               delete=N outside=N
 *
 * (on one line).  The line is appended to the file named by the environment
 * variable OFFTRACE_TEST_COUNTER_OUT, or written to stderr when it is unset.
 *
 * Load it with OMP_TOOL_LIBRARIES=/path/to/libofftrace-test-counter.so.
 *
 * What is counted, and when:
 *   - target constructs: at the ompt_scope_begin endpoint of
 *     ompt_callback_target_emi, by kind; the *_nowait kinds are folded into
 *     their plain kinds (LLVM 19 actually reports `target nowait` with kind
 *     ompt_target, not ompt_target_nowait).  A structured `target data`
 *     region is reported by LLVM 19 as an enter_data construct (at the
 *     region start) plus an exit_data construct (at the region end): there
 *     is no ompt_target_t kind of its own for it.
 *   - kernels: at the ompt_scope_begin endpoint of
 *     ompt_callback_target_submit_emi.
 *   - data operations: at the ompt_scope_end endpoint of
 *     ompt_callback_target_data_op_emi, by type (the *_async types folded
 *     into their plain types); associate/disassociate are ignored.
 *   - outside: data operations (of a counted type) with no enclosing target
 *     construct, i.e. target_data == NULL or target_data->value == 0.
 *     What LLVM 19 passes (checked with a probe tool, libomptarget 19.1):
 *     target_data is never NULL.  It always points to a per-thread
 *     ompt_data_t that libomptarget reuses for every construct of the
 *     thread, and whose value libomptarget resets to 0 before each
 *     construct and after it.  For the device memory API (omp_target_alloc,
 *     omp_target_memcpy, omp_target_free, ...) called outside any construct
 *     it passes that same per-thread object with value 0, and
 *     target_task_data == NULL.  So this tool gives each construct a
 *     non-zero id at the begin endpoint of the target callback (and resets
 *     it to 0 at the end endpoint, to not depend on the runtime doing it),
 *     and a data op that sees 0 is "outside".  This works because LLVM 19
 *     issues all callbacks of a construct on the thread that runs it
 *     (for `target nowait`, a hidden helper thread runs the whole construct,
 *     begin and end included).
 *
 * With OFFTRACE_TEST_COUNTER_OPENMP=1 it also counts the OpenMP constructs
 * that run inside target regions (on a host-offload device they run on this
 * same runtime) and prints a second line:
 *
 *   OMPT_OPENMP_COUNTS parallel=N implicit_tasks=N loops=N barriers=N tasks=N
 *
 * A thread is inside a target region from the begin to the end endpoint of
 * ompt_callback_target_emi of kind target (or target_nowait), and a worker
 * from the begin of an implicit task of a parallel region (or league) that
 * began inside one to the matching end (the region is marked in its
 * parallel_data). Counted at the begin endpoints, inside target regions:
 * parallel = parallel_begin (teams leagues included), implicit_tasks =
 * implicit_task (initial tasks of teams included), loops = work of the loop
 * kinds, distribute and taskloop (the OTF2 role LOOP), barriers = sync_region of every kind but reduction
 * (barriers, implicit barriers, taskwait, taskgroup), tasks = explicit
 * tasks created (task_create with ompt_task_explicit).
 *
 * The line is printed at OMPT finalize, or else from a library destructor;
 * only once.  Nothing is printed if the OpenMP runtime never started the
 * tool, nor when the process dies without running exit handlers (abort,
 * fatal signal, _exit).
 */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong n_target, n_enter, n_exit, n_update, n_kernels;
static atomic_ulong n_alloc, n_alloc_bytes, n_h2d, n_h2d_bytes, n_d2h,
    n_d2h_bytes, n_delete, n_outside;
static atomic_ulong next_target_id = 1;
static atomic_int printed;
static atomic_int active;
static int count_openmp; /* OFFTRACE_TEST_COUNTER_OPENMP=1 */
static void on_target_emi_openmp(ompt_target_t kind,
                                 ompt_scope_endpoint_t endpoint);

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint,
                          int device_num, ompt_data_t *task_data,
                          ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra) {
  if (count_openmp)
    on_target_emi_openmp(kind, endpoint);
  if (endpoint == ompt_scope_begin) {
    if (target_data)
      target_data->value = atomic_fetch_add(&next_target_id, 1);
    switch (kind) {
    case ompt_target:
    case ompt_target_nowait:
      atomic_fetch_add(&n_target, 1);
      break;
    case ompt_target_enter_data:
    case ompt_target_enter_data_nowait:
      atomic_fetch_add(&n_enter, 1);
      break;
    case ompt_target_exit_data:
    case ompt_target_exit_data_nowait:
      atomic_fetch_add(&n_exit, 1);
      break;
    case ompt_target_update:
    case ompt_target_update_nowait:
      atomic_fetch_add(&n_update, 1);
      break;
    default:
      break;
    }
  } else if (endpoint == ompt_scope_end) {
    if (target_data)
      target_data->value = 0;
  }
}

static void on_data_op_emi(ompt_scope_endpoint_t endpoint,
                           ompt_data_t *target_task_data,
                           ompt_data_t *target_data, ompt_id_t *host_op_id,
                           ompt_target_data_op_t optype, void *src_addr,
                           int src_device_num, void *dest_addr,
                           int dest_device_num, size_t bytes,
                           const void *codeptr_ra) {
  if (endpoint != ompt_scope_end)
    return;
  switch (optype) {
  case ompt_target_data_alloc:
  case ompt_target_data_alloc_async:
    atomic_fetch_add(&n_alloc, 1);
    atomic_fetch_add(&n_alloc_bytes, bytes);
    break;
  case ompt_target_data_transfer_to_device:
  case ompt_target_data_transfer_to_device_async:
    atomic_fetch_add(&n_h2d, 1);
    atomic_fetch_add(&n_h2d_bytes, bytes);
    break;
  case ompt_target_data_transfer_from_device:
  case ompt_target_data_transfer_from_device_async:
    atomic_fetch_add(&n_d2h, 1);
    atomic_fetch_add(&n_d2h_bytes, bytes);
    break;
  case ompt_target_data_delete:
  case ompt_target_data_delete_async:
    atomic_fetch_add(&n_delete, 1);
    break;
  default:
    return; /* associate / disassociate: not counted */
  }
  if (target_data == NULL || target_data->value == 0)
    atomic_fetch_add(&n_outside, 1);
}

static void on_submit_emi(ompt_scope_endpoint_t endpoint,
                          ompt_data_t *target_data, ompt_id_t *host_op_id,
                          unsigned int requested_num_teams) {
  if (endpoint == ompt_scope_begin)
    atomic_fetch_add(&n_kernels, 1);
}

/* ---- OpenMP inside target regions (OFFTRACE_TEST_COUNTER_OPENMP=1) ---- */

#define DEVICE_REGION_MARK 0x6465766963650001ull /* parallel_data of a region begun in a target */

static atomic_ulong n_parallel, n_implicit, n_loops, n_barriers, n_tasks;
static _Thread_local int in_target;   /* between target begin and end */
static _Thread_local int team_depth;  /* implicit tasks of marked regions entered */

static int inside(void) { return in_target || team_depth > 0; }

static void on_target_emi_openmp(ompt_target_t kind,
                                 ompt_scope_endpoint_t endpoint) {
  if (kind == ompt_target || kind == ompt_target_nowait)
    in_target = endpoint == ompt_scope_begin;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame,
                              ompt_data_t *parallel, unsigned int requested,
                              int flags, const void *codeptr) {
  int in = inside();
  parallel->value = in ? DEVICE_REGION_MARK : 0;
  if (in)
    atomic_fetch_add(&n_parallel, 1);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint,
                             ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int actual, unsigned int index,
                             int flags) {
  if (endpoint == ompt_scope_begin) {
    int marked = parallel && parallel->value == DEVICE_REGION_MARK;
    if (!inside() && !marked)
      return;
    if (!in_target)
      team_depth++;
    atomic_fetch_add(&n_implicit, 1);
  } else if (!in_target && team_depth > 0) {
    team_depth--;
  }
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *parallel, ompt_data_t *task, uint64_t count,
                    const void *codeptr) {
  if (endpoint != ompt_scope_begin || !inside())
    return;
  switch (kind) {
  case ompt_work_loop:
  case ompt_work_loop_static:
  case ompt_work_loop_dynamic:
  case ompt_work_loop_guided:
  case ompt_work_loop_other:
  case ompt_work_distribute:
  case ompt_work_taskloop:
    atomic_fetch_add(&n_loops, 1);
    break;
  default:
    break;
  }
}

static void on_sync_region(ompt_sync_region_t kind,
                           ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel, ompt_data_t *task,
                           const void *codeptr) {
  if (endpoint == ompt_scope_begin && kind != ompt_sync_region_reduction &&
      inside())
    atomic_fetch_add(&n_barriers, 1);
}

static void on_task_create(ompt_data_t *encountering, const ompt_frame_t *frame,
                           ompt_data_t *new_task, int flags,
                           int has_dependences, const void *codeptr) {
  if ((flags & ompt_task_explicit) && inside())
    atomic_fetch_add(&n_tasks, 1);
}

static void register_openmp(ompt_set_callback_t set_callback) {
  const char *on = getenv("OFFTRACE_TEST_COUNTER_OPENMP");
  if (!on || strcmp(on, "1") != 0)
    return;
  count_openmp = 1;
  set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set_callback(ompt_callback_work, (ompt_callback_t)on_work);
  set_callback(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
  set_callback(ompt_callback_task_create, (ompt_callback_t)on_task_create);
}

static void print_counts(void) {
  if (!atomic_load(&active) || atomic_exchange(&printed, 1))
    return;
  char line[768];
  snprintf(line, sizeof line,
           "OMPT_COUNTS target=%lu enter_data=%lu exit_data=%lu update=%lu "
           "kernels=%lu alloc=%lu alloc_bytes=%lu h2d=%lu h2d_bytes=%lu "
           "d2h=%lu d2h_bytes=%lu delete=%lu outside=%lu\n",
           atomic_load(&n_target), atomic_load(&n_enter),
           atomic_load(&n_exit), atomic_load(&n_update),
           atomic_load(&n_kernels), atomic_load(&n_alloc),
           atomic_load(&n_alloc_bytes), atomic_load(&n_h2d),
           atomic_load(&n_h2d_bytes), atomic_load(&n_d2h),
           atomic_load(&n_d2h_bytes), atomic_load(&n_delete),
           atomic_load(&n_outside));
  if (count_openmp) {
    size_t used = strlen(line);
    snprintf(line + used, sizeof line - used,
             "OMPT_OPENMP_COUNTS parallel=%lu implicit_tasks=%lu loops=%lu "
             "barriers=%lu tasks=%lu\n",
             atomic_load(&n_parallel), atomic_load(&n_implicit),
             atomic_load(&n_loops), atomic_load(&n_barriers),
             atomic_load(&n_tasks));
  }
  const char *path = getenv("OFFTRACE_TEST_COUNTER_OUT");
  FILE *f = (path && *path) ? fopen(path, "a") : NULL;
  if (f) {
    fputs(line, f);
    fclose(f);
  } else {
    fputs(line, stderr);
    fflush(stderr);
  }
}

static int tool_initialize(ompt_function_lookup_t lookup,
                           int initial_device_num, ompt_data_t *tool_data) {
  ompt_set_callback_t set_callback =
      (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_callback)
    return 0;
  set_callback(ompt_callback_target_emi, (ompt_callback_t)on_target_emi);
  set_callback(ompt_callback_target_data_op_emi,
               (ompt_callback_t)on_data_op_emi);
  set_callback(ompt_callback_target_submit_emi,
               (ompt_callback_t)on_submit_emi);
  register_openmp(set_callback);
  atomic_store(&active, 1);
  return 1; /* keep the tool active */
}

static void tool_finalize(ompt_data_t *tool_data) { print_counts(); }

/* Fallback for runs where ompt finalize is never called (e.g. exit paths
 * that skip libomp's shutdown).  print_counts() prints only once. */
__attribute__((destructor)) static void counter_fini(void) { print_counts(); }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version) {
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize,
                                            {0}};
  return &result;
}
