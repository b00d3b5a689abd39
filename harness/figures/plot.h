/* plot.h - the chapter's figures from results CSVs, drawn by gnuplot */
#ifndef HARNESS_PLOT_H
#define HARNESS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/csv_table.h"
#include "plot_curves.h"

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

/* This machine as the default --from matches it against sidecars. */
struct plot_machine {
	const char *gpu; /* GPU 0's name; NULL or "" on a machine without a GPU */
	const char *cpu; /* the CPU model, as sysinfo_host_read gives it */
};

/* Why the default --from took its directory. */
enum plot_from_why {
	PLOT_FROM_NONE = -1,   /* nothing fits */
	PLOT_FROM_MATCH = 0,   /* measured on this machine (its GPU, or its CPU without one) */
	PLOT_FROM_DEFAULT = 1, /* nothing was: results/h200 (scaling: results/h200x4), the default */
};

/*
 * The default --from for suite under root (normally "results") on machine
 * m: the directory whose <suite>.csv has a sidecar that matches m
 * (plot_sidecar_matches), the one modified last. First among root/X/ and
 * root/local/X/ (a machine's results, and the user's own runs); only
 * where none of them matches, among the other root/X/Y/ (sub-folders such
 * as tc-splits/, ab/ or sph-walls/ hold special-purpose runs). Else
 * root/h200 when it holds <suite>.csv. Writes the directory to out and
 * returns PLOT_FROM_MATCH or PLOT_FROM_DEFAULT; PLOT_FROM_NONE (out empty)
 * when none fits.
 */
enum plot_from_why plot_find_from(const char *root, const char *suite,
				  const struct plot_machine *m, char *out, size_t outlen);

/* The same with root/fallback_dir in place of root/h200: "h200x4" for
 * the scaling suites' per-rank files, where the scaling model is too. */
enum plot_from_why plot_find_from_or(const char *root, const char *suite,
				     const struct plot_machine *m, const char *fallback_dir,
				     char *out, size_t outlen);

/*
 * Whether the sidecar of csv_path was measured on machine m. With a GPU:
 * one of its "gpus" names equals m's GPU. Without one: its host.cpu_model
 * equals m's CPU and it records no GPU at all (its rows ran on that CPU
 * alone). A GPU host's sidecar lists its GPUs even for rows that ran on its
 * CPU, and shares its CPU's name with many machines ("Intel(R) Xeon(R)
 * Processor" of a virtual machine), so a machine without a GPU never takes
 * GPU results for its own by the CPU's name. False without a sidecar.
 */
bool plot_sidecar_matches(const char *csv_path, const struct plot_machine *m);

/*
 * Why a figure without --from was drawn from the CSV at csv, as the
 * parenthesis its line carries: " (newest measured on this machine's GPU,
 * NVIDIA H200)", " (newest measured on this CPU, AMD EPYC, without a GPU)",
 * or, for PLOT_FROM_DEFAULT, " (the default: nothing under results/
 * measured on this machine's GPU, NVIDIA B200; these on NVIDIA H200)"
 * naming the machine the CSV's sidecar records. Writes into out.
 */
void plot_from_says(enum plot_from_why why, const struct plot_machine *m, const char *csv,
		    char *out, size_t outlen);

/* The subcommand: argv[0] is "plot". Returns the exit status. */
int plot_command(int argc, char **argv);

#endif /* HARNESS_PLOT_H */
