/**
 * \file sym_callsite_x86.c
 * \brief The call site of a libomptarget entry on x86-64: the `ident_t`
 *        (%rdi) and region id (%r8) arguments, found in the code before it.
 */
#define _GNU_SOURCE
#include "symbolize_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/** clang's `;file;function;line;column;;` ("unknown" and 0 without -g). */
static bool ot_psource_parse(const char *text, ot_psource *ps)
{
    const char *file = text + 1, *function, *line;
    if (text[0] != ';' || !(function = strchr(file, ';')) || !(line = strchr(++function, ';')))
        return false;
    line++;
    char *end;
    unsigned long number = isdigit((unsigned char)*line) ? strtoul(line, &end, 10) : 0;
    if (number == 0 || number > UINT_MAX || *end != ';' || strncmp(file, "unknown;", 8) == 0)
        return false;
    *ps = (ot_psource){file, function, (size_t)(function - 1 - file),
                       (size_t)(line - 1 - function), (unsigned)number};
    return ps->file_len > 0 && ps->function_len > 0;
}

/** clang's ident_t: i32 reserved (0), flags, reserved, strlen(psource); then
 *  the psource pointer. The length check rejects look-alikes such as the
 *  arrays of map-clause names. */
static const char *ot_ident_psource(Elf *elf, GElf_Addr ident)
{
    size_t after;
    GElf_Addr str;
    const unsigned char *p = ot_sym_elf_at(elf, ident, &after, NULL);
    if (!p || after < 24 || ot_sym_le32(p) != 0 || !ot_sym_elf_pointer(elf, ident + 16, &str))
        return NULL;
    uint32_t len = ot_sym_le32(p + 12);
    const char *text = (const char *)ot_sym_elf_at(elf, str, &after, NULL);
    if (!text || len == 0 || len >= after || text[len] != '\0' || strlen(text) != len ||
        text[0] != ';')
        return NULL;
    return text;
}

/** Length of the call instruction that ends at `end` (exclusive): a
 *  direct call, or one through the GOT (-fno-plt); 0 if neither. */
static size_t ot_call_length(const unsigned char *end, size_t before)
{
    if (before >= 5 && end[-5] == 0xe8)
        return 5;
    if (before >= 6 && end[-6] == 0xff && end[-5] == 0x15)
        return 6;
    return 0;
}

enum { OT_RDI = 7, OT_R8 = 8, OT_RIP_LOAD = 7 /* bytes */ };

/** `lea d(%rip),%reg` or `mov d(%rip),%reg` (a GOT load) at p: the register,
 *  else -1. */
static int ot_rip_load(const unsigned char *p, bool *is_lea)
{
    if ((p[0] & 0xFB) != 0x48 || (p[2] & 0xC7) != 0x05 || (p[1] != 0x8d && p[1] != 0x8b))
        return -1;
    *is_lea = p[1] == 0x8d;
    return ((p[0] & 4) << 1) | ((p[2] >> 3) & 7);
}

/** `mov %src,%dst` (64-bit) at p: src, else -1. */
static int ot_reg_move_to(const unsigned char *p, int dst)
{
    if ((p[0] & 0xF8) != 0x48 || (p[2] & 0xC0) != 0xC0)
        return -1;
    int reg = ((p[0] & 4) << 1) | ((p[2] >> 3) & 7), rm = ((p[0] & 1) << 3) | (p[2] & 7);
    if (p[1] == 0x89 && rm == dst)
        return reg;
    if (p[1] == 0x8b && reg == dst)
        return rm;
    return -1;
}

/** The code before a call, as the scan sees it. */
typedef struct ot_code {
    Elf *elf;
    const unsigned char *start; /**< first byte of the call */
    GElf_Addr start_addr;       /**< its file address */
    size_t span;                /**< readable bytes before it */
} ot_code;

/** The address the RIP-relative load `dist` bytes before the call yields. */
static bool ot_rip_value(const ot_code *code, size_t dist, bool is_lea, GElf_Addr *value)
{
    const unsigned char *p = code->start - dist;
    GElf_Addr target = code->start_addr - dist + OT_RIP_LOAD + (int64_t)(int32_t)ot_sym_le32(p + 3);
    if (is_lea) {
        *value = target;
        return true;
    }
    return ot_sym_elf_pointer(code->elf, target, value);
}

/** What was last loaded into `reg` before `from` (a distance from the call),
 *  when the compiler hoisted the load out of a loop into that register. */
static bool ot_chase_register(const ot_code *code, size_t from, int reg, GElf_Addr *value)
{
    for (size_t dist = from + OT_RIP_LOAD; dist <= code->span; dist++) {
        bool is_lea;
        if (ot_rip_load(code->start - dist, &is_lea) == reg)
            return ot_rip_value(code, dist, is_lea, value);
    }
    return false;
}

/** An argument register's value: the address it was loaded with, found
 *  directly (`chained` false) or through a register it was copied from. */
typedef struct ot_arg {
    GElf_Addr value;
    int from_reg; /**< copied from this register at `at`, -1 if not */
    size_t at;
    bool chained;
} ot_arg;

/** Walk back from the call to where %rdi, the ident, is set (any write to
 *  it ends the walk: what precedes was set up for an earlier call) and,
 *  close to the call, %r8. */
