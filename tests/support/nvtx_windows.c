/*
 * nvtx_windows: NVTX ranges around measurement switches made with OpenMP's
 * own omp_control_tool (tests/test_nvtx_recording.c). Whole or nothing:
 *   "kept", "late", "late mark"           begun while on: recorded
 *   "dropped", "dropped start/end",
 *   "dropped mark"                        begun while off: left out, even
 *                                         though their end comes while on
 *   "across", "across start/end"          begun while on, ended while off:
 *                                         recorded whole
 */
#include <nvtx3/nvToolsExt.h>
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int team = 0;
#pragma omp parallel reduction(+ : team)
    team += 1; /* omp_control_tool is delivered after the first parallel region */
    nvtxRangePushA("kept");
    nvtxRangePop();
    int off = omp_control_tool(omp_control_tool_pause, 0, NULL);
    nvtxRangePushA("dropped");
    nvtxRangeId_t dropped = nvtxRangeStartA("dropped start/end");
    nvtxMarkA("dropped mark");
    int on = omp_control_tool(omp_control_tool_start, 0, NULL);
    nvtxRangeEnd(dropped);
    nvtxRangePop();
    nvtxRangePushA("across");
    nvtxRangeId_t across = nvtxRangeStartA("across start/end");
    int off2 = omp_control_tool(omp_control_tool_pause, 0, NULL);
    nvtxRangeEnd(across);
    nvtxRangePop();
    int on2 = omp_control_tool(omp_control_tool_start, 0, NULL);
    nvtxRangePushA("late");
    nvtxMarkA("late mark");
    nvtxRangePop();
    printf("team %d; off %d on %d off %d on %d\n", team > 0, off, on, off2, on2);
    return 0;
}
