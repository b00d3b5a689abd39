/* results.h - result rows: CSV columns, metadata sidecar, table on screen */
#ifndef HARNESS_RESULTS_H
#define HARNESS_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../variants/registry.h"
#include "timing.h"
#include "validate.h"

/* The chapter's count (Listing 31-1): 9 additions, 9 multiplications, one
 * square root and one division per interaction. */
#define RESULTS_FLOPS_PER_INTERACTION 20

/* One (variant, N, parameters, device) measurement. */
struct result_row {
	const struct variant *v;
	const char *device_name; /* CPU model or GPU name */
	size_t n;
	const char *ic;          /* "plummer", "cube", "twobody" or a file path */
	uint64_t seed;
	double eps;
	bool steps_mode;         /* timed whole leapfrog steps, not forces only */
	double dt;
	struct validation val;
	bool timed;              /* t holds a measurement (only when val.pass) */
	struct timing_result t;
	double clock_start_mhz;  /* GPU SM clock before and after timing (NVML); */
	double clock_end_mhz;    /* NAN when unknown (CPU rows, no NVML) */
	double ceiling;          /* interactions/s the device's arithmetic allows; NAN if unknown */
};

/* A row whose SM clock fell by more than this fraction while it was timed
 * is flagged (clock_dropped = 1): its figure is not the chip's best. */
#define RESULTS_CLOCK_DROP 0.03

bool results_clock_dropped(const struct result_row *r);

/* Derived figures; NAN when the row is not timed. */
double results_interactions_per_s(const struct result_row *r);
double results_gflops(const struct result_row *r);
double results_steps_per_s(const struct result_row *r); /* NAN unless steps_mode */

/* Column names (units in their suffixes) and their count. */
extern const char *const results_columns[];
extern const size_t results_column_count;

/* Formats every column of r into cells[results_column_count][64]; untimed
 * rows leave the timing cells empty. */
void results_format(const struct result_row *r, char (*cells)[64]);

/* Where the sidecar of a CSV goes: "x.csv" -> "x.meta.json". Caller frees. */
char *results_sidecar_path(const char *csv_path);

/* Run-wide facts for the sidecar. */
struct results_meta {
	int argc;
	char **argv;
	const struct timing_opts *timing;
};

struct json_out;

/* Any table of results: its columns, a formatter for row r, and the
 * problem's own part of the sidecar. */
struct results_table {
	const char *schema;           /* "nbody-harness-results/1", ... */
	const char *const *columns;
	size_t ncols, nrows;
	const void *rows;             /* for the callbacks */
	void (*format)(const void *ctx, size_t row, char (*cells)[64]);
	void (*json)(struct json_out *j, const void *ctx); /* may be NULL */
	const void *ctx;
};

/* Writes the table to csv_path and its sidecar (host, GPUs, build, timing
 * rules, then table->json), each atomically: either both files appear
 * complete or neither changes. Returns 0, or -1 with one line in err. */
int results_write_table(const char *csv_path, const struct results_table *table,
			const struct results_meta *meta, char *err, size_t errlen);

/* The writing under results_write_table, for tables made otherwise:
 * write_csv(fp, ctx) writes the whole CSV (0, or -1 on an I/O error),
 * write_sidecar(fp, ctx) the sidecar; both files are written atomically,
 * the sidecar first, so either both appear complete or neither changes.
 * Returns 0, or -1 with one line in err. */
int results_write_files(const char *csv_path, int (*write_csv)(FILE *fp, void *ctx),
			void (*write_sidecar)(FILE *fp, void *ctx), void *ctx, char *err,
			size_t errlen);

/* One {"variant", "n", "reps_per_sample", "seconds_per_call": [...]} entry. */
void results_json_samples(struct json_out *j, const char *name, size_t n,
			  const struct timing_result *t, int timed);

/* The N-body rows through results_write_table. */
int results_write(const char *csv_path, const struct result_row *rows, size_t nrows,
		  const struct results_meta *meta, char *err, size_t errlen);

/* Prints the human table (header, one line per row) to fp. */
void results_print_table(FILE *fp, const struct result_row *rows, size_t nrows);

#endif
