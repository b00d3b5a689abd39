/* export.h - a results CSV in another tool's format (Google Benchmark JSON) */
#ifndef HARNESS_EXPORT_H
#define HARNESS_EXPORT_H

#include <stdio.h>

#include "core/csv_table.h"

/*
 * `harness export --format gbench FILE.csv [--out FILE.json]`
 *
 * Writes FILE.csv (any kind compare takes: N-body or SPH rows) as Google
 * Benchmark's JSON, so services that track that format over commits can
 * read the harness's numbers: a "context" object (date, host_name,
 * num_cpus and the other keys Google Benchmark writes, from the sidecar
 * when there is one, plus the harness's schema and git commit)
 * and a "benchmarks" array with one entry per valid, timed row:
 *   name = run_name   "<kind>/<variant>/<key>:<value>/..." from the
 *                     kind's join columns ("nbody/auto/n:16384/...")
 *   run_type          "iteration"
 *   iterations        samples x calls per sample
 *   real_time, cpu_time  the median seconds per call, in time_unit
 *                     (ns, us, ms or s, whichever keeps it >= 1); cpu_time
 *                     is the same wall time (GPU work has no CPU time)
 *   label             the row's device_name
 *   counters          the kind's figures as numbers (interactions_per_s,
 *                     steps_per_s, per-phase ms, noise_pct, ...)
 * Rows that failed validation or were not timed are left out and counted
 * in context.skipped_rows. Output goes to --out (atomically) or stdout.
 * Exit status: 0, or 2 for bad input (an unknown option or format, an
 * unreadable, malformed or mismatched CSV), with one line on stderr.
 */
int export_command(int argc, char **argv);

/* Writes t (of the kind compare_kind_of finds) as Google Benchmark JSON;
 * sidecar is the parsed sidecar or NULL. Returns how many rows were
 * written, or -1 with err when t is of no known kind or a cell is
 * malformed. */
struct json_in_value;
long export_gbench(FILE *fp, const struct csv_table *t, const struct json_in_value *sidecar, char *err,
		   size_t errlen);

#endif