static void ot_scan_arguments(const ot_code *code, ot_arg *ident, ot_arg *region)
{
    enum { REGION_WINDOW = 48, IDENT_WINDOW = 192 };
    size_t limit = code->span < IDENT_WINDOW ? code->span : IDENT_WINDOW;
    for (size_t dist = 3; dist <= limit; dist++) {
        const unsigned char *p = code->start - dist;
        bool is_lea = false;
        bool near = dist <= REGION_WINDOW && !region->value && region->from_reg < 0;
        int loaded = dist >= OT_RIP_LOAD ? ot_rip_load(p, &is_lea) : -1;
        int src;
        if (loaded == OT_R8 && near) {
            ot_rip_value(code, dist, is_lea, &region->value);
        } else if (loaded == OT_RDI) {
            GElf_Addr value;
            if (ot_rip_value(code, dist, is_lea, &value) && ot_ident_psource(code->elf, value))
                ident->value = value;
            return;
        } else if (near && (src = ot_reg_move_to(p, OT_R8)) >= 0) {
            *region = (ot_arg){.from_reg = src, .at = dist};
        } else if ((src = ot_reg_move_to(p, OT_RDI)) >= 0) {
            *ident = (ot_arg){.from_reg = src, .at = dist};
            return;
        }
    }
}

/**
 * The function a call goes to: through a PLT stub (`jmp *slot(%rip)`) or
 * straight through the GOT (-fno-plt), the symbol bound to the slot; else
 * the module's own symbol at the target. NULL when not known.
 */
static const char *ot_callee(const ot_module *m, const ot_code *code, size_t call, GElf_Addr bias)
{
    const unsigned char *p = code->start;
    if (call == 6) { /* call *slot(%rip) */
        GElf_Addr slot = code->start_addr + 6 + (int64_t)(int32_t)ot_sym_le32(p + 2);
        return ot_sym_elf_reloc_symbol(code->elf, slot);
    }
    GElf_Addr target = code->start_addr + 5 + (int64_t)(int32_t)ot_sym_le32(p + 1);
    size_t after;
    const unsigned char *stub = ot_sym_elf_at(code->elf, target, &after, NULL);
    for (size_t i = 0; stub && i < 16 && i + 6 <= after; i++) {
        if (stub[i] != 0xff || stub[i + 1] != 0x25)
            continue;
        GElf_Addr slot = target + i + 6 + (int64_t)(int32_t)ot_sym_le32(stub + i + 2);
        const char *name = ot_sym_elf_reloc_symbol(code->elf, slot);
        if (name)
            return name;
        break;
    }
    return dwfl_module_addrname(m->mod, target + bias);
}

/**
 * What a call into libomptarget itself says. clang passes every entry the
 * construct's `ident_t` in %rdi (its psource names the pragma's file,
 * function and line) and __tgt_target_kernel the region's `.region_id`
 * address in %r8, loaded RIP-relative just before the call, or, in a loop,
 * once before the loop into registers that are copied at each call. x86
 * cannot be disassembled backwards, so the bytes are searched for these
 * encodings, and only targets that check out count: a known region id; an
 * ident whose psource length matches. The first write to %rdi ends the
 * search (what precedes it was set up for earlier calls). What was found
 * through a copied register must agree: the kernel's line is the psource's.
 */
void ot_sym_scan_call_site(const ot_module *m, uint64_t pc, uint64_t in_function,
                              ot_call_site *site)
{
    GElf_Addr bias;
    GElf_Ehdr eh;
    Elf *elf = dwfl_module_getelf(m->mod, &bias);
    if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
        return;
    size_t after, before;
    const unsigned char *last = ot_sym_elf_at(elf, pc - bias, &after, &before);
    size_t call = last ? ot_call_length(last + 1, before + 1) : 0;
    if (call == 0 || call > in_function + 1)
        return;
    size_t span = before + 1 - call; /* within the section and the function */
    if (span > in_function + 1 - call)
        span = in_function + 1 - call;
    ot_code code = {elf, last + 1 - call, pc - bias + 1 - call, span < 16384 ? span : 16384};
    const char *callee = ot_callee(m, &code, call, bias);
    if (!callee || strncmp(callee, "__tgt_", 6) != 0)
        return; /* only libomptarget's entries are passed an ident */
    ot_arg ident = {.from_reg = -1}, region = {.from_reg = -1};
    ot_scan_arguments(&code, &ident, &region);
    ident.chained = ident.from_reg >= 0 &&
                    ot_chase_register(&code, ident.at, ident.from_reg, &ident.value);
    region.chained = region.from_reg >= 0 &&
                     ot_chase_register(&code, region.at, region.from_reg, &region.value);
    const char *psource = ident.value ? ot_ident_psource(elf, ident.value) : NULL;
    site->has_source = psource && ot_psource_parse(psource, &site->source);
    site->kernel = ot_sym_kernel_by_region(m, region.value);
    if (!ident.chained && !region.chained)
        return;
    size_t fn_len;
    unsigned line;
    if (!site->has_source || !site->kernel || !ot_sym_tail_split(site->kernel->tail, &fn_len, &line) ||
        line != site->source.line) {
        site->has_source = site->has_source && !ident.chained;
        site->kernel = region.chained ? NULL : site->kernel;
    }
}
