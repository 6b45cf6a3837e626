/**
 * \file filter_where.c
 * \brief The source file and line of a code address in this process, for
 *        the file rules of filters (filter_record.c): libdw, opened with
 *        dlopen the first time a filter with file rules needs it.
 *
 * Why dlopen and not a link: libofftrace.so stays free of libdw for every
 * run without file rules (the converter, in its own process, links it).
 * Why a fresh Dwfl per call site, ended at once: offtrace keeps no
 * descriptor open while the program runs (session.h), and there are few
 * call sites (each is resolved once, then its decision is cached).
 * The address is a return address: the call's own line is that of the
 * byte before it.
 */
#define _GNU_SOURCE
#include "filter_where.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* libdw's declarations (header only: nothing of libdw is linked). */
static struct {
    int tried, ok;
    __typeof__(dwfl_begin) *begin;
    __typeof__(dwfl_linux_proc_report) *linux_proc_report;
    __typeof__(dwfl_report_end) *report_end;
    __typeof__(dwfl_addrmodule) *addrmodule;
    __typeof__(dwfl_module_getdwarf) *getdwarf;
    __typeof__(dwfl_module_addrdie) *addrdie;
    __typeof__(dwarf_get_units) *get_units;
    __typeof__(dwarf_haspc) *haspc;
    __typeof__(dwarf_getsrc_die) *getsrc_die;
    __typeof__(dwarf_lineno) *lineno;
    __typeof__(dwarf_linesrc) *linesrc;
    __typeof__(dwfl_end) *end;
    Dwfl_Callbacks callbacks;
} dw;

static void open_libdw(void)
{
    dw.tried = 1;
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    dw.begin = (__typeof__(dw.begin))dlsym(h, "dwfl_begin");
    dw.linux_proc_report = (__typeof__(dw.linux_proc_report))dlsym(h, "dwfl_linux_proc_report");
    dw.report_end = (__typeof__(dw.report_end))dlsym(h, "dwfl_report_end");
    dw.addrmodule = (__typeof__(dw.addrmodule))dlsym(h, "dwfl_addrmodule");
    dw.getdwarf = (__typeof__(dw.getdwarf))dlsym(h, "dwfl_module_getdwarf");
    dw.addrdie = (__typeof__(dw.addrdie))dlsym(h, "dwfl_module_addrdie");
    dw.get_units = (__typeof__(dw.get_units))dlsym(h, "dwarf_get_units");
    dw.haspc = (__typeof__(dw.haspc))dlsym(h, "dwarf_haspc");
    dw.getsrc_die = (__typeof__(dw.getsrc_die))dlsym(h, "dwarf_getsrc_die");
    dw.lineno = (__typeof__(dw.lineno))dlsym(h, "dwarf_lineno");
    dw.linesrc = (__typeof__(dw.linesrc))dlsym(h, "dwarf_linesrc");
    dw.end = (__typeof__(dw.end))dlsym(h, "dwfl_end");
    dw.callbacks.find_elf = (__typeof__(dw.callbacks.find_elf))dlsym(h, "dwfl_linux_proc_find_elf");
    dw.callbacks.find_debuginfo = (__typeof__(dw.callbacks.find_debuginfo))dlsym(h, "dwfl_standard_find_debuginfo");
    dw.ok = dw.begin && dw.linux_proc_report && dw.report_end && dw.addrmodule && dw.getdwarf && dw.addrdie &&
            dw.get_units && dw.haspc && dw.getsrc_die && dw.lineno && dw.linesrc && dw.end && dw.callbacks.find_elf && dw.callbacks.find_debuginfo;
}

int ot_filter_where(const void *code, char *file, size_t size, uint32_t *line)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* libdw's Dwfl is not thread-safe */
    int found = 0;
    file[0] = '\0';
    *line = 0;
    if (!code)
        return 0;
    pthread_mutex_lock(&lock);
    if (!dw.tried)
        open_libdw();
    Dwfl *d = dw.ok ? dw.begin(&dw.callbacks) : NULL;
    if (d && dw.linux_proc_report(d, getpid()) == 0 && dw.report_end(d, NULL, NULL) == 0) {
        Dwarf_Addr pc = (Dwarf_Addr)(uintptr_t)code - 1, bias = 0;
        Dwfl_Module *m = dw.addrmodule(d, pc);
        Dwarf *dwarf = m ? dw.getdwarf(m, &bias) : NULL;
        Dwarf_Die mem, *cu = dwarf ? dw.addrdie(m, pc, &bias) : NULL;
        if (dwarf && !cu) { /* no .debug_aranges (clang's default): the CUs' own ranges */
            Dwarf_CU *unit = NULL, *next;
            Dwarf_Half version;
            uint8_t type;
            Dwarf_Die sub;
            while (dw.get_units(dwarf, unit, &next, &version, &type, &mem, &sub) == 0) {
                unit = next;
                if (type != DW_UT_type && type != DW_UT_split_type && dw.haspc(&mem, pc - bias) == 1) {
                    cu = &mem;
                    break;
                }
            }
        }
        Dwarf_Line *l = cu ? dw.getsrc_die(cu, pc - bias) : NULL;
        int lineno = 0;
        const char *src = l ? dw.linesrc(l, NULL, NULL) : NULL;
        if (src && dw.lineno(l, &lineno) == 0) {
            snprintf(file, size, "%s", src);
            *line = lineno > 0 ? (uint32_t)lineno : 0;
            found = 1;
        }
    }
    if (d)
        dw.end(d);
    pthread_mutex_unlock(&lock);
    return found;
}
