/* results.h - results files: a table's CSV and its metadata sidecar, written atomically as a pair */
#ifndef HARNESS_RESULTS_H
#define HARNESS_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timing.h"

/* Bytes a formatter may write in one CSV cell (with its NUL). */
#define RESULTS_CELL 256

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

/*
 * What a run that was interrupted did not do: its sidecar then says
 * "complete": false and holds "incomplete" {reason, unit, planned,
 * finished, missing: [labels]}, so that compare counts what never ran as
 * missing instead of taking the file for a whole run. The unit is what
 * the run planned: rows, or (sph physics) checks, each of many rows.
 * Every other sidecar says "complete": true.
 */
struct results_incomplete {
	const char *reason;          /* "interrupted by SIGINT" */
	const char *unit;            /* "row" or "check" */
	size_t planned, finished;    /* units the run planned, and finished */
	const char *const *missing;  /* the labels of those that never ran */
	size_t nmissing;
};

/* The labels of planned[0..nplanned) that none of done[0..ndone) matches
 * (each done label takes one planned label of its text), in plan order,
 * into missing (room for nplanned). Returns how many. */
size_t results_missing(const char *const *planned, size_t nplanned, const char *const *done,
		       size_t ndone, const char **missing);

/* Run-wide facts for the sidecar. */
struct results_meta {
	int argc;
	char **argv;
	const struct timing_opts *timing;
	const struct sysinfo_rank *ranks; /* every rank's host and device; NULL: none */
	int nranks;
	const struct skips *skipped;  /* variants the run left out as unable to run here
				       * ("skipped" in the sidecar, skips.h); NULL: not a run */
	const struct results_incomplete *incomplete; /* NULL: the run is complete */
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

/* After results_write_table wrote csv_path: "wrote CSV and SIDECAR" on
 * stdout and, when the sidecar found the machine busy over the run
 * (machine_load, sysinfo.h), one line saying so on stderr. */
void results_say_wrote(const char *csv_path);

/* What a parsed sidecar says of the machine's load when it found it
 * busy ("ran on a busy machine: other processes kept 0.93 of its 2 CPUs
 * busy"), appended to note (len bytes, "; " after what it holds);
 * nothing when the sidecar found it not busy or does not say. */
struct json_in_value;
void results_busy_note(const struct json_in_value *side, char *note, size_t len);

/* Checks the CSV at csv_path against its sidecar. Returns a
 * results_pair_status with one line in msg: for MISMATCH what differs and
 * what to do, for the others a note for the reader ("12 rows, checksum
 * matches its sidecar", "sidecar predates checksums: not checked"). */
int results_pair_check(const char *csv_path, char *msg, size_t msglen);

/* Whether the CSV at csv_path can be checked against its sidecar (its
 * pair matches): 0, or -1 with one line in err saying why it cannot be
 * (no sidecar, or one that records no checksum, or one that stamps
 * another file) and, for the first two, that option takes it as it is. */
int results_require_checked(const char *csv_path, const char *option, char *err, size_t errlen);

/* For tests only: when set, called after the sidecar's commit and before
 * the CSV's; a non-zero return abandons the CSV as a failed write would,
 * so the failure between the two writes can be tested. */
extern int (*results_fault_between_commits)(const char *csv_path);

/* One {"variant", "n", "reps_per_sample", "seconds_per_call": [...]} entry;
 * a row measured several times (repetitions.h) adds "repetitions", one
 * such entry per repetition, seconds_per_call then holding all of theirs. */
void results_json_samples(struct json_out *j, const char *name, size_t n,
			  const struct timing_result *t, int timed);

#endif
