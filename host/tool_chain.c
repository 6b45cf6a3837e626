/**
 * \file tool_chain.c
 * \brief Starting the user's own OMPT tool of OMP_TOOL_LIBRARIES next to
 *        offtrace (tool_chain.h). Start-up and shutdown only; the shared
 *        callbacks are the four that are not on the hot path.
 */
#define _GNU_SOURCE
#include "tool_chain.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_link.h"

static ompt_start_tool_result_t *chained;
static char chained_path[PATH_MAX];
static int chained_active;
static ompt_function_lookup_t real_lookup;
static ompt_set_callback_t real_set_callback;

/* ---- offtrace's own callbacks, shared with the chained tool ---- */

static ompt_callback_thread_begin_t own_thread_begin, tool_thread_begin;
static ompt_callback_thread_end_t own_thread_end, tool_thread_end;
static ompt_callback_device_initialize_t own_device_initialize, tool_device_initialize;
static ompt_callback_device_load_t own_device_load, tool_device_load;
static ompt_callback_device_finalize_t own_device_finalize, tool_device_finalize;
static ompt_callback_control_tool_t own_control_tool, tool_control_tool;

static void both_thread_begin(ompt_thread_t kind, ompt_data_t *thread_data)
{
    own_thread_begin(kind, thread_data);
    tool_thread_begin(kind, thread_data);
}

static void both_thread_end(ompt_data_t *thread_data)
{
    tool_thread_end(thread_data); /* offtrace's closes the thread's stream: last */
    own_thread_end(thread_data);
}

static void both_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                   ompt_function_lookup_t lookup, const char *documentation)
{
    own_device_initialize(device_num, type, device, lookup, documentation);
    tool_device_initialize(device_num, type, device, lookup, documentation);
}

static void both_device_load(int device_num, const char *filename, int64_t offset_in_file, void *vma_in_file,
                             size_t bytes, void *host_addr, void *device_addr, uint64_t module_id)
{
    own_device_load(device_num, filename, offset_in_file, vma_in_file, bytes, host_addr, device_addr, module_id);
    tool_device_load(device_num, filename, offset_in_file, vma_in_file, bytes, host_addr, device_addr, module_id);
}

static void both_device_finalize(int device_num)
{
    tool_device_finalize(device_num);
    own_device_finalize(device_num);
}

/* omp_control_tool reaches both tools: offtrace answers the standard
 * commands (start, pause, flush, end), the tool its own (64 and up). */
static int both_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr)
{
    int own = own_control_tool(command, modifier, arg, codeptr);
    int tool = tool_control_tool(command, modifier, arg, codeptr);
    return command >= 64 ? tool : own;
}

void ot_chain_note_own(ompt_callbacks_t event, ompt_callback_t fn)
{
    switch (event) {
    case ompt_callback_thread_begin: own_thread_begin = (ompt_callback_thread_begin_t)fn; break;
    case ompt_callback_thread_end: own_thread_end = (ompt_callback_thread_end_t)fn; break;
    case ompt_callback_device_initialize: own_device_initialize = (ompt_callback_device_initialize_t)fn; break;
    case ompt_callback_device_load: own_device_load = (ompt_callback_device_load_t)fn; break;
    case ompt_callback_device_finalize: own_device_finalize = (ompt_callback_device_finalize_t)fn; break;
    case ompt_callback_control_tool: own_control_tool = (ompt_callback_control_tool_t)fn; break;
    default: break;
    }
}

/* ---- the chained tool's ompt_set_callback ---- */

static char refused[512]; /* names of the events refused to the tool */
static int keep_host_openmp; /* the OFFTRACE_HOST_OPENMP level: its events are offtrace's */

void ot_chain_keep_host_openmp(int level)
{
    keep_host_openmp = level;
}

static void note_refused(const char *name)
{
    size_t used = strlen(refused);
    if (!strstr(refused, name))
        snprintf(refused + used, sizeof refused - used, "%s%s", used ? ", " : "", name);
}

