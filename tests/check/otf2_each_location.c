#include "otf2_each_location.h"

int otf2_read_each_location(OTF2_Reader *reader, const otf2_each_location *each,
                            const OTF2_EvtReaderCallbacks *callbacks)
{
    for (size_t i = 0; i < each->count; i++)
        OTF2_Reader_SelectLocation(reader, each->id(each->user, i));
    /* local definitions hold the mappings of local ids to global ones, if there are any */
    if (OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS) {
        for (size_t i = 0; i < each->count; i++) {
            OTF2_DefReader *d = OTF2_Reader_GetDefReader(reader, each->id(each->user, i));
            if (d) {
                uint64_t n;
                OTF2_Reader_ReadAllLocalDefinitions(reader, d, &n);
                OTF2_Reader_CloseDefReader(reader, d);
            }
        }
        OTF2_Reader_CloseDefFiles(reader);
    }
    if (OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < each->count && rc == 0; i++) {
        OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(reader, each->id(each->user, i));
        if (!e) {
            rc = -1;
            break;
        }
        if (each->begin)
            each->begin(each->user, i);
        OTF2_Reader_RegisterEvtCallbacks(reader, e, callbacks, each->user);
        uint64_t read = 0;
        if (OTF2_Reader_ReadAllLocalEvents(reader, e, &read) != OTF2_SUCCESS)
            rc = -1;
        else if (each->end)
            each->end(each->user, i, read);
        OTF2_Reader_CloseEvtReader(reader, e);
    }
    OTF2_Reader_CloseEvtFiles(reader);
    return rc;
}
