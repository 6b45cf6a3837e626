/**
 * \file sym_elf.c
 * \brief Raw ELF reading for the symbolizer: section contents at a file
 *        address, pointers stated by dynamic relocations, PLT/GOT slots.
 */
#define _GNU_SOURCE
#include "symbolize_internal.h"

#include <limits.h>

uint32_t ot_sym_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ot_le64(const unsigned char *p)
{
    return (uint64_t)ot_sym_le32(p) | (uint64_t)ot_sym_le32(p + 4) << 32;
}

/** The file contents at file address `addr`: bytes after it, and before it in its section. */
const unsigned char *ot_sym_elf_at(Elf *elf, GElf_Addr addr, size_t *after, size_t *before)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
            addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
            continue;
        Elf_Data *data = elf_rawdata(scn, NULL);
        size_t off = addr - sh.sh_addr;
        if (!data || !data->d_buf || off >= data->d_size)
            return NULL;
        *after = data->d_size - off;
        if (before)
            *before = off;
        return (const unsigned char *)data->d_buf + off;
    }
    return NULL;
}

/** Only 64-bit little-endian objects are read for pointers and code. */
bool ot_sym_elf_reloc_types(Elf *elf, ot_reloc_types *t)
{
    GElf_Ehdr eh;
    if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return false;
    switch (eh.e_machine) {
    case EM_X86_64:
        *t = (ot_reloc_types){R_X86_64_RELATIVE, R_X86_64_GLOB_DAT, R_X86_64_64};
        return true;
    case EM_AARCH64:
        *t = (ot_reloc_types){R_AARCH64_RELATIVE, R_AARCH64_GLOB_DAT, R_AARCH64_ABS64};
        return true;
    case EM_PPC64:
        *t = (ot_reloc_types){R_PPC64_RELATIVE, R_PPC64_GLOB_DAT, R_PPC64_ADDR64};
        return true;
    default:
        return false;
    }
}

/** A defined symbol's value; undefined ones live in another module. */
static bool ot_elf_symbol_value(Elf *elf, size_t symtab, size_t index, GElf_Addr *value)
{
    Elf_Scn *scn = elf_getscn(elf, symtab);
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    GElf_Sym sym;
    if (!data || index > INT_MAX || !gelf_getsym(data, (int)index, &sym) ||
        sym.st_shndx == SHN_UNDEF)
        return false;
    *value = sym.st_value;
    return true;
}

/** What the dynamic relocation at `addr`, if any, will store there. */
static bool ot_elf_reloc_value(Elf *elf, const ot_reloc_types *t, GElf_Addr addr, GElf_Addr *value)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
            !(data = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i <= INT_MAX; i++) {
            GElf_Rela rela;
            if (!gelf_getrela(data, (int)i, &rela) || rela.r_offset != addr)
                continue;
            unsigned type = (unsigned)GELF_R_TYPE(rela.r_info);
            if (type == t->relative) {
                *value = (GElf_Addr)rela.r_addend;
                return true;
            }
            if ((type == t->glob_dat || type == t->abs64) &&
                ot_elf_symbol_value(elf, sh.sh_link, GELF_R_SYM(rela.r_info), value)) {
                *value += (GElf_Addr)rela.r_addend;
                return true;
            }
            return false;
        }
    }
    return false;
}

/**
 * A pointer stored at `addr`. A PIE or library holds it as a dynamic
 * relocation: ld.bfd also writes the value into the file, lld leaves 0 there,
 * and a GOT slot holds 0 until the symbol is bound.
 */
bool ot_sym_elf_pointer(Elf *elf, GElf_Addr addr, GElf_Addr *value)
{
    ot_reloc_types types;
    size_t after;
    const unsigned char *p = ot_sym_elf_at(elf, addr, &after, NULL);
    if (!p || after < 8 || !ot_sym_elf_reloc_types(elf, &types))
        return false;
    *value = ot_le64(p);
    return *value != 0 || ot_elf_reloc_value(elf, &types, addr, value);
}

/** The name of the symbol a dynamic relocation at `addr` binds (a PLT or
 *  GOT slot), or NULL. */
const char *ot_sym_elf_reloc_symbol(Elf *elf, GElf_Addr addr)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh, symsh;
        Elf_Data *data, *syms;
        Elf_Scn *symscn;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
            !(data = elf_getdata(scn, NULL)) || !(symscn = elf_getscn(elf, sh.sh_link)) ||
            !gelf_getshdr(symscn, &symsh) || !(syms = elf_getdata(symscn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i <= INT_MAX; i++) {
            GElf_Rela rela;
            GElf_Sym sym;
            if (!gelf_getrela(data, (int)i, &rela) || rela.r_offset != addr)
                continue;
            size_t index = GELF_R_SYM(rela.r_info);
            if (index == 0 || index > INT_MAX || !gelf_getsym(syms, (int)index, &sym))
                return NULL;
            return elf_strptr(elf, symsh.sh_link, sym.st_name);
        }
    }
    return NULL;
}
