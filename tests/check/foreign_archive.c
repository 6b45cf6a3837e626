#include "foreign_archive.h"

#include <otf2/otf2.h>

static OTF2_FlushType before_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *callerData,
                                   bool final)
{
    return OTF2_FLUSH;
}

static OTF2_TimeStamp after_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    return 0;
}

static void write_definitions(OTF2_GlobalDefWriter *g)
{
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 10, 11, 0);
    const char *strings[] = {"", "main", "node", "rank 0", "MPI_COMM_WORLD"};
    for (uint32_t i = 0; i < 5; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 3, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, 3, OTF2_LOCATION_TYPE_CPU_THREAD, 3, 0);
}

int write_foreign_archive(const char *dir)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a)
        return -1;
    OTF2_FlushCallbacks flush = {before_flush, after_flush};
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, "other-tool 1.0");
    OTF2_Archive_OpenEvtFiles(a);
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, 0);
    OTF2_EvtWriter_Enter(w, NULL, 10, 0);
    OTF2_EvtWriter_MpiSend(w, NULL, 15, 1, 0, 7, 64);
    OTF2_EvtWriter_Leave(w, NULL, 20, 0);
    OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, 0));
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    write_definitions(g);
    OTF2_Archive_CloseGlobalDefWriter(a, g);
    return OTF2_Archive_Close(a) == OTF2_SUCCESS ? 0 : -1;
}
