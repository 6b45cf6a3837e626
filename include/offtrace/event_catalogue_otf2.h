/**
 * \file event_catalogue_otf2.h
 * \brief The OTF2 columns of the event catalogue (event_catalogue.h) as OTF2
 *        values: region role and paradigm of a class, location type of a
 *        location role. For the code that includes OTF2 (the converter's
 *        writer, the archive reader, the tests' oracle); the recorder and
 *        the collector need only event_catalogue.h.
 */
#ifndef OFFTRACE_EVENT_CATALOGUE_OTF2_H
#define OFFTRACE_EVENT_CATALOGUE_OTF2_H

#include <otf2/otf2.h>

#include "offtrace/event_catalogue.h"

/* The paradigm tokens of the catalogue; OPENMP_TARGET is OTF2 3.1's value,
 * which OTF2 3.0 does not name. */
#define OFFTRACE_OTF2_PARADIGM_OPENMP OTF2_PARADIGM_OPENMP
#define OFFTRACE_OTF2_PARADIGM_OPENMP_TARGET ((OTF2_Paradigm)OFFTRACE_PARADIGM_OPENMP_TARGET)
#define OFFTRACE_OTF2_PARADIGM_MEASUREMENT_SYSTEM OTF2_PARADIGM_MEASUREMENT_SYSTEM
#define OFFTRACE_OTF2_PARADIGM_USER OTF2_PARADIGM_USER
#define OFFTRACE_OTF2_PARADIGM_MPI OTF2_PARADIGM_MPI

/** \brief The region role of class \p c (the default, for classes whose subkind refines it). */
static inline OTF2_RegionRole offtrace_class_role(offtrace_event_class c)
{
    switch (c) {
#define OFFTRACE_CLASS_ROLE(cls, source, name, form, role, paradigm, location, reader, construct, op, nowait, \
                            view, export, report)                                                           \
    case OFFTRACE_CLASS_##cls: return OTF2_REGION_ROLE_##role;
        OFFTRACE_EVENT_CLASSES(OFFTRACE_CLASS_ROLE)
#undef OFFTRACE_CLASS_ROLE
    default: return OTF2_REGION_ROLE_UNKNOWN;
    }
}

/** \brief The paradigm of class \p c. */
static inline OTF2_Paradigm offtrace_class_paradigm(offtrace_event_class c)
{
    switch (c) {
#define OFFTRACE_CLASS_PARADIGM(cls, source, name, form, role, paradigm, location, reader, construct, op, nowait, \
                                view, export, report)                                                           \
    case OFFTRACE_CLASS_##cls: return OFFTRACE_OTF2_PARADIGM_##paradigm;
        OFFTRACE_EVENT_CLASSES(OFFTRACE_CLASS_PARADIGM)
#undef OFFTRACE_CLASS_PARADIGM
    default: return OTF2_PARADIGM_UNKNOWN;
    }
}

/** \brief The OTF2 location type of a location role. */
static inline OTF2_LocationType offtrace_location_type(offtrace_location_role r)
{
    switch (r) {
#define OFFTRACE_LOCATION_TYPE(role, type, space, what) case OFFTRACE_LOC_##role: return OTF2_LOCATION_TYPE_##type;
        OFFTRACE_LOCATION_ROLES(OFFTRACE_LOCATION_TYPE)
#undef OFFTRACE_LOCATION_TYPE
    default: return OTF2_LOCATION_TYPE_UNKNOWN;
    }
}

#endif /* OFFTRACE_EVENT_CATALOGUE_OTF2_H */
