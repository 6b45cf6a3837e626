/**
 * \file view_json.c
 * \brief The zoomable page's data as JSON (format 2: docs/architecture.md,
 *        "The zoomable timeline"), all but the tiles (view_tiles.c): what
 *        the archive is, its rows, legend classes, regions and memory
 *        counters. Times are integer nanoseconds from the trace start.
 *
 * The JSON sits in a <script> element of the page, so no string holds a
 * '<' as such (no "</script>", no "<!--"): it is written \u003c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "view_store.h"

/* Length of the UTF-8 sequence at \p s, or 0 when it is not one. */
static size_t utf8_length(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (!n || s[0] >= 0xf5)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

void ot_view_json_string(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', f);
    while (*s) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', f);
            fputc(*s++, f);
        } else if (*s < 0x20 || *s == '<' || *s == 0x7f) {
            fprintf(f, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, f);
        } else {
            size_t n = utf8_length(s);
            if (n) {
                fwrite(s, 1, n, f);
                s += n;
            } else {
                fputs("\\ufffd", f);
                s++;
            }
        }
    }
    fputc('"', f);
}

static const char *kind_of(ot_tr_location_class k)
{
    switch (k) {
    case OT_TR_HOST_THREAD: return "host thread";
    case OT_TR_KERNEL_STREAM: return "kernel stream";
    case OT_TR_DEVICE_THREAD: return "device thread";
    case OT_TR_DEVICE_QUEUE: return "device queue";
    case OT_TR_RDMA: return "RDMA";
    default: return "other";
    }
}

static void rows(const ot_view *v, FILE *f)
{
    fputs(",\"rows\":[", f);
    for (size_t i = 0; i < v->nrows; i++) {
        const ot_view_row *r = &v->rows[i];
        fprintf(f, "%s{\"label\":", i ? "," : "");
        ot_view_json_string(f, r->label);
        char group[48];
        fprintf(f, ",\"group\":\"%s\"", ot_view_group_name(r, group, sizeof group));
        fprintf(f, ",\"kind\":\"%s\",\"device\":%d,\"levels\":%d", kind_of(r->klass), r->device, r->levels);
        if (r->job) /* an MPI job's archive: its rank, and the device's number in it */
            fprintf(f, ",\"rank\":%u,\"number\":%d", r->rank, r->device_number);
        fputc('}', f);
    }
    fputs("]", f);
}

static void classes(FILE *f)
{
    fputs(",\"classes\":[", f);
    for (int c = 0; c < OT_VC_COUNT; c++) {
        fprintf(f, "%s{\"name\":", c ? "," : "");
        ot_view_json_string(f, ot_view_cat_name((ot_view_cat)c));
        fprintf(f, ",\"colour\":\"%s\"}", ot_view_cat_colour((ot_view_cat)c));
    }
    fputs("]", f);
}

static void regions(const ot_view *v, FILE *f)
{
    fputs(",\"regions\":[", f);
    for (size_t i = 0; i < v->nregions; i++) {
        fprintf(f, "%s{\"name\":", i ? "," : "");
        ot_view_json_string(f, v->region_names[i] ? v->region_names[i] : "");
        fputs(",\"site\":", f);
        ot_view_json_string(f, v->region_sites && v->region_sites[i] ? v->region_sites[i] : "");
        if (v->region_variables && v->region_variables[i]) { /* a data op's variable (issue 15) */
            fputs(",\"variable\":", f);
            ot_view_json_string(f, v->region_variables[i]);
            if (v->region_map_types[i]) {
                fputs(",\"map_type\":", f);
                ot_view_json_string(f, v->region_map_types[i]);
            }
        }
        fprintf(f, ",\"cat\":%d}", v->region_cat[i]);
    }
    fputs("]", f);
}

/* The devices with a row: their location group's name, and whether the
 * device is the host itself (LLVM's host-offload plugin, "generic-64bit":
 * its transfers are memory copies), as device/host_offload.c tells it. */
static void devices(const ot_view *v, FILE *f)
{
    fputs(",\"devices\":[", f);
    int listed = 0;
    for (size_t i = 0; i < v->nrows; i++) {
        const ot_view_row *r = &v->rows[i];
        if (r->device < 0 || r->klass == OT_TR_OTHER_LOCATION)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = v->rows[j].device == r->device && v->rows[j].klass != OT_TR_OTHER_LOCATION;
        if (seen)
            continue;
        fprintf(f, "%s{\"device\":%d,\"name\":", listed++ ? "," : "", r->device);
        ot_view_json_string(f, r->group);
        fprintf(f, ",\"host\":%s}", strstr(r->group, "generic") ? "true" : "false");
    }
    fputs("]", f);
}

static void counters(const ot_view_trace *t, FILE *f)
{
    fputs(",\"counters\":[", f);
    for (size_t i = 0; i < t->ncounters; i++) {
        const ot_view_counter *c = &t->counters[i];
        char device[48];
        if (c->row < t->frame->nrows)
            ot_view_device_name(&t->frame->rows[c->row], device, sizeof device);
        else
            snprintf(device, sizeof device, "device %d", c->device);
        fprintf(f, "%s{\"name\":\"%s memory in use\",\"device\":%d,\"row\":%zu,\"max\":%" PRIu64 "}",
                i ? "," : "", device, c->device, c->row, c->max);
    }
    fputs("]", f);
}

void ot_view_json_head(const ot_view_trace *t, int serve, int complete, FILE *f)
{
    const ot_view *v = t->frame;
    fputs("{\"format\":\"offtrace-view\",\"version\":2,\"title\":", f);
    ot_view_json_string(f, v->title);
    fprintf(f, ",\"duration\":%" PRIu64 ",\"events\":%" PRIu64 ",\"regions_total\":%" PRIu64
               ",\"tile_px\":%u,\"max_level\":%u,\"depth\":%d,\"serve\":%s,\"complete\":%s,\"archive\":",
            v->trace_dur, v->events, t->regions, OT_VIEW_TILE_PX, t->max_level, v->depth, serve ? "true" : "false",
            complete ? "true" : "false");
    ot_view_json_string(f, t->archive);
    if (v->messages || v->messages_undrawn) /* an MPI job (issue 16): its messages, drawn and left out */
        fprintf(f, ",\"messages\":%" PRIu64 ",\"messages_left_out\":%" PRIu64, v->messages, v->messages_undrawn);
    if (t->has_from || t->has_to) {
        uint64_t to = t->has_to && t->to_ns < v->trace_dur ? t->to_ns : v->trace_dur;
        fprintf(f, ",\"open\":[%" PRIu64 ",%" PRIu64 "]", t->has_from ? t->from_ns : 0, to);
    }
    rows(v, f);
    classes(f);
    regions(v, f);
    devices(v, f);
    counters(t, f);
    fputs(",\"tiles\":{", f);
}
