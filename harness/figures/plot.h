/* plot.h - the chapter's figures from results CSVs, drawn by gnuplot */
#ifndef HARNESS_PLOT_H
#define HARNESS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/csv_table.h"
#include "plot_curves.h"
#include "plot_data.h"
#include "plot_from.h"

/*
 * `harness plot [--suite NAME|all] [--from DIR] [--out DIR] [--compare DIR1 DIR2 ...]`
 *
 * For each suite whose CSV (DIR/<suite>.csv) exists, the rows are turned
 * into a plain data file (whitespace-separated, one block per curve, each
 * block opening with its quoted title; see plot_write_curves) and handed
 * with the published numbers to gnuplot, which runs plots/<suite>.gp and
 * writes <suite>.png (pngcairo) and <suite>.svg. The intermediate files
 * live in a temporary directory that is removed; the figures are copied
 * into the output directory atomically.
 *
 * --from DIR  where the suite CSVs are. Default, per suite: the directory
 *             holding <suite>.csv whose sidecar (<suite>.meta.json) was
 *             measured on this machine (plot_sidecar_matches), the one
 *             whose CSV was modified last, looked for first in results/X/
 *             and results/local/X/, then in the other results/X/Y/ (see
 *             plot_find_from); else results/h200/ (the scaling suites:
 *             results/h200x4/) when it holds <suite>.csv.
 *             The line of each figure says which directory it drew from
 *             and why; a suite missing from a --from DIR is a line
 *             naming what was looked for (scaling-pP.csv: a file per
 *             number of ranks P), under --suite all, else the error.
 * --out DIR   where the figures go (default plots/out, created if needed).
 * --scripts DIR, --published DIR  where the scripts (plots) and the
 *             published numbers (every .csv in results/published) are.
 * --compare DIR1 DIR2 ...  one figure per suite, compare-<suite>.png/.svg,
 *             overlaying the curves of every DIR that holds <suite>.csv
 *             (plots/compare.gp): raw and as a share of each device's
 *             ceiling.
 *
 * A figure gnuplot cannot draw is one line on stderr, naming the script
 * and gnuplot's error; its warnings on a figure it drew, one line too.
 * With --compare, a suite that cannot be compared (the scaling figures,
 * which merge one directory's per-rank files) is one line on stdout.
 *
 * Exit status: 0 all drawn (with --compare: at least one figure drawn);
 * 1 a figure could not be drawn (gnuplot failed, a CSV had no valid timed
 * row); 2 bad input (unknown suite, no CSV,
 * malformed CSV, no gnuplot on PATH, an output directory that cannot be
 * made).
 */

enum plot_status { PLOT_OK = 0, PLOT_FAILED = 1, PLOT_BAD_INPUT = 2 };

extern const struct plot_suite plot_suites[];
extern const size_t plot_suite_count;

/* The suite called name, or NULL. */
const struct plot_suite *plot_suite_find(const char *name);

/* The subcommand: argv[0] is "plot". Returns the exit status. */
int plot_command(int argc, char **argv);

#endif /* HARNESS_PLOT_H */
