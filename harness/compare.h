/* compare.h - two results CSVs side by side: faster, slower or within the noise */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "csv_table.h"

/*
 * `harness compare BASE.csv NEW.csv [--threshold PCT] [--across-devices]`
 *
 * Rows are joined on (variant, n, tile_p, threads_q, unroll, bodies_k,
 * precision, mode). The figure compared is interactions_per_s, or
 * steps_per_s in steps mode. The rule, for base b and new v with relative
 * noise nb and nv (the rows' noise_pct: relative standard deviation of
 * their samples; an empty cell counts as 0):
 *
 *   change = 100 (v / b - 1) %        noise = sqrt(nb^2 + nv^2) %
 *   same    when |change| <= noise
 *   faster  when change > noise
 *   slower  when change < -noise; a *regression* when -change > noise + PCT
 *
 * Noises add in quadrature because the two measurements are independent.
 * The sample standard deviation, not the standard error of the median, is
 * used: runs on different days differ by more than one run's samples
 * suggest, so the wider band avoids false alarms.
 *
 * Both files must come from the same device (device_name of every joined
 * pair equal) unless across_devices is set; then each pair is also judged
 * on pct_of_ceiling (the share of its own device's ceiling, which has the
 * same relative noise), and that judgement, being the one that says
 * whether code got better or worse on a different chip, is the one that
 * counts for the exit status. Pairs without a ceiling (CPU rows) count by
 * their raw figures.
 */

/* Exit statuses of `harness compare`. */
enum compare_status {
	COMPARE_OK = 0,        /* no regression */
	COMPARE_REGRESSED = 1, /* a row is slower by more than the threshold beyond its noise */
	COMPARE_BAD_INPUT = 2, /* unreadable or malformed file, bad option, devices differ */
};

#define COMPARE_DEFAULT_THRESHOLD_PCT 5.0

enum compare_verdict {
	COMPARE_SAME,      /* the change is within the two rows' combined noise */
	COMPARE_FASTER,
	COMPARE_SLOWER,
	COMPARE_UNCOMPARED, /* a side failed validation or was not timed */
	COMPARE_ONLY_BASE,
	COMPARE_ONLY_NEW,
};

struct compare_opts {
	double threshold_pct; /* PCT above; >= 0 */
	bool across_devices;
};

/* What rows are joined on. Strings are owned by the report. */
struct compare_key {
	char *variant, *precision, *mode;
	long long n, tile_p, threads_q, unroll, bodies_k;
};

/* One side of a joined row, as its CSV states it. */
struct compare_side {
	size_t line;           /* line of the row in its file */
	char *device_name;     /* owned by the report */
	bool valid;            /* passed validation */
	double value;          /* interactions_per_s, or steps_per_s in steps mode; NAN: not timed */
	double noise_pct;      /* 0 when the cell is empty */
	double pct_of_ceiling; /* NAN when the cell is empty */
};

/* The rule above applied to one pair of figures. */
struct compare_judgement {
	enum compare_verdict verdict;
	bool regression;  /* slower by more than threshold beyond the noise */
	double ratio;     /* new / base */
	double noise_pct; /* combined noise */
};

struct compare_entry {
	struct compare_key key;
	bool in_base, in_new;
	struct compare_side base, new;
	struct compare_judgement raw;     /* on value */
	struct compare_judgement ceiling; /* on pct_of_ceiling; UNCOMPARED without both */
	bool counts_ceiling;              /* the exit status follows ceiling, not raw */
};

#define COMPARE_NOTE_LEN 512

struct compare_report {
	char notes[2][COMPARE_NOTE_LEN]; /* BASE's and NEW's pair against its sidecar (compare_files) */
	struct compare_entry *entries;   /* base order, then rows only in NEW */
	size_t count;
	struct compare_opts opts;
	size_t faster, same, slower, regressions, only_base, only_new, uncompared;
};

/* Judges new against base (both > 0) with their noises (percent, >= 0). */
struct compare_judgement compare_judge(double base, double base_noise_pct, double new,
				       double new_noise_pct, double threshold_pct);

/*
 * Joins the rows of two results tables and judges every pair. Returns 0
 * with *out filled (free with compare_report_free), or -1 with one line in
 * err ("path:LINE: column 'x': ..." or "path:LINE: no column 'x' ...") for
 * a missing column, a malformed cell, a key repeated within one file, or
 * (without across_devices) a pair measured on different devices.
 */
int compare_rows(const struct csv_table *base, const struct csv_table *new,
		 const struct compare_opts *o, struct compare_report *out, char *err,
		 size_t errlen);

/* Reads both files and calls compare_rows. Returns 0, or -1 with err. */
int compare_files(const char *base_path, const char *new_path, const struct compare_opts *o,
		  struct compare_report *out, char *err, size_t errlen);

/* COMPARE_REGRESSED when any entry is a regression that counts, else COMPARE_OK. */
int compare_exit_status(const struct compare_report *r);

/* Prints the table, the rule and a summary line. */
void compare_print(FILE *fp, const struct compare_report *r, const char *base_path,
		   const char *new_path);

/* Frees what r holds and leaves it empty; harmless to repeat. */
void compare_report_free(struct compare_report *r);

/* The subcommand: argv[0] is "compare". Returns the exit status. */
int compare_command(int argc, char **argv);

#endif /* HARNESS_COMPARE_H */
