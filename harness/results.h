/* results.h - result rows: CSV columns, metadata sidecar, table on screen */
#ifndef HARNESS_RESULTS_H
#define HARNESS_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../variants/registry.h"
#include "core/timing.h"
#include "nbody/validate.h"

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
	/* Several ranks (the distributed variants; 1 and NAN/0 otherwise): */
	int ranks;               /* MPI ranks the row ran on */
	int gpus;                /* GPUs it used (0 on CPUs) */
	char rank_devices[200];  /* every rank's device, "NAME|NAME" ("" for one device) */
	double rank_time_min, rank_time_avg, rank_time_max; /* s per call across ranks (medians) */
	double comm_time;        /* s per exchange, the collective timed alone */
	double comm_bytes;       /* bytes one exchange delivers to every rank */
	double single_diff;      /* max |a - a_one_device| / sum_j |f_ij| over the checked bodies */
	double single_bound;     /* the bound it must stay within (validate_single_bound) */
	int grid_rows, grid_cols; /* dist-2d's rank grid (0 otherwise) */
	double rank_sent, rank_recv; /* bytes a rank's exchanges send and receive per evaluation */
};

/* A row whose SM clock fell by more than this fraction while it was timed
 * is flagged (clock_dropped = 1): its figure is not the chip's best. */
#define RESULTS_CLOCK_DROP 0.03

bool results_clock_dropped(const struct result_row *r);

/* Derived figures; NAN when the row is not timed. */
double results_comm_share(const struct result_row *r);  /* comm_time / time, % */
double results_algbw(const struct result_row *r);       /* GB/s, as nccl-tests */
double results_busbw(const struct result_row *r);       /* rank_sent / comm_time */
double results_interactions_per_s(const struct result_row *r);
double results_gflops(const struct result_row *r);
double results_steps_per_s(const struct result_row *r); /* NAN unless steps_mode */

/* Bytes a formatter may write in one CSV cell (with its NUL). */
#define RESULTS_CELL 256

/* Column names (units in their suffixes) and their count. */
extern const char *const results_columns[];
extern const size_t results_column_count;

/* Formats every column of r into cells[results_column_count][RESULTS_CELL];
 * untimed rows leave the timing cells empty. */
void results_format(const struct result_row *r, char (*cells)[RESULTS_CELL]);

/* Where the sidecar of a CSV goes: "x.csv" -> "x.meta.json". Caller frees. */
char *results_sidecar_path(const char *csv_path);

struct sysinfo_rank;
struct skips;

/* What the sidecar's host object says of the CPU kernels (cpu_simd_isa,
 * cpu_simd_threads), asked each time a sidecar is written, since a run may
 * change its threads: the program hands the two functions over at start,
 * so that this layer does not reach into a problem's kernels. Where none
 * were handed over (a test's own writer) the two keys are left out. */
struct results_cpu_facts {
	const char *(*simd_isa)(void);
	int (*simd_threads)(void);
};
void results_set_cpu_facts(const struct results_cpu_facts *facts);

/* Run-wide facts for the sidecar. */
struct results_meta {
	int argc;
	char **argv;
	const struct timing_opts *timing;
	const struct sysinfo_rank *ranks; /* every rank's host and device; NULL: none */
	int nranks;
	const struct skips *skipped;  /* variants the run left out as unable to run here
				       * ("skipped" in the sidecar, skips.h); NULL: not a run */
};

struct json_out;

/* Any table of results: its columns, a formatter for row r, and the
 * problem's own part of the sidecar. */
struct results_table {
	const char *schema;           /* "nbody-harness-results/1", ... */
	const char *const *columns;
	size_t ncols, nrows;
	const void *rows;             /* for the callbacks */
	void (*format)(const void *ctx, size_t row, char (*cells)[RESULTS_CELL]);
	void (*json)(struct json_out *j, const void *ctx); /* may be NULL */
	const void *ctx;
};

/* Writes the table to csv_path and its sidecar (host, GPUs, build, timing
 * rules, then table->json), each atomically: either both files appear
 * complete or neither changes. Returns 0, or -1 with one line in err. */
int results_write_table(const char *csv_path, const struct results_table *table,
			const struct results_meta *meta, char *err, size_t errlen);

/*
 * A CSV and its sidecar are a pair: the sidecar records the CSV's FNV-1a
 * 64-bit checksum (offset basis 0xcbf29ce484222325, prime 0x100000001b3,
 * over every byte of the file) as "csv_fnv1a64" (16 hex digits), its data
 * rows as "csv_rows" and its size as "csv_bytes". results_write_files
 * commits the sidecar first, then the CSV, so a failure between the two
 * leaves the new sidecar beside the old CSV (or beside none), which
 * results_pair_check gives away; never a CSV without a stamp of its own.
 */
uint64_t results_fnv1a64(const void *data, size_t len);

/* What a sidecar records of its CSV. */
struct results_stamp {
	uint64_t fnv1a64;
	size_t rows, bytes;
};

/* The stamp's three keys into an open JSON object. */
void results_json_stamp(struct json_out *j, const struct results_stamp *st);

/* The writing under results_write_table, for tables made otherwise:
 * write_csv(fp, ctx) writes the whole CSV (0, or -1 on an I/O error),
 * write_sidecar(fp, ctx, stamp) the sidecar, which must record the stamp
 * (results_json_stamp); both files are written atomically, the sidecar
 * first, so either both appear complete or neither changes. Returns 0,
 * or -1 with one line in err. */
int results_write_files(const char *csv_path, int (*write_csv)(FILE *fp, void *ctx),
			void (*write_sidecar)(FILE *fp, void *ctx, const struct results_stamp *stamp),
			void *ctx, char *err, size_t errlen);

enum results_pair_status {
	RESULTS_PAIR_MISMATCH = -1,  /* the sidecar stamps another CSV (or one is unreadable) */
	RESULTS_PAIR_OK = 0,         /* checksum and row count match */
	RESULTS_PAIR_UNSTAMPED = 1,  /* the sidecar predates checksums: taken as is */
	RESULTS_PAIR_NO_SIDECAR = 2, /* a CSV alone (hand-made, a test fixture): taken as is */
};

/* Checks the CSV at csv_path against its sidecar. Returns a
 * results_pair_status with one line in msg: for MISMATCH what differs and
 * what to do, for the others a note for the reader ("12 rows, checksum
 * matches its sidecar", "sidecar predates checksums: not checked"). */
int results_pair_check(const char *csv_path, char *msg, size_t msglen);

/* For tests only: when set, called after the sidecar's commit and before
 * the CSV's; a non-zero return abandons the CSV as a failed write would,
 * so the failure between the two writes can be tested. */
extern int (*results_fault_between_commits)(const char *csv_path);

/* One {"variant", "n", "reps_per_sample", "seconds_per_call": [...]} entry. */
void results_json_samples(struct json_out *j, const char *name, size_t n,
			  const struct timing_result *t, int timed);

/* The N-body rows through results_write_table. */
int results_write(const char *csv_path, const struct result_row *rows, size_t nrows,
		  const struct results_meta *meta, char *err, size_t errlen);

/* Prints the human table (header, one line per row) to fp. */
void results_print_table(FILE *fp, const struct result_row *rows, size_t nrows);

#endif
