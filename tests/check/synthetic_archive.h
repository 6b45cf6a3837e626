/**
 * \file synthetic_archive.h
 * \brief Test-side writer of a small archive with what real recordings never
 *        hold, for the analysis verbs' robustness: a region name that needs
 *        JSON escaping, a Leave that does not end the innermost open
 *        region, regions never left, and nesting deeper than the reader's
 *        limit.
 */
#ifndef OT_TEST_SYNTHETIC_ARCHIVE_H
#define OT_TEST_SYNTHETIC_ARCHIVE_H

/** The odd region's name: quotes, backslash, newline, tab, DEL, a byte that is not UTF-8, "é". */
#define ODD_REGION_NAME "say \"hi\"\\ \n\t\x7f\xff \xc3\xa9"

/**
 * \brief Write `<dir>/traces.otf2` (creator "offtrace", so offtrace's
 *        classification applies) with two host threads:
 *  - "Master thread": Enter ODD @1000, Enter "target @odd.c:7" @2000,
 *    Leave "target @odd.c:7" @3000, Leave ODD @4000, Enter ODD @5000 (never
 *    left);
 *  - "OpenMP thread 1": \p depth nested Enters of "nest" from 10000 on (1 ns
 *    apart), then as many Leaves, ending at 10000 + 2 * depth - 1.
 * \return 0, or -1 if OTF2 failed.
 */
int write_odd_archive(const char *dir, unsigned depth);

/**
 * \brief The odd archive with depth 2, but on "Master thread" the ODD region
 *        is left @3000 while the target region inside it is still open, and
 *        the target region @4000: Leaves that do not end the innermost open
 *        region (bad input for every reader).
 */
int write_mismatched_archive(const char *dir);

/**
 * \brief Write `<dir>/traces.otf2` with transfers for the reader's pairing:
 *  - "Master thread" (location 0): Enter "target @paired.c:3" @100 (never
 *    left); Enter "data op host->device @paired.c:4" @110, RmaPut to rank 1
 *    (device 0's RDMA row) of 800 bytes, id 7, @110, its completion @150,
 *    Leave @150; Enter the data op @200, RmaPut of 16 bytes, id 8 @200 (never
 *    completed), Leave @210; a completion of id 99 @220 (matches no put);
 *  - "device 0 RDMA" (location 1 << 32 | 0xFFFF): "transfer host->device"
 *    @110..150 and @200..230.
 * \return 0, or -1 if OTF2 failed.
 */
int write_paired_archive(const char *dir);

/** \brief The paired archive with device 0's location group named \p device_group
 *         (the device kind the runtime reported, then " device 0"). */
int write_paired_archive_with_group(const char *dir, const char *device_group);

/** The layouts of write_mapped_archive's map attributes, as offtrace wrote them over time. */
enum {
    OT_MAPPED_NOW,          /**< the put's variable alone; implicit 0 and map entry `entry` left out (issue 18, 4th round),
                                 and an Enter's variable, map type and site where they repeat (tenth round) */
    OT_MAPPED_ON_PUTS,      /**< every attribute on the Enter and again on the put (issue 15) */
    OT_MAPPED_USUAL_VALUES, /**< the put's variable alone, every attribute on the Enter (issue 18, 3rd round) */
    OT_MAPPED_LAYOUTS
};

/**
 * \brief The paired archive with the catalogue's map attributes (issue 15): the first data op's Enter
 *        carries x[0:100] (to, implicit 1, map site paired.c:4, map entry entry), the second's y (tofrom,
 *        implicit 0, member of s, the same site and entry), and a third, of y again, that leaves out its
 *        variable, map type and site where \p layout is OT_MAPPED_NOW (issue 18, tenth round), in one of the
 *        \p layout (OT_MAPPED_*).
 * \return 0, or -1 if OTF2 failed.
 */
int write_mapped_archive(const char *dir, int layout);

/** A chunk of write_chunked_archive: its location, first iteration and iterations. */
typedef struct ot_synthetic_chunk {
    int location;
    unsigned long long first, iterations;
} ot_synthetic_chunk;

/** The chunks write_chunked_archive writes, in each location's order (location 1's first one nested deeper
 *  than the reader delivers, OT_TR_MAX_DEPTH + 1 regions in). */
#define OT_SYNTHETIC_CHUNKS 8
extern const ot_synthetic_chunk ot_synthetic_chunks[OT_SYNTHETIC_CHUNKS];
/** How many of their attributes the archive that carries them all carries at their usual values. */
#define OT_SYNTHETIC_CHUNKS_USUAL 8

/** An implicit task of write_chunked_archive (one around each loop): its location, team size and thread number. */
typedef struct ot_synthetic_team {
    int location;
    unsigned long long size, number;
} ot_synthetic_team;

/** The implicit tasks write_chunked_archive writes, in each location's order (location 1's first one nested
 *  deeper than the reader delivers). */
#define OT_SYNTHETIC_TEAMS 4
extern const ot_synthetic_team ot_synthetic_teams[OT_SYNTHETIC_TEAMS];
/** How many of their attributes the archive that carries them all carries at their usual values. */
#define OT_SYNTHETIC_TEAMS_USUAL 3

/**
 * \brief Write `<dir>/traces.otf2` with host loop chunks (class HOST_CHUNK) on two host threads, inside a loop
 *        (HOST_WORK), each Enter carrying `first iteration` and `iterations` as offtrace writes them (\p
 *        carry_all 0: left out where they follow from the location's previous chunk, docs/host-openmp.md "A
 *        chunk's iterations") or as it wrote them before (\p carry_all 1: always); each loop inside an implicit
 *        task (HOST_IMPLICIT_TASK) whose Enter carries `team size` and `thread number` the same way.
 * \return 0, or -1 if OTF2 failed.
 */
int write_chunked_archive(const char *dir, int carry_all);

#endif
