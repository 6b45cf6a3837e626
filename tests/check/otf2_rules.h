/**
 * \file otf2_rules.h
 * \brief The structural rules that the OTF2 3.0 headers state, checked on any
 *        OTF2 archive with OTF2's own reader.
 *
 * Producer-independent: nothing here knows offtrace's names, ids or
 * conventions, so the same check holds for any archive OTF2 can read. Each
 * rule below is one sentence (or one pair of sentences) of an OTF2 header;
 * otf2_rules.c cites it where it is checked. A violation is reported in one
 * line naming the rule, and the definition or the location and event where it
 * was seen.
 *
 * MPI point-to-point messages (MpiSend/MpiIsend against MpiRecv/MpiIrecv)
 * are checked: the peer is a rank of the communicator, and every send is
 * matched by exactly one receive in the order MPI matches them (per
 * communicator, sending and receiving process (LocationGroup), and tag, in
 * time order), of the same length. Not checked: the other events of the MPI
 * family (requests, collectives), the OpenMP (Omp*), RMA synchronisation and
 * lock, I/O and calling-context families are counted for
 * `location-event-count` but not otherwise examined (their timestamps
 * included); the MPI-only "should match the MPI rank" of COMM_LOCATIONS
 * groups; whether every Enter/Leave carries a SYNCHRONOUS_STRICT metric;
 * that events do not reference the Comm of an RMA_ONLY paradigm; the
 * definitions of I/O, calling contexts, Cartesian topologies and callpaths.
 */
#ifndef OT_TEST_OTF2_RULES_H
#define OT_TEST_OTF2_RULES_H

#include <stdint.h>

/* X(identifier, name used in messages) */
#define OTF2_RULES(X)                                                                                      \
    X(UNIQUE_ID, "unique-id")                                                                              \
    X(REFERENCE, "reference")                                                                              \
    X(CLOCK_PROPERTIES, "clock-properties")                                                                \
    X(PARADIGM, "paradigm")                                                                                \
    X(SYSTEM_TREE_ROOT, "system-tree-root")                                                                \
    X(LOCATION_GROUP_CREATOR, "location-group-creator")                                                    \
    X(LOCATION_GROUP_CONTENTS, "location-group-contents")                                                  \
    X(GROUP_MEMBERS, "group-members")                                                                      \
    X(COMM_GROUP_TYPE, "comm-group-type")                                                                  \
    X(METRIC_MEMBER_TYPE, "metric-member-type")                                                            \
    X(METRIC_INSTANCE, "metric-instance")                                                                  \
    X(PROPERTY_VALUE, "property-value")                                                                    \
    X(LOCATION_EVENT_COUNT, "location-event-count")                                                        \
    X(TIME_ORDER, "time-order")                                                                            \
    X(CLOCK_RANGE, "clock-range")                                                                          \
    X(REGION_NESTING, "region-nesting")                                                                    \
    X(RMA_REMOTE_RANK, "rma-remote-rank")                                                                  \
    X(RMA_MATCHING, "rma-matching")                                                                        \
    X(METRIC_VALUES, "metric-values")                                                                      \
    X(METRIC_RECORDER, "metric-recorder")                                                                  \
    X(METRIC_OCCURRENCE, "metric-occurrence")                                                              \
    X(ATTRIBUTE_VALUE, "attribute-value")                                                                  \
    X(CREATE_DESTROY_FLAG, "create-destroy-flag")                                                          \
    X(PROGRAM_BEGIN_END, "program-begin-end")                                                              \
    X(MPI_PEER_RANK, "mpi-peer-rank")                                                                      \
    X(MPI_MATCHING, "mpi-matching")

typedef enum otf2_rule {
#define OTF2_RULE_ENUM(id, name) OTF2_RULE_##id,
    OTF2_RULES(OTF2_RULE_ENUM)
#undef OTF2_RULE_ENUM
    OTF2_RULE_COUNT
} otf2_rule;

/** What one check of an archive found. */
typedef struct otf2_rules_report {
    uint64_t violations[OTF2_RULE_COUNT]; /**< how often each rule is broken */
    char first[OTF2_RULE_COUNT][320];     /**< the first violation of each rule, one line ("" if none) */
    uint64_t locations, events;           /**< what was read */
} otf2_rules_report;

/**
 * \brief Read the archive whose anchor file is \p anchor with OTF2's reader
 *        and check every rule on it.
 * \return 0 when the archive could be read to the end (its violations are in
 *         \p report), -1 when OTF2 could not open or read it.
 */
int otf2_rules_check(const char *anchor, otf2_rules_report *report);

/** \brief The rule's name, as messages give it ("region-nesting"). */
const char *otf2_rule_name(otf2_rule rule);

/** \brief Sum of all violations. */
uint64_t otf2_rules_total(const otf2_rules_report *report);

/**
 * \brief Every broken rule, one line each (its count and first violation),
 *        into \p buf (always NUL-terminated).
 */
void otf2_rules_summary(const otf2_rules_report *report, char *buf, unsigned size);

#endif