/* Events whose ompt_data_t offtrace (or its collector) writes its own ids
 * into. The host OpenMP events are offtrace's once a device needs them
 * (tool.c registers them at that device's initialisation, after this tool
 * has set its callbacks), and the collector keeps its per-region state in
 * their parallel and task data; so they are refused whenever a collector is
 * open, which ot_device_link_open has decided before the tool initialises. */
static const char *kept_by_offtrace(ompt_callbacks_t event)
{
    switch (event) {
    case ompt_callback_target_emi: return "target_emi";
    case ompt_callback_target_data_op_emi: return "target_data_op_emi";
    case ompt_callback_target_submit_emi: return "target_submit_emi";
    case ompt_callback_target: return "target";
    case ompt_callback_target_data_op: return "target_data_op";
    case ompt_callback_target_submit: return "target_submit";
    default: break;
    }
    switch (event) { /* recorded by offtrace whatever the collector (OFFTRACE_HOST_OPENMP) */
    case ompt_callback_sync_region_wait: return keep_host_openmp >= 1 ? "sync_region_wait" : NULL;
    case ompt_callback_masked: return keep_host_openmp >= 1 ? "masked" : NULL;
    case ompt_callback_dispatch: return keep_host_openmp >= 2 ? "dispatch" : NULL;
    case ompt_callback_dependences: return keep_host_openmp >= 3 ? "dependences" : NULL;
    case ompt_callback_task_dependence: return keep_host_openmp >= 3 ? "task_dependence" : NULL;
    /* mutual exclusion (level all) */
    case ompt_callback_mutex_acquire: return keep_host_openmp >= 3 ? "mutex_acquire" : NULL;
    case ompt_callback_mutex_acquired: return keep_host_openmp >= 3 ? "mutex_acquired" : NULL;
    case ompt_callback_mutex_released: return keep_host_openmp >= 3 ? "mutex_released" : NULL;
    case ompt_callback_nest_lock: return keep_host_openmp >= 3 ? "nest_lock" : NULL;
    case ompt_callback_lock_init: return keep_host_openmp >= 3 ? "lock_init" : NULL;
    case ompt_callback_lock_destroy: return keep_host_openmp >= 3 ? "lock_destroy" : NULL;
    case ompt_callback_cancel: return keep_host_openmp >= 3 ? "cancel" : NULL;
    case ompt_callback_flush: return keep_host_openmp >= 3 ? "flush" : NULL;
    default: break;
    }
    if (!ot_device_link_present() && !keep_host_openmp) /* no device collector, or one that was refused */
        return NULL;
    switch (event) {
    case ompt_callback_parallel_begin: return "parallel_begin";
    case ompt_callback_parallel_end: return "parallel_end";
    case ompt_callback_implicit_task: return "implicit_task";
    case ompt_callback_work: return "work";
    case ompt_callback_sync_region: return "sync_region";
    case ompt_callback_task_create: return "task_create";
    case ompt_callback_task_schedule: return "task_schedule";
    default: return NULL;
    }
}

#define SHARE(own, tool, both, type)                       \
    do {                                                   \
        if (!(own))                                        \
            break;                                         \
        if (!callback) /* the tool withdraws it */         \
            return real_set_callback(event, (ompt_callback_t)(own)); \
        (tool) = (type)callback;                           \
        return real_set_callback(event, (ompt_callback_t)(both)); \
    } while (0)

