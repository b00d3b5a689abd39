/* plot_data.h - a figure's data: the curves of results tables' rows, and the documents' published numbers */
#ifndef HARNESS_PLOT_DATA_H
#define HARNESS_PLOT_DATA_H

#include <stdio.h>

#include "../core/csv_table.h"
#include "plot_curves.h"

#define PLOT_PUBLISHED_SCHEMA "nbody-harness-published/1"

/*
 * Adds the valid, timed rows of t (a results table) to c as points of the
 * suite's curves. With tag NULL a curve is titled by its key ("N = 1024",
 * "unrolled-u4"); otherwise by its rows' device, the tag and the key
 * ("NVIDIA H200 [results/h200]: auto" with tag " [results/h200]"), so
 * several tables can share one figure. Returns 0, or -1 with one line in
 * err for a missing column or a malformed cell.
 */
int plot_collect(const struct plot_suite *s, const struct csv_table *t, const char *tag,
		 struct plot_curves *c, char *err, size_t errlen);

/*
 * Writes every row of every results/published-style CSV in dir as one line
 * '"source" "quantity" value n "unit" "device"' (n NaN when empty), for the
 * figure scripts to pick from. Returns 0, or -1 with err.
 */
int plot_write_published(FILE *fp, const char *dir, char *err, size_t errlen);

#endif /* HARNESS_PLOT_DATA_H */
