/**
 * \file view.c
 * \brief The ot_view object outside its building and drawing: the summary
 *        line the CLI prints, and freeing it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "view_model.h"

void ot_view_print_summary(const ot_view *v, const char *path, FILE *f)
{
    uint64_t arrows = 0, message_arrows = 0;
    for (size_t i = 0; i < v->nflows; i++)
        for (size_t c = 0; c < ot_view_arrow_columns(v); c++) {
            int drawn = v->flows[i].cells[c].count != 0;
            if (v->flows[i].kind == OT_VIEW_MESSAGE)
                message_arrows += drawn;
            else
                arrows += drawn;
        }
    char window[112];
    ot_view_format_window(v, window, sizeof window);
    fprintf(f, "offtrace: wrote %s: %zu rows, %s, %llu regions as bars, %llu merged into pixel marks, "
               "%llu transfers as %llu arrows",
            path, v->nrows, window, (unsigned long long)v->regions_drawn,
            (unsigned long long)v->regions_merged, (unsigned long long)v->transfers, (unsigned long long)arrows);
    /* an MPI job (issue 16): its messages, and those with a side missing (a rank that died, a part lost) */
    if (v->messages || v->messages_undrawn)
        fprintf(f, ", %llu MPI messages as %llu arrows", (unsigned long long)v->messages,
                (unsigned long long)message_arrows);
    if (v->messages_undrawn)
        fprintf(f, " (%llu left out: their send or receive is not in the archive)",
                (unsigned long long)v->messages_undrawn);
    fputc('\n', f);
}

void ot_view_free(ot_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->nrows; i++) {
        free(v->rows[i].label);
        free(v->rows[i].group);
        for (int l = 0; l < OT_VIEW_MAX_DEPTH; l++) {
            free(v->rows[i].level[l].bars);
            free(v->rows[i].level[l].cells);
        }
    }
    for (size_t i = 0; i < v->nregions; i++) {
        free(v->region_names[i]);
        if (v->region_sites)
            free(v->region_sites[i]);
        if (v->region_variables)
            free(v->region_variables[i]);
        if (v->region_map_types)
            free(v->region_map_types[i]);
    }
    free(v->region_variables);
    free(v->region_map_types);
    free(v->region_sites);
    for (size_t i = 0; i < v->nflows; i++)
        free(v->flows[i].cells);
    free(v->rows);
    free(v->region_names);
    free(v->region_cat);
    free(v->flows);
    free(v->title);
    free(v);
}
