/*
 * Which CUDA driver API calls the CUPTI backend traces: see
 * cupti_driver_calls.h. Calls are chosen by CUPTI's own names, walked over
 * every driver callback id the CUPTI in use knows, so that the variants a
 * newer CUDA adds (cuLaunchKernelEx, cuMemcpyBatchAsync_v2, ...) are taken
 * without a list here to keep up to date.
 */
#include <string.h>

#include "cupti_driver_calls.h"

int ot_cupti_driver_call_starts_device_work(const char *name)
{
    static const char *const families[] = {"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset"};
    if (!name)
        return 0;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strncmp(name, families[i], strlen(families[i])) == 0)
            return 1;
    return 0;
}

long ot_cupti_untrace_other_calls(void)
{
    long untraced = 0;
    for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS ||
            ot_cupti_driver_call_starts_device_work(name))
            continue;
        CUptiResult r = cuptiActivityEnableDriverApi(cbid, 0);
        if (r != CUPTI_SUCCESS)
            return -(long)r;
        untraced++;
    }
    return untraced;
}
