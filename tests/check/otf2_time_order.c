/**
 * \file otf2_time_order.c
 * \brief The one time-ordered OTF2 read the host OpenMP checkers share
 *        (otf2_time_order.h).
 */
#include "otf2_time_order.h"

#include <stdio.h>

int otf2_read_in_time_order(const char *dir, const otf2_time_ordered_read *how)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(path);
    if (!rd)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    int rc = 0;
    uint64_t n;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    how->definitions(gcb);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, how->user);
    if (OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n) != OTF2_SUCCESS)
        rc = -1;
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    size_t locations = how->location_count(how->user);
    for (size_t i = 0; i < locations; i++)
        OTF2_Reader_SelectLocation(rd, how->location_id(how->user, i));
    OTF2_Reader_OpenDefFiles(rd);
    OTF2_Reader_OpenEvtFiles(rd);
    for (size_t i = 0; i < locations; i++) {
        uint64_t id = how->location_id(how->user, i);
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, id);
        if (dr) { /* the mapping tables, if any */
            uint64_t d;
            OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &d);
            OTF2_Reader_CloseDefReader(rd, dr);
        }
        OTF2_Reader_GetEvtReader(rd, id);
    }
    OTF2_Reader_CloseDefFiles(rd);
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *ecb = OTF2_GlobalEvtReaderCallbacks_New();
    how->events(ecb);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, ecb, how->user);
    if (OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n) != OTF2_SUCCESS)
        rc = -1;
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
    return rc;
}