static ompt_set_result_t chained_set_callback(ompt_callbacks_t event, ompt_callback_t callback)
{
    switch (event) {
    case ompt_callback_thread_begin:
        SHARE(own_thread_begin, tool_thread_begin, both_thread_begin, ompt_callback_thread_begin_t);
        break;
    case ompt_callback_thread_end:
        SHARE(own_thread_end, tool_thread_end, both_thread_end, ompt_callback_thread_end_t);
        break;
    case ompt_callback_device_initialize:
        SHARE(own_device_initialize, tool_device_initialize, both_device_initialize,
              ompt_callback_device_initialize_t);
        break;
    case ompt_callback_device_load:
        SHARE(own_device_load, tool_device_load, both_device_load, ompt_callback_device_load_t);
        break;
    case ompt_callback_device_finalize:
        SHARE(own_device_finalize, tool_device_finalize, both_device_finalize, ompt_callback_device_finalize_t);
        break;
    case ompt_callback_control_tool:
        SHARE(own_control_tool, tool_control_tool, both_control_tool, ompt_callback_control_tool_t);
        break;
    default: {
        const char *name = kept_by_offtrace(event);
        if (name) {
            if (callback)
                note_refused(name);
            return ompt_set_never;
        }
    }
    }
    return real_set_callback(event, callback);
}

static ompt_interface_fn_t chained_lookup(const char *name)
{
    if (!strcmp(name, "ompt_set_callback"))
        return (ompt_interface_fn_t)chained_set_callback;
    return real_lookup(name);
}

/* ---- start, initialize, finalize ---- */

/* Whether \p entry of OMP_TOOL_LIBRARIES is this library. */
static int is_offtrace(const char *entry, const char *self)
{
    char real[PATH_MAX];
    return realpath(entry, real) && !strcmp(real, self);
}

void ot_chain_start(unsigned int omp_version, const char *runtime_version)
{
    const char *list = getenv("OMP_TOOL_LIBRARIES");
    Dl_info info;
    char self[PATH_MAX];
    if (!list || !*list || !dladdr((void *)ot_chain_start, &info) || !info.dli_fname)
        return;
    /* `offtrace record`'s own setting, this library alone under the name it
     * was loaded by: no other tool, and no realpath walk of both names. */
    if (!strchr(list, ':') && !strcmp(list, info.dli_fname))
        return;
    if (!realpath(info.dli_fname, self))
        return;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return;
    /* The tools after libofftrace; all of them if libomp found offtrace
     * elsewhere (then it never reads the list). */
    int after_self = 0;
    for (char *entry = strtok_r(copy, ":", &save); entry; entry = strtok_r(NULL, ":", &save))
        if (is_offtrace(entry, self)) {
            after_self = 1;
            break;
        }
    if (!after_self) {
        free(copy);
        copy = strdup(list);
        save = NULL;
        if (!copy)
            return;
    }
    for (char *entry = strtok_r(after_self ? NULL : copy, ":", &save); entry && !chained;
         entry = strtok_r(NULL, ":", &save)) {
        if (is_offtrace(entry, self))
            continue;
        void *handle = dlopen(entry, RTLD_LAZY | RTLD_LOCAL);
        ompt_start_tool_result_t *(*start)(unsigned int, const char *) =
            handle ? (ompt_start_tool_result_t * (*)(unsigned int, const char *)) dlsym(handle, "ompt_start_tool")
                   : NULL;
        if (start)
            chained = start(omp_version, runtime_version);
        if (chained)
            snprintf(chained_path, sizeof chained_path, "%s", entry);
        else if (handle)
            dlclose(handle);
    }
    free(copy);
}

void ot_chain_initialize(ompt_function_lookup_t lookup, int initial_device_num)
{
    if (!chained || !chained->initialize)
        return;
    real_lookup = lookup;
    real_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!real_set_callback)
        return;
    chained_active = chained->initialize(chained_lookup, initial_device_num, &chained->tool_data) != 0;
    if (refused[0])
        fprintf(stderr, "offtrace: the OMPT tool %s runs next to offtrace but does not get these callbacks, "
                        "which offtrace uses itself: %s\n", chained_path, refused);
}

void ot_chain_finalize(void)
{
    if (chained_active && chained->finalize)
        chained->finalize(&chained->tool_data);
    chained_active = 0;
}
